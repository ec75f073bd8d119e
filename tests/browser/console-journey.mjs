// The operator's console during an outage (incident platform) in headless Chromium: an admin
// issues an ingest key (shown once), which then sends logs with attributes and a trace; three
// bursts open three incidents that arrive in the live table without a reload, with their
// severity, age and counts; two are acknowledged at once, a selection survives the table's
// refreshes, and the counts follow; on a phone the incident's respond actions are on the first
// screen, it is assigned to an operator picked from a list, and its note keeps its line
// breaks; the timeline on a phone shows logs first (filters folded), each log's time to the
// second, its milliseconds and attributes in its detail; the key's last use is listed, and it
// is revoked after a confirmation and refused from then on. Silences: one now for 30 minutes,
// one scheduled as a maintenance window, the first expired by hand.
// Run by tests/tests/browser.rs: node console-journey.mjs <base-url>.

import { admin, announcer, apiLogIn, assert, fitsPhone, journey, logIn, registerOperator, sendLogs as send, setup, shot as shotIn, step as stepIn, viewport, waitForCount, waitForPath, waitForText } from "./support.mjs";

const { base, artifacts } = await setup("console-journey.mjs");
const run = Date.now().toString(36);
const who = { username: `console_${run}`, password: "correct-horse-battery" };
const partner = { username: `partner_${run}`, password: "correct-horse-battery" };

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

/**
 * Waits until `locator`'s text matches `pattern`.
 * @param {import("playwright-core").Locator} locator
 * @param {RegExp} pattern
 */
