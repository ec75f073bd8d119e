// The analysis pages (the incident platform's intelligence routes) in headless Chromium: an operator (the
// provisioned admin grants the role) adds a runbook (its bad input first) and finds its
// passage by a retrieval search; a burst of ERRORs opens an
// incident, which is analysed in the cloud with retrieval (summary, root cause, severity,
// recommendations and the cited runbook passage shown); one log of the timeline analysed
// locally without retrieval; the runbook deleted; an analysis on a phone; and the metrics
// dashboard (/grafana, behind Basic auth) charting the journey's logs, incident and analyses.
// Run by tests/tests/browser.rs (`incident_analysis_in_chromium`):
// node incident-analysis-journey.mjs <base-url>.
//
// Every page is watched as in journey.mjs: an uncaught exception, a CSP violation or a request
// to any host but the stack's fails the journey.

import { assert, env, fitsPhone, journey, logIn, registerOperator, sendLogs, setup, shot as shotIn, step as stepIn, viewport, waitForCount, waitForPath, waitForText } from "./support.mjs";

const { base, artifacts } = await setup("incident-analysis-journey.mjs");
/** What the (fake) model answers every analysis, as tests/tests/browser.rs set it. */
const answer = JSON.parse(env("JOURNEY_ANALYSIS_ANSWER"));
const run = Date.now().toString(36);
const who = { username: `analyst_${run}`, password: "correct-horse-battery" };
const service = `payments-${run}`;
const runbook = {
  title: `Payment gateway runbook ${run}`,
  passage: "restart the gateway connection pool",
  content:
    "When the payment gateway timed out for many orders, restart the gateway connection pool and raise its size to forty.\n\nCheck the gateway provider's status page before paging them.",
};

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

/**
 * Submits the analysis form and waits for its answer.
 * @param {import("playwright-core").Page} page
 * @param {"Local"|"Cloud"} mode
 */
async function analyse(page, mode) {
  await page.getByLabel(mode, { exact: true }).check();
  await page.getByRole("button", { name: "Analyse" }).click();
  const result = page.locator(".analysis-result");
  await waitForText(result, answer.summary, 30000);
  await waitForText(result.locator(".root-cause"), answer.root_cause);
  const recommendations = await result.locator(".recommendations li").allTextContents();
  assert(JSON.stringify(recommendations) === JSON.stringify(answer.recommendations), `the recommendations (${recommendations})`);
  await waitForText(result.locator(".provenance"), `mode ${mode.toLowerCase()}`);
  return result;
}

