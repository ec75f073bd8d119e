// Unit tests of the web client's pure functions, in Node (`node --test`), run by
// tests/tests/web.rs. The browser journey (journey.mjs) covers the rest in Chromium.

import assert from "node:assert/strict";
import { test } from "node:test";

import { pageOf, topicSlug, withPage } from "../../functions/web/client/community.js";
import { digestFigures, digestHref } from "../../functions/web/client/digests.js";
import { nextAfter, reasonDetails } from "../../functions/web/client/http.js";
import { ago, alertMoves, backoff, clockTime, fromLocalInput, incidentAnalysisContent, incidentMoves, logDetails, logInstant, matcherWords, numberOrAbsent, parseLabels, parseTags, sectionOf, silencedBy, timelineHref, timelineQuery, toLocalInput } from "../../functions/web/client/incidents.js";
import { chosenRoles, claimsOf, opensIncidents, pageSize, tokenRoles } from "../../functions/web/client/roles.js";
import { navigate, sameOriginPath } from "../../functions/web/client/router.js";

const ORIGIN = "https://news.example.com";

test("paths on this origin are kept, normalised", () => {
  for (const [target, expected] of [
    ["/", "/"],
    ["/saved", "/saved"],
    ["/sources/x?page=2", "/sources/x?page=2"],
    ["/articles/a%2Fb#top", "/articles/a%2Fb#top"],
    ["/api/users/users/me", "/api/users/users/me"],
    ["/a/../settings", "/settings"],
    ["/%09/evil.example", "/%09/evil.example"],
    ["/%5Cevil.example", "/%5Cevil.example"],
  ]) {
    assert.equal(sameOriginPath(target, ORIGIN), expected, target);
  }
});

test("anything that could leave the origin is refused", () => {
  for (const target of [
    "",
    "saved",
    "//evil.example/x",
    "/\\evil.example/x",
    "/\\/evil.example",
    "\\\\evil.example",
    "\\/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r/evil.example",
    " //evil.example",
    "/..//evil.example",
    "/a/..//evil.example/x",
    "/x\u0000",
    "/x\u007f",
    "https://evil.example/",
    "http://news.example.com.evil.example/",
    "javascript:alert(1)",
    "data:text/html,x",
  ]) {
    assert.equal(sameOriginPath(target, ORIGIN), null, JSON.stringify(target));
  }
});

test("an accepted path stays on the origin when used again as a link", () => {
  const tricky = ["/\\evil.example", "/\t/evil.example", "//evil.example", "/./\\evil.example", "/..//evil.example", "/.%2e//evil.example", "/%2e%2e//evil.example", "/a/b/../..//evil.example", "/;/evil.example", "/@evil.example", "/:@evil.example"];
  for (const target of tricky) {
    const kept = sameOriginPath(target, ORIGIN);
    if (kept !== null) {
      assert.equal(new URL(kept, ORIGIN).origin, ORIGIN, target);
      assert.equal(sameOriginPath(kept, ORIGIN), kept, target);
    }
  }
});

test("navigate never leaves the origin, even to a server path", () => {
  /** @type {string[]} */
  const assigned = [];
  /** @type {string[]} */
  const pushed = [];
  const fake = {
    location: { origin: ORIGIN, pathname: "/", search: "", assign: (/** @type {string} */ url) => assigned.push(url) },
    history: { pushState: (/** @type {unknown} */ _s, /** @type {string} */ _t, /** @type {string} */ url) => pushed.push(url), replaceState() {} },
  };
  Object.assign(globalThis, { window: fake });
  try {
    navigate("/\\evil.example/api/users/x");
    navigate("//evil.example/api/x");
    navigate("/api/users/x");
  } finally {
    Reflect.deleteProperty(globalThis, "window");
  }
  assert.deepEqual(assigned, [`${ORIGIN}/api/users/x`]);
  assert.deepEqual(pushed, ["/", "/"]);
});

