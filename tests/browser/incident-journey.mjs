// An on-call engineer's journey through the incident pages (incident platform) in headless Chromium:
// an operator (the provisioned admin grants the role) logs in, watches the live timeline take
// in logs a service sends with the ingest key (sent by tests/tests/browser.rs over reqwest when
// the journey asks), filters it, pages it by cursor, pauses and resumes it; finds the one
// incident the burst of ERRORs opened, reads why its logs are together, acknowledges then
// resolves it with a note and an assignee picked from the operators; acknowledges and resolves its alert; adds and
// changes an alert rule, which only an admin may delete (the operator is not offered it; the
// admin deletes it); writes a postmortem linked to the incident; every form's bad input showing the API's 400 under the field it names. Then the
// same incident and timeline on a phone.
// Run by tests/tests/browser.rs: node incident-journey.mjs <base-url>.
//
// Every page is watched as in journey.mjs: an uncaught exception, a CSP violation or a request
// to any host but the stack's fails the journey.

import { admin, announcer, assert, fitsPhone, journey, logIn, navLinks, registerOperator, sendLogs as send, setup, shot as shotIn, step as stepIn, viewport, waitForCount, waitForPath, waitForText } from "./support.mjs";

const { base, artifacts } = await setup("incident-journey.mjs");
const run = Date.now().toString(36);
const username = `oncall_${run}`;
const password = "correct-horse-battery";
const who = { username, password };
const service = `checkout-${run}`;
const burstMessage = "Payment gateway timed out";
const normalized = `${burstMessage} after # ms (order #)`;
const BURST = 6;
const PAGE = 4;

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

/**
 * Waits until the API's timeline holds every one of `ids` (the processor stored them).
 * @param {import("playwright-core").Page} page
 * @param {string[]} ids
 */
