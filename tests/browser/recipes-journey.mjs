// A cook's journey through the recipe pages in headless Chromium: an account registered
// through the recipe API logs in on the web client's login page (one identity), writes a
// recipe, reads it with its nutrients from the food table, asks the assistant for ideas (the
// fake model's answer) and saves one, and finds both in the list; sets the preferences the
// assistant follows (language, diet, allergies, about me), edits the recipe and asks about it;
// turns the list's pages with "More recipes"; then the list on a phone.
// Run by tests/tests/browser.rs: node recipes-journey.mjs <base-url>.
//
// Every page is watched as in journey.mjs: an uncaught exception, a CSP violation or a request
// to any host but the stack's fails the journey.

import { assert, journey, setup, shot as shotIn, step as stepIn, waitForCount, waitForPath, waitForText, watch } from "./support.mjs";

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
  await step(page, "preferences: language, diets, allergies and about me, kept", async () => {
    await page.goto("/recipes");
    await page.getByRole("link", { name: "Preferences" }).click();
    await waitForPath(page, "/recipes/preferences");
    await waitForText(page.locator("h1"), "Recipe preferences");
    await page.getByLabel("Language").selectOption("DE");
    await page.getByLabel("Diets").fill("vegetarian");
    await page.getByLabel("Allergies").fill("peanuts\nsesame");
    await page.getByLabel("About me").fill("I cook for two.");
    await page.getByRole("button", { name: "Save preferences" }).click();
    await waitForText(page.locator(".prefs-status"), "Saved.");
    await page.reload();
    await waitForText(page.locator("h1"), "Recipe preferences");
    assert((await page.getByLabel("Language").inputValue()) === "DE", "the language is kept");
    assert((await page.getByLabel("Allergies").inputValue()) === "peanuts\nsesame", "the allergies are kept");
    assert((await page.getByLabel("Diets").inputValue()) === "vegetarian", "the diet is kept");
    assert((await page.getByLabel("About me").inputValue()) === "I cook for two.", "about me is kept");
    await shot(page, "r04-preferences-desktop.png", true);
  });

  await step(page, "edit the recipe, then ask about it", async () => {
    await page.goto("/recipes");
    await page.locator(".recipe-list").getByRole("link", { name: title }).click();
    await page.waitForURL(/\/recipes\/\d+$/);
    await page.getByRole("link", { name: "Edit recipe" }).click();
    await page.waitForURL(/\/recipes\/\d+\/edit$/);
    await waitForText(page.locator("h1"), "Edit recipe");
    assert((await page.getByLabel("Ingredients").inputValue()) === "200 g flour\n2 eggs", "the form holds the recipe");
    await page.getByLabel("Title").fill(`${title} (edited)`);
    await page.getByLabel("Steps").fill("Whisk.\nFry.\nServe warm.");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.waitForURL(/\/recipes\/\d+$/);
    await waitForText(page.locator("h1"), `${title} (edited)`);
    const steps = (await page.locator(".steps li").allTextContents()).join(" | ");
    assert(steps === "Whisk. | Fry. | Serve warm.", `the steps as edited (${steps})`);
    await waitForText(page.locator(".page-head .meta"), "edited");
    await page.getByLabel("Your question").fill("What can I use instead of eggs?");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    // The fake model answers every call with its one reply.
    await waitForText(page.locator(".recipe-answer"), "Tomato salad");
    await shot(page, "r05-asked-desktop.png", true);
  });

  await step(page, "the list's pages: 20 recipes, then More recipes for the rest", async () => {
    const token = await page.evaluate(() => localStorage.getItem("newsReader.token"));
    for (let i = 1; i <= 20; i += 1) {
      const created = await page.request.post("/api/recipes/recipes", {
        headers: { authorization: `Bearer ${token}` },
        data: { title: `Batch soup ${String(i).padStart(2, "0")}`, ingredients: [{ quantity: 1, unit: "l", name: "water" }], instructions: ["Boil."], portions: 2 },
      });
      assert(created.status() === 201, `recipe ${i} answered ${created.status()}`);
    }
    await page.goto("/recipes");
    await waitForCount(page, ".recipe-list .card", 20);
    const more = page.getByRole("button", { name: "More recipes" });
    await more.click();
    await waitForCount(page, ".recipe-list .card", 22);
    assert((await more.count()) === 0, "no More button on the last page");
    const listed = await page.locator(".recipe-list .card a").allTextContents();
    assert(new Set(listed).size === 22, `each recipe once (${listed.length})`);
    assert(listed.includes("Batch soup 20") && listed.includes("Tomato salad"), "the newest and the first recipes both listed");
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
