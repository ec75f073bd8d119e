// Two members' journey through the community pages in headless Chromium, on a desktop and a
// phone viewport: write a post with two new topics and a cover image (a 9 MiB PNG made here,
// too large to pass through API Gateway and Lambda: sent by the page straight to the
// emulator's bucket through a presigned URL, confirmed, and served by the emulator over plain
// http, which the page's CSP must allow), the topic's feed and statistics, search, comments and a reply, liking a comment,
// liking then disliking the post, bookmarks, drafts (only their author sees them), editing
// and publishing a draft, following a topic, and a second member who sees the published post but not the
// drafts. Also: the post's AI summary (the fake model's answer, `JOURNEY_LLM_REPLY`) with its
// state, topics named `C`, `C#`, `C++` and `日本` kept apart, editing and deleting one's own
// comment, deleting one's own post, and the provisioned administrator removing a comment and a
// post with a reason, then reading both in the moderation log. Run by tests/tests/browser.rs: node community-journey.mjs <base-url>.
//
// Every page is watched as in journey.mjs: an uncaught exception, a CSP violation or a request
// to any host but the stack's (other than the uploads' images and presigned uploads) fails the
// journey.

import { deflateSync } from "node:zlib";
import { admin, announcer, assert, env, journey, logIn, setup, shot as shotIn, step as stepIn, waitForPath, waitForText, watch } from "./support.mjs";

const { base, artifacts } = await setup("community-journey.mjs");
/** Where uploaded images are served (the web function's CSP source), e.g. the emulator's bucket. */
const uploads = env("JOURNEY_UPLOADS_IMAGES");
/** Where presigned uploads are sent (the web function's connect-src source): the bucket's incoming/. */
const incoming = env("JOURNEY_UPLOADS_INCOMING");
/** What the fake model answers: the summary the post page shows. */
const llmReply = env("JOURNEY_LLM_REPLY");
const baseHost = new URL(base).host;
const run = Date.now().toString(36);
const alice = { username: `alice_${run}`, name: "Alice Writer" };
const bob = { username: `bob_${run}`, name: "Bob Reader" };
const password = "correct-horse-battery";
const topics = { gardens: "Loopback Gardens", rivers: "Quiet Rivers" };
const titles = {
  post: `Tending loopback gardens ${run}`,
  draft: `Draft notes on quiet rivers ${run}`,
  published: `Published notes on quiet rivers ${run}`,
  secret: `Secret plans kept as a draft ${run}`,
  symbols: `Languages and places ${run}`,
  regret: `A post to take back ${run}`,
};
/** Names whose slugs once collapsed into one ("c"), and a name with no Latin letter: each its own topic. */
const symbolTopics = [
  ["C", "c"],
  ["C#", "c-sharp"],
  ["C++", "c-plus-plus"],
  ["日本", "日本"],
];
const COVER = { width: 48, height: 27 };
/** The cover's size: over what API Gateway and Lambda can carry (about 4.4 MiB). */
const COVER_BYTES = 9 * 1024 * 1024;

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

/**
 * A real PNG: an RGB gradient of `width` × `height`, with its CRCs and a zlib stream; padded
 * to `bytes` (when given) with a private ancillary chunk, which decoders skip.
 * @param {number} width
 * @param {number} height
 * @param {number} [bytes]
 */
function png(width, height, bytes = 0) {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) {
      c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
    return c >>> 0;
  });
  const crc = (/** @type {Buffer} */ bytes) => {
    let c = 0xffffffff;
    for (const b of bytes) {
      c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    }
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (/** @type {string} */ type, /** @type {Buffer} */ data) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(body));
    return Buffer.concat([head, body, tail]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter, no interlace
  const rows = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3); // filter byte 0: none
    for (let x = 0; x < width; x++) {
      row.set([Math.round((255 * x) / width), 120, Math.round((255 * y) / height)], 1 + x * 3);
    }
    rows.push(row);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const image = [signature, chunk("IHDR", header), chunk("IDAT", deflateSync(Buffer.concat(rows)))];
  const end = chunk("IEND", Buffer.alloc(0));
  const sofar = image.reduce((n, b) => n + b.length, end.length);
  if (bytes > sofar) {
    // 12 bytes of length, type and CRC around the padding.
    image.push(chunk("paDd", Buffer.alloc(bytes - sofar - 12, 0x5a)));
  }
  return Buffer.concat([...image, end]);
}

/**
 * The natural size of the first image matched (0 × 0 until it loaded, or when it was blocked).
 * @param {import("playwright-core").Locator} image
 */
async function loadedSize(image) {
  await image.first().waitFor();
  await image.first().evaluate((/** @type {HTMLImageElement} */ img) => (img.complete ? null : new Promise((done) => img.addEventListener("load", done, { once: true }))));
  return image.first().evaluate((/** @type {HTMLImageElement} */ img) => ({ width: img.naturalWidth, height: img.naturalHeight, src: img.src }));
}