async function stored(page, ids) {
  const token = await page.evaluate(() => localStorage.getItem("newsReader.token"));
  const deadline = Date.now() + 20000;
  while (Date.now() < deadline) {
    const response = await page.request.get("/api/v1/logs?limit=500", { headers: { authorization: `Bearer ${token}` } });
    const logs = /** @type {{id: string}[]} */ (await response.json());
    if (ids.every((id) => logs.some((l) => l.id === id))) {
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`logs ${ids.join(", ")} were not stored within 20 s`);
}

/**
 * The ids of the log rows on the page.
 * @param {import("playwright-core").Page} page
 */
async function rowIds(page) {
  return page.locator(".log-list .log-row").evaluateAll((rows) => rows.map((r) => /** @type {HTMLElement} */ (r).dataset.logId ?? ""));
}

await journey("incident journey", async (browser) => {
  // ------------------------------------------------------------------ desktop
  const desktop = await viewport(browser, "desktop", base);
  const page = await desktop.newPage();
  /** @type {string[]} */
  let burstIds = [];
  let incidentPath = "";

  await step(page, "an operator logs in: the empty live timeline", async () => {
    await registerOperator(page.request, who);
    await logIn(page, who, "/incidents/logs");
    const links = await navLinks(page);
    assert(links.includes("Incidents") && !links.includes("Admin"), `an operator's navigation (${links})`);
    await waitForText(page.locator("h1"), "Log timeline");
    await waitForText(page.locator(".timeline"), "No logs match these filters");
    await waitForText(page.locator(".live-status"), "Live");
    const tab = page.locator(".section-tabs a[aria-current=page]");
    assert((await tab.textContent()) === "Timeline", "the section's Timeline tab is current");
    assert((await page.locator("#site-nav a[aria-current=page]").textContent()) === "Incidents", "the Incidents link is current");
  });

  await step(page, "logs sent with the ingest key arrive on the live timeline", async () => {
    const info = await send({ service: `inventory-${run}`, severity: "INFO", count: 3, message: "Stock level checked" });
    burstIds = await send({ service, severity: "ERROR", count: BURST, message: burstMessage });
    // No reload: the page asks for the newest logs again by itself.
    await waitForCount(page, ".log-list .log-row", BURST + 3);
    const ids = await rowIds(page);
    for (const id of [...info, ...burstIds]) {
      assert(ids.includes(id), `log ${id} is on the timeline`);
    }
    const sorted = [...ids].sort().reverse();
    assert(JSON.stringify(ids) === JSON.stringify(sorted), "newest first");
    await waitForText(page.locator(".log-list"), `${burstMessage} after`);
  });

  await step(page, "a filter shows only the burst's ERRORs, and deep-links", async () => {
    await page.locator("#field-serviceName").fill(service);
    await page.locator("#field-severity").selectOption("ERROR");
    await page.getByRole("button", { name: "Show logs" }).click();
    await page.waitForURL((url) => url.searchParams.get("serviceName") === service && url.searchParams.get("severity") === "ERROR");
    await waitForCount(page, ".log-list .log-row", BURST);
    const severities = await page.locator(".log-list .log-row").evaluateAll((rows) => rows.map((r) => /** @type {HTMLElement} */ (r).dataset.severity));
    assert(severities.every((s) => s === "ERROR"), `only ERRORs (${severities})`);
    const services = await page.locator(".log-service").allTextContents();
    assert(services.every((s) => s === service), `only ${service} (${services})`);
    await shot(page, "i01-timeline-desktop.png", true);
  });

  await step(page, "bad filters show the API's 400 under the field it names", async () => {
    await page.locator("#field-limit").fill("0");
    await page.getByRole("button", { name: "Show logs" }).click();
    await waitForText(page.locator("#field-limit-error"), "must be an integer from 1 to 500");
    assert((await page.locator("#field-limit").getAttribute("aria-invalid")) === "true", "the limit field is marked");
    await waitForText(page.locator(".form-error"), "Check the fields marked below");
    await page.locator("#field-limit").fill("50");
    await page.locator("#field-from").fill("2026-03-02T12:00");
    await page.locator("#field-to").fill("2026-03-02T11:00");
    await page.getByRole("button", { name: "Show logs" }).click();
    await waitForText(page.locator("#field-from-error"), "must not be after to");
    await page.getByRole("link", { name: "Clear filters" }).click();
    await waitForPath(page, "/incidents/logs");
    await waitForCount(page, ".log-list .log-row", BURST + 3);
  });

  await step(page, "cursor paging: older pages until the burst is all seen", async () => {
    await page.goto(`/incidents/logs?serviceName=${encodeURIComponent(service)}&limit=${PAGE}`);
    await waitForCount(page, ".log-list .log-row", PAGE);
    const first = await rowIds(page);
    await page.getByRole("link", { name: "Older logs →" }).click();
    await page.waitForURL((url) => url.searchParams.has("cursor"));
    await waitForCount(page, ".log-list .log-row", BURST - PAGE);
    const second = await rowIds(page);
    assert(new Set([...first, ...second]).size === BURST && burstIds.every((id) => [...first, ...second].includes(id)), "the two pages hold the burst once");
    assert(first.at(-1) > second[0], "the older page starts below the first");
    await waitForText(page.locator(".live-status"), "not updated live");
    await page.getByRole("link", { name: "Back to the newest logs" }).click();
    await waitForCount(page, ".log-list .log-row", PAGE);
  });

  await step(page, "paused, the timeline waits; resumed, it catches up", async () => {
    await page.goto("/incidents/logs");
    await waitForCount(page, ".log-list .log-row", BURST + 3);
    await page.getByRole("button", { name: "Pause live updates" }).click();
    await waitForText(page.locator(".live-status"), "Paused");
    await waitForText(announcer(page), "Live updates paused");
    const late = await send({ service: `inventory-${run}`, severity: "WARN", count: 1, message: "Stock level low" });
    await stored(page, late);
    // Longer than the page's polling interval: a paused page does not ask.
    await page.waitForTimeout(6000);
    assert(!(await rowIds(page)).includes(late[0]), "a paused timeline does not show new logs");
    await page.getByRole("button", { name: "Resume live updates" }).click();
    await waitForCount(page, ".log-list .log-row", BURST + 4);
    assert((await rowIds(page))[0] === late[0], "the new log is on top");
    // A log is deleted with two presses; the live page keeps it gone.
    const row = page.locator(`.log-row[data-log-id="${late[0]}"]`);
    await row.getByRole("button", { name: "Delete" }).click();
    await row.getByRole("button", { name: "Confirm delete" }).click();
    await waitForText(announcer(page), "Log deleted");
    await waitForCount(page, ".log-list .log-row", BURST + 3);
    await page.reload();
    await waitForCount(page, ".log-list .log-row", BURST + 3);
  });

  await step(page, "exactly one incident, with the burst's occurrences", async () => {
    await page.locator("#site-nav").getByRole("link", { name: "Incidents" }).click();
    await waitForPath(page, "/incidents");
    await waitForText(page.locator("h1"), "Incidents");
    // Grouping runs right after the logs are stored: reload until it has counted them all.
    const deadline = Date.now() + 20000;
    let text = "";
    while (Date.now() < deadline) {
      await page.locator(".incident-row, .state.empty").first().waitFor();
      text = (await page.locator(".incident-list").textContent()) ?? "";
      const counted = await page.locator(".incident-row .occurrences-cell").allTextContents();
      if (counted.includes(String(BURST))) {
        break;
      }
      await page.reload();
    }
    await waitForCount(page, ".incident-row", 1, 1000);
    assert(text.includes(normalized) && text.includes(service) && text.includes("Active") && text.includes("ERROR"), `the incident's row (${text})`);
    await page.locator(".incident-row .title-cell a").click();
    await page.waitForURL(/\/incidents\/[0-9a-f]{32}$/);
    incidentPath = new URL(page.url()).pathname;
    await waitForText(page.locator("h1"), normalized);
  });

  await step(page, "the incident says which logs and why they are together", async () => {
    await waitForCount(page, ".occurrence", BURST);
    const grouped = await page.locator(".occurrence").evaluateAll((rows) => rows.map((r) => /** @type {HTMLElement} */ (r).dataset.logId ?? ""));
    assert(burstIds.every((id) => grouped.includes(id)), "every ERROR of the burst is grouped");
    const rules = await page.locator(".occurrence .rule-ref").allTextContents();
    assert(rules.length === BURST && rules.every((r) => r === "default"), `each matched the default rule (${rules})`);
    await waitForText(page.locator(".why"), "Grouped by same serviceName, type and message");
    await waitForText(page.locator(".why .normalized"), normalized);
    await waitForText(page.locator(".incident-facts"), "Active");
    await waitForText(page.locator(".history"), "Active (opened by a log)");
    await waitForText(page.locator(".incident-alerts"), "Errors and fatal errors");
  });

  await step(page, "acknowledge with an assignee picked from the operators, then resolve", async () => {
    const respond = page.locator(".change-form");
    await waitForText(page.locator("#field-assignee"), username);
    await page.getByLabel("Note").fill("Looking into the gateway");
    await page.locator("#field-assignee").selectOption(username);
    await respond.getByRole("button", { name: "Acknowledge" }).click();
    await waitForText(page.locator(".incident-facts"), "Acknowledged");
    await waitForText(page.locator(".history"), "Active → Acknowledged");
    await waitForText(page.locator(".history"), "Looking into the gateway");
    await waitForText(page.locator(".incident-facts"), username);
    assert((await respond.getByRole("button", { name: "Acknowledge" }).count()) === 0, "no second acknowledgement");
    await page.getByLabel("Note").fill("Gateway pool restarted");
    await respond.getByRole("button", { name: "Resolve" }).click();
    await waitForText(page.locator(".incident-facts"), "Resolved");
    await waitForText(page.locator(".callout"), "A new occurrence reopens it");
    await waitForText(page.locator(".history"), "Acknowledged → Resolved");
    await waitForCount(page, ".history-entry", 3);
    await shot(page, "i02-incident-desktop.png", true);
    await page.goto("/incidents?status=ACTIVE");
    await waitForText(page.locator(".incident-list"), "No active incidents");
    await page.locator(".status-tabs").getByRole("link", { name: /^Resolved/ }).click();
    await waitForPath(page, "/incidents?status=RESOLVED");
    await waitForCount(page, ".incident-row", 1);
  });

  await step(page, "resolving the incident resolved its alert", async () => {
    await page.locator(".section-tabs").getByRole("link", { name: "Alerts" }).click();
    await waitForPath(page, "/incidents/alerts");
    await waitForCount(page, ".alert-card", 1);
    const card = page.locator(".alert-card");
    await waitForText(card, "Resolved");
    await waitForText(card, service);
    assert((await card.locator("button").count()) === 0, "a resolved alert has nothing left to do");
    await page.goto("/incidents/alerts?status=OPEN");
    await waitForText(page.locator(".alert-list"), "No open alerts");
    await page.goto("/incidents/alerts?status=RESOLVED");
    await waitForCount(page, ".alert-card", 1);
  });

  await step(page, "alert rules: bad input named, then add, change; the admin deletes it", async () => {
    await page.goto("/incidents/rules");
    await waitForCount(page, ".rule-card", 1);
    await waitForText(page.locator(".rule-card"), "ERROR, FATAL · every service · 1 in 60 s");
    for (const severity of ["ERROR", "FATAL"]) {
      await page.getByLabel(severity, { exact: true }).uncheck();
    }
    await page.getByLabel("Threshold").fill("0");
    await page.getByRole("button", { name: "Add rule" }).click();
    await waitForText(page.locator("#field-name-error"), "must not be blank");
    await waitForText(page.locator("#field-severities-error"), "1 to 6 severities");
    await waitForText(page.locator("#field-threshold-error"), "1 to 1000");
    await page.getByLabel("Name", { exact: true }).fill("Checkout warnings");
    await page.getByLabel("WARN", { exact: true }).check();
    await page.getByLabel("Service").fill(service);
    await page.getByLabel("Threshold").fill("3");
    await page.getByLabel("Window (seconds)").fill("300");
    await page.getByRole("button", { name: "Add rule" }).click();
    await page.waitForURL(/\/incidents\/rules\/[0-9a-f-]{36}$/);
    await waitForText(page.locator("h1"), "Checkout warnings");
    await waitForText(page.locator(".lede"), `WARN · service ${service} · 3 in 300 s`);
    await page.getByLabel("Threshold").fill("5");
    await page.getByRole("button", { name: "Save rule" }).click();
    await waitForText(page.locator(".lede"), "5 in 300 s");
    await page.getByLabel("Window (seconds)").fill("100000");
    await page.getByRole("button", { name: "Save rule" }).click();
    await waitForText(page.locator("#field-windowSeconds-error"), "1 to 86400");
    const rulePath = new URL(page.url()).pathname;
    await page.goto("/incidents/rules");
    await waitForCount(page, ".rule-card", 2);
    await waitForText(page.locator(".rule-cards"), "5 in 300 s");
    await shot(page, "i03-rules-desktop.png", true);
    // Deleting a rule is an admin's: the operator is not offered it.
    assert((await page.locator(".rule-card").getByRole("button", { name: "Delete" }).count()) === 0, "no Delete on the operator's rule cards");
    await page.goto(rulePath);
    await waitForText(page.locator(".admin-only"), "Only an admin may delete a rule");
    assert((await page.getByRole("button", { name: "Delete rule" }).count()) === 0, "no Delete rule for an operator");
    const adminContext = await viewport(browser, "desktop", base);
    const adminPage = await adminContext.newPage();
    await logIn(adminPage, admin(), rulePath);
    await waitForText(adminPage.locator("h1"), "Checkout warnings");
    await adminPage.getByRole("button", { name: "Delete rule" }).click();
    await adminPage.getByRole("button", { name: "Press again to delete" }).click();
    await waitForPath(adminPage, "/incidents/rules");
    await waitForCount(adminPage, ".rule-card", 1);
    await adminContext.close();
    await page.goto("/incidents/rules");
    await waitForCount(page, ".rule-card", 1);
  });

  await step(page, "a postmortem linked to the incident", async () => {
    await page.goto(incidentPath);
    await page.getByRole("link", { name: "Write in the logbook" }).click();
    await page.waitForURL((url) => url.pathname === "/incidents/logbook" && url.searchParams.has("incidentId"));
    const incidentId = incidentPath.split("/").at(-1) ?? "";
    assert((await page.locator("#field-incidentId").inputValue()) === incidentId, "the form names the incident");
    await page.getByRole("button", { name: "Save entry" }).click();
    await waitForText(page.locator("#field-title-error"), "must not be blank");
    await waitForText(page.locator("#field-body-error"), "must not be blank");
    // The incident is picked from a list searched by title, not typed as an id.
    await page.locator("#field-incidentId").selectOption("");
    await page.getByLabel("Find an incident").fill("gateway timed");
    await page.waitForFunction((id) => /** @type {HTMLSelectElement} */ (document.getElementById("field-incidentId")).value === id, incidentId);
    await page.getByLabel("Title").fill("Postmortem: gateway timeouts");
    await page.getByLabel("Kind").selectOption("POSTMORTEM");
    await page.getByLabel("Text").fill("The payment gateway's pool ran dry.\n\nWe restarted it and raised its size.");
    await page.getByRole("button", { name: "Save entry" }).click();
    await page.waitForURL(/\/incidents\/logbook\/[0-9a-f-]{36}$/);
    await waitForText(page.locator("h1"), "Postmortem: gateway timeouts");
    await waitForText(page.locator(".logbook-entry"), `Postmortem by ${username}`);
    // Its line breaks are kept as written.
    const kept = await page.locator(".logbook-entry .body").innerText();
    assert(kept.includes("ran dry.\n\nWe restarted"), `the text's line breaks (${JSON.stringify(kept)})`);
    await page.getByLabel("Text").fill("The payment gateway's pool ran dry.\n\nWe restarted it, raised its size and added an alert.");
    await page.getByRole("button", { name: "Save changes" }).click();
    await waitForText(page.locator(".logbook-entry"), "added an alert");
    await shot(page, "i04-logbook-desktop.png", true);
    await page.locator(".logbook-entry").getByRole("link", { name: /incident/ }).click();
    await waitForPath(page, incidentPath);
    await waitForText(page.locator(".incident-logbook"), "Postmortem: gateway timeouts");
    await page.goto("/incidents/logbook");
    await waitForCount(page, ".logbook-card", 1);
    // A note about no incident, written and deleted.
    await page.getByLabel("Title").fill("Handover notes");
    await page.getByLabel("Text").fill("Nothing else is burning.");
    await page.getByRole("button", { name: "Save entry" }).click();
    await page.waitForURL(/\/incidents\/logbook\/[0-9a-f-]{36}$/);
    await waitForText(page.locator(".logbook-entry"), `Note by ${username}`);
    assert((await page.locator(".entry-incident").count()) === 0, "about no incident");
    await page.getByRole("button", { name: "Delete entry" }).click();
    await page.getByRole("button", { name: "Press again to delete" }).click();
    await waitForPath(page, "/incidents/logbook");
    await waitForCount(page, ".logbook-card", 1);
  });
  await desktop.close();

  // ------------------------------------------------------------------ phone
  const phone = await viewport(browser, "phone", base);
  const mobile = await phone.newPage();
  await step(mobile, "the resolved incident and the timeline on a phone", async () => {
    await logIn(mobile, who, "/incidents?status=RESOLVED", true);
    await waitForCount(mobile, ".incident-row", 1);
    await fitsPhone(mobile);
    await mobile.locator(".incident-row .title-cell a").tap();
    await waitForPath(mobile, incidentPath);
    await waitForText(mobile.locator(".incident-facts"), "Resolved");
    await waitForCount(mobile, ".occurrence", BURST);
    await waitForText(mobile.locator(".incident-logbook"), "Postmortem: gateway timeouts");
    await fitsPhone(mobile);
    await shot(mobile, "i05-incident-phone.png", true);
    await mobile.goto(`/incidents/logs?serviceName=${encodeURIComponent(service)}&severity=ERROR`);
    await waitForCount(mobile, ".log-list .log-row", BURST);
    await fitsPhone(mobile);
    await shot(mobile, "i06-timeline-phone.png");
  });
  await phone.close();
});
