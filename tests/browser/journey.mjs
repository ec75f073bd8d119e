// A reader's journey through the news reader in headless Chromium, on a desktop and a phone
// viewport: register, add feeds, subscribe, browse by source, topic and page, read, the AI
// assistant (and its outage message), star, settings, deep links, log out and in, starred
// articles on a second device, session renewal,
// delete the account, keyboard use, and the API docs. Run by tests/tests/browser.rs against a local
// stack: node journey.mjs <base-url>. Screenshots go to JOURNEY_ARTIFACTS.
//
// Every page is watched: an uncaught exception, a Content-Security-Policy violation or a
// request to any host but the stack's (other than a publisher's article image) fails the
// journey.

import { announcer, assert, env, journey, setup, shot as shotIn, step as stepIn, waitForPath, waitForText, watch as watchOn } from "./support.mjs";

const { base, artifacts } = await setup("journey.mjs");

const feeds = { tech: env("JOURNEY_FEED_TECH"), world: env("JOURNEY_FEED_WORLD"), notAFeed: env("JOURNEY_NOT_A_FEED") };
const llmControl = env("JOURNEY_LLM_CONTROL");
const llmReply = env("JOURNEY_LLM_REPLY");

const username = `reader_${Date.now().toString(36)}`;
const password = "correct-horse-battery";
const baseHost = new URL(base).host;

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);
/** @type {(context: import("playwright-core").BrowserContext, label: string) => Promise<void>} */
const watch = (context, label) => watchOn(context, label, baseHost);

/**
 * Steers the test's model server: `outage` (every call fails) or `bullets` (a bulleted
 * answer), on or off.
 * @param {"outage"|"bullets"} what
 * @param {boolean} on
 */
async function llm(what, on) {
  const response = await fetch(`${llmControl}/${what}?on=${on ? 1 : 0}`, { method: "POST" });
  assert(response.ok, `switching the model's ${what} ${on ? "on" : "off"}`);
}

