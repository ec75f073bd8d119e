// A reader's day with the reader in headless Chromium, on a desktop and a phone: subscribe to
// a feed, and to one of a site's two feeds (discovery's choice); the unread counts per source
// and in all; an article opened is read (the counts drop) and starred (found under Starred);
// j/k/o on the list, j/k/u on an article (next and previous), m and s, the shortcuts' help;
// the source put in a folder, the folder marked all read, everything marked read with
// Shift+A; cards and the compact list; the folder renamed and deleted; OPML exported and a
// file imported with its progress and each feed's outcome; on a phone the compact list shows
// many articles a screen. Run by tests/tests/browser.rs: node reader-journey.mjs <base-url>.
//
// Every page is watched as in journey.mjs: an uncaught exception, a CSP violation or a request
// to any host but the stack's fails the journey.

import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";

import { announcer, assert, env, fitsPhone, journey, logIn, register, setup, shot as shotIn, step as stepIn, viewport, waitForCount, waitForPath, waitForText } from "./support.mjs";

const { base, artifacts } = await setup("reader-journey.mjs");
const feeds = { tech: env("JOURNEY_FEED_TECH"), science: env("JOURNEY_FEED_SCIENCE"), world: env("JOURNEY_FEED_WORLD"), site: env("JOURNEY_SITE") };
const reader = { username: `rd_${Date.now().toString(36)}`, password: "correct-horse-battery" };

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

/**
 * The unread count a sidebar link shows (0 when it shows none).
 * @param {import("playwright-core").Page} page
 * @param {string} name The link's name, as its text starts.
 */
async function sideCount(page, name) {
  const link = page.locator(".reader-side a").filter({ hasText: name }).first();
  // The sidebar draws when the subscriptions arrive.
  await link.waitFor();
  const count = await link.locator(".count").count();
  return count ? Number.parseInt(((await link.locator(".count").textContent()) ?? "0").replace(/\D/g, ""), 10) : 0;
}

/**
 * Waits until a sidebar link shows `expected` unread.
 * @param {import("playwright-core").Page} page
 * @param {string} name
 * @param {number} expected
 */
async function waitForSideCount(page, name, expected) {
  const deadline = Date.now() + 15000;
  let seen = -1;
  while (Date.now() < deadline) {
    seen = await sideCount(page, name);
    if (seen === expected) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`${name} shows ${seen} unread, not ${expected}`);
}

/**
 * The index of the selected row of the list, -1 when none is.
 * @param {import("playwright-core").Page} page
 */
async function selectedRow(page) {
  return page.locator(".entries .entry").evaluateAll((rows) => rows.findIndex((row) => row.classList.contains("selected")));
}

/**
 * Whether focus is on the title link of row `i`.
 * @param {import("playwright-core").Page} page
 * @param {number} i
 */
async function focusOnRow(page, i) {
  return page.locator(".entries .entry").nth(i).evaluate((row) => row.contains(document.activeElement) && document.activeElement?.tagName === "A");
}