async function waitForMatch(locator, pattern, timeout = 15000) {
  const deadline = Date.now() + timeout;
  let last = "";
  while (Date.now() < deadline) {
    last = (await locator.first().textContent({ timeout: 1000 }).catch(() => "")) ?? "";
    if (pattern.test(last)) {
      return last;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${pattern}; last text: "${last.slice(0, 300)}"`);
}

/**
 * The count a status tab shows.
 * @param {import("playwright-core").Page} page
 * @param {string} status "" for All.
 */
async function countOf(page, status) {
  const text = await page.locator(`.status-tabs a[data-status="${status}"] .status-count`).textContent();
  return Number((text ?? "").trim().replace(/[^0-9]/g, ""));
}

/**
 * Waits until the status tabs show these counts.
 * @param {import("playwright-core").Page} page
 * @param {{ACTIVE: number, ACKNOWLEDGED: number, RESOLVED: number}} want
 */
async function countsAre(page, want) {
  const deadline = Date.now() + 20000;
  let seen = "";
  while (Date.now() < deadline) {
    if ((await page.locator(".status-tabs .status-count").count()) === 4) {
      const got = { ACTIVE: await countOf(page, "ACTIVE"), ACKNOWLEDGED: await countOf(page, "ACKNOWLEDGED"), RESOLVED: await countOf(page, "RESOLVED") };
      seen = JSON.stringify(got);
      if (seen === JSON.stringify(want)) {
        assert((await countOf(page, "")) === want.ACTIVE + want.ACKNOWLEDGED + want.RESOLVED, "All is their sum");
        return;
      }
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`expected the counts ${JSON.stringify(want)}, saw ${seen}`);
}

await journey("console journey", async (browser) => {
  const desktop = await viewport(browser, "desktop", base);
  const page = await desktop.newPage();
  let key = "";

  await step(page, "an admin issues an ingest key, shown once with Copy", async () => {
    await logIn(page, admin(), "/incidents/keys");
    await waitForText(page.locator("h1"), "Ingest keys");
    await page.getByRole("button", { name: "Issue key" }).click();
    await waitForText(page.locator("#field-name-error"), "must not be blank");
    await page.getByLabel("Name", { exact: true }).fill(`alloy-${run}`);
    await page.getByRole("button", { name: "Issue key" }).click();
    await waitForText(page.locator(".issued-key"), "shown only once");
    key = await page.locator("#issued-key").inputValue();
    assert(/^ik_[0-9a-f]{32}_/.test(key), `the key (${key})`);
    assert((await page.getByRole("button", { name: "Copy the key" }).count()) === 1, "a Copy button");
    const card = page.locator(".key-card", { hasText: `alloy-${run}` });
    await waitForText(card.locator(".last-used"), "Never");
    await page.reload();
    await waitForCount(page, ".issued-key", 0);
    await shot(page, "oc01-keys-desktop.png", true);
  });

  const tokens = { operator: "" };
  await step(page, "three bursts open three incidents in the live table", async () => {
    await registerOperator(page.request, partner);
    await apiLogIn(page.request, partner).then(async (token) => {
      // The partner has opened the console once: they are an operator incidents go to.
      const seen = await page.request.get("/api/v1/operators", { headers: { authorization: `Bearer ${token}` } });
      assert(seen.ok(), `the partner's operator list answered ${seen.status()}`);
    });
    await registerOperator(page.request, who);
    tokens.operator = await apiLogIn(page.request, who);
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.clear());
    await logIn(page, who, "/incidents");
    await waitForText(page.locator(".incident-list"), "No incidents");
    await countsAre(page, { ACTIVE: 0, ACKNOWLEDGED: 0, RESOLVED: 0 });
    await send({ service: `cart-${run}`, severity: "ERROR", count: 2, message: "Cart service timed out" });
    await send({ service: `pay-${run}`, severity: "FATAL", count: 3, message: "Payment ledger unreachable" });
    // The third from the issued key, with what a shipper says beside the message.
    const sent = await page.request.post("/api/v1/logs", {
      headers: { "x-api-key": key },
      data: {
        serviceName: `auth-${run}`,
        type: "APPLICATION_LOG",
        severity: "ERROR",
        logContent: "Token signer refused the request\nretry 1 of 3",
        attributes: { pod: "auth-7d9f", region: "eu-west-1" },
        traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
        spanId: "00f067aa0ba902b7",
      },
    });
    assert(sent.status() === 202, `the key's log answered ${sent.status()}: ${await sent.text()}`);
    // No reload: the table asks again by itself.
    await waitForCount(page, ".incident-row", 3);
    await countsAre(page, { ACTIVE: 3, ACKNOWLEDGED: 0, RESOLVED: 0 });
    const fatal = page.locator(".incident-row", { hasText: `pay-${run}` });
    await waitForText(fatal.locator(".severity-cell"), "FATAL");
    await waitForMatch(fatal.locator(".age-cell"), /just now|s ago/);
    await waitForText(fatal.locator(".occurrences-cell"), "3");
    await shot(page, "oc02-table-desktop.png", true);
  });

  await step(page, "two acknowledged at once; a selection survives the refreshes; the counts follow", async () => {
    const scrollBefore = await page.evaluate(() => window.scrollY);
    await page.locator(".incident-row", { hasText: `cart-${run}` }).locator(".select-incident").check();
    await page.locator(".incident-row", { hasText: `pay-${run}` }).locator(".select-incident").check();
    await waitForText(page.locator(".selection-count"), "2 incidents selected");
    await page.locator(".bulk-bar").getByRole("button", { name: "Acknowledge" }).click();
    await waitForText(page.locator(".bulk-outcome"), "Acknowledged 2 incidents.");
    await waitForText(announcer(page), "Acknowledged 2 incidents");
    await countsAre(page, { ACTIVE: 1, ACKNOWLEDGED: 2, RESOLVED: 0 });
    await waitForText(page.locator(".selection-count"), "None selected");
    // Selected, then two refreshes later still selected, the page where it was.
    const auth = page.locator(".incident-row", { hasText: `auth-${run}` });
    await auth.locator(".select-incident").check();
    await waitForText(page.locator(".live-status"), "updated");
    const first = await page.locator(".live-status").textContent();
    await page.waitForFunction((before) => document.querySelector(".live-status")?.textContent !== before, first, { timeout: 15000 });
    await page.waitForTimeout(5500);
    assert(await auth.locator(".select-incident").isChecked(), "the selection survived the refreshes");
    assert((await page.evaluate(() => window.scrollY)) === scrollBefore, "the page kept its scroll");
    await page.locator(".bulk-bar").getByRole("button", { name: "Resolve" }).click();
    await waitForText(page.locator(".bulk-outcome"), "Resolved 1 incident.");
    await countsAre(page, { ACTIVE: 0, ACKNOWLEDGED: 2, RESOLVED: 1 });
    await page.locator(".status-tabs").getByRole("link", { name: /^Acknowledged/ }).click();
    await waitForPath(page, "/incidents?status=ACKNOWLEDGED");
    await waitForCount(page, ".incident-row", 2);
  });
  await step(page, "silences: refused without a comment, one now for 30 minutes, one scheduled, expired by hand", async () => {
    await page.locator(".section-tabs").getByRole("link", { name: "Silences" }).click();
    await waitForPath(page, "/incidents/silences");
    await waitForText(page.locator(".silences-active"), "No active silences");
    await page.getByRole("button", { name: "Create silence" }).click();
    await page.locator("#field-comment-error").waitFor({ state: "visible" });
    await page.getByLabel("Comment").fill("Cart database migration\ntonight, 30 minutes");
    await page.getByLabel("Services").fill(`cart-${run}`);
    await page.getByLabel("ERROR", { exact: true }).check();
    await page.getByLabel("For minutes").fill("30");
    await page.getByRole("button", { name: "Create silence" }).click();
    await waitForText(announcer(page), "Silence created");
    const active = page.locator(".silences-active .silence-card");
    await waitForText(active, `service cart-${run} · severity ERROR`);
    const comment = await active.locator(".card-title").innerText();
    assert(comment === "Cart database migration\ntonight, 30 minutes", `the comment's lines (${JSON.stringify(comment)})`);
    // A maintenance window tomorrow, 22:00 to 23:00 local time.
    const [startsAt, endsAt] = await page.evaluate(() => {
      const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
      const local = (/** @type {Date} */ d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
      const start = new Date();
      start.setDate(start.getDate() + 1);
      start.setHours(22, 0, 0, 0);
      return [local(start), local(new Date(start.getTime() + 3600000))];
    });
    await page.getByLabel("Comment").fill("Planned failover drill");
    await page.getByLabel("Labels").fill("env=prod");
    await page.getByLabel("A window with a start and an end").check();
    await page.getByLabel("Starts").fill(startsAt);
    await page.getByLabel("Ends").fill(endsAt);
    await page.getByRole("button", { name: "Create silence" }).click();
    await waitForText(page.locator(".silences-pending .silence-card"), "label env=prod");
    await waitForText(page.locator(".silences-pending .silence-card"), "22:00:00");
    await shot(page, "oc05-silences-desktop.png", true);
    await active.getByRole("button", { name: "Expire now" }).click();
    await waitForText(page.locator(".silences-active"), "No active silences");
    await waitForText(page.locator(".silences-expired .silence-card"), "Cart database migration");
    assert((await page.locator(".silences-expired .silence-card button").count()) === 0, "an expired silence has nothing left to do");
  });
  await desktop.close();

  // ------------------------------------------------------------------ phone
  const phone = await viewport(browser, "phone", base);
  const mobile = await phone.newPage();
  await step(mobile, "on a phone the respond actions are on the first screen; assigned from a list; the note keeps its lines", async () => {
    await logIn(mobile, who, "/incidents?status=ACKNOWLEDGED", true);
    await waitForCount(mobile, ".incident-row", 2);
    await fitsPhone(mobile);
    await mobile.locator(".incident-row", { hasText: `pay-${run}` }).locator(".title-cell a").tap();
    await mobile.waitForURL(/\/incidents\/[0-9a-f]{32}$/);
    const resolve = mobile.locator(".respond-bar").getByRole("button", { name: "Resolve" });
    await resolve.waitFor();
    const box = await resolve.boundingBox();
    const height = mobile.viewportSize()?.height ?? 0;
    assert(box !== null && box.y + box.height <= height, `Resolve is above the fold (${JSON.stringify(box)} in ${height} px)`);
    // Times to the second, with how long ago.
    await waitForMatch(mobile.locator(".incident-facts"), /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
    await waitForMatch(mobile.locator(".incident-facts"), /ago|just now/);
    await waitForText(mobile.locator("#field-assignee"), partner.username);
    await mobile.locator("#field-assignee").selectOption(partner.username);
    await mobile.getByLabel("Note").fill("Handing over to the payments team.\nLedger vendor paged.");
    await mobile.locator(".respond-bar").getByRole("button", { name: "Assign" }).tap();
    await waitForText(mobile.locator(".incident-facts"), partner.username);
    await waitForText(mobile.locator(".history"), `Assigned to ${partner.username}`);
    const note = await mobile.locator(".history-note").last().innerText();
    assert(note === "Handing over to the payments team.\nLedger vendor paged.", `the note's lines (${JSON.stringify(note)})`);
    await waitForText(mobile.locator(".incident-facts"), "Acknowledged");
    await fitsPhone(mobile);
    await shot(mobile, "oc03-incident-phone.png");
  });

  await step(mobile, "the timeline on a phone: logs first, to the second, attributes in a log's detail", async () => {
    await mobile.goto(`/incidents/logs?serviceName=${encodeURIComponent(`auth-${run}`)}`);
    await waitForCount(mobile, ".log-list .log-row", 1);
    assert(!(await mobile.locator(".filters-fold").evaluate((d) => /** @type {HTMLDetailsElement} */ (d).open)), "the filters are folded");
    const row = mobile.locator(".log-row").first();
    const box = await row.boundingBox();
    assert(box !== null && box.y + 80 < (mobile.viewportSize()?.height ?? 0), `the first log shows on the first screen (${JSON.stringify(box)})`);
    await waitForMatch(row.locator(".log-head time"), /\d{2}:\d{2}:\d{2}/);
    await row.locator(".log-detail > summary").tap();
    await waitForMatch(row.locator(".log-facts"), /\d{2}:\d{2}:\d{2}\.\d{3}/);
    await row.locator(".log-attributes summary").tap();
    await waitForText(row.locator(".attribute-list"), "eu-west-1");
    await waitForText(row.locator(".attribute-list"), "4bf92f3577b34da6a3ce929d0e0e4736");
    await fitsPhone(mobile);
    await mobile.locator(".filters-fold summary").tap();
    await mobile.locator("#field-severity").waitFor();
    await shot(mobile, "oc04-timeline-phone.png");
  });
  await phone.close();

  const again = await viewport(browser, "desktop", base);
  const adminPage = await again.newPage();
  await step(adminPage, "the key's last use is listed; revoked after a confirmation, it is refused", async () => {
    await logIn(adminPage, admin(), "/incidents/keys");
    const card = adminPage.locator(".key-card", { hasText: `alloy-${run}` });
    await waitForMatch(card.locator(".last-used"), /\d{2}:\d{2}:\d{2}/);
    await card.getByRole("button", { name: "Revoke…" }).click();
    await card.getByRole("button", { name: "Cancel" }).click();
    await card.getByRole("button", { name: "Revoke…" }).click();
    await card.getByRole("button", { name: "Yes, revoke the key" }).click();
    await waitForText(announcer(adminPage), "revoked");
    await waitForCount(adminPage, `.key-card:has-text("alloy-${run}")`, 0);
    const refused = await adminPage.request.post("/api/v1/logs", {
      headers: { "x-api-key": key },
      data: { serviceName: `auth-${run}`, type: "APPLICATION_LOG", severity: "ERROR", logContent: "after the revoke" },
    });
    assert(refused.status() === 401, `a revoked key is refused (${refused.status()})`);
  });
  await again.close();
});
