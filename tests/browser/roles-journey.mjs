// Roles and sessions in headless Chromium: an anonymous visitor and a plain reader see no
// Incidents tab and are told what the incident and admin pages need; the provisioned admin
// opens the accounts page from the navigation, pages through the accounts (its own roles not
// offered: another admin changes them), sees the API's 404 on an account deleted meanwhile,
// and grants OPERATOR to a fresh reader. That reader's session has ended: the sign-in page says so, and signed in again the
// reader has the Incidents tab while the plain reader still has not. The reader changes the
// password (a wrong current one and a mismatched confirmation first): this session goes on,
// the one on the phone ends and lands on the sign-in page with the server's reason; then signs
// out everywhere, and the old token answers 401. The accounts page on a phone last.
// Run by tests/tests/browser.rs (`roles_journey_in_chromium`): node roles-journey.mjs <base-url>.
//
// Every page is watched as in journey.mjs: an uncaught exception, a CSP violation or a request
// to any host but the stack's fails the journey.

import { admin, announcer, apiLogIn, assert, fitsPhone, journey, logIn, navGroups, navLinks, register, setup, shot as shotIn, step as stepIn, userOnTheNameLine, viewport, waitForCount, waitForPath, waitForText } from "./support.mjs";

const { base, artifacts } = await setup("roles-journey.mjs");
const run = Date.now().toString(36);
const reader = { username: `reader_${run}`, password: "correct-horse-battery" };
const plain = { username: `plain_${run}`, password: "correct-horse-battery" };
const leaving = { username: `leaving_${run}`, password: "correct-horse-battery" };
// A long name (usernames take 64 characters): the header cuts it, never wraps it.
const longName = { username: `a_reader_with_a_rather_long_username_${run}`.slice(0, 60), password: "correct-horse-battery" };
const newPassword = "staple-battery-horse-2";
const ENDED = "The session has ended: sign in again";

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

/**
 * Presses "More accounts" when the page offers it, and waits for the next page; false when it
 * does not.
 * @param {import("playwright-core").Page} page
 */
async function moreAccounts(page) {
  const more = page.getByRole("button", { name: "More accounts" });
  if (!(await more.count())) {
    return false;
  }
  await more.click();
  await page.locator(".account-more [aria-busy]").waitFor({ state: "detached" });
  return true;
}

/**
 * An account's card on the accounts page, after "More accounts" until it shows.
 * @param {import("playwright-core").Page} page
 * @param {string} username
 */
async function accountCard(page, username) {
  const card = page.locator(`.account-card[data-username="${username}"]`);
  await page.locator(".account-more > *").first().waitFor();
  do {
    if (await card.count()) {
      return card;
    }
  } while (await moreAccounts(page));
  throw new Error(`${username} is not on the accounts page`);
}

/**
 * The page's session token (what it sends as Bearer).
 * @param {import("playwright-core").Page} page
 */
function storedToken(page) {
  return page.evaluate(() => localStorage.getItem("newsReader.token"));
}