test("topic slugs are the API's: letters and digits of any script, # and + spelled, other runs one dash", () => {
  for (const [name, slug] of [
    ["Public Transport", "public-transport"],
    ["  Rust -- Tips! ", "rust-tips"],
    ["C++ & Go 2", "c-plus-plus-go-2"],
    ["C#", "c-sharp"],
    ["#rust", "rust"],
    ["Cafés", "cafes"],
    ["Cafe\u0301", "cafe"],
    ["Straße", "strasse"],
    ["日本", "日本"],
    ["ＡＢＣ １２", "abc-12"],
    ["हिन्दी", "हिन्दी"],
    ["public-transport", "public-transport"],
    ["!!!", ""],
  ]) {
    assert.equal(topicSlug(name), slug, name);
  }
});

test("the community's validation message is split into field errors only when every part names a field", () => {
  assert.deepEqual(reasonDetails("Validation failed: title: must be 5 to 100 characters; topics: must be at most 10 names"), [
    "title: must be 5 to 100 characters",
    "topics: must be at most 10 names",
  ]);
  assert.deepEqual(reasonDetails("Validation failed: text: must be 1 to 500 characters"), ["text: must be 1 to 500 characters"]);
  assert.deepEqual(reasonDetails("Validation failed: title: too short; and then something else"), []);
  assert.deepEqual(reasonDetails("Post not found"), []);
});

test("community list links keep their query and leave out the first page", () => {
  assert.equal(withPage("/community", {}, 0), "/community");
  assert.equal(withPage("/community/search", { q: "rust & go" }, 2), "/community/search?q=rust+%26+go&page=2");
  assert.equal(pageOf(new URLSearchParams("page=3")), 3);
  assert.equal(pageOf(new URLSearchParams("page=-1")), 0);
  assert.equal(pageOf(new URLSearchParams("page=x")), 0);
  assert.equal(pageOf(new URLSearchParams("page=99")), 49);
});

test("a digest's figures and link", () => {
  const digest = { eventCount: 1, sourceCount: 2, readTimeMinutes: 1 };
  assert.equal(digestFigures(/** @type {any} */ (digest)), "1 story · 2 sources · 1 min read");
  assert.equal(digestFigures(/** @type {any} */ ({ eventCount: 3, sourceCount: 1, readTimeMinutes: 4 })), "3 stories · 1 source · 4 min read");
  assert.equal(digestHref("a/b"), "/digests/a%2Fb");
});

test("the timeline's filters make its URL, empty ones left out, the cursor kept apart", () => {
  const query = timelineQuery(new URLSearchParams("serviceName=checkout&severity=ERROR&type=&from=2026-03-02T10%3A00%3A00.000Z&limit=4&cursor=abc&other=x"));
  assert.deepEqual(query, { serviceName: "checkout", severity: "ERROR", from: "2026-03-02T10:00:00.000Z", limit: "4", cursor: "abc" });
  assert.equal(timelineHref(query), "/incidents/logs?serviceName=checkout&severity=ERROR&from=2026-03-02T10%3A00%3A00.000Z&limit=4");
  assert.equal(timelineHref(query, "next one"), "/incidents/logs?serviceName=checkout&severity=ERROR&from=2026-03-02T10%3A00%3A00.000Z&limit=4&cursor=next+one");
  assert.equal(timelineHref({}), "/incidents/logs");
});

test("a datetime-local value is the same instant after the round trip; text that is not a time is sent as typed", () => {
  const iso = "2026-03-02T10:15:30.000Z";
  assert.equal(fromLocalInput(toLocalInput(iso)), iso);
  assert.equal(toLocalInput("not a time"), "");
  assert.equal(toLocalInput(undefined), "");
  assert.equal(fromLocalInput("  "), "");
  assert.equal(fromLocalInput("yesterday"), "yesterday");
});

test("a log id names the log's millisecond; anything else names none", () => {
  assert.equal(logInstant(`1772446530123-${"a".repeat(32)}`), "2026-03-02T10:15:30.123Z");
  assert.equal(logInstant("1772446530123"), null);
  assert.equal(logInstant(`1772446530123-${"A".repeat(32)}`), null);
  assert.equal(logInstant(`x${"1".repeat(12)}-${"a".repeat(32)}`), null);
});

