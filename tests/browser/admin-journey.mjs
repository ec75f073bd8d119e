// The administration's AI pages in headless Chromium: the provisioned admin sees the failed
// summary's state on the post's page (set up by tests/tests/browser.rs), opens the
// administration from the navigation, finds the post on the failed summaries page and
// retries it; changes the model on the provider page; on the digest jobs page, a day after tomorrow is refused under its
// field, and a job started for a member is followed to its final status. Then the
// administration's tabs on a phone.
// Run by tests/tests/browser.rs (`admin_ai_journey_in_chromium`): node admin-journey.mjs <base-url>.
//
// Every page is watched as in journey.mjs: an uncaught exception, a CSP violation, a request to
// any host but the stack's or an accessibility violation fails the journey.

import { admin, assert, env, fitsPhone, journey, logIn, setup, shot as shotIn, step as stepIn, viewport, waitForPath, waitForText } from "./support.mjs";

const { base, artifacts } = await setup("admin-journey.mjs");
const postId = env("JOURNEY_POST_ID");
const memberId = env("JOURNEY_MEMBER_ID");

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

await journey("admin journey", async (browser) => {
  const desktop = await viewport(browser, "desktop", base);
  const page = await desktop.newPage();
  const tabs = page.getByRole("navigation", { name: "Administration pages" });

  await step(page, "the post's page says its summary failed, and offers the admin a retry", async () => {
    await logIn(page, admin(), `/community/posts/${postId}`);
    await waitForText(page.locator("h1"), "A summary that failed");
    const summary = page.getByRole("region", { name: "AI summary" });
    await waitForText(summary.locator(".summary-state"), "Failed");
    assert((await summary.getAttribute("data-status")) === "FAILED", "the summary's state is FAILED");
    await summary.getByRole("button", { name: "Retry the summary" }).waitFor();
  });

  await step(page, "the failed summary is listed, and retried from the page", async () => {
    await page.goto("/");
    await page.locator("#site-nav").getByRole("link", { name: "Admin" }).click();
    await waitForPath(page, "/admin/users");
    await tabs.getByRole("link", { name: "Failed summaries" }).click();
    await waitForPath(page, "/admin/summaries");
    await waitForText(page.locator("h1"), "Failed summaries");
    const card = page.locator(`.summary-card[data-post-id="${postId}"]`);
    await waitForText(card.locator(".card-title"), "A summary that failed");
    await waitForText(page.locator(".pager-summary"), "1 failed summary");
    assert((await page.locator("#site-nav a[aria-current=page]").textContent()) === "Admin", "the Admin link is current on every administration page");
    await card.getByRole("button", { name: "Retry" }).click();
    await waitForText(card.locator(".summary-state"), "Retried: PENDING");
    assert((await card.getByRole("button", { name: "Retry" }).count()) === 0, "a retried summary offers no second retry");
    await shot(page, "ad01-failed-summaries-desktop.png");
  });

  await step(page, "the provider page changes the model", async () => {
    await tabs.getByRole("link", { name: "AI provider" }).click();
    await waitForPath(page, "/admin/provider");
    await waitForText(page.locator(".provider-now"), "In use:");
    await page.getByLabel("Model").fill("   ");
    await page.getByRole("button", { name: "Use this provider" }).click();
    await page.locator("#field-model-error").waitFor({ state: "visible" });
    await page.getByLabel("Model").fill("journey-model");
    await page.getByRole("button", { name: "Use this provider" }).click();
    await waitForText(page.locator(".provider-now"), "journey-model");
    await page.reload();
    await waitForText(page.locator(".provider-now"), "journey-model");
    assert((await page.getByLabel("Model").inputValue()) === "journey-model", "the form shows the model in use");
    await shot(page, "ad02-provider-desktop.png");
  });

  await step(page, "a digest job: a far day refused under its field, then one followed to its end", async () => {
    await tabs.getByRole("link", { name: "Digest jobs" }).click();
    await waitForPath(page, "/admin/digests");
    await page.getByLabel("User id").fill(memberId);
    await page.getByLabel("Day (optional)").fill("2999-01-01");
    await page.getByRole("button", { name: "Start the job" }).click();
    await waitForText(page.locator("#field-date-error"), "must not be after tomorrow");
    await page.getByLabel("Day (optional)").fill("2025-09-01");
    await page.getByRole("button", { name: "Start the job" }).click();
    await page.waitForURL(/\/admin\/digests\?job=/);
    // No news that day: the member, following nothing, is given no digest.
    await waitForText(page.locator(".job-status"), "SKIPPED", 30000);
    await waitForText(page.locator(".job-message"), "No news was published on 2025-09-01");
    await shot(page, "ad03-digest-job-desktop.png");
  });
  await desktop.close();

  const phone = await viewport(browser, "phone", base);
  const mobile = await phone.newPage();
  await step(mobile, "phone: the administration's tabs fit", async () => {
    await logIn(mobile, admin(), "/admin/summaries", true);
    await waitForText(mobile.locator("h1"), "Failed summaries");
    await mobile.getByRole("navigation", { name: "Administration pages" }).getByRole("link", { name: "AI provider" }).tap();
    await waitForPath(mobile, "/admin/provider");
    await waitForText(mobile.locator(".provider-now"), "journey-model");
    await fitsPhone(mobile);
    await shot(mobile, "ad04-admin-phone.png", true);
  });
  await phone.close();
});
