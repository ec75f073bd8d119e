// What both browser journeys share: launching Chromium, watching every page (uncaught errors,
// Content-Security-Policy violations, requests leaving the stack, axe-core accessibility
// violations), named steps with a screenshot on failure, and waiting for text and paths.

import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { chromium } from "playwright-core";

/** What the pages reported; a journey fails when this is not empty at its end. */
export const problems = /** @type {string[]} */ ([]);

/** The axe-core rules every page is held to: WCAG 2 A and AA, and axe's best practices. */
export const AXE_TAGS = ["wcag2a", "wcag2aa", "best-practice"];

/** axe-core's source, read once (tests/browser/package.json pins it). */
let axeSource = /** @type {Promise<string>|undefined} */ (undefined);

/**
 * Whether `url` is a page of the web client: not a blank tab, nor the API documentation's
 * Swagger UI or the incident dashboards' Grafana, which are other projects' pages.
 * @param {string} url
 */
function isClientPage(url) {
  if (!/^https?:/.test(url)) {
    return false;
  }
  const { pathname } = new URL(url);
  return !["/swagger-ui", "/grafana", "/v3/api-docs"].some((p) => pathname === p || pathname.startsWith(`${p}/`) || pathname.startsWith(`${p}.`));
}

/** Pages navigated since their last audit. */
const unaudited = new WeakSet();

/**
 * Runs axe-core on `page` as it is now and records each violation (rule, url, elements) as a
 * problem; a page that navigates away meanwhile is audited at its next stop instead.
 * @param {import("playwright-core").Page} page
 */
export async function audit(page) {
  if (page.isClosed() || !isClientPage(page.url())) {
    return;
  }
  axeSource ??= readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  const source = await axeSource;
  try {
    // Evaluated through the DevTools protocol, so the client's Content-Security-Policy (no
    // inline scripts) does not apply to it.
    if (!(await page.evaluate(() => "axe" in window))) {
      await page.evaluate(source);
    }
    const url = page.url();
    const violations = await page.evaluate(async (tags) => {
      // @ts-ignore axe is the global the source above defined.
      const result = await window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
      return /** @type {{id: string, impact: string, help: string, nodes: {target: string[], failureSummary?: string}[]}[]} */ (result.violations).map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
        // @ts-ignore axe's node result carries its failure summary.
        why: String(v.nodes[0]?.failureSummary ?? "").replace(/\s+/g, " "),
      }));
    }, AXE_TAGS);
    unaudited.delete(page);
    for (const v of violations) {
      const problem = `axe ${v.id} (${v.impact}) on ${new URL(url).pathname}: ${v.help}: ${v.targets.join(", ")} (${v.why})`;
      if (!problems.includes(problem)) {
        problems.push(problem);
      }
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The page moved on while axe ran: its next page is audited later.
    if (!/Execution context was destroyed|navigation|Target page, context or browser has been closed/i.test(message)) {
      throw error;
    }
  }
}

/**
 * The journey's base URL (its first argument) and artifacts directory, created.
 * @param {string} script
 */
export async function setup(script) {
  const base = process.argv[2]?.replace(/\/$/, "");
  if (!base) {
    console.error(`usage: node ${script} <base-url>`);
    process.exit(2);
  }
  const artifacts = process.env.JOURNEY_ARTIFACTS ?? path.join(import.meta.dirname, "artifacts");
  await mkdir(artifacts, { recursive: true });
  return { base, artifacts };
}

