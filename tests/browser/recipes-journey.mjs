// A cook's journey through the recipe pages in headless Chromium: an account registered
// through the recipe API logs in on the web client's login page (one identity), writes a
// recipe, reads it with its nutrients from the food table, asks the assistant for ideas (the
// fake model's answer) and saves one, and finds both in the list; then the list on a phone.
// Run by tests/tests/browser.rs: node recipes-journey.mjs <base-url>.
//
// Every page is watched as in journey.mjs: an uncaught exception, a CSP violation or a request
// to any host but the stack's fails the journey.

import { assert, journey, setup, shot as shotIn, step as stepIn, waitForPath, waitForText, watch } from "./support.mjs";

const { base, artifacts } = await setup("recipes-journey.mjs");
const baseHost = new URL(base).host;
const run = Date.now().toString(36);
const username = `cook_${run}`;
const password = "cook";
const title = `Loopback pancakes ${run}`;

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

await journey("recipes journey", async (browser) => {
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: base });
  await watch(desktop, "desktop", baseHost);
  const page = await desktop.newPage();

  await step(page, "register through the recipe API, log in on the login page", async () => {
    const registered = await page.request.post("/api/recipes/auth/register", { data: { username, password } });
    assert(registered.status() === 201, `recipe registration answered ${registered.status()}`);
    await page.goto("/login?next=%2Frecipes");
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Log in" }).click();
    await waitForPath(page, "/recipes");
    await waitForText(page.locator("h1"), "Recipes");
    await waitForText(page.locator(".recipe-list"), "No recipes yet");
  });

  await step(page, "write a recipe and read it with its nutrients", async () => {
    await page.getByLabel("Title").fill(title);
    await page.getByLabel("Ingredients").fill("200 g flour\n2 eggs");
    await page.getByLabel("Steps").fill("Whisk.\nFry.");
    await page.getByLabel("Portions").fill("2");
    await page.getByRole("button", { name: "Save recipe" }).click();
    await page.waitForURL(/\/recipes\/\d+$/);
    await waitForText(page.locator("h1"), title);
    const ingredients = (await page.locator(".ingredients li").allTextContents()).join(" | ");
    assert(ingredients === "200 g flour | 2 eggs", `ingredients as written (${ingredients})`);
    await page.getByRole("button", { name: "Compute nutrients" }).click();
    // 200 g flour (364 kcal, 10.3 g protein, 1.0 g fat, 76.3 g carbs per 100 g) and two eggs
    // of 50 g (143, 12.6, 9.5, 0.7 per 100 g).
    const table = page.locator(".nutrient-table");
    await waitForText(table, "871 kcal");
    const text = (await table.textContent()) ?? "";
    assert(text.includes("33.2 g") && text.includes("11.5 g") && text.includes("153.3 g"), `nutrients (${text})`);
    await waitForText(page.locator(".nutrients"), "All from the food composition table");
    await shot(page, "r01-recipe-desktop.png", true);
  });

  await step(page, "ask for ideas and save one", async () => {
    await page.getByRole("link", { name: "All your recipes" }).click();
    await waitForPath(page, "/recipes");
    await waitForText(page.locator(".recipe-list"), title);
    await page.getByLabel("What would you like to cook?").fill("Something with tomatoes");
    await page.getByRole("button", { name: "Suggest recipes" }).click();
    const suggestion = page.locator(".suggestion").first();
    await waitForText(suggestion, "Tomato salad");
    await shot(page, "r02-suggestions-desktop.png", true);
    await suggestion.getByRole("button", { name: "Save this recipe" }).click();
    await page.waitForURL(/\/recipes\/\d+$/);
    await waitForText(page.locator("h1"), "Tomato salad");
    await page.goto("/recipes");
    const list = await waitForText(page.locator(".recipe-list"), "Tomato salad");
    assert(list.includes(title), "both recipes are listed");
  });
  await desktop.close();

  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, baseURL: base });
  await watch(phone, "phone", baseHost);
  const mobile = await phone.newPage();
  await step(mobile, "the list on a phone", async () => {
    await mobile.goto("/login?next=%2Frecipes");
    await mobile.getByLabel("Username").fill(username);
    await mobile.getByLabel("Password").fill(password);
    await mobile.getByRole("button", { name: "Log in" }).tap();
    await waitForPath(mobile, "/recipes");
    await waitForText(mobile.locator(".recipe-list"), "Tomato salad");
    const width = await mobile.evaluate(() => document.documentElement.scrollWidth);
    assert(width <= 390, `no sideways scrolling on a phone (${width})`);
    await shot(mobile, "r03-recipes-phone.png", true);
  });
  await phone.close();
});