test("incidents and alerts only move forward; a resolved one has no move", () => {
  assert.deepEqual(incidentMoves("ACTIVE"), ["ACKNOWLEDGED", "RESOLVED"]);
  assert.deepEqual(incidentMoves("ACKNOWLEDGED"), ["RESOLVED"]);
  assert.deepEqual(incidentMoves("RESOLVED"), []);
  assert.deepEqual(alertMoves("OPEN"), ["ACKNOWLEDGED", "RESOLVED"]);
  assert.deepEqual(alertMoves("ACKNOWLEDGED"), ["RESOLVED"]);
  assert.deepEqual(alertMoves("RESOLVED"), []);
});

test("every incident page has its tab; an item's page is its list's", () => {
  assert.equal(sectionOf("/incidents"), "/incidents");
  assert.equal(sectionOf("/incidents/0123456789abcdef0123456789abcdef"), "/incidents");
  assert.equal(sectionOf("/incidents/logs"), "/incidents/logs");
  assert.equal(sectionOf("/incidents/rules/default"), "/incidents/rules");
  assert.equal(sectionOf("/incidents/logbook/some-id"), "/incidents/logbook");
  assert.equal(sectionOf("/incidents/runbooks"), "/incidents/runbooks");
  assert.equal(sectionOf("/incidents/silences"), "/incidents/silences");
  assert.equal(sectionOf("/incidents/keys"), "/incidents/keys");
});

test("the console's times: to the second, milliseconds on demand, and how long ago", () => {
  const now = Date.parse("2026-12-03T07:20:00.000Z");
  assert.equal(ago("2026-12-03T07:19:58.000Z", now), "just now");
  assert.equal(ago("2026-12-03T07:19:48.000Z", now), "12 s ago");
  assert.equal(ago("2026-12-03T07:15:00.000Z", now), "5 min ago");
  assert.equal(ago("2026-12-03T04:15:00.000Z", now), "3 h 5 min ago");
  assert.equal(ago("2026-12-03T04:20:00.000Z", now), "3 h ago");
  assert.equal(ago("2026-11-30T03:20:00.000Z", now), "3 d 4 h ago");
  assert.equal(ago("2026-12-03T07:25:00.000Z", now), "in 5 min");
  assert.equal(ago("not a time", now), "");
  // Nine logs of one burst read apart: each to the second, the milliseconds when asked.
  const at = new Date(2026, 11, 3, 0, 14, 5, 7).toISOString();
  assert.equal(clockTime(at), "2026-12-03 00:14:05");
  assert.equal(clockTime(at, { millis: true }), "2026-12-03 00:14:05.007");
  assert.equal(clockTime(at, { date: false }), "00:14:05");
  assert.equal(clockTime(undefined), "");
});

test("the live table waits longer after each failure, up to a minute", () => {
  assert.equal(backoff(0), 5000);
  assert.equal(backoff(1), 10000);
  assert.equal(backoff(3), 40000);
  assert.equal(backoff(4), 60000);
  assert.equal(backoff(99), 60000);
});