/** @param {string} name */
export function env(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set (tests/tests/browser.rs sets it)`);
  }
  return value;
}

/**
 * @param {unknown} condition
 * @param {string} message
 */
export function assert(condition, message) {
  if (!condition) {
    throw new Error(`assertion failed: ${message}`);
  }
}

/**
 * Waits until `locator`'s text contains `expected`.
 * @param {import("playwright-core").Locator} locator
 * @param {string} expected
 */
export async function waitForText(locator, expected, timeout = 15000) {
  const deadline = Date.now() + timeout;
  let last = "";
  while (Date.now() < deadline) {
    last = (await locator.first().textContent({ timeout: 1000 }).catch(() => "")) ?? "";
    if (last.includes(expected)) {
      // A page that navigated since its last audit has shown what it was waited for.
      if (unaudited.has(locator.page())) {
        await audit(locator.page());
      }
      return last;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for "${expected}"; last text: "${last.slice(0, 300)}"`);
}

/**
 * @param {import("playwright-core").Page} page
 * @param {string} pathname
 */
export async function waitForPath(page, pathname) {
  await page.waitForURL((url) => url.pathname + url.search === pathname || url.pathname === pathname, { timeout: 15000 });
}

/**
 * @param {string} artifacts
 * @param {import("playwright-core").Page} page
 * @param {string} name
 * @param {boolean} [fullPage]
 */
export async function shot(artifacts, page, name, fullPage = false) {
  await page.screenshot({ path: path.join(artifacts, name), fullPage });
  console.log(`  screenshot ${name}`);
}

/** @param {import("playwright-core").Page} page */
export function announcer(page) {
  return page.locator("#announcer");
}

/**
 * Watches a context: requests to other hosts are refused and recorded (images from other
 * hosts are refused silently, unless `allowImage` lets them through; other requests unless
 * `allowRequest` does, e.g. a presigned upload's PUT to storage), page errors and CSP
 * violations are recorded.
 * @param {import("playwright-core").BrowserContext} context
 * @param {string} label
 * @param {string} baseHost
 * @param {(url: string) => boolean} [allowImage]
 * @param {(url: string, method: string) => boolean} [allowRequest]
 */
export async function watch(context, label, baseHost, allowImage = () => false, allowRequest = () => false) {
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.host === baseHost || url.protocol === "data:") {
      return route.continue();
    }
    const image = route.request().resourceType() === "image";
    if (image && allowImage(url.href)) {
      return route.continue();
    }
    if (!image && allowRequest(url.href, route.request().method())) {
      return route.continue();
    }
    // Article images are the publishers' own (https only, by the CSP); everything the
    // platform itself needs (scripts, styles, fonts, API calls) must come from its origin.
    if (!image) {
      problems.push(`${label}: request to another host: ${url.href}`);
    }
    return route.abort();
  });
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  context.on("page", (page) => {
    unaudited.add(page);
    page.on("framenavigated", (frame) => {
      if (frame === page.mainFrame()) {
        unaudited.add(page);
      }
    });
    page.on("pageerror", (error) => problems.push(`${label}: uncaught error on ${page.url()}: ${error.message}`));
    page.on("console", (message) => {
      const text = message.text();
      if (message.type() === "error" && (text.includes("CSP violation") || text.includes("Content Security Policy"))) {
        problems.push(`${label}: ${text}`);
      }
    });
  });
}

/**
 * Runs one named step; on failure saves a screenshot named after it.
 * @param {string} artifacts
 * @param {import("playwright-core").Page} page
 * @param {string} name
 * @param {() => Promise<void>} body
 */
export async function step(artifacts, page, name, body) {
  console.log(`- ${name}`);
  try {
    await body();
    await audit(page);
  } catch (error) {
    await page.screenshot({ path: path.join(artifacts, `failed-${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}.png`), fullPage: true }).catch(() => {});
    throw new Error(`step "${name}" failed: ${error instanceof Error ? error.message : error}`);
  }
}

/** Headless Chromium: a fresh profile every run (Playwright's default), no background traffic. */
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** The two viewports every journey runs on. */
export const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 860 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
};

/**
 * A watched browser context of `kind` on `base` (see `watch`).
 * @param {import("playwright-core").Browser} browser
 * @param {"desktop"|"phone"} kind
 * @param {string} base
 * @param {import("playwright-core").BrowserContextOptions} [options] More of the context's options (HTTP credentials, say).
 */
