// A reader connects a reading app in headless Chromium: on "Reading apps" an app password is
// refused without a name, made for "Reeder on my phone" and shown once beside the server
// address and the username; an app signs in with it through the Google Reader ClientLogin
// (and the list shows its last use); after a reload only its name is left; it is revoked
// (after a Cancel), and the app's next sign-in is refused; then the page on a phone.
// Run by tests/tests/browser.rs: node apps-journey.mjs <base-url>.
//
// Every page is watched as in journey.mjs: an uncaught exception, a CSP violation or a request
// to any host but the stack's fails the journey.

import { announcer, assert, fitsPhone, journey, logIn, register, setup, shot as shotIn, step as stepIn, viewport, waitForCount, waitForText } from "./support.mjs";

const { base, artifacts } = await setup("apps-journey.mjs");
const reader = { username: `apps_${Date.now().toString(36)}`, password: "correct-horse-battery" };
const appName = "Reeder on my phone";

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

/**
 * Signs in as an app does: `ClientLogin` with the username and a password.
 * @param {import("playwright-core").APIRequestContext} request
 * @param {string} password
 */
async function clientLogin(request, password) {
  return request.post("/api/greader/accounts/ClientLogin", { form: { Email: reader.username, Passwd: password } });
}

await journey("apps journey", async (browser) => {
  const desktop = await viewport(browser, "desktop", base);
  const page = await desktop.newPage();
  let password = "";

  await step(page, "a reader opens Reading apps from the settings", async () => {
    await register(page.request, reader);
    await logIn(page, reader, "/settings");
    await page.getByRole("link", { name: "Reading apps and app passwords" }).click();
    await page.waitForURL((url) => url.pathname === "/settings/apps");
    await waitForText(page.locator("h1"), "Reading apps");
    await waitForText(page.locator(".page-head"), `${base}/api/greader`);
    await waitForText(page.locator("main"), "No app passwords yet");
  });

  await step(page, "an app password needs a name", async () => {
    await page.getByRole("button", { name: "Create app password" }).click();
    await page.locator("#field-name-error").waitFor({ state: "visible" });
    assert((await page.getByLabel("App name").getAttribute("aria-invalid")) === "true", "the name is marked invalid");
  });

  await step(page, "create one: shown once with the server address and the username", async () => {
    await page.getByLabel("App name").fill(appName);
    await page.getByRole("button", { name: "Create app password" }).click();
    const once = page.locator("#new-password");
    await waitForText(once, `App password for “${appName}”`);
    await waitForText(once, "shown only this once");
    assert((await page.getByLabel("Server address", { exact: true }).inputValue()) === `${base}/api/greader`, "the server address an app is given");
    assert((await page.getByLabel("Username", { exact: true }).inputValue()) === reader.username, "the username");
    password = await page.getByLabel("Password", { exact: true }).inputValue();
    assert(/^[a-z2-7]{32}$/.test(password), `a 32-character password (${password})`);
    assert(await page.evaluate(() => document.activeElement?.id === "new-password"), "focus moves to the password's box");
    await waitForCount(page, ".app-password", 1);
    await waitForText(page.locator(".app-password"), "never used");
    await shot(page, "a01-app-password-desktop.png");
  });

  await step(page, "an app signs in with it; the list shows its last use", async () => {
    const signedIn = await clientLogin(page.request, password);
    const text = await signedIn.text();
    assert(signedIn.status() === 200 && /^SID=.*\nLSID=.*\nAuth=.+/s.test(text), `ClientLogin answered ${signedIn.status()}: ${text}`);
    const refused = await clientLogin(page.request, reader.password);
    assert(refused.status() === 401, `the account's own password is no app password (${refused.status()})`);
    await page.reload();
    await waitForText(page.locator(".app-password"), appName);
    await waitForText(page.locator(".app-password"), "last used");
    assert((await page.locator("#new-password").count()) === 0, "after a reload the password is not shown again");
    assert(!((await page.locator("main").textContent()) ?? "").includes(password), "nor anywhere on the page");
  });

  await step(page, "revoke it: the app is signed out", async () => {
    await page.getByRole("button", { name: `Revoke ${appName}` }).click();
    await page.getByRole("button", { name: "Cancel" }).click();
    await waitForCount(page, ".app-password", 1);
    await page.getByRole("button", { name: `Revoke ${appName}` }).click();
    await page.getByRole("button", { name: "Yes, revoke" }).click();
    await waitForText(announcer(page), `${appName} revoked`);
    await waitForText(page.locator("main"), "No app passwords yet");
    const refused = await clientLogin(page.request, password);
    assert(refused.status() === 401, `a revoked app password is refused (${refused.status()})`);
  });
  await desktop.close();

  const phone = await viewport(browser, "phone", base);
  const mobile = await phone.newPage();
  await step(mobile, "phone: create one and read it on a 390 px screen", async () => {
    await logIn(mobile, reader, "/settings/apps", true);
    await mobile.getByLabel("App name").fill("NetNewsWire");
    await mobile.getByRole("button", { name: "Create app password" }).tap();
    await waitForText(mobile.locator("#new-password"), "NetNewsWire");
    await fitsPhone(mobile);
    await shot(mobile, "a02-app-password-phone.png", true);
  });
  await phone.close();
});