await journey("roles journey", async (browser) => {
  const desktop = await viewport(browser, "desktop", base);
  const page = await desktop.newPage();
  await register(page.request, reader);
  await register(page.request, plain);
  await register(page.request, leaving);
  await register(page.request, longName);

  await step(page, "anonymous: no Incidents tab, and the incident pages ask for an operator's login", async () => {
    await page.goto("/");
    await page.locator("#site-nav .nav-links").waitFor();
    const links = await navLinks(page);
    assert(!links.includes("Incidents") && !links.includes("Admin"), `an anonymous visitor's navigation (${links})`);
    const groups = (await navGroups(page)).join("|");
    assert(groups === "News reader|Community|Recipes", `an anonymous visitor's products (${groups})`);
    assert((await page.title()).endsWith("· News platform"), `one product name in the title (${await page.title()})`);
    await waitForText(page.locator(".site-header .brand"), "News platform");
    await page.goto("/incidents/logs");
    await waitForText(page.locator("h1"), "Log timeline");
    await waitForText(page.locator("main .state"), "Log in to see this page");
    await waitForText(page.locator("main .state"), "OPERATOR role");
  });

  // The plain reader stays logged in on its own device for the whole journey.
  const plainContext = await viewport(browser, "desktop", base);
  const plainPage = await plainContext.newPage();
  await step(plainPage, "a plain reader: no Incidents tab, and what the incident and admin pages need", async () => {
    await logIn(plainPage, plain, "/");
    const links = await navLinks(plainPage);
    assert(!links.includes("Incidents") && !links.includes("Admin") && links.includes("Settings"), `a plain reader's navigation (${links})`);
    await userOnTheNameLine(plainPage);
    await plainPage.goto("/incidents");
    await waitForText(plainPage.locator("h1"), "Incidents");
    await waitForText(plainPage.locator(".needs-role"), "This page needs the OPERATOR role");
    await waitForText(plainPage.locator(".needs-role"), `Your account (${plain.username}) does not have the OPERATOR role`);
    assert((await plainPage.locator(".section-tabs").count()) === 0, "no incident pages are offered");
    await shot(plainPage, "ro01-needs-role-desktop.png");
    await plainPage.goto("/admin/users");
    await waitForText(plainPage.locator("h1"), "Accounts and roles");
    await waitForText(plainPage.locator(".needs-role"), "This page needs the ADMIN role");
  });

  const longContext = await viewport(browser, "desktop", base);
  const longPage = await longContext.newPage();
  await step(longPage, "a reader with a 60-character name: the header keeps it on the name's line", async () => {
    await logIn(longPage, longName, "/");
    await userOnTheNameLine(longPage);
    assert((await longPage.locator("#site-nav .who").getAttribute("title")) === longName.username, "the whole name on hover");
    await shot(longPage, "ro00-long-name-desktop.png");
  });
  await longContext.close();

  // The reader logs in on a desktop and on a phone before any change.
  await step(page, "the reader logs in: no Incidents tab yet", async () => {
    await logIn(page, reader, "/settings");
    await waitForText(page.locator(".lede"), `Logged in as ${reader.username}`);
    assert(!(await navLinks(page)).includes("Incidents"), "a plain reader has no Incidents tab");
  });

  const adminContext = await viewport(browser, "desktop", base);
  const adminPage = await adminContext.newPage();
  await step(adminPage, "the admin opens the accounts page from the navigation, a page at a time", async () => {
    await logIn(adminPage, admin(), "/");
    const links = await navLinks(adminPage);
    assert(links.includes("Incidents") && links.includes("Admin"), `an admin's navigation (${links})`);
    const groups = (await navGroups(adminPage)).join("|");
    assert(groups === "News reader|Community|Recipes|Incident platform|Administration", `an admin's products (${groups})`);
    await userOnTheNameLine(adminPage);
    await adminPage.locator("#site-nav").getByRole("link", { name: "Admin" }).click();
    await waitForPath(adminPage, "/admin/users");
    await waitForText(adminPage.locator("h1"), "Accounts and roles");
    await waitForText((await accountCard(adminPage, admin().username)).locator(".account-roles"), "ADMIN");
    // Two a page: "More accounts" brings the rest, each once.
    await adminPage.goto("/admin/users?limit=2");
    await waitForCount(adminPage, ".account-card", 2);
    const card = await accountCard(adminPage, reader.username);
    await accountCard(adminPage, plain.username);
    while (await moreAccounts(adminPage)) {
      // Every page, to the last.
    }
    const names = await adminPage.locator(".account-card").evaluateAll((cards) => cards.map((c) => /** @type {HTMLElement} */ (c).dataset.username));
    assert(names.length >= 3 && new Set(names).size === names.length, `every account once (${names})`);
    await waitForText(adminPage.locator(".account-more"), `${names.length} accounts`);
    await waitForText(card.locator(".account-roles"), "USER");
    assert(!(await card.getByLabel(/Operator/).isChecked()), "the reader is no operator yet");
    // A page size out of the API's range: its 400 names the limit.
    await adminPage.goto("/admin/users?limit=500");
    await waitForText(adminPage.locator(".account-list .state.error"), "limit");
  });

  await step(adminPage, "the admin's own roles are not offered; an account deleted meanwhile is the API's 404", async () => {
    await adminPage.goto("/admin/users");
    const own = await accountCard(adminPage, admin().username);
    await waitForText(own.locator(".card-title"), "You");
    await waitForText(own.locator(".own-roles"), "changed by another administrator");
    assert((await own.locator("form").count()) === 0, "no form for the admin's own roles");
    const gone = await accountCard(adminPage, leaving.username);
    const token = await apiLogIn(adminPage.request, leaving);
    const deleted = await adminPage.request.delete("/api/users/users/me", { headers: { authorization: `Bearer ${token}` } });
    assert(deleted.status() === 204, `deleting the account answered ${deleted.status()}`);
    await gone.getByLabel(/Operator/).check();
    await gone.getByRole("button", { name: "Save roles" }).click();
    await waitForText(gone.locator(".form-error"), "Not found");
    await waitForText(gone.locator(".account-roles"), "USER");
    assert(!(await gone.locator(".account-roles").textContent())?.includes("OPERATOR"), "nothing was granted");
  });

  await step(adminPage, "the admin grants OPERATOR to the reader", async () => {
    const card = await accountCard(adminPage, reader.username);
    await card.getByLabel(/Operator/).check();
    await card.getByRole("button", { name: "Save roles" }).click();
    await waitForText(announcer(adminPage), `Roles of ${reader.username} saved: USER, OPERATOR`);
    await waitForText(card.locator(".account-roles"), "OPERATOR");
    await shot(adminPage, "ro02-accounts-desktop.png", true);
    // Read again: the role is the account's.
    await adminPage.reload();
    const again = await accountCard(adminPage, reader.username);
    assert(await again.getByLabel(/Operator/).isChecked(), "the reader holds OPERATOR");
  });

  await step(page, "the reader's session ended with the change: the sign-in page says so", async () => {
    await page.reload();
    await waitForPath(page, `/login?next=${encodeURIComponent("/settings")}`);
    await waitForText(page.locator(".session-ended"), ENDED);
    assert((await navLinks(page)).every((l) => l !== "Incidents"), "logged out: no Incidents tab");
    await page.getByLabel("Username").fill(reader.username);
    await page.getByLabel("Password").fill(reader.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await waitForPath(page, "/settings");
  });

  await step(page, "signed in again, the reader has the Incidents tab; the plain reader still has not", async () => {
    await page.locator("#site-nav").getByRole("link", { name: "Incidents" }).click();
    await waitForPath(page, "/incidents");
    await waitForText(page.locator(".incident-list"), "No incidents");
    assert(!(await navLinks(page)).includes("Admin"), "an operator is no admin");
    await plainPage.goto("/");
    await plainPage.locator("#site-nav .nav-links").waitFor();
    assert(!(await navLinks(plainPage)).includes("Incidents"), "the plain reader has no Incidents tab");
  });

  // The reader's phone: logged in now, with the operator's role.
  const phone = await viewport(browser, "phone", base);
  const mobile = await phone.newPage();
  const menu = mobile.getByRole("button", { name: "Menu" });
  const mobileNav = mobile.getByRole("navigation", { name: "Main" });
  await step(mobile, "the reader logs in on a phone too", async () => {
    await logIn(mobile, reader, "/incidents", true);
    await waitForText(mobile.locator(".incident-list"), "No incidents");
  });

  await step(page, "a password change: the confirmation and the current password checked first", async () => {
    await page.goto("/settings");
    const form = page.locator(".password-form");
    await form.getByLabel("Current password").fill(reader.password);
    await form.getByLabel("New password", { exact: true }).fill(newPassword);
    await form.getByLabel("Confirm new password").fill(`${newPassword}x`);
    await form.getByRole("button", { name: "Change password" }).click();
    await waitForText(page.locator("#field-confirmPassword-error"), "does not match the new password");
    await form.getByLabel("Current password").fill("not-my-password");
    await form.getByLabel("Confirm new password").fill(newPassword);
    await form.getByRole("button", { name: "Change password" }).click();
    await waitForText(page.locator("#field-currentPassword-error"), "is wrong");
    await waitForText(form.locator(".form-error"), "Wrong current password");
    await form.getByLabel("New password", { exact: true }).fill("short");
    await form.getByLabel("Confirm new password").fill("short");
    await form.getByLabel("Current password").fill(reader.password);
    await form.getByRole("button", { name: "Change password" }).click();
    await waitForText(page.locator("#field-password-error"), "8");
  });

  await step(page, "the password changes: this session goes on", async () => {
    const form = page.locator(".password-form");
    await form.getByLabel("Current password").fill(reader.password);
    await form.getByLabel("New password", { exact: true }).fill(newPassword);
    await form.getByLabel("Confirm new password").fill(newPassword);
    await form.getByRole("button", { name: "Change password" }).click();
    await waitForText(announcer(page), "Password changed");
    assert((await form.getByLabel("Current password").inputValue()) === "", "the form is cleared");
    await page.reload();
    await waitForText(page.locator(".lede"), `Logged in as ${reader.username}`);
    await shot(page, "ro03-settings-desktop.png", true);
  });

  await step(mobile, "the phone's session ended: the live incidents table turns into the sign-in page with the reason", async () => {
    // The table refreshes itself: its next request finds the session ended, untouched.
    await waitForPath(mobile, `/login?next=${encodeURIComponent("/incidents")}`);
    await waitForText(mobile.locator(".session-ended"), ENDED);
    await fitsPhone(mobile);
    await shot(mobile, "ro04-session-ended-phone.png");
    await mobile.getByLabel("Username").fill(reader.username);
    await mobile.getByLabel("Password").fill(reader.password);
    await mobile.getByRole("button", { name: "Log in" }).tap();
    await waitForText(mobile.locator(".form-error"), "Wrong username or password");
    await mobile.getByLabel("Password").fill(newPassword);
    await mobile.getByRole("button", { name: "Log in" }).tap();
    await waitForPath(mobile, "/incidents");
    await menu.tap();
    await mobileNav.getByRole("link", { name: "Starred" }).tap();
    await waitForPath(mobile, "/starred");
  });

  await step(page, "sign out everywhere: this device logs out, the phone's session ends, the old token is refused", async () => {
    const token = await storedToken(page);
    assert(token, "logged in");
    await page.getByRole("button", { name: "Sign out everywhere…" }).click();
    await page.getByRole("button", { name: "Cancel" }).click();
    assert((await page.getByRole("button", { name: "Yes, sign out everywhere" }).count()) === 0, "cancelled");
    await page.getByRole("button", { name: "Sign out everywhere…" }).click();
    await page.getByRole("button", { name: "Yes, sign out everywhere" }).click();
    await waitForPath(page, "/login");
    await waitForText(announcer(page), "Signed out everywhere");
    await waitForText(page.locator("#site-nav .account"), "Log in");
    assert((await storedToken(page)) === null, "the token is forgotten");
    const refused = await page.request.get("/api/users/users/me", { headers: { authorization: `Bearer ${token}` } });
    assert(refused.status() === 401, `the old token answered ${refused.status()}`);
    assert(((await refused.json()).message ?? "").includes(ENDED), "the API says the session ended");
    await mobile.reload();
    await waitForPath(mobile, `/login?next=${encodeURIComponent("/starred")}`);
    await waitForText(mobile.locator(".session-ended"), ENDED);
  });
  await phone.close();
  await plainContext.close();
  await desktop.close();

  await adminContext.close();

  const adminPhone = await viewport(browser, "phone", base);
  const small = await adminPhone.newPage();
  await step(small, "the accounts page on a phone", async () => {
    await logIn(small, admin(), "/admin/users", true);
    await accountCard(small, reader.username);
    await fitsPhone(small);
    await shot(small, "ro05-accounts-phone.png");
  });
  await adminPhone.close();
});