export async function viewport(browser, kind, base, options = {}) {
  const context = await browser.newContext({ ...VIEWPORTS[kind], ...options, baseURL: base });
  await watch(context, kind, new URL(base).host);
  return context;
}

/**
 * Runs a journey: Chromium for `body`, then the pages' problems checked; says "NAME: OK" or
 * why it failed, closes the browser and exits with the outcome.
 * @param {string} name
 * @param {(browser: import("playwright-core").Browser) => Promise<void>} body
 */
export async function journey(name, body) {
  const browser = await launch();
  let exitCode = 0;
  try {
    await body(browser);
    if (problems.length) {
      throw new Error(`the pages reported problems:\n  ${problems.join("\n  ")}`);
    }
    console.log(`${name}: OK`);
  } catch (error) {
    console.error(`${name}: FAILED: ${error instanceof Error ? (error.stack ?? error.message) : error}`);
    if (problems.length) {
      console.error(`also reported by the pages:\n  ${problems.join("\n  ")}`);
    }
    exitCode = 1;
  } finally {
    await browser.close();
  }
  process.exit(exitCode);
}

/**
 * Asks the test's ingest control (`JOURNEY_INGEST_CONTROL`, tests/tests/browser.rs) to send
 * `count` logs through `POST /api/v1/logs` with the ingest key, each `{message} after {n} ms
 * (order {m})`, so that they share one fingerprint.
 * @param {{service: string, severity: string, count: number, message: string}} burst
 * @returns {Promise<string[]>} The ids the API gave them.
 */
export async function sendLogs(burst) {
  const control = env("JOURNEY_INGEST_CONTROL").replace(/\/$/, "");
  const query = new URLSearchParams({ service: burst.service, severity: burst.severity, count: String(burst.count), message: burst.message });
  const response = await fetch(`${control}/burst?${query}`, { method: "POST" });
  const text = await response.text();
  assert(response.ok, `the ingest control answered ${response.status}: ${text}`);
  return JSON.parse(text).ids;
}

/**
 * Waits until `selector` matches exactly `count` elements.
 * @param {import("playwright-core").Page} page
 * @param {string} selector
 * @param {number} count
 */
