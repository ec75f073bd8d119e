// A member writes a Markdown post in headless Chromium: a code block, a list and a link typed
// (the toolbar wraps a word in bold), the Preview tab showing the server's rendering, a topic
// picked from the suggestions with the keyboard and a new one added as a chip, publishing, and
// the post's page showing the rendered Markdown (a heading, bold, the list, the link with its
// rel, the code block with its language and text kept exactly, raw HTML as text); then the
// site's Atom feed carries it. Run by tests/tests/browser.rs: node writing-journey.mjs <base-url>.
//
// Every page is watched as in journey.mjs: an uncaught exception, a CSP violation or a request
// to any host but the stack's fails the journey.

import { assert, journey, logIn, register, setup, shot as shotIn, step as stepIn, viewport, waitForText } from "./support.mjs";

const { base, artifacts } = await setup("writing-journey.mjs");
const run = Date.now().toString(36);
const writer = { username: `writer_${run}`, password: "correct-horse-battery" };
const title = `Markdown notes ${run}`;
const known = `Rustacean Tools ${run}`;
const fresh = `Fresh Topic ${run}`;
const code = 'fn main() {\n    println!("<b>{}</b> & more", 1);\n}';
const content = [
  "## Why it matters",
  "",
  "Read [the book](https://doc.rust-lang.org/book/) first.",
  "",
  "- install the toolchain",
  "- write a test",
  "",
  "```rust",
  code,
  "```",
  "",
  "<script>alert(1)</script> stays text.",
  "",
  "Keep it loud",
].join("\n");

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

await journey("writing journey", async (browser) => {
  const desktop = await viewport(browser, "desktop", base);
  const page = await desktop.newPage();

  await step(page, "a topic exists to be suggested", async () => {
    await register(page.request, writer);
    const login = await page.request.post("/api/users/auth/login", { data: writer });
    const token = (await login.json()).token;
    const seeded = await page.request.post("/api/v1/posts", {
      headers: { Authorization: `Bearer ${token}` },
      data: { title: `Seed post ${run}`, content: "A post that names the topic.", topics: [known] },
    });
    assert(seeded.status() === 201, `the seed post answered ${seeded.status()}`);
  });

  await step(page, "write Markdown with the toolbar", async () => {
    await logIn(page, writer, "/community/write");
    const form = page.locator("form.write-form");
    await form.getByLabel("Title", { exact: true }).fill(title);
    const area = form.getByLabel("Content", { exact: true });
    await area.fill(content);
    // Select the last word and make it bold with the toolbar.
    await area.evaluate((element) => {
      const text = /** @type {HTMLTextAreaElement} */ (element);
      text.setSelectionRange(text.value.length - 4, text.value.length);
    });
    await form.getByRole("button", { name: "Bold", exact: true }).click();
    const value = await area.inputValue();
    assert(value.endsWith("Keep it **loud**"), `the toolbar wrapped the selection: ${value.slice(-30)}`);
  });

  await step(page, "the Preview tab shows the server's rendering", async () => {
    const form = page.locator("form.write-form");
    const tab = form.getByRole("tab", { name: "Preview" });
    await tab.click();
    const preview = form.locator(".markdown-preview .markdown");
    await waitForText(preview, "Why it matters");
    assert((await preview.locator("h3").textContent()) === "Why it matters", "## is a sub-heading under the page's own");
    assert((await preview.locator("li").count()) === 2, "the list has two items");
    assert((await preview.locator("pre code.language-rust").textContent()) === `${code}\n`, "the code keeps its text");
    assert((await preview.locator("strong").textContent()) === "loud", "the bold word");
    assert((await preview.locator("script").count()) === 0, "raw HTML is not markup");
    await waitForText(preview, "<script>alert(1)</script> stays text.");
    // The keyboard moves between the tabs; the text is still there.
    await tab.press("ArrowLeft");
    assert((await form.getByRole("tab", { name: "Write" }).getAttribute("aria-selected")) === "true", "Write is selected again");
    assert(await form.getByLabel("Content", { exact: true }).isVisible(), "the text area is back");
    await tab.click();
    await shot(page, "w01-preview-desktop.png", true);
    await form.getByRole("tab", { name: "Write" }).click();
  });

  await step(page, "topics: a suggestion picked with the keyboard, a new name as a chip", async () => {
    const form = page.locator("form.write-form");
    const topics = form.getByRole("combobox", { name: "Topics (optional)" });
    await topics.pressSequentially("rustacean");
    const option = form.getByRole("option", { name: new RegExp(known) });
    await option.waitFor({ state: "visible" });
    await topics.press("ArrowDown");
    assert((await option.getAttribute("aria-selected")) === "true", "the arrow highlights the suggestion");
    await topics.press("Enter");
    await waitForText(form.locator(".topic-chips"), known);
    await topics.fill(`${fresh},`);
    await waitForText(form.locator(".topic-chips"), fresh);
    assert((await topics.inputValue()) === "", "the comma added the name and cleared the input");
    // Backspace in the empty input takes the last chip off; added again.
    await topics.press("Backspace");
    assert(!((await form.locator(".topic-chips").textContent()) ?? "").includes(fresh), "Backspace removed the last chip");
    await topics.fill(fresh);
    await topics.press("Enter");
    await waitForText(form.locator(".topic-chips"), fresh);
  });

  await step(page, "publish, and the post shows the rendered Markdown", async () => {
    const form = page.locator("form.write-form");
    await form.getByRole("button", { name: "Publish" }).click();
    await page.waitForURL((url) => url.pathname.startsWith("/community/posts/") && !url.pathname.endsWith("/edit"));
    const body = page.locator(".reader .body.markdown");
    await waitForText(body, "Why it matters");
    const link = body.getByRole("link", { name: "the book" });
    assert((await link.getAttribute("href")) === "https://doc.rust-lang.org/book/", "the link's destination");
    assert((await link.getAttribute("rel")) === "nofollow ugc noopener", "the link's rel");
    assert((await body.locator("li").allTextContents()).join("|") === "install the toolchain|write a test", "the list");
    assert((await body.locator("pre code.language-rust").textContent()) === `${code}\n`, "the code block");
    assert((await body.locator("strong").textContent()) === "loud", "bold");
    assert((await body.locator("script").count()) === 0, "no script element");
    const chips = await page.locator(".reader .chips a").allTextContents();
    assert(chips.includes(known) && chips.includes(fresh), `both topics (${chips})`);
    await shot(page, "w02-post-desktop.png", true);
  });

  await step(page, "the site's Atom feed carries it", async () => {
    const feed = await page.request.get("/api/v1/feeds/posts.atom");
    assert(feed.status() === 200, `the feed answered ${feed.status()}`);
    assert((feed.headers()["content-type"] ?? "").startsWith("application/atom+xml"), "an Atom document");
    const text = await feed.text();
    assert(text.includes(`<title type="text">${title}</title>`), "the post is an entry");
    assert(text.includes("&lt;pre&gt;&lt;code class=&quot;language-rust&quot;&gt;"), "with its rendered content");
    const id = new URL(page.url()).pathname.split("/").pop();
    assert(text.includes(`<id>urn:uuid:${id}</id>`), "its id is the post's");
  });
});
