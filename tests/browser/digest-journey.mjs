// The digest pages in headless Chromium: a reader adds two feeds that report the day's story in
// other words and follows its topic in the settings; an admin's generation job (the digest
// worker, the test's fake model) writes the reader's PERSONAL digest, which "Your digests"
// lists and its page shows (summary, stories, the grouped story's two sources); a second
// reader, on a phone and following nothing, cannot open it (Not found) and is given the day's
// PUBLIC digest, which anyone reads at /digests/public; before it existed that page said so.
// Run by tests/tests/browser.rs: node digest-journey.mjs <base-url>.
//
// Every page is watched as in journey.mjs: an uncaught exception, a CSP violation or a request
// to any host but the stack's fails the journey.

import { admin, announcer, apiLogIn, assert, env, journey, setup, shot as shotIn, step as stepIn, waitForPath, waitForText, watch } from "./support.mjs";

const { base, artifacts } = await setup("digest-journey.mjs");
const feeds = { harbour: env("JOURNEY_FEED_HARBOUR"), coast: env("JOURNEY_FEED_COAST") };
/** The day the feeds' news is on (a Monday, `YYYY-MM-DD`). */
const day = env("JOURNEY_DIGEST_DAY");
/** What the fake model answers: the subtitle, summary and each event's headline and bullets. */
const answer = /** @type {{subtitle: string, summary: string, events: {index: number, headline: string, summaryBullets: string[]}[]}} */ (JSON.parse(env("JOURNEY_DIGEST_ANSWER")));
const [tidal, storm] = answer.events;
const baseHost = new URL(base).host;
const run = Date.now().toString(36);
const password = "correct-horse-battery";
const alice = { username: `alice_${run}`, name: "Alice Follower" };
const bob = { username: `bob_${run}`, name: "Bob Nofollow" };
/** The digests' titles, as the service builds them for `day`. */
const dayDate = new Date(`${day}T00:00:00Z`);
const inWords = (/** @type {Intl.DateTimeFormatOptions} */ options) => new Intl.DateTimeFormat("en-GB", { ...options, timeZone: "UTC" }).format(dayDate);
const dayInWords = `${inWords({ weekday: "long" })}, ${dayDate.getUTCDate()} ${inWords({ month: "long" })} ${dayDate.getUTCFullYear()}`;
const titles = { personal: `Your news digest for ${dayInWords}`, public: `News digest for ${dayInWords}` };

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

/**
 * Registers through the register page, then goes on to `next`.
 * @param {import("playwright-core").Page} page
 * @param {{username: string, name: string}} who
 * @param {string} next
 */