await journey("incident analysis journey", async (browser) => {
  const desktop = await viewport(browser, "desktop", base);
  const page = await desktop.newPage();
  let incidentPath = "";

  await step(page, "an operator logs in, adds a runbook (its bad input first)", async () => {
    await registerOperator(page.request, who);
    await logIn(page, who, "/incidents/runbooks");
    await waitForText(page.locator(".runbook-list"), "No runbooks yet");
    await page.getByLabel("Content").fill(runbook.content);
    await page.getByRole("button", { name: "Add runbook" }).click();
    // The API's 400 names the title: its reason shows under that field.
    await page.locator("#field-title-error").waitFor({ state: "visible" });
    assert(((await page.locator("#field-title-error").textContent()) ?? "").trim() !== "", "the title's reason is shown");
    await page.getByLabel("Title").fill(runbook.title);
    await page.getByLabel("Tags").fill("payments, gateway");
    await page.getByRole("button", { name: "Add runbook" }).click();
    await waitForCount(page, ".runbook-card", 1);
    await waitForText(page.locator(".runbook-card"), runbook.title);
    await waitForText(page.locator(".runbook-card .chips"), "gateway");
  });

  await step(page, "retrieval finds the runbook's passage", async () => {
    await page.getByLabel("Search text").fill("payment gateway timed out");
    await page.getByRole("button", { name: "Search" }).click();
    await waitForText(page.locator(".search-hits"), runbook.title);
    await waitForText(page.locator(".search-hits"), runbook.passage);
  });

  await step(page, "an empty analysis is the API's 400 under the text", async () => {
    await page.goto("/incidents/analyze");
    await page.getByRole("button", { name: "Analyse" }).click();
    await page.locator("#field-content-error").waitFor({ state: "visible" });
    assert((await page.locator(".analysis-result").count()) === 0, "no answer");
  });

  await step(page, "the incident analysed in the cloud with retrieval", async () => {
    await sendLogs({ service, severity: "ERROR", count: 5, message: "Payment gateway timed out" });
    const deadline = Date.now() + 20000;
    while (Date.now() < deadline && (await page.locator(".incident-row").count()) === 0) {
      await page.goto("/incidents");
      await page.locator(".incident-row, .state.empty").first().waitFor();
    }
    await page.locator(".incident-row .title-cell a").click();
    await page.waitForURL(/\/incidents\/[0-9a-f]{32}$/);
    incidentPath = new URL(page.url()).pathname;
    await page.getByRole("link", { name: "Analyse this incident" }).click();
    await page.waitForURL((url) => url.pathname === "/incidents/analyze" && url.searchParams.has("incidentId"));
    await waitForText(page.locator("h2"), `About the incident in ${service}`);
    const content = await page.getByLabel("Log text").inputValue();
    assert(content.includes("Payment gateway timed out after # ms (order #)") && content.includes("Payment gateway timed out after 3000 ms"), `the incident's text (${content})`);
    assert(await page.getByLabel(/Use the runbooks/).isChecked(), "retrieval is on by default");
    const result = await analyse(page, "Cloud");
    await waitForText(result.locator(".references"), runbook.title);
    await waitForText(result.locator(".references"), runbook.passage);
    await shot(page, "a01-analysis-desktop.png", true);
  });

  await step(page, "one log of the timeline analysed locally, without retrieval", async () => {
    await page.goto(`/incidents/logs?serviceName=${encodeURIComponent(service)}`);
    await waitForCount(page, ".log-list .log-row", 5);
    const logId = await page.locator(".log-list .log-row").first().getAttribute("data-log-id");
    const text = (await page.locator(".log-list .log-row .log-content").first().textContent()) ?? "";
    await page.locator(".log-list .log-row").first().getByRole("link", { name: "Analyse" }).click();
    await page.waitForURL((url) => url.searchParams.get("logId") === logId);
    await waitForText(page.locator("h2"), `About the ERROR log of ${service}`);
    assert((await page.getByLabel("Log text").inputValue()).includes(text), "the form holds the log's text");
    assert((await page.getByLabel("Log id").inputValue()) === logId, "and its id");
    await page.getByLabel(/Use the runbooks/).uncheck();
    const result = await analyse(page, "Local");
    await waitForText(result, "No runbook passage was cited");
  });

  await step(page, "the runbook deleted", async () => {
    await page.goto("/incidents/runbooks");
    await waitForCount(page, ".runbook-card", 1);
    await page.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("button", { name: "Press again to delete" }).click();
    await waitForCount(page, ".runbook-card", 0);
    await page.reload();
    await waitForText(page.locator(".runbook-list"), "No runbooks yet");
  });
  await desktop.close();

  const phone = await viewport(browser, "phone", base);
  const mobile = await phone.newPage();
  await step(mobile, "an incident analysed on a phone", async () => {
    const id = incidentPath.split("/").at(-1) ?? "";
    await logIn(mobile, who, `/incidents/analyze?incidentId=${id}`, true);
    await analyse(mobile, "Cloud");
    await fitsPhone(mobile);
    await shot(mobile, "a02-analysis-phone.png", true);
    await mobile.goto("/incidents/runbooks");
    await waitForText(mobile.locator(".runbook-list"), "No runbooks yet");
    await fitsPhone(mobile);
    await waitForPath(mobile, "/incidents/runbooks");
  });
  await phone.close();

  const metrics = { username: env("JOURNEY_METRICS_USERNAME"), password: env("JOURNEY_METRICS_PASSWORD") };
  const dashboard = await viewport(browser, "desktop", base, { httpCredentials: metrics });
  const board = await dashboard.newPage();
  await step(board, "the dashboard charts the journey's logs, incident and analyses", async () => {
    await board.goto("/grafana");
    await waitForText(board.locator("#status"), "Read at");
    // Three analyses, each with its model call's latency, and the burst's ERRORs.
    await waitForText(board.locator("#activity"), "analyses ok: 3");
    await waitForText(board.locator("#latency"), "count: 3");
    for (const chart of ["#volume", "#totals", "#incidents", "#latency"]) {
      assert((await board.locator(`${chart} svg`).count()) === 1, `${chart} is drawn`);
    }
    await waitForText(board.locator("#totals"), "ERROR");
    await shot(board, "a03-dashboard-desktop.png", true);
  });
  await dashboard.close();
});