test("a log's detail: its trace, then its attributes by name", () => {
  assert.deepEqual(logDetails({ attributes: { pod: "api-7", job: "api" }, traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" }), [
    ["traceId", "4bf92f3577b34da6a3ce929d0e0e4736"],
    ["spanId", "00f067aa0ba902b7"],
    ["job", "api"],
    ["pod", "api-7"],
  ]);
  assert.deepEqual(logDetails({}), []);
  assert.deepEqual(silencedBy({ silencedBy: ["s1"] }), ["s1"]);
  assert.deepEqual(silencedBy({}), []);
});

test("a silence's labels are typed one a line as name=value, and its matchers read as words", () => {
  assert.deepEqual(parseLabels("env=prod\n\n team = db \nnonsense\n=x"), { labels: { env: "prod", team: "db" }, bad: ["nonsense", "=x"] });
  assert.equal(matcherWords({ services: ["checkout", "api"], severities: ["ERROR"], labels: { env: "prod" } }), "service checkout, api · severity ERROR · label env=prod");
  assert.equal(matcherWords({}), "everything");
});

test("an incident's analysis text: what grouped it, then its latest logs, at most ten", () => {
  const occurrences = Array.from({ length: 12 }, (_, n) => ({ logId: `l${n}`, timestamp: `t${n}`, severity: "ERROR", logContent: `m${n}`, ruleIds: ["default"] }));
  const incident = { serviceName: "checkout", type: "APPLICATION_LOG", occurrences: 12, firstSeen: "t0", normalizedMessage: "Timeout after # ms", recentOccurrences: occurrences };
  const lines = incidentAnalysisContent(/** @type {any} */ (incident)).split("\n");
  assert.equal(lines[0], "Incident in checkout (APPLICATION_LOG), 12 occurrences since t0: Timeout after # ms");
  assert.equal(lines.length, 11);
  assert.equal(lines[1], "t0 ERROR m0");
});

test("tags and numbers as the forms send them", () => {
  assert.deepEqual(parseTags(" database, checkout,,database , "), ["database", "checkout"]);
  assert.equal(numberOrAbsent(""), undefined);
  assert.equal(numberOrAbsent(" 5 "), 5);
  assert.equal(numberOrAbsent(null), undefined);
});

/**
 * A token shaped like the identity function's (header and signature are not read here).
 * @param {unknown} claims
 */
function tokenWith(claims) {
  const payload = Buffer.from(JSON.stringify(claims)).toString("base64url");
  return `eyJhbGciOiJFZERTQSJ9.${payload}.c2lnbmF0dXJl`;
}

test("roles come from the token's claims, base64url and all", () => {
  // "é" and the ids' bytes give the payload '-' and '_' in base64url.
  const token = tokenWith({ sub: "a1?>", username: "zoé~~~", roles: ["USER", "OPERATOR"], exp: 4102444800 });
  assert.match(token.split(".")[1], /[-_]/);
  assert.deepEqual(tokenRoles(token), ["USER", "OPERATOR"]);
  assert.equal(claimsOf(token).username, "zoé~~~");
  assert.deepEqual(tokenRoles(tokenWith({ roles: ["USER", 7, null, "ADMIN"] })), ["USER", "ADMIN"]);
  for (const bad of ["", "not-a-token", "a.%%%.c", tokenWith([1, 2]), tokenWith("USER"), tokenWith({ roles: "ADMIN" }), tokenWith({})]) {
    assert.deepEqual(tokenRoles(bad), [], bad);
  }
});

test("the incident platform opens to OPERATOR or ADMIN, never to USER alone", () => {
  assert.equal(opensIncidents(["USER"]), false);
  assert.equal(opensIncidents([]), false);
  assert.equal(opensIncidents(["USER", "OPERATOR"]), true);
  assert.equal(opensIncidents(["USER", "ADMIN"]), true);
  assert.equal(opensIncidents(["operator"]), false);
});

test("the roles sent for a form keep USER first, in a fixed order, grantable ones only", () => {
  assert.deepEqual(chosenRoles([]), ["USER"]);
  assert.deepEqual(chosenRoles(["ADMIN", "OPERATOR"]), ["USER", "OPERATOR", "ADMIN"]);
  assert.deepEqual(chosenRoles(["ADMIN", "ADMIN", "USER", "ROOT"]), ["USER", "ADMIN"]);
});

test("the accounts page's size is ?limit= when it is a whole number", () => {
  assert.equal(pageSize(new URLSearchParams(""), 50), 50);
  assert.equal(pageSize(new URLSearchParams("limit=2"), 50), 2);
  assert.equal(pageSize(new URLSearchParams("limit=0"), 50), 0, "the API names an out-of-range limit");
  assert.equal(pageSize(new URLSearchParams("limit=2.5"), 50), 50);
  assert.equal(pageSize(new URLSearchParams("limit=%20"), 50), 50);
  assert.equal(pageSize(new URLSearchParams("limit=ten"), 50), 50);
});

test("the recipe list's Link names the next page's after, and only a next one", () => {
  assert.equal(nextAfter('</api/recipes/recipes?limit=20&after=1838979433457005>; rel="next"'), 1838979433457005);
  assert.equal(nextAfter(null), undefined);
  assert.equal(nextAfter(""), undefined);
  assert.equal(nextAfter('</api/recipes/recipes?limit=20&after=5>; rel="prev"'), undefined);
  assert.equal(nextAfter('</api/recipes/recipes?limit=20&after=0>; rel="next"'), undefined);
  assert.equal(nextAfter('</api/recipes/recipes?limit=20&after=x>; rel="next"'), undefined);
});