async function register(page, who, next) {
  await page.goto(`/register?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Username").fill(who.username);
  await page.getByLabel("Email").fill(`${who.username}@example.com`);
  await page.getByLabel("Password").fill(password);
  await page.getByLabel("Name (optional)").fill(who.name);
  await page.getByRole("button", { name: "Create account" }).click();
  await waitForPath(page, next);
}

/**
 * The logged-in user's id, from the page's session.
 * @param {import("playwright-core").Page} page
 */
async function userId(page) {
  const token = await page.evaluate(() => localStorage.getItem("newsReader.token"));
  assert(token, "the page keeps a session token");
  const me = await page.request.get("/api/users/users/me", { headers: { authorization: `Bearer ${token}` } });
  assert(me.ok(), `GET /api/users/users/me answered ${me.status()}`);
  return /** @type {string} */ ((await me.json()).id);
}

/**
 * A token of the administrator the stack provisions.
 * @param {import("playwright-core").APIRequestContext} request
 */
async function adminToken(request) {
  return apiLogIn(request, admin());
}

/**
 * Has the digest worker generate `user`'s digest of `day` (the admin's job), and waits for it.
 * @param {import("playwright-core").APIRequestContext} request
 * @param {string} token
 * @param {string} user
 * @returns {Promise<string>} The digest's id.
 */
async function generate(request, token, user) {
  const headers = { authorization: `Bearer ${token}` };
  const started = await request.post(`/api/v1/admin/digests/generate/users/${user}?date=${day}`, { headers });
  assert(started.status() === 202, `the admin's generation answered ${started.status()}: ${await started.text()}`);
  const job = await started.json();
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const now = await (await request.get(`/api/v1/admin/digests/jobs/${job.id}`, { headers })).json();
    if (now.status !== "PENDING" && now.status !== "RUNNING") {
      assert(now.status === "GENERATED" && now.digestId, `the job ended ${now.status}: ${now.message}`);
      return now.digestId;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`job ${job.id} did not finish within a minute`);
}

/**
 * The texts of `locator`'s matches, trimmed.
 * @param {import("playwright-core").Locator} locator
 */
async function texts(locator) {
  return (await locator.allTextContents()).map((t) => t.replace(/\s+/g, " ").trim());
}

await journey("digest journey", async (browser) => {
  // ------------------------------------------------------------------ desktop: the follower
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: base });
  await watch(desktop, "desktop", baseHost);
  const page = await desktop.newPage();
  const nav = page.getByRole("navigation", { name: "Main" });
  let aliceId = "";
  let admin = "";
  let personalId = "";
  let personalUrl = "";

  await step(page, "before any digest: the public page says there is none, the list needs a login", async () => {
    await page.goto("/digests/public");
    await waitForText(page.locator("h1"), "The latest public digest");
    await waitForText(page.locator("main .state.empty"), "No public digest yet");
    await page.goto("/digests");
    await waitForText(page.locator("h1"), "Your digests");
    await waitForText(page.locator("main"), "Log in to see this page");
    await page.getByRole("link", { name: "Read the latest public digest" }).click();
    await waitForPath(page, "/digests/public");
    await waitForText(page.locator("main .state.empty"), "No public digest yet");
  });

  await step(page, "a reader adds the day's feeds and follows Energy in the settings", async () => {
    await register(page, alice, "/sources");
    await waitForText(nav, alice.username);
    for (const [url, name] of [
      [feeds.harbour, "Harbour Herald"],
      [feeds.coast, "Coast Courier"],
    ]) {
      await nav.getByRole("link", { name: "Sources" }).click();
      await waitForPath(page, "/sources");
      await page.getByLabel("Feed URL").fill(url);
      await page.getByRole("button", { name: "Add feed" }).click();
      await page.waitForURL(/\/sources\/[^/]+$/);
      await waitForText(page.locator("h1"), name);
      await page.locator(".cards li").first().waitFor();
    }
    await nav.getByRole("link", { name: "Settings" }).click();
    await waitForPath(page, "/settings");
    const energy = page.getByRole("checkbox", { name: "Energy" });
    await energy.check();
    assert(!(await page.getByRole("checkbox", { name: "Weather" }).isChecked()), "Weather is not followed");
    await page.getByRole("button", { name: "Save preferences" }).click();
    await waitForText(announcer(page), "Preferences saved");
    aliceId = await userId(page);
  });

  await step(page, "no digest yet, then an admin's job writes the reader's", async () => {
    await nav.getByRole("link", { name: "Digests" }).click();
    await waitForPath(page, "/digests");
    assert((await nav.getByRole("link", { name: "Digests" }).getAttribute("aria-current")) === "page", "the nav marks Digests as the current page");
    await waitForText(page.locator("main .state.empty"), "No digests yet");
    admin = await adminToken(page.request);
    personalId = await generate(page.request, admin, aliceId);
    personalUrl = `/digests/${personalId}`;
  });

  await step(page, "Your digests lists it with its figures, first headlines and topics", async () => {
    await page.reload();
    const card = page.locator(".digest-card");
    await card.first().waitFor();
    assert((await card.count()) === 1, "one digest");
    await waitForText(card.locator(".card-title"), titles.personal);
    const meta = (await card.locator(".meta").textContent()) ?? "";
    assert(meta.includes("1 story · 2 sources") && meta.includes("min read"), `the figures: ${meta}`);
    assert(meta.includes("March") && meta.includes("2026"), `the day: ${meta}`);
    assert((await card.locator("time").getAttribute("datetime")) === day, "the day's <time>");
    assert(!meta.includes("Public digest"), "a personal digest has no public badge");
    await waitForText(card.locator(".digest-subtitle"), answer.subtitle);
    assert((await texts(card.locator(".preview-headlines li"))).join("|") === tidal.headline, "the preview holds the one headline");
    const topics = await texts(card.locator(".chips a"));
    assert(topics.length === 1 && topics[0].toLowerCase() === "energy", `the Energy topic: ${topics}`);
    await waitForText(page.locator(".pager-summary"), "1 digest");
    await shot(page, "d01-digests-desktop.png");
  });

  await step(page, "its page by keyboard: summary, the story, and its two sources", async () => {
    await page.locator(".digest-card .card-title a").focus();
    await page.keyboard.press("Enter");
    await waitForPath(page, personalUrl);
    await waitForText(page.locator("h1"), titles.personal);
    await page.waitForFunction((title) => document.activeElement?.tagName === "H1" && document.activeElement.textContent === title, titles.personal);
    assert((await page.title()).startsWith(titles.personal), "the document title names the digest");
    await waitForText(page.locator(".digest-summary"), answer.summary);
    await waitForText(page.locator(".reader .digest-subtitle"), answer.subtitle);
    await waitForText(page.locator("#digest-events-heading"), "Stories (1)");
    const events = page.locator(".digest-event");
    assert((await events.count()) === 1, "only the followed topic's story");
    await waitForText(events.locator("h3"), tidal.headline);
    assert((await texts(events.locator(".bullets li"))).join("|") === tidal.summaryBullets.join("|"), "the model's bullets");
    await waitForText(events.locator(".sources-title"), "Reported by 2 sources");
    const sources = events.locator(".event-sources li");
    assert((await sources.count()) === 2, "the story's two reports are one event");
    const names = await texts(sources.locator(".source-name"));
    assert(names.join("|") === "Coast Courier|Harbour Herald", `the sources, newest report first: ${names}`);
    assert((await texts(sources.locator(".provider"))).join("|") === "coast.example.com|harbour.example.com", "the providers");
    const reportTitles = await texts(sources.locator(".source-title"));
    assert(reportTitles.join("|") === "Tidal power station switched on in Harbour City|Harbour city opens its first tidal power station", `each source's own headline: ${reportTitles}`);
    assert((await sources.locator("time").count()) === 2, "each report's time");
    assert(!((await page.locator("main").textContent()) ?? "").includes(storm.headline), "the unfollowed storm is not in it");
    await shot(page, "d02-digest-desktop.png", true);
  });

  // ------------------------------------------------------------------ phone: a reader who follows nothing
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, baseURL: base });
  await watch(phone, "phone", baseHost);
  const mobile = await phone.newPage();

  await step(mobile, "another reader opening the first reader's digest sees Not found", async () => {
    await register(mobile, bob, "/digests");
    await waitForText(mobile.locator("main .state.empty"), "No digests yet");
    await mobile.goto(personalUrl);
    const alert = mobile.locator("main [role=alert]");
    await waitForText(alert, "Not found");
    const shown = (await mobile.locator("main").textContent()) ?? "";
    assert(!shown.includes(tidal.headline) && !shown.includes(titles.personal), "nothing of the digest shows");
    assert((await alert.getByRole("button", { name: "Try again" }).count()) === 0, "no retry for a 404");
    await mobile.getByRole("link", { name: "The latest public digest" }).waitFor();
  });

  await step(mobile, "following nothing, the reader is given the day's public digest", async () => {
    const publicId = await generate(mobile.request, admin, await userId(mobile));
    assert(publicId !== personalId, "a digest of its own");
    await mobile.getByRole("button", { name: "Menu" }).tap();
    await mobile.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Digests" }).tap();
    await waitForPath(mobile, "/digests");
    const card = mobile.locator(".digest-card");
    await waitForText(card.locator(".card-title"), titles.public);
    await waitForText(card.locator(".meta"), "Public digest");
    await waitForText(card.locator(".meta"), "2 stories · 2 sources");
    assert((await texts(card.locator(".preview-headlines li"))).join("|") === `${tidal.headline}|${storm.headline}`, "both headlines, the most reported first");
    const box = await card.first().boundingBox();
    assert(box && box.width <= 390, "the card fits the phone's width");
  });

  await step(mobile, "the public digest page on a phone", async () => {
    await mobile.getByRole("link", { name: "The latest public digest" }).tap();
    await waitForPath(mobile, "/digests/public");
    await waitForText(mobile.locator("h1"), titles.public);
    await waitForText(mobile.locator("#digest-events-heading"), "Stories (2)");
    const headlines = await texts(mobile.locator(".digest-event h3"));
    assert(headlines.join("|") === `${tidal.headline}|${storm.headline}`, `the stories: ${headlines}`);
    await waitForText(mobile.locator(".digest-event").nth(0).locator(".sources-title"), "Reported by 2 sources");
    await waitForText(mobile.locator(".digest-event").nth(1).locator(".sources-title"), "Reported by 1 source");
    await waitForText(mobile.locator(".digest-event").nth(1).locator(".source-title"), "Storm closes the coast road");
    const width = await mobile.evaluate(() => document.documentElement.scrollWidth);
    assert(width <= 390, `nothing overflows the phone's width (${width})`);
    await shot(mobile, "d03-public-digest-phone.png", true);
  });
  await phone.close();

  // ------------------------------------------------------------------ desktop, logged out
  await step(page, "logged out: the public digest for anyone, the personal one Not found", async () => {
    await nav.getByRole("button", { name: "Log out" }).click();
    await waitForText(nav, "Log in");
    await nav.getByRole("link", { name: "Digests" }).click();
    await waitForText(page.locator("main"), "Log in to see this page");
    await page.getByRole("link", { name: "Read the latest public digest" }).click();
    await waitForPath(page, "/digests/public");
    await waitForText(page.locator("h1"), titles.public);
    await waitForText(page.locator(".digest-summary"), answer.summary);
    assert((await page.locator(".digest-event").count()) === 2, "both stories");
    await page.goto(personalUrl);
    await waitForText(page.locator("main [role=alert]"), "Not found");
  });
});