/**
 * The count shown on a reaction button.
 * @param {import("playwright-core").Page} page
 * @param {"like"|"dislike"} kind
 */
async function reactionCount(page, kind) {
  return (await page.locator(`.reactions .reaction.${kind} .count`).textContent())?.trim();
}

/**
 * Registers through the register page.
 * @param {import("playwright-core").Page} page
 * @param {{username: string, name: string}} who
 */
async function register(page, who) {
  await page.goto("/register?next=%2Fcommunity");
  await page.getByLabel("Username").fill(who.username);
  await page.getByLabel("Email").fill(`${who.username}@example.com`);
  await page.getByLabel("Password").fill(password);
  await page.getByLabel("Name (optional)").fill(who.name);
  await page.getByRole("button", { name: "Create account" }).click();
  await waitForPath(page, "/community");
  await waitForText(page.locator("h1"), "Community");
}

/**
 * The text of the catalog entry of the topic with `slug` on /community.
 * @param {import("playwright-core").Page} page
 * @param {string} slug
 */
async function catalogEntry(page, slug) {
  const entry = page.locator(`.topic-catalog li[data-topic="${slug}"]`);
  await entry.waitFor();
  return (await entry.textContent()) ?? "";
}

/**
 * The titles of the post cards on the page, once the list has loaded.
 * @param {import("playwright-core").Page} page
 */
async function cardTitles(page) {
  await page.locator(".post-card, .state.empty, .state.error").first().waitFor();
  return page.locator(".post-card h3").allTextContents();
}