await journey("reader journey", async (browser) => {
  const desktop = await viewport(browser, "desktop", base);
  const page = await desktop.newPage();
  const main = page.locator("main");
  const lede = page.locator(".page-head .lede");
  const side = page.locator(".reader-side");
  const nav = page.getByRole("navigation", { name: "Main" });
  let firstTitle = "";

  await step(page, "a new reader's list is empty", async () => {
    await register(page.request, reader);
    await logIn(page, reader, "/");
    await waitForText(page.locator("h1"), "All articles");
    await waitForText(lede, "Nothing unread");
    await waitForText(main, "Add or subscribe to a feed");
  });

  await step(page, "subscribe to a feed, and to one of a site's two feeds", async () => {
    await nav.getByRole("link", { name: "Sources" }).click();
    await waitForPath(page, "/sources");
    await page.getByLabel("Feed URL").fill(feeds.tech);
    await page.getByRole("button", { name: "Add feed" }).click();
    await page.waitForURL(/\/sources\/[^/]+$/);
    await waitForText(page.locator("h1"), "Loopback Tech");
    await nav.getByRole("link", { name: "Sources" }).click();
    await page.getByLabel("Feed URL").fill(feeds.site);
    await page.getByRole("button", { name: "Add feed" }).click();
    await waitForText(page.locator(".feed-choices"), "This site has 2 feeds: choose one");
    await page.getByLabel("Loopback Science").check();
    await page.getByRole("button", { name: "Add this feed" }).click();
    await page.waitForURL(/\/sources\/[^/]+$/);
    await waitForText(page.locator("h1"), "Loopback Science");
  });

  await step(page, "unread counts per source and in all", async () => {
    await nav.getByRole("link", { name: "Articles" }).click();
    await waitForPath(page, "/");
    await waitForText(lede, "16 unread");
    await waitForSideCount(page, "All articles", 16);
    await waitForSideCount(page, "Loopback Tech", 12);
    await waitForSideCount(page, "Loopback Science", 4);
    await waitForCount(page, ".entries.compact .entry.unread", 16);
    await shot(page, "rd01-reader-desktop.png");
  });

  await step(page, "open an article: it is read and the counts drop; star it", async () => {
    const first = page.locator(".entries .entry .entry-title a").first();
    firstTitle = (await first.textContent()) ?? "";
    const marked = page.waitForResponse((r) => r.url().endsWith("/api/content/reader/marks") && r.request().method() === "POST");
    await first.click();
    await page.waitForURL(/\/articles\/[^/]+$/);
    await waitForText(page.locator("h1"), firstTitle);
    assert((await marked).ok(), "the article was marked read as it opened");
    await page.getByRole("button", { name: "Mark as unread" }).waitFor();
    await page.getByRole("button", { name: "☆ Star" }).click();
    await waitForText(page.locator(".star-button"), "★ Starred");
    assert((await page.locator(".star-button").getAttribute("aria-pressed")) === "true", "the star is pressed");
    const around = page.getByRole("navigation", { name: "Articles of the list", exact: true });
    await around.getByRole("link", { name: "Next →" }).waitFor();
    assert((await around.getByRole("link", { name: "← Previous" }).count()) === 0, "the first article has no previous one");
    await shot(page, "rd02-article-desktop.png");
    await around.getByRole("link", { name: "Back to All articles" }).click();
    await waitForPath(page, "/");
    await waitForText(lede, "15 unread");
    await waitForSideCount(page, "All articles", 15);
    await waitForCount(page, ".entries .entry", 15);
    assert(!((await page.locator(".entries").textContent()) ?? "").includes(firstTitle), "the read article left the unread list");
  });

  await step(page, "the starred article is under Starred", async () => {
    await side.getByRole("link", { name: "★ Starred" }).click();
    await waitForPath(page, "/starred");
    await waitForText(page.locator("h1"), "Starred");
    await waitForCount(page, ".entries .entry", 1);
    await waitForText(page.locator(".entries"), firstTitle);
    assert((await page.locator(".entries .star").getAttribute("aria-pressed")) === "true", "it shows starred");
  });

  await step(page, "keyboard: j and k select, o opens, j and k on the article, u goes back", async () => {
    await side.getByRole("link", { name: "All articles" }).click();
    await waitForPath(page, "/");
    await waitForCount(page, ".entries .entry", 15);
    await page.keyboard.press("j");
    assert((await selectedRow(page)) === 0 && (await focusOnRow(page, 0)), "j selects the first article and focuses it");
    await page.keyboard.press("j");
    assert((await selectedRow(page)) === 1 && (await focusOnRow(page, 1)), "j moves to the next");
    await page.keyboard.press("k");
    assert((await selectedRow(page)) === 0, "k moves back");
    const titles = await page.locator(".entries .entry .entry-title a").allTextContents();
    await page.keyboard.press("o");
    await page.waitForURL(/\/articles\/[^/]+$/);
    await waitForText(page.locator("h1"), titles[0]);
    await page.getByRole("button", { name: "Mark as unread" }).waitFor();
    await page.keyboard.press("j");
    await waitForText(page.locator("h1"), titles[1]);
    await page.getByRole("link", { name: "← Previous" }).first().waitFor();
    await page.keyboard.press("k");
    await waitForText(page.locator("h1"), titles[0]);
    await page.keyboard.press("u");
    await waitForPath(page, "/");
    await waitForText(lede, "13 unread");
  });

  await step(page, "keyboard: m toggles read, s stars, ? shows the shortcuts", async () => {
    await waitForCount(page, ".entries .entry", 13);
    await page.keyboard.press("j");
    await page.keyboard.press("m");
    await page.locator(".entries .entry.selected.read").waitFor();
    await waitForText(lede, "12 unread");
    await page.keyboard.press("m");
    await page.locator(".entries .entry.selected.unread").waitFor();
    await waitForText(lede, "13 unread");
    await page.keyboard.press("s");
    await page.locator('.entries .entry.selected .star[aria-pressed="true"]').waitFor();
    await page.keyboard.press("s");
    await page.locator('.entries .entry.selected .star[aria-pressed="false"]').waitFor();
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await help.waitFor();
    await waitForText(help, "Mark all as read");
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "hidden" });
  });

  await step(page, "put a source in a folder", async () => {
    await side.getByRole("link", { name: "Subscriptions, folders and OPML" }).click();
    await waitForPath(page, "/subscriptions");
    await waitForText(page.locator("h1"), "Subscriptions");
    const tech = page.locator(".sub-row").filter({ hasText: "Loopback Tech" });
    await tech.getByText("Put in a folder").click();
    await tech.getByLabel("New folder").fill("Work");
    await tech.getByRole("button", { name: "Save folders" }).click();
    await waitForText(announcer(page), "Loopback Tech is in Work");
    await waitForText(page.locator(".sub-row").filter({ hasText: "Loopback Tech" }).locator("summary"), "Folders: Work");
    await waitForText(page.locator(".folder-list"), "Work");
    await nav.getByRole("link", { name: "Articles" }).click();
    await waitForPath(page, "/");
    await waitForText(side, "Folders");
    await waitForSideCount(page, "📁 Work", await sideCount(page, "Loopback Tech"));
  });

  await step(page, "mark the folder all read", async () => {
    const science = await sideCount(page, "Loopback Science");
    assert(science > 0, "science has unread articles");
    await side.getByRole("link", { name: "📁 Work" }).click();
    await waitForPath(page, "/?folder=Work");
    await waitForText(page.locator("h1"), "Work");
    await page.getByRole("button", { name: "Mark all as read…" }).click();
    await page.getByRole("button", { name: "Yes, mark all as read" }).click();
    await waitForText(announcer(page), "Marked all of Work as read");
    await waitForText(main, "All read");
    await waitForText(lede, "Nothing unread");
    await waitForSideCount(page, "📁 Work", 0);
    await waitForSideCount(page, "Loopback Tech", 0);
    await waitForSideCount(page, "All articles", science);
    await shot(page, "rd03-folder-desktop.png");
  });

  await step(page, "Shift+A marks everything read", async () => {
    await side.getByRole("link", { name: "All articles" }).click();
    await waitForPath(page, "/");
    await page.locator(".entries .entry").first().waitFor();
    await page.keyboard.press("Shift+A");
    const confirm = page.getByRole("button", { name: "Yes, mark all as read" });
    await confirm.waitFor();
    assert(await confirm.evaluate((b) => b === document.activeElement), "the confirmation has focus");
    await page.keyboard.press("Enter");
    await waitForText(main, "All read");
    await waitForText(lede, "Nothing unread");
    await page.getByRole("navigation", { name: "Which articles" }).getByRole("link", { name: "All" }).click();
    await waitForPath(page, "/?state=all");
    await waitForCount(page, ".entries .entry.read", 16);
  });

  await step(page, "cards, kept after a reload, and back to the compact list", async () => {
    await page.getByRole("button", { name: "Cards" }).click();
    await waitForCount(page, ".entries.cards .entry", 16);
    await page.reload();
    await waitForCount(page, ".entries.cards .entry", 16);
    await page.getByRole("button", { name: "List" }).click();
    await waitForCount(page, ".entries.compact .entry", 16);
  });

  await step(page, "rename the folder, then delete it", async () => {
    await page.goto("/subscriptions");
    await page.getByRole("button", { name: "Rename folder Work" }).click();
    await page.getByLabel("New name for Work").fill("Reading");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await waitForText(announcer(page), "Folder Work is now Reading");
    await waitForText(page.locator(".folder-list"), "Reading");
    await waitForText(page.locator(".sub-row").filter({ hasText: "Loopback Tech" }).locator("summary"), "Folders: Reading");
    await page.getByRole("button", { name: "Delete folder Reading" }).click();
    await page.getByRole("button", { name: "Yes, delete the folder" }).click();
    await waitForText(page.locator("#folders-heading + div"), "No folders yet");
    await waitForText(page.locator(".sub-row").filter({ hasText: "Loopback Tech" }).locator("summary"), "Put in a folder");
  });

  await step(page, "export OPML, import a file: its progress and each feed's outcome", async () => {
    const downloading = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export OPML" }).click();
    const download = await downloading;
    const exported = await readFile((await download.path()) ?? "", "utf8");
    assert(exported.includes(feeds.tech) && exported.includes(feeds.science), `the export lists both feeds: ${exported.slice(0, 400)}`);
    const file = path.join(artifacts, "reader-import.opml");
    await writeFile(
      file,
      `<?xml version="1.0"?><opml version="2.0"><head><title>Mine</title></head><body>` +
        `<outline text="News"><outline type="rss" text="World" xmlUrl="${feeds.world}"/></outline>` +
        `<outline type="rss" text="Tech" xmlUrl="${feeds.tech}"/></body></opml>`,
    );
    await page.getByLabel("OPML file").setInputFiles(file);
    await page.getByRole("button", { name: "Import" }).click();
    const progress = page.locator(".opml-progress");
    await waitForText(progress, "2 of 2 feeds done", 30000);
    await waitForText(progress.locator(".outcome-subscribed"), "Subscribed");
    await waitForText(progress.locator(".outcome-alreadySubscribed"), "Already subscribed");
    await waitForText(progress.locator(".outcome-subscribed"), "in News");
    // Everything was marked read up to a moment after these articles were published.
    await nav.getByRole("link", { name: "Articles" }).click();
    await waitForPath(page, "/");
    await waitForText(side.getByRole("list", { name: "Sources in News" }), "Loopback World");
    await waitForSideCount(page, "All articles", 0);
  });
  await desktop.close();

  const phone = await viewport(browser, "phone", base);
  const mobile = await phone.newPage();
  await step(mobile, "phone: the compact list shows many articles a screen", async () => {
    await logIn(mobile, reader, "/?state=all", true);
    await waitForCount(mobile, ".entries.compact .entry", 18);
    const summary = mobile.locator(".reader-side summary");
    await waitForText(summary, "Folders and sources");
    assert(!(await mobile.locator(".reader-side").evaluate((d) => /** @type {HTMLDetailsElement} */ (d).open)), "folders and sources are folded on a phone");
    const height = mobile.viewportSize()?.height ?? 0;
    await mobile.evaluate(() => document.querySelector(".entries")?.scrollIntoView());
    const boxes = await mobile.locator(".entries .entry").evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().bottom));
    const shown = boxes.filter((bottom) => bottom > 0 && bottom <= height).length;
    assert(shown >= 8, `at least 8 articles a screen on a phone (${shown} of ${height} px)`);
    await fitsPhone(mobile);
    await shot(mobile, "rd04-reader-phone.png");
    await summary.tap();
    await mobile.locator(".reader-side").getByRole("link", { name: "📁 News" }).tap();
    await waitForPath(mobile, "/?folder=News&state=all");
    await waitForCount(mobile, ".entries .entry", 2);
    await mobile.locator(".entries .entry-title a").first().tap();
    await mobile.waitForURL(/\/articles\/[^/]+$/);
    await mobile.getByRole("link", { name: "Next →" }).first().waitFor();
    await fitsPhone(mobile);
  });
  await phone.close();
});