await journey("journey", async (browser) => {
  // ------------------------------------------------------------------ desktop
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: base });
  await watch(desktop, "desktop");
  const page = await desktop.newPage();
  const nav = page.getByRole("navigation", { name: "Main" });
  let articleId = "";
  let articleTitle = "";
  let worldSourceId = "";

  await step(page, "platform surface answers", async () => {
    const health = await page.request.get("/actuator/health");
    assert(health.status() === 200 && (await health.json()).status === "UP", "gateway health is UP");
    const docs = await page.request.get("/v3/api-docs");
    const contract = await docs.json();
    assert(contract.openapi === "3.1.0" && contract.paths["/api/content/articles"], "the contract lists the content routes");
    const deep = await page.request.get("/sources/anything/deeper?x=1");
    assert(deep.status() === 200 && (deep.headers()["content-type"] ?? "").startsWith("text/html"), "a deep link answers the client's HTML");
    assert(deep.headers()["cache-control"] === "no-cache", "the HTML is not cached without revalidation");
    assert((deep.headers()["content-security-policy"] ?? "").includes("script-src 'self'"), "the HTML carries the CSP");
    const unknownApi = await page.request.get("/api/nothing-here");
    assert(unknownApi.status() === 404 && (await unknownApi.json()).code === 404, "an unknown API path is a 404 in the error shape");
  });

  await step(page, "home as a visitor", async () => {
    const response = await page.goto("/");
    assert(response?.status() === 200, "home answers 200");
    await waitForText(page.locator("h1"), "Latest articles");
    await waitForText(page.locator("main"), "No articles yet");
    const script = await page.locator('script[type="module"]').getAttribute("src");
    assert(script && /\/assets\/app\.[0-9a-f]{10}\.js$/.test(script), `the entry module has a hashed name (${script})`);
    const asset = await page.request.get(script);
    assert(asset.headers()["cache-control"] === "public, max-age=31536000, immutable", "hashed assets are immutable");
  });

  await step(page, "register with mistakes, then for real", async () => {
    await nav.getByRole("link", { name: "Register" }).click();
    await waitForPath(page, "/register");
    await waitForText(page.locator("h1"), "Create an account");
    await page.getByLabel("Username").fill("ab");
    await page.getByLabel("Email").fill("not-an-email");
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.locator("#field-username-error").waitFor({ state: "visible" });
    await waitForText(page.locator("#field-password-error"), "8");
    assert((await page.getByLabel("Username").getAttribute("aria-invalid")) === "true", "the username is marked invalid");
    await shot(page, "01-register-errors-desktop.png");
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Email").fill(`${username}@example.com`);
    await page.getByLabel("Password").fill(password);
    await page.getByLabel("Name (optional)").fill("Journey Reader");
    await page.getByRole("button", { name: "Create account" }).click();
    await waitForPath(page, "/");
    await waitForText(nav, username);
  });

  await step(page, "submit feeds and subscribe", async () => {
    await nav.getByRole("link", { name: "Sources" }).click();
    await waitForPath(page, "/sources");
    await waitForText(page.locator("main"), "No sources yet");
    await page.getByLabel("Feed URL").fill(feeds.notAFeed);
    await page.getByRole("button", { name: "Add feed" }).click();
    await page.locator("#field-url-error").waitFor({ state: "visible" });
    await page.getByLabel("Feed URL").fill(feeds.tech);
    await page.getByRole("button", { name: "Add feed" }).click();
    await page.waitForURL(/\/sources\/[^/]+$/);
    await waitForText(page.locator("h1"), "Loopback Tech Daily");
    await waitForText(page.locator(".subscriber-count"), "1 subscriber");
    await page.getByRole("button", { name: "Unsubscribe" }).waitFor();
    await page.locator(".cards li").first().waitFor();
    await shot(page, "02-source-desktop.png");

    await nav.getByRole("link", { name: "Sources" }).click();
    await page.getByLabel("Feed URL").fill(feeds.world);
    await page.getByRole("button", { name: "Add feed" }).click();
    await page.waitForURL(/\/sources\/[^/]+$/);
    worldSourceId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop() ?? "");
    await waitForText(page.locator(".subscriber-count"), "1 subscriber");
  });

  await step(page, "browse the latest articles page by page", async () => {
    await nav.getByRole("link", { name: "Articles" }).click();
    await waitForPath(page, "/");
    // The reading list: the feed's stories are months old, past the reader's horizon, so read.
    await waitForText(page.locator("h1"), "All articles");
    await waitForText(page.locator("main"), "All read");
    await page.getByRole("link", { name: "Every source’s latest articles" }).click();
    await waitForPath(page, "/?all=1");
    await waitForText(page.locator("h1"), "Latest articles");
    await page.locator(".cards .article-card").first().waitFor();
    assert((await page.locator(".cards .article-card").count()) === 10, "ten articles on the first page");
    await waitForText(page.locator(".pager"), "Page 1 of 2");
    await shot(page, "03-articles-desktop.png");
    await page.getByRole("link", { name: "Older →" }).click();
    await waitForPath(page, "/?all=1&page=1");
    await waitForText(page.locator(".pager"), "Page 2 of 2");
    await page.goBack();
    await waitForText(page.locator(".pager"), "Page 1 of 2");
  });

  await step(page, "browse by topic and follow it", async () => {
    await page.locator(".topic-strip").getByRole("link", { name: "Technology" }).click();
    await waitForPath(page, "/topics/technology");
    await waitForText(page.locator("h1"), "Technology");
    await page.locator(".cards .article-card").first().waitFor();
    const chips = await page.locator(".cards .article-card").evaluateAll((cards) => cards.map((c) => c.textContent ?? ""));
    assert(chips.every((text) => text.includes("Technology")), "every article on the topic page has the topic");
    await page.getByRole("button", { name: "Follow topic" }).click();
    await page.getByRole("button", { name: "Unfollow topic" }).waitFor();
  });

  await step(page, "read an article and star it", async () => {
    const first = page.locator(".cards .article-card h3 a").first();
    articleTitle = (await first.textContent()) ?? "";
    await first.click();
    await page.waitForURL(/\/articles\/[^/]+$/);
    articleId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop() ?? "");
    await waitForText(page.locator("h1"), articleTitle);
    assert((await page.locator(".reader .body p").count()) >= 2, "the article body has paragraphs");
    await page.getByRole("button", { name: "☆ Star" }).click();
    await waitForText(page.locator(".reader .actions"), "★ Starred");
    await shot(page, "04-article-desktop.png");
  });

  await step(page, "the AI assistant: summary, explanation, sentiment, question", async () => {
    const panel = page.locator(".ai-panel");
    await page.getByLabel("Length").selectOption("short");
    await page.getByLabel("Style").selectOption("bullets");
    await llm("bullets", true);
    // The model holds its last words: the summary shows what it has written so far.
    await llm("hold", true);
    // The page names the GenAI function URL, which streams (deployed, the HTTP API buffers).
    const streamBase = await page.locator('meta[name="genai-stream-url"]').getAttribute("content");
    assert(streamBase?.endsWith("/lambda-url/assistant/stream/"), `the page names the stream URL: ${streamBase}`);
    const streamed = page.waitForRequest((r) => r.url().endsWith("/stream/summarize"));
    await panel.getByRole("button", { name: "Summarize" }).click();
    assert((await streamed).url() === `${streamBase}summarize`, "the summary streams from the function URL");
    const draft = panel.locator("#ai-panel-summary .ai-draft");
    await waitForText(draft, "loopback project");
    const early = (await panel.locator("#ai-panel-summary .ai-answer").textContent()) ?? "";
    await panel.locator("#ai-panel-summary").getByRole("button", { name: "Stop" }).waitFor();
    await llm("hold", false);
    await panel.locator("#ai-panel-summary .ai-answer li").nth(2).waitFor();
    const finished = (await panel.locator("#ai-panel-summary .ai-answer").textContent()) ?? "";
    assert(finished.length > early.length, `the answer grew: ${JSON.stringify(early)} then ${JSON.stringify(finished)}`);
    assert(finished.includes("until the end of the year"), "the whole summary is shown");
    await llm("bullets", false);

    await panel.getByRole("tab", { name: "Explain" }).click();
    await page.getByLabel("Explain it for").selectOption("expert");
    await panel.getByRole("button", { name: "Explain" }).click();
    await waitForText(panel.locator("#ai-panel-explain .ai-answer"), "Explained for an expert");

    await panel.getByRole("tab", { name: "Sentiment" }).click();
    await panel.getByRole("button", { name: "Analyze sentiment" }).click();
    await waitForText(panel.locator("#ai-panel-sentiment .ai-answer"), "neutral");
    await waitForText(panel.locator("#ai-panel-sentiment .facts"), "not rated");

    await panel.getByRole("tab", { name: "Ask" }).click();
    await page.getByLabel("Your question about this article").fill("When can users upgrade?");
    await panel.getByRole("button", { name: "Ask" }).click();
    await waitForText(panel.locator("#ai-panel-ask .ai-answer"), llmReply);
    await shot(page, "05-ai-panel-desktop.png");
  });

  await step(page, "the AI assistant explains a model outage (502) and recovers", async () => {
    const panel = page.locator(".ai-panel");
    await llm("outage", true);
    await page.getByLabel("Your question about this article").fill("Who maintains the project?");
    await panel.getByRole("button", { name: "Ask" }).click();
    const alert = panel.locator("#ai-panel-ask [role=alert]");
    await waitForText(alert, "The AI could not answer");
    await waitForText(alert, "Try again in a moment");
    await shot(page, "06-ai-error-desktop.png");
    await llm("outage", false);
    await alert.getByRole("button", { name: "Try again" }).click();
    await waitForText(panel.locator("#ai-panel-ask .ai-answer").first(), "Who maintains the project?");
  });

  await step(page, "keyboard: skip link, tabs with arrow keys, a button with Enter", async () => {
    await page.goto(`/articles/${encodeURIComponent(articleId)}`);
    await waitForText(page.locator("h1"), articleTitle);
    await page.keyboard.press("Tab");
    const skip = await page.evaluate(() => document.activeElement?.textContent);
    assert(skip === "Skip to content", `the first Tab reaches the skip link (got ${skip})`);
    await page.keyboard.press("Enter");
    assert(await page.evaluate(() => document.activeElement?.id === "main"), "the skip link moves focus to the main content");
    let onTab = false;
    for (let i = 0; i < 80 && !onTab; i++) {
      await page.keyboard.press("Tab");
      onTab = await page.evaluate(() => document.activeElement?.id === "ai-tab-summary");
    }
    assert(onTab, "Tab reaches the AI assistant's tabs");
    const outline = await page.evaluate(() => {
      const element = document.activeElement;
      return element ? getComputedStyle(element).outlineStyle : "none";
    });
    assert(outline !== "none", "the focused tab shows a focus outline");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    assert(await page.evaluate(() => document.activeElement?.id === "ai-tab-sentiment"), "arrow keys move between tabs");
    assert((await page.locator("#ai-panel-sentiment").isVisible()) === true, "the selected tab's panel shows");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    assert(await page.evaluate(() => document.activeElement?.textContent === "Analyze sentiment"), "Tab reaches the panel's button");
    await page.keyboard.press("Enter");
    await waitForText(page.locator("#ai-panel-sentiment .ai-answer"), "neutral");
  });

  await step(page, "starred articles", async () => {
    await nav.getByRole("link", { name: "Starred" }).click();
    await waitForPath(page, "/starred");
    await waitForText(page.locator(".entries"), articleTitle);
    await shot(page, "07-starred-desktop.png");
  });

  await step(page, "settings persist", async () => {
    await nav.getByRole("link", { name: "Settings" }).click();
    await waitForPath(page, "/settings");
    await page.getByLabel("Science").waitFor();
    await page.getByLabel("Dark").check();
    await page.getByLabel("Default summary length").selectOption("long");
    await page.getByLabel("Science").check();
    await page.getByRole("button", { name: "Save preferences" }).click();
    await waitForText(announcer(page), "Preferences saved");
    await page.getByLabel("Name (optional)").fill("Journey Reader II");
    await page.getByRole("button", { name: "Save profile" }).click();
    await waitForText(announcer(page), "Profile saved");
    await page.reload();
    await page.getByLabel("Science").waitFor();
    assert((await page.locator("html").getAttribute("data-theme")) === "dark", "the dark theme applies after a reload");
    assert(await page.getByLabel("Dark").isChecked(), "the theme setting persisted");
    assert(await page.getByLabel("Science").isChecked(), "the followed topic persisted");
    assert(await page.getByLabel("Technology").isChecked(), "the topic followed from its page is followed");
    assert((await page.getByLabel("Default summary length").inputValue()) === "long", "the summary length persisted");
    assert((await page.getByLabel("Name (optional)").inputValue()) === "Journey Reader II", "the profile name persisted");
    await page.getByRole("link", { name: "Subscriptions, folders, OPML import and export" }).waitFor();
    await shot(page, "08-settings-dark-desktop.png", true);
  });

  await step(page, "unsubscribing the last subscriber removes the source", async () => {
    await page.goto(`/sources/${encodeURIComponent(worldSourceId)}`);
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await waitForPath(page, "/sources");
    await waitForText(announcer(page), "was removed");
    // The announcement can come before the list is drawn: wait for its first card.
    await page.locator(".source-card h3").first().waitFor();
    const listed = await page.locator(".source-card h3").allTextContents();
    assert(listed.length === 1 && listed[0].includes("Loopback Tech Daily"), `only the tech source is left (${listed})`);
  });

  await step(page, "deep links and the client's own not-found page", async () => {
    const fresh = await desktop.newPage();
    await fresh.goto(`/articles/${encodeURIComponent(articleId)}`);
    await waitForText(fresh.locator("h1"), articleTitle);
    await fresh.goto("/topics/technology?page=0");
    await waitForText(fresh.locator("h1"), "Technology");
    await fresh.goto("/no/such/page");
    await waitForText(fresh.locator("h1"), "Page not found");
    await fresh.close();
  });

  await step(page, "log out, fail a login, log back in", async () => {
    await nav.getByRole("button", { name: "Log out" }).click();
    await nav.getByRole("link", { name: "Log in" }).waitFor();
    await page.goto("/saved");
    await waitForPath(page, "/starred");
    await waitForText(page.locator("main"), "Log in to see this page");
    await page.locator("main").getByRole("link", { name: "Log in" }).click();
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Password").fill("wrong-password");
    await page.getByRole("button", { name: "Log in" }).click();
    await waitForText(page.locator(".form-error"), "Wrong username or password");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Log in" }).click();
    await waitForPath(page, "/starred");
    await waitForText(page.locator(".entries"), articleTitle);
  });

  await step(page, "the API docs work offline under their CSP", async () => {
    const response = await page.goto("/swagger-ui.html");
    assert(new URL(page.url()).pathname === "/swagger-ui/", `the docs redirect to /swagger-ui/ (at ${page.url()})`);
    assert(response?.status() === 200, "the Swagger UI page answers 200");
    await page.locator(".opblock").nth(20).waitFor({ timeout: 20000 });
    await waitForText(page.locator("#swagger-ui"), "/api/content/articles");
    await shot(page, "12-swagger-ui-desktop.png");
  });
  await desktop.close();

  // ------------------------------------------------------------------ phone
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, baseURL: base });
  await watch(phone, "phone");
  const mobile = await phone.newPage();
  const menu = mobile.getByRole("button", { name: "Menu" });
  const mobileNav = mobile.getByRole("navigation", { name: "Main" });

  await step(mobile, "phone: log in (a next= off this origin is refused) and browse with the menu", async () => {
    // Browsers read `/\host` as `//host`: once this sent the reader to another site.
    await mobile.goto(`/login?next=${encodeURIComponent("/\\evil.example/api/users/x")}`);
    await mobile.getByLabel("Username").fill(username);
    await mobile.getByLabel("Password").fill(password);
    await mobile.getByRole("button", { name: "Log in" }).tap();
    await waitForPath(mobile, "/");
    await waitForText(mobile.locator("h1"), "All articles");
    await mobile.goto("/?state=all");
    await mobile.locator(".entries .entry").first().waitFor();
    assert(await menu.isVisible(), "the phone layout has a menu button");
    assert(!(await mobileNav.isVisible()), "the navigation is folded away on a phone");
    const width = await mobile.evaluate(() => document.documentElement.scrollWidth);
    assert(width <= 390, `nothing overflows the phone's width (${width}px)`);
    await shot(mobile, "09-articles-phone.png");
    await menu.tap();
    await mobileNav.getByRole("link", { name: "Sources" }).tap();
    await waitForPath(mobile, "/sources");
    assert(!(await mobileNav.isVisible()), "the menu closes after navigating");
  });

  await step(mobile, "phone: the articles starred on the desktop are here too", async () => {
    await mobile.goto("/starred");
    await waitForText(mobile.locator(".entries"), articleTitle);
  });

  await step(mobile, "phone: an active session is renewed before its token expires", async () => {
    const before = await mobile.evaluate(() => localStorage.getItem("newsReader.token"));
    // The same session in a context of its own: a fake clock applies to a whole context.
    const renewal = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, baseURL: base, storageState: await phone.storageState() });
    await watch(renewal, "renewal");
    const reading = await renewal.newPage();
    await reading.clock.install();
    await reading.goto(`/articles/${encodeURIComponent(articleId)}`);
    await waitForText(reading.locator("h1"), articleTitle);
    // Listening first: the clock's jump may itself fire the renewal (a timer due meanwhile).
    const renewals = [];
    reading.on("response", (r) => {
      if (r.url().endsWith("/api/users/auth/refresh")) {
        renewals.push(r.status());
      }
    });
    // Five minutes before the token expires (however long the steps before took), the reader
    // is still reading.
    const { exp } = JSON.parse(Buffer.from(String(before).split(".")[1], "base64url").toString());
    const now = await reading.evaluate(() => Date.now());
    assert(exp * 1000 - now > 6 * 60 * 1000, "the token has more than six minutes left");
    await reading.clock.fastForward(exp * 1000 - 5 * 60 * 1000 - now);
    // The reader keeps reading: a renewal that failed is tried again on their next activity
    // (checked at most every 15 s), so each try moves the clock past that.
    const fresh = (old) => Boolean(localStorage.getItem("newsReader.token")) && localStorage.getItem("newsReader.token") !== old;
    let renewed = false;
    let tries = 0;
    for (; tries < 4 && !renewed; tries += 1) {
      if (tries > 0) {
        await reading.clock.fastForward(16_000);
      }
      await reading.keyboard.press("Tab");
      renewed = await reading.waitForFunction(fresh, before, { timeout: 15_000 }).then(() => true, () => false);
    }
    assert(renewed, `the token was renewed while the reader was active (answers to /auth/refresh: ${JSON.stringify(renewals)})`);
    // One renewal is one request (its own request's header once set off a renewal of its own,
    // as deep as the stack went: hundreds of requests at once).
    assert(renewals.filter((status) => status === 200).length === 1, `one renewal answered 200 (${JSON.stringify(renewals)})`);
    if (tries > 1) {
      console.log(`  renewed on activity ${tries}; answers to /auth/refresh: ${JSON.stringify(renewals)}`);
    }
    // The fresh token is good for its whole lifetime, whatever this device's clock says (it
    // now runs an hour ahead of the server's): reading on renews nothing more.
    const asked = renewals.length;
    await reading.clock.fastForward(16_000);
    await reading.keyboard.press("Tab");
    await reading.goto(`/articles/${encodeURIComponent(articleId)}`);
    await waitForText(reading.locator("h1"), articleTitle);
    await reading.waitForTimeout(500);
    assert(renewals.length === asked, `no renewal after the fresh token (answers to /auth/refresh: ${JSON.stringify(renewals)})`);
    await renewal.close();
  });

  await step(mobile, "phone: read with the assistant below the article", async () => {
    await mobile.goto(`/articles/${encodeURIComponent(articleId)}`);
    await waitForText(mobile.locator("h1"), articleTitle);
    const reader = await mobile.locator(".reader").boundingBox();
    const panel = await mobile.locator(".ai-panel").boundingBox();
    assert(reader && panel && panel.y > reader.y + reader.height - 1, "the assistant sits below the article on a phone");
    assert(panel && panel.width <= 390, "the assistant fits the phone's width");
    await shot(mobile, "10-article-phone.png", true);
    await mobile.locator(".ai-panel").getByRole("button", { name: "Summarize" }).tap();
    await mobile.locator("#ai-panel-summary .ai-answer").waitFor();
    await mobile.locator(".ai-panel").scrollIntoViewIfNeeded();
    await shot(mobile, "11-ai-phone.png");
  });

  await step(mobile, "phone: delete the account", async () => {
    await menu.tap();
    await mobileNav.getByRole("link", { name: "Settings" }).tap();
    await waitForPath(mobile, "/settings");
    await mobile.getByRole("button", { name: "Delete my account…" }).tap();
    await mobile.getByRole("button", { name: "Yes, delete my account" }).tap();
    await waitForPath(mobile, "/");
    await waitForText(announcer(mobile), "Your account was deleted");
    await mobile.goto("/login");
    await mobile.getByLabel("Username").fill(username);
    await mobile.getByLabel("Password").fill(password);
    await mobile.getByRole("button", { name: "Log in" }).tap();
    await waitForText(mobile.locator(".form-error"), "Wrong username or password");
    const sources = await (await mobile.request.get("/api/content/sources")).json();
    assert(Array.isArray(sources) && sources.length === 0, "the last subscriber's sources went with the account");
  });
  await phone.close();
});