await journey("community journey", async (browser) => {
  // ------------------------------------------------------------------ desktop: Alice
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: base });
  await watch(desktop, "desktop", baseHost, (url) => url.startsWith(uploads), (url) => url.startsWith(incoming));
  const page = await desktop.newPage();
  const nav = page.getByRole("navigation", { name: "Main" });
  let postUrl = "";
  let secretUrl = "";
  let symbolsUrl = "";

  await step(page, "the community as a visitor, then register", async () => {
    await page.goto("/");
    await nav.getByRole("link", { name: "Community" }).click();
    await waitForPath(page, "/community");
    await waitForText(page.locator("h1"), "Community");
    assert(await page.evaluate(() => document.activeElement?.tagName === "H1"), "the new page's heading has the focus");
    await page.getByRole("link", { name: "Log in to write a post" }).waitFor();
    await register(page, alice);
    await waitForText(nav, alice.username);
    assert((await nav.getByRole("link", { name: "Community" }).getAttribute("aria-current")) === "page", "the nav marks the community as the current page");
  });

  await step(page, "write a post with two new topics and an uploaded cover", async () => {
    await page.getByRole("link", { name: "Write a post" }).click();
    await waitForPath(page, "/community/write");
    const form = page.locator("form.write-form");
    // The API's own validation message (the Reason error body) shows under the field.
    await form.getByLabel("Title", { exact: true }).fill("Hey");
    await form.getByLabel("Content", { exact: true }).fill("Short.");
    await form.getByRole("button", { name: "Publish", exact: true }).click();
    await waitForText(page.locator("#field-title-error"), "5 to 100");
    assert((await form.getByLabel("Title", { exact: true }).getAttribute("aria-invalid")) === "true", "the title is marked invalid");

    await form.getByLabel("Title", { exact: true }).fill(titles.post);
    await form
      .getByLabel("Content", { exact: true })
      .fill("Hollyhocks grow tall along the loopback fence, and the gardens need little water.\n\nEvery spring the gardeners trade seeds by the river.");
    await form.getByLabel("Topics (optional)", { exact: true }).fill(`${topics.gardens}, ${topics.rivers}`);
    // Presigned, sent straight to storage, then confirmed: the image never passes through the API.
    const signed = page.waitForResponse((r) => r.url().endsWith("/api/v1/uploads/images/presigned") && r.request().method() === "POST");
    const sent = page.waitForResponse((r) => r.url().startsWith(incoming) && r.request().method() === "PUT");
    const uploaded = page.waitForResponse((r) => /\/api\/v1\/uploads\/images\/[0-9a-f-]{36}\/confirm$/.test(r.url()) && r.request().method() === "POST");
    const cover = png(COVER.width, COVER.height, COVER_BYTES);
    assert(cover.length === COVER_BYTES, `the cover is ${COVER_BYTES} bytes (${cover.length})`);
    await form.getByLabel("Cover image").setInputFiles({ name: "cover.png", mimeType: "image/png", buffer: cover });
    const presigned = await signed;
    assert(presigned.status() === 201, `the presigned upload answered 201 (got ${presigned.status()})`);
    const put = await sent;
    assert(put.status() === 200, `the storage took the file (got ${put.status()})`);
    assert(put.request().headers()["content-type"] === "image/png", "the file is sent as signed: image/png");
    const answer = await uploaded;
    assert(answer.status() === 201, `the confirm answered 201 (got ${answer.status()})`);
    const url = /** @type {{url: string}} */ (await answer.json()).url;
    assert(url.startsWith(uploads) && url.endsWith(".png"), `the cover is served from the uploads storage (${url})`);
    await waitForText(form.locator("[role=status]"), "Cover image uploaded");
    const preview = await loadedSize(form.locator(".cover-thumb"));
    assert(preview.width === COVER.width && preview.height === COVER.height, `the preview shows the uploaded PNG (${preview.width}×${preview.height})`);
    await shot(page, "c01-write-desktop.png", true);
    await form.getByRole("button", { name: "Publish", exact: true }).click();
    await page.waitForURL(/\/community\/posts\/[^/]+$/);
    postUrl = new URL(page.url()).pathname;
    await waitForText(announcer(page), "Post published");
    await waitForText(page.locator("h1"), titles.post);
    const hero = await loadedSize(page.locator(".reader .hero"));
    assert(hero.src === url && hero.width === COVER.width, `the post shows its cover from ${uploads} (${hero.src}, ${hero.width}px)`);
    const chips = await page.locator(".reader .chips a").allTextContents();
    assert(chips.includes(topics.gardens) && chips.includes(topics.rivers), `the post has both topics (${chips})`);
    await waitForText(page.locator(".reader .meta"), `By ${alice.name}`);
    await waitForText(page.locator(".reader .meta"), "0 views");
    assert((await page.locator(".reader .body p").count()) === 2, "the content shows as two paragraphs");
    await shot(page, "c02-post-desktop.png");
  });

  await step(page, "the post's AI summary: written by the model, under its own heading", async () => {
    await page.goto(postUrl);
    const summary = page.getByRole("region", { name: "AI summary" });
    // Written in the background after publishing: the page asks again while it is PENDING.
    await waitForText(summary.locator(".summary-text"), llmReply, 60000);
    await waitForText(summary.locator(".summary-state"), "Written");
    assert((await summary.getAttribute("data-status")) === "COMPLETED", "the summary's state is COMPLETED");
    const headings = await page.locator("main h1, main h2").evaluateAll((all) => all.map((e) => `${e.tagName}:${e.textContent}`));
    assert(headings[0] === `H1:${titles.post}` && headings[1] === "H2:AI summary", `the summary's heading follows the post's title (${headings})`);
    await page.reload();
    await waitForText(page.getByRole("region", { name: "AI summary" }).locator(".summary-text"), llmReply);
  });

  await step(page, "topics named C, C#, C++ and 日本 stay four topics", async () => {
    await page.goto("/community/write");
    const form = page.locator("form.write-form");
    await form.getByLabel("Title", { exact: true }).fill(titles.symbols);
    await form.getByLabel("Content", { exact: true }).fill("Notes on three languages that share a letter, and on a country.");
    await form.getByLabel("Topics (optional)", { exact: true }).fill(symbolTopics.map(([name]) => name).join(", "));
    await form.getByRole("button", { name: "Publish", exact: true }).click();
    await page.waitForURL(/\/community\/posts\/[^/]+$/);
    await waitForText(page.locator("h1"), titles.symbols);
    symbolsUrl = new URL(page.url()).pathname;
    const chips = page.locator(".reader .chips a");
    await chips.first().waitFor();
    const shown = await chips.allTextContents();
    assert(symbolTopics.every(([name]) => shown.includes(name)) && shown.length === 4, `the post has four topics (${shown})`);
    const hrefs = new Set(await chips.evaluateAll((links) => links.map((a) => decodeURIComponent(new URL(/** @type {HTMLAnchorElement} */ (a).href).pathname))));
    assert(hrefs.size === 4, `each topic has its own page (${[...hrefs]})`);
    await page.goto("/community");
    for (const [name, slug] of symbolTopics) {
      const entry = await catalogEntry(page, slug);
      assert(entry.includes(name) && entry.includes("1 post"), `the catalog lists ${name} as ${slug} with its one post (${entry})`);
    }
    await page.locator(".topic-catalog").getByRole("link", { name: "日本", exact: true }).click();
    await page.waitForURL((url) => decodeURIComponent(url.pathname) === "/community/topics/日本");
    await waitForText(page.locator("h1"), "日本");
    assert((await cardTitles(page)).includes(titles.symbols), "the 日本 feed lists the post");
    await page.goto("/community/topics/c-sharp");
    await waitForText(page.locator("h1"), "C#");
    assert((await cardTitles(page)).includes(titles.symbols), "the C# feed lists the post");
  });

  await step(page, "the topic's feed and the catalog's statistics", async () => {
    await page.goto(postUrl);
    await page.locator(".reader .chips").getByRole("link", { name: topics.gardens }).click();
    await waitForPath(page, "/community/topics/loopback-gardens");
    await waitForText(page.locator("h1"), topics.gardens);
    await waitForText(page.locator(".topic-figures"), "1 post · 1 this week · 0 followers");
    assert((await cardTitles(page)).includes(titles.post), "the topic's feed lists the post");
    await nav.getByRole("link", { name: "Community" }).click();
    await waitForPath(page, "/community");
    assert((await catalogEntry(page, "loopback-gardens")).includes("1 post · 1 this week"), "the catalog counts the new topic's post");
    assert((await catalogEntry(page, "quiet-rivers")).includes("1 post · 1 this week"), "and the other new topic's");
    const latest = await cardTitles(page);
    assert(latest[0] === titles.symbols && latest[1] === titles.post, `the latest posts are newest first (${latest})`);
    await shot(page, "c03-community-desktop.png");
  });

  await step(page, "comment, reply to the comment with the keyboard, like the comment", async () => {
    await page.goto(postUrl);
    await waitForText(page.locator("#comments-heading"), "Comments (0)");
    await page.getByLabel("Add a comment").fill("The hollyhocks by the fence are the tallest yet.");
    await page.getByRole("button", { name: "Comment", exact: true }).click();
    await waitForText(announcer(page), "Comment posted");
    await waitForText(page.locator("#comments-heading"), "Comments (1)");
    const reply = page.getByRole("button", { name: `Reply to ${alice.name}` });
    await reply.focus();
    await page.keyboard.press("Enter");
    assert((await reply.getAttribute("aria-expanded")) === "true", "the reply button says its form is open");
    assert(await page.evaluate(() => document.activeElement?.tagName === "TEXTAREA"), "the reply's text area has the focus");
    await page.keyboard.type("Agreed, and the seeds travel well.");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await waitForText(page.locator("#comments-heading"), "Comments (2)");
    await waitForText(page.locator(".comment-tree .comment-tree .comment-text"), "Agreed, and the seeds travel well.");
    assert(await page.evaluate(() => document.activeElement?.textContent?.includes("Agreed, and the seeds")), "the new reply has the focus");
    const like = page.locator(".comment-like").first();
    await like.click();
    await waitForText(like, "♥ Liked · 1");
    assert((await like.getAttribute("aria-pressed")) === "true", "the comment's like is pressed");
    await page.reload();
    await waitForText(page.locator(".comment-like").first(), "♥ Liked · 1");
  });

  await step(page, "edit my comment in place, then delete it after confirming", async () => {
    await page.goto(postUrl);
    await waitForText(page.locator("#comments-heading"), "Comments (2)");
    await page.getByLabel("Add a comment").fill("Water them at dusk, says the gardner.");
    await page.getByRole("button", { name: "Comment", exact: true }).click();
    await waitForText(page.locator("#comments-heading"), "Comments (3)");
    const commentId = await page.locator("article[data-comment-id]", { hasText: "says the gardner" }).getAttribute("data-comment-id");
    // By id: while the form stands in for the text, the article does not hold the text.
    const mine = page.locator(`article[data-comment-id="${commentId}"]`);
    await mine.getByRole("button", { name: "Edit your comment" }).click();
    const area = mine.getByLabel("Your comment", { exact: true });
    assert((await area.inputValue()) === "Water them at dusk, says the gardner.", "the form holds the comment's text");
    assert(await area.evaluate((e) => e === document.activeElement), "the edit form's text has the focus");
    await area.fill("Water them at dusk, says the gardener.");
    await mine.getByRole("button", { name: "Save" }).click();
    await waitForText(announcer(page), "Comment saved");
    await waitForText(mine.locator(".meta"), "edited");
    assert((await page.getByText("says the gardner").count()) === 0, "the old text is gone");
    await page.reload();
    await waitForText(mine.locator(".comment-text"), "Water them at dusk, says the gardener.");
    await waitForText(mine.locator(".meta"), "edited");
    assert((await page.locator("article[data-comment-id]").first().getByRole("button", { name: "Edit your comment" }).count()) === 1, "the author may edit each of their comments");

    await mine.getByRole("button", { name: "Delete your comment" }).click();
    await waitForText(mine.locator(".warning"), "cannot be undone");
    await mine.getByRole("button", { name: "Yes, delete the comment" }).click();
    await waitForText(announcer(page), "Comment deleted");
    await waitForText(page.locator("#comments-heading"), "Comments (2)");
    assert((await page.getByText("says the gardener").count()) === 0, "the deleted comment (no replies) leaves the thread");
    assert(await page.evaluate(() => document.activeElement?.id === "comments-heading"), "the thread's heading has the focus");
    await page.reload();
    await waitForText(page.locator("#comments-heading"), "Comments (2)");
    assert((await page.getByText("says the gardener").count()) === 0, "and stays gone");

    // A comment with a reply keeps its place as "[deleted]", the reply under it.
    await page.getByLabel("Add a comment").fill("Plant the seeds in rows of three.");
    await page.getByRole("button", { name: "Comment", exact: true }).click();
    await waitForText(page.locator("#comments-heading"), "Comments (3)");
    const parentId = await page.locator("article[data-comment-id]", { hasText: "rows of three" }).getAttribute("data-comment-id");
    const parent = page.locator(`article[data-comment-id="${parentId}"]`);
    await parent.getByRole("button", { name: `Reply to ${alice.name}` }).click();
    await parent.getByLabel(`Your reply to ${alice.name}`, { exact: true }).fill("Or in a circle, for the bees.");
    await parent.getByRole("button", { name: "Post reply" }).click();
    await waitForText(page.locator("#comments-heading"), "Comments (4)");
    await parent.getByRole("button", { name: "Delete your comment" }).click();
    await waitForText(parent.locator(".warning"), "Its replies stay");
    await parent.getByRole("button", { name: "Yes, delete the comment" }).click();
    await waitForText(page.locator("#comments-heading"), "Comments (3)");
    await waitForText(parent, "[deleted]");
    assert((await parent.locator("a, button").count()) === 0, "a deleted comment shows no author and offers nothing");
    await waitForText(page.locator(`li:has(> article[data-comment-id="${parentId}"]) .comment-tree .comment-text`), "Or in a circle, for the bees.");
    await page.reload();
    await waitForText(parent, "[deleted]");
    await waitForText(page.locator("#comments-heading"), "Comments (3)");
  });

  await step(page, "like the post, bookmark it, find it by search with that state, then dislike it", async () => {
    await page.goto(postUrl);
    const like = page.locator(".reactions .reaction.like");
    const dislike = page.locator(".reactions .reaction.dislike");
    await like.waitFor();
    assert((await reactionCount(page, "like")) === "0" && (await reactionCount(page, "dislike")) === "0", "no reactions yet");
    await like.click();
    await waitForText(announcer(page), "Liked: 1 like, 0 dislikes");
    assert((await like.getAttribute("aria-pressed")) === "true" && (await reactionCount(page, "like")) === "1", "liked: 1 like");
    const bookmark = page.locator(".bookmark");
    await waitForText(bookmark, "☆ Bookmark · 0 saves");
    await bookmark.click();
    await waitForText(bookmark, "★ Bookmarked · 1 save");
    assert((await bookmark.getAttribute("aria-pressed")) === "true", "the bookmark button is pressed");

    // Search: the index catches up asynchronously; ask again until the post is found.
    await page.goto("/community");
    await page.locator("#community-q").fill("hollyhock GARDENS");
    await page.locator("#community-q").press("Enter");
    await waitForPath(page, "/community/search");
    let found = false;
    for (let i = 0; i < 60 && !found; i++) {
      found = (await cardTitles(page)).includes(titles.post);
      if (!found) {
        await page.waitForTimeout(500);
        await page.reload();
      }
    }
    assert(found, "search finds the post by a folded, stemmed query");
    await waitForText(page.locator(".search-summary"), "1 post found for “hollyhock GARDENS”");
    const card = page.locator(".post-card", { hasText: titles.post });
    await waitForText(card, "You like this");
    await waitForText(card, "Bookmarked");

    await card.getByRole("link", { name: titles.post }).click();
    await waitForPath(page, postUrl);
    await dislike.waitFor();
    assert((await dislike.getAttribute("aria-pressed")) === "false", "not disliked yet");
    await dislike.click();
    await waitForText(announcer(page), "Disliked: 0 likes, 1 dislike");
    assert((await reactionCount(page, "like")) === "0" && (await reactionCount(page, "dislike")) === "1", "switching moves the count from like to dislike");
    assert((await like.getAttribute("aria-pressed")) === "false" && (await dislike.getAttribute("aria-pressed")) === "true", "only dislike is pressed");
    await page.reload();
    await page.locator(".reactions .reaction.dislike[aria-pressed=true]").waitFor();
    assert((await reactionCount(page, "dislike")) === "1", "the dislike persisted");
    await page.locator(".comments").scrollIntoViewIfNeeded();
    await shot(page, "c04-comments-desktop.png");
  });

  await step(page, "the bookmarked list has the post; the liked list no longer does", async () => {
    await page.goto("/community/me");
    await waitForText(page.locator("h1"), "Your posts");
    await page.locator(".list-tabs").getByRole("link", { name: "Bookmarked" }).click();
    await waitForPath(page, "/community/me?list=bookmarks");
    assert((await cardTitles(page)).includes(titles.post), "the bookmarked list shows the post");
    await page.locator(".list-tabs").getByRole("link", { name: "Liked" }).click();
    await waitForPath(page, "/community/me?list=likes");
    assert(!(await cardTitles(page)).includes(titles.post), "a disliked post is not in the liked list");
    await waitForText(page.locator("main"), "No liked posts yet");
  });

  await step(page, "save a draft: only in the author's own drafts", async () => {
    await page.goto("/community/write");
    const form = page.locator("form.write-form");
    await form.getByLabel("Title", { exact: true }).fill(titles.draft);
    await form.getByLabel("Content", { exact: true }).fill("Slow water, stones and reeds: notes still being written.");
    await form.getByLabel("Topics (optional)", { exact: true }).fill(topics.rivers);
    await form.getByRole("button", { name: "Save draft" }).click();
    await page.waitForURL(/\/community\/posts\/[^/]+$/);
    await waitForText(announcer(page), "Draft saved");
    await waitForText(page.locator(".reader .eyebrow"), "Draft — only you can see it");
    assert((await page.locator(".reactions, .comments").count()) === 0, "a draft offers no reactions and no comments");

    await page.goto("/community/me");
    assert(!(await cardTitles(page)).includes(titles.draft), "the draft is not among the published posts");
    await page.locator(".list-tabs").getByRole("link", { name: "Drafts" }).click();
    await waitForPath(page, "/community/me?list=drafts");
    assert((await cardTitles(page)).includes(titles.draft), "the drafts list shows it");
    await waitForText(page.locator(".post-card"), "Draft");
    await shot(page, "c05-drafts-desktop.png");
    await page.goto("/community");
    assert(!(await cardTitles(page)).includes(titles.draft), "the draft is not among the latest posts");
    assert((await catalogEntry(page, "quiet-rivers")).includes("1 post"), "a draft does not count in its topic");
  });

  await step(page, "edit the draft and publish it", async () => {
    await page.goto("/community/me?list=drafts");
    await page.getByRole("link", { name: `Edit “${titles.draft}”` }).click();
    await page.waitForURL(/\/community\/posts\/[^/]+\/edit$/);
    await waitForText(page.locator("h1"), "Edit draft");
    const form = page.locator("form.write-form");
    // Chosen topics are chips (the input is for the next one).
    const chosen = await form.locator(".topic-chips .topic-chip").allTextContents();
    assert(chosen.length === 1 && chosen[0].startsWith(topics.rivers), `the form holds the draft's topics (${chosen})`);
    await form.getByLabel("Title", { exact: true }).fill(titles.published);
    await form.getByRole("button", { name: "Publish", exact: true }).click();
    await page.waitForURL(/\/community\/posts\/[^/]+$/);
    await waitForText(announcer(page), "Post published");
    await waitForText(page.locator("h1"), titles.published);
    assert((await page.locator(".badge.draft").count()) === 0, "no longer a draft");
    await page.locator(".reactions").waitFor();

    await page.goto("/community/me?list=drafts");
    await waitForText(page.locator("main"), "No drafts");
    await page.goto("/community/me");
    const mine = await cardTitles(page);
    assert(mine.includes(titles.published) && mine.includes(titles.post), `both posts are published (${mine})`);
    await page.goto("/community");
    assert((await catalogEntry(page, "quiet-rivers")).includes("2 posts · 2 this week"), "the topic's statistics count the published draft");
    assert((await catalogEntry(page, "loopback-gardens")).includes("1 post"), "the other topic is unchanged");
    await page.locator(".topic-catalog").getByRole("link", { name: topics.rivers, exact: true }).click();
    await waitForPath(page, "/community/topics/quiet-rivers");
    await waitForText(page.locator(".topic-figures"), "2 posts");
    const feed = await cardTitles(page);
    assert(feed[0] === titles.published && feed[1] === titles.post, `the topic's feed is newest first (${feed})`);
    // Following is a setting; the users service sends the community the follower delta.
    await page.getByRole("button", { name: "Follow topic" }).click();
    await waitForText(announcer(page), `Following ${topics.rivers}`);
    await waitForText(page.locator(".topic-figures"), "2 posts · 2 this week · 1 follower");
    await page.getByRole("button", { name: "Unfollow topic" }).waitFor();
    await nav.getByRole("link", { name: "Community" }).click();
    assert((await catalogEntry(page, "quiet-rivers")).includes("1 follower"), "the catalog counts the follower");
  });

  await step(page, "delete my own post after confirming: back to my list, and gone", async () => {
    await page.goto("/community/write");
    const form = page.locator("form.write-form");
    await form.getByLabel("Title", { exact: true }).fill(titles.regret);
    await form.getByLabel("Content", { exact: true }).fill("Published too soon.");
    await form.getByRole("button", { name: "Publish", exact: true }).click();
    await page.waitForURL(/\/community\/posts\/[^/]+$/);
    const regretUrl = new URL(page.url()).pathname;
    await waitForText(page.locator("h1"), titles.regret);
    await page.getByRole("button", { name: "Delete post…" }).click();
    await waitForText(page.locator(".delete-post .warning"), "cannot be undone");
    await page.getByRole("button", { name: "Cancel" }).click();
    assert(await page.evaluate(() => document.activeElement?.textContent === "Delete post…"), "cancelling gives the focus back");
    await page.getByRole("button", { name: "Delete post…" }).click();
    await page.getByRole("button", { name: "Yes, delete the post" }).click();
    await waitForPath(page, "/community/me");
    await waitForText(announcer(page), "was deleted");
    const mine = await cardTitles(page);
    assert(!mine.includes(titles.regret) && mine.includes(titles.post), `the list no longer has the deleted post (${mine})`);
    await page.goto(regretUrl);
    await waitForText(page.locator("main [role=alert]"), "Not found");
  });

  await step(page, "keep one more draft, then log out", async () => {
    await page.goto("/community/write");
    const form = page.locator("form.write-form");
    await form.getByLabel("Title", { exact: true }).fill(titles.secret);
    await form.getByLabel("Content", { exact: true }).fill("Not for anyone else yet.");
    await form.getByRole("button", { name: "Save draft" }).click();
    await page.waitForURL(/\/community\/posts\/[^/]+$/);
    secretUrl = new URL(page.url()).pathname;
    await waitForText(page.locator(".reader .eyebrow"), "Draft");
    await nav.getByRole("button", { name: "Log out" }).click();
    await nav.getByRole("link", { name: "Log in" }).waitFor();
  });
  await desktop.close();

  // ------------------------------------------------------------------ phone: Bob
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, baseURL: base });
  await watch(phone, "phone", baseHost, (url) => url.startsWith(uploads), (url) => url.startsWith(incoming));
  const mobile = await phone.newPage();
  const menu = mobile.getByRole("button", { name: "Menu" });
  const mobileNav = mobile.getByRole("navigation", { name: "Main" });

  await step(mobile, "phone: a second member browses the community with the menu", async () => {
    await register(mobile, bob);
    await mobile.goto("/");
    // The first page is drawn once the session is restored; a menu opened before would close.
    await mobile.locator("#site-nav .who").waitFor({ state: "attached" });
    await mobile.getByRole("heading", { level: 1 }).first().waitFor();
    await menu.tap();
    await mobileNav.getByRole("link", { name: "Community" }).tap();
    await waitForPath(mobile, "/community");
    assert(!(await mobileNav.isVisible()), "the menu closes after navigating");
    const latest = await cardTitles(mobile);
    assert(latest.includes(titles.published) && latest.includes(titles.post), "both published posts are listed");
    assert(!latest.includes(titles.secret), "the remaining draft is not");
    const width = await mobile.evaluate(() => document.documentElement.scrollWidth);
    assert(width <= 390, `nothing overflows the phone's width (${width}px)`);
    await shot(mobile, "c06-community-phone.png");
  });

  await step(mobile, "phone: the draft turned post is visible; the author's drafts are not", async () => {
    await mobile.getByRole("link", { name: titles.published }).tap();
    await waitForText(mobile.locator("h1"), titles.published);
    await waitForText(mobile.locator(".reader .meta"), `By ${alice.name}`);
    await mobile.goto(postUrl);
    await waitForText(mobile.locator("h1"), titles.post);
    const hero = await loadedSize(mobile.locator(".reader .hero"));
    assert(hero.width === COVER.width, "the cover shows on the phone");
    await waitForText(mobile.locator("#comments-heading"), "Comments (3)");
    // The page's view beacon is counted in the background, in batches: a later visit shows it.
    let counted = false;
    for (let i = 0; i < 60 && !counted; i++) {
      counted = ((await mobile.locator(".reader .meta").first().textContent()) ?? "").includes("1 view");
      if (!counted) {
        await mobile.waitForTimeout(500);
        await mobile.reload();
        await waitForText(mobile.locator("h1"), titles.post);
      }
    }
    assert(counted, "another member's visit counts one view");
    await mobile.locator(".reactions .reaction.like").tap();
    await mobile.locator(".reactions .reaction.like[aria-pressed=true]").waitFor();
    assert((await reactionCount(mobile, "like")) === "1" && (await reactionCount(mobile, "dislike")) === "1", "another member's like counts beside the author's dislike");
    const box = await mobile.locator(".reader").boundingBox();
    assert(box && box.width <= 390, "the post fits the phone's width");
    await shot(mobile, "c07-post-phone.png", true);

    await mobile.locator(".reader .meta").getByRole("link", { name: alice.name }).tap();
    await mobile.waitForURL(/\/community\/users\/[^/?]+$/);
    await waitForText(mobile.locator("h1"), `Posts by ${alice.name}`);
    const tabs = await mobile.locator(".list-tabs a").allTextContents();
    assert(!tabs.includes("Drafts"), `another member's drafts are not offered (${tabs})`);
    const theirs = await cardTitles(mobile);
    assert(theirs.includes(titles.published) && !theirs.includes(titles.secret), "the published posts only");
    await mobile.goto(`${new URL(mobile.url()).pathname}?list=drafts`);
    const refused = mobile.locator("main [role=alert]");
    await waitForText(refused, "Not allowed");
    await mobile.goto(secretUrl);
    await waitForText(mobile.locator("main [role=alert]"), "Not found");
    assert(!((await mobile.locator("main").textContent()) ?? "").includes(titles.secret), "the draft's title never shows");
  });
  await phone.close();

  // ------------------------------------------------------------------ desktop: the administrator
  const moderation = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: base });
  await watch(moderation, "moderation", baseHost, (url) => url.startsWith(uploads), (url) => url.startsWith(incoming));
  const desk = await moderation.newPage();
  const reasons = {
    comment: "Off topic: this thread is about the gardens.",
    post: "Spam: the same post was sent to every topic.",
  };

  await step(desk, "an administrator removes a comment with a reason", async () => {
    await logIn(desk, admin(), postUrl);
    await waitForText(desk.locator("#comments-heading"), "Comments (3)");
    const reply = desk.locator("article[data-comment-id]", { hasText: "Agreed, and the seeds travel well." });
    await reply.getByRole("button", { name: `Remove the comment by ${alice.name} (moderation)` }).click();
    await reply.getByRole("button", { name: "Remove the comment", exact: true }).click();
    // No reason: refused before any request (a delete without one is an author's), under the field.
    await reply.locator(".remove-form .field-error").waitFor({ state: "visible" });
    const why = reply.getByLabel("Reason for removing the comment", { exact: true });
    assert((await why.getAttribute("aria-invalid")) === "true", "the empty reason is marked invalid");
    await why.fill(reasons.comment);
    await reply.getByRole("button", { name: "Remove the comment", exact: true }).click();
    await waitForText(announcer(desk), "Comment removed");
    await waitForText(desk.locator("#comments-heading"), "Comments (2)");
    assert((await desk.getByText("Agreed, and the seeds travel well.").count()) === 0, "the removed reply leaves the thread");
  });

  await step(desk, "an administrator removes a post with a reason; the moderation log lists both", async () => {
    await desk.goto(symbolsUrl);
    await waitForText(desk.locator("h1"), titles.symbols);
    await desk.getByRole("button", { name: "Remove the post (moderation)" }).click();
    const why = desk.getByLabel("Reason for removing the post", { exact: true });
    assert(await why.evaluate((e) => e === document.activeElement), "the reason's field has the focus");
    await why.fill(reasons.post);
    await desk.getByRole("button", { name: "Remove the post", exact: true }).click();
    await waitForPath(desk, "/community");
    await waitForText(announcer(desk), "was removed");
    assert(!(await cardTitles(desk)).includes(titles.symbols), "the removed post leaves the latest posts");

    await desk.locator("#site-nav").getByRole("link", { name: "Admin" }).click();
    await waitForPath(desk, "/admin/users");
    await desk.getByRole("navigation", { name: "Administration pages" }).getByRole("link", { name: "Moderation log" }).click();
    await waitForPath(desk, "/admin/moderation");
    await waitForText(desk.locator("h1"), "Moderation log");
    await waitForText(desk.locator(".pager-summary"), "2 removals");
    const entries = desk.locator(".moderation-entry");
    assert((await entries.count()) === 2, "one entry per removal");
    await waitForText(entries.nth(0).locator(".card-title"), "Post removed");
    await waitForText(entries.nth(0).locator(".moderation-reason"), reasons.post);
    await waitForText(entries.nth(1).locator(".card-title"), "Comment removed");
    await waitForText(entries.nth(1).locator(".moderation-reason"), reasons.comment);
    // A removed comment's post is still there: the entry links to it.
    await entries.nth(1).getByRole("link", { name: "this post" }).click();
    await waitForPath(desk, postUrl);
    await waitForText(desk.locator("h1"), titles.post);
    await desk.goto(symbolsUrl);
    await waitForText(desk.locator("main [role=alert]"), "Not found");
    await desk.goto("/admin/moderation");
    await waitForText(desk.locator(".pager-summary"), "2 removals");
    await shot(desk, "c08-moderation-log-desktop.png");
  });
  await moderation.close();
});
