// Unit tests of the web client's pure functions, in Node (`node --test`), run by
// tests/tests/web.rs. The browser journey (journey.mjs) covers the rest in Chromium.

import assert from "node:assert/strict";
import { test } from "node:test";

import { pageOf, topicSlug, withPage } from "../../functions/web/client/community.js";
import { digestFigures, digestHref } from "../../functions/web/client/digests.js";
import { reasonDetails } from "../../functions/web/client/http.js";
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

test("topic slugs are the API's: lowercase ASCII letters and digits, other runs one dash", () => {
  for (const [name, slug] of [
    ["Public Transport", "public-transport"],
    ["  Rust -- Tips! ", "rust-tips"],
    ["C++ & Go 2", "c-go-2"],
    ["Cafés", "caf-s"],
    ["public-transport", "public-transport"],
    ["!!!", ""],
  ]) {
    assert.equal(topicSlug(name), slug, name);
  }
});

test("Document B's validation message is split into field errors only when every part names a field", () => {
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
