// Community notifications and reports in headless Chromium: a reply to Alice's post shows on
// the community header's bell, in her inbox, and is marked read; Bob reports a post, the
// administrator removes it from the reports queue, and Bob's inbox tells him the outcome (and
// the post's author hers). Every step is audited by axe (support.mjs's step).
// Run by tests/tests/browser.rs: node community-notify-journey.mjs <base-url>.

import { admin, apiLogIn, assert, journey, logIn, register, setup, shot as shotIn, step as stepIn, waitForPath, waitForText, watch } from "./support.mjs";

const { base, artifacts } = await setup("community-notify-journey.mjs");
const baseHost = new URL(base).host;
const run = Date.now().toString(36);
const alice = { username: `alice_${run}`, password: "alice-password-1" };
const bob = { username: `bob_${run}`, password: "bob-password-1" };
const carol = { username: `carol_${run}`, password: "carol-password-1" };

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

await journey("community notifications journey", async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: base });
  await watch(context, "desktop", baseHost);
  const request = context.request;
  for (const who of [alice, bob, carol]) {
    await register(request, who);
  }
  const aliceToken = await apiLogIn(request, alice);
  const bobToken = await apiLogIn(request, bob);
  const created = await request.post("/api/v1/posts", { headers: { authorization: `Bearer ${aliceToken}` }, data: { title: `Proofing bread overnight ${run}`, content: "Cold retard in the fridge." } });
  assert(created.status() === 201, `the post answered ${created.status()}`);
  const post = (await created.json()).id;
  const commented = await request.post(`/api/v1/posts/${post}/comments`, { headers: { authorization: `Bearer ${bobToken}` }, data: { text: "How long do you leave it?" } });
  assert(commented.status() === 201, `the comment answered ${commented.status()}`);
  const carolToken = await apiLogIn(request, carol);
  const spam = await request.post("/api/v1/posts", { headers: { authorization: `Bearer ${carolToken}` }, data: { title: `Cheap followers ${run}`, content: "Buy them at example.com" } });
  const spamId = (await spam.json()).id;

  const page = await context.newPage();
  await step(page, "Alice's bell counts the comment; the inbox marks it read", async () => {
    await logIn(page, alice, "/community");
    // The fan-out is asynchronous: the bell shows the count once it is there.
    const bell = page.locator("a.bell");
    for (let i = 0; i < 50 && !(await bell.getAttribute("aria-label"))?.includes("1 unread"); i++) {
      await page.waitForTimeout(200);
      if (i % 10 === 9) await page.reload();
    }
    assert((await bell.getAttribute("aria-label")) === "Notifications, 1 unread", `the bell says ${await bell.getAttribute("aria-label")}`);
    await bell.click();
    await waitForPath(page, "/community/notifications");
    const item = page.locator(".notification").first();
    await waitForText(item, `${bob.username} commented on your post`);
    await waitForText(item, "How long do you leave it?");
    await waitForText(page.locator(".unread-count"), "1 unread");
    await shot(page, "n01-inbox-desktop.png", true);
    await item.getByRole("button", { name: "Mark read" }).click();
    await waitForText(page.locator(".unread-count"), "Nothing unread");
    assert(!(await item.getAttribute("class"))?.includes("unread"), "the item shows read");
    await page.getByRole("link", { name: "Open" }).first().click();
    await waitForPath(page, `/community/posts/${post}`);
  });

  await step(page, "Bob reports Carol's post", async () => {
    await page.evaluate(() => localStorage.clear());
    await logIn(page, bob, `/community/posts/${spamId}`);
    await page.getByRole("button", { name: "Report the post" }).click();
    await page.getByLabel("Why are you reporting it?").selectOption("spam");
    await page.getByLabel("Anything to add (optional)").fill("Selling followers");
    await page.getByRole("button", { name: "Send report" }).click();
    await waitForText(page.locator(".report-sent"), "Reported.");
  });

  await step(page, "the administrator removes it from the reports queue", async () => {
    await page.evaluate(() => localStorage.clear());
    await logIn(page, admin(), "/admin/reports");
    const group = page.locator(".report-group", { hasText: `Cheap followers ${run}` });
    await waitForText(group, "1 report");
    await waitForText(group, "spam 1");
    await waitForText(group, "Selling followers");
    await shot(page, "n02-reports-desktop.png", true);
    await group.getByLabel(/Note/).fill("Spam: selling followers");
    await group.getByRole("button", { name: "Remove the post" }).click();
    await waitForText(page.locator(".report-cards"), "Removed; 1 reporter notified.");
  });

  await step(page, "Bob is told the outcome", async () => {
    await page.evaluate(() => localStorage.clear());
    await logIn(page, bob, "/community/notifications");
    const told = page.locator(".notification", { hasText: "The post you reported was removed" });
    for (let i = 0; i < 30 && !(await told.count()); i++) {
      await page.waitForTimeout(300);
      await page.reload();
    }
    await waitForText(told, "Spam: selling followers");
    await page.getByRole("button", { name: "Mark all read" }).click();
    await waitForText(page.locator(".unread-count"), "Nothing unread");
    await shot(page, "n03-outcome-desktop.png", true);
  });
});