export async function waitForCount(page, selector, count, timeout = 20000) {
  const deadline = Date.now() + timeout;
  let seen = -1;
  while (Date.now() < deadline) {
    seen = await page.locator(selector).count();
    if (seen === count) {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`expected ${count} of ${selector}, saw ${seen}`);
}

/**
 * Logs in on the login page and waits to land on `next`.
 * @param {import("playwright-core").Page} page
 * @param {{username: string, password: string}} who
 * @param {string} next
 * @param {boolean} [tap] Tap the button (a phone).
 */
export async function logIn(page, who, next, tap = false) {
  await page.goto(`/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Username").fill(who.username);
  await page.getByLabel("Password").fill(who.password);
  const button = page.getByRole("button", { name: "Log in" });
  await (tap ? button.tap() : button.click());
  await waitForPath(page, next);
}

/**
 * The administrator every test stack provisions (tests/tests/browser.rs passes its credentials).
 * @returns {{username: string, password: string}}
 */
export function admin() {
  return { username: env("JOURNEY_ADMIN_USERNAME"), password: env("JOURNEY_ADMIN_PASSWORD") };
}

/**
 * Logs in through the API; resolves to the token.
 * @param {import("playwright-core").APIRequestContext} request
 * @param {{username: string, password: string}} who
 */
export async function apiLogIn(request, who) {
  const response = await request.post("/api/users/auth/login", { data: who });
  assert(response.ok(), `${who.username}'s login answered ${response.status()}: ${await response.text()}`);
  return /** @type {string} */ ((await response.json()).token);
}

/**
 * Registers `who` through the API; resolves to the account's id.
 * @param {import("playwright-core").APIRequestContext} request
 * @param {{username: string, password: string}} who
 */
export async function register(request, who) {
  const registered = await request.post("/api/users/auth/register", { data: { ...who, email: `${who.username}@example.com` } });
  assert(registered.status() === 201, `registering ${who.username} answered ${registered.status()}: ${await registered.text()}`);
  return /** @type {string} */ ((await registered.json()).id);
}

/**
 * Registers `who` and has the provisioned administrator grant it OPERATOR through the API, as
 * a journey's setup: the incident pages are for operators.
 * @param {import("playwright-core").APIRequestContext} request
 * @param {{username: string, password: string}} who
 */
export async function registerOperator(request, who) {
  const id = await register(request, who);
  const token = await apiLogIn(request, admin());
  const granted = await request.put(`/api/users/admin/users/${encodeURIComponent(id)}/roles`, { headers: { authorization: `Bearer ${token}` }, data: { roles: ["USER", "OPERATOR"] } });
  assert(granted.ok(), `granting OPERATOR to ${who.username} answered ${granted.status()}: ${await granted.text()}`);
  return id;
}

/**
 * The labels of the main navigation's links: the products' and the account's.
 * @param {import("playwright-core").Page} page
 */
export async function navLinks(page) {
  return page.locator("#site-nav a").allTextContents();
}

/**
 * Asserts the page does not scroll sideways on the phone viewport.
 * @param {import("playwright-core").Page} page
 */
export async function fitsPhone(page) {
  const limit = VIEWPORTS.phone.viewport.width;
  // The settled layout is what counts: a page still laying out (under load) gets 2 s to fit.
  const settled = Date.now() + 2000;
  while (Date.now() < settled && (await page.evaluate(() => document.documentElement.scrollWidth)) > limit) {
    await page.waitForTimeout(100);
  }
  const { width, widest } = await page.evaluate((limit) => {
    // The element reaching furthest right, to name in a failure.
    let widest = "";
    let right = 0;
    for (const element of document.body.querySelectorAll("*")) {
      const box = element.getBoundingClientRect();
      if (box.right > limit && box.right > right) {
        right = box.right;
        const classes = element.className && typeof element.className === "string" ? `.${element.className.trim().split(/\s+/).join(".")}` : "";
        widest = `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}${classes} (right edge ${Math.round(box.right)} px, text ${JSON.stringify((element.textContent || "").slice(0, 60))})`;
      }
    }
    return { width: document.documentElement.scrollWidth, widest };
  }, limit);
  assert(width <= limit, `no sideways scrolling on a phone (${width} px at ${page.url()}; widest: ${widest || "none found"})`);
}

/**
 * The products the main navigation groups, by name, in order.
 * @param {import("playwright-core").Page} page
 */
export async function navGroups(page) {
  return page.locator("#site-nav .nav-group > ul").evaluateAll((lists) =>
    lists.map((ul) => ul.getAttribute("aria-label") ?? document.getElementById(ul.getAttribute("aria-labelledby") ?? "")?.textContent ?? ""),
  );
}

/**
 * Asserts the header keeps the logged-in user on the product name's line, inside the window
 * (the desktop viewport, 1280 px).
 * @param {import("playwright-core").Page} page
 */
export async function userOnTheNameLine(page) {
  const brand = await page.locator(".site-header .brand").boundingBox();
  const who = await page.locator("#site-nav .who").boundingBox();
  assert(brand && who, "the header shows the product name and the user");
  if (brand && who) {
    const middle = who.y + who.height / 2;
    assert(middle > brand.y && middle < brand.y + brand.height, `the user is on the name's line (name ${brand.y}-${brand.y + brand.height}, user at ${middle})`);
    const width = page.viewportSize()?.width ?? 0;
    assert(who.x + who.width <= width, `the user fits the window (${who.x + who.width} > ${width})`);
  }
}
