// The recipe box in headless Chromium: a cook writes a recipe whose ingredient lines have
// fractions, a unicode fraction, an article and no quantity, and finds them unchanged after
// saving and after editing; tags it and finds it by a word and by its tag; sees the allergy
// warning once an allergy is set; scales it; plans it for a week's dinner beside another
// recipe and shops for the week (merged quantities, an item checked off and one added, both
// kept on reload); then deletes it and finds it gone.
// Run by tests/tests/browser.rs: node recipe-box-journey.mjs <base-url>.
//
// Every page is watched as in journey.mjs: an uncaught exception, a CSP violation or a request
// to any host but the stack's fails the journey.

import { assert, journey, setup, shot as shotIn, step as stepIn, waitForPath, waitForText, watch } from "./support.mjs";

const { base, artifacts } = await setup("recipe-box-journey.mjs");
const baseHost = new URL(base).host;
const run = Date.now().toString(36);
const username = `box_${run}`;
const password = "cook";
const title = `Chili cream soup ${run}`;
const LINES = ["1/2 cup cream", "½ tsp chili flakes", "a pinch of salt", "salt to taste", "400 g tomatoes"];

/** @type {(page: import("playwright-core").Page, name: string, body: () => Promise<void>) => Promise<void>} */
const step = (page, name, body) => stepIn(artifacts, page, name, body);
/** @type {(page: import("playwright-core").Page, name: string, fullPage?: boolean) => Promise<void>} */
const shot = (page, name, fullPage) => shotIn(artifacts, page, name, fullPage);

await journey("recipe box journey", async (browser) => {
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: base });
  await watch(desktop, "desktop", baseHost);
  const page = await desktop.newPage();
  /** @type {string} */
  let recipePath = "";

  await step(page, "register, log in", async () => {
    const registered = await page.request.post("/api/recipes/auth/register", { data: { username, password } });
    assert(registered.status() === 201, `recipe registration answered ${registered.status()}`);
    await page.goto("/login?next=%2Frecipes");
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Log in" }).click();
    await waitForPath(page, "/recipes");
    await waitForText(page.locator(".recipe-list"), "No recipes yet");
  });

  await step(page, "the editor keeps every line as written, saved and edited", async () => {
    await page.getByLabel("Title", { exact: true }).fill(title);
    await page.getByLabel("Ingredients").fill(LINES.join("\n"));
    await page.getByLabel("Steps").fill("Warm the cream.\nStir in the rest.");
    await page.getByLabel("Portions", { exact: true }).fill("2");
    await page.getByLabel("Tags (optional)", { exact: true }).fill("Soup, Weeknight");
    await page.getByRole("button", { name: "Save recipe" }).click();
    await page.waitForURL(/\/recipes\/\d+$/);
    recipePath = new URL(page.url()).pathname;
    await waitForText(page.locator("h1"), title);
    const shown = await page.locator(".ingredients li").allTextContents();
    assert(JSON.stringify(shown) === JSON.stringify(LINES), `the lines as written (${shown.join(" | ")})`);
    const tags = await page.locator(".page-head .tags li").allTextContents();
    assert(JSON.stringify(tags) === JSON.stringify(["soup", "weeknight"]), `tags (${tags.join(", ")})`);
    await page.getByRole("link", { name: "Edit recipe" }).click();
    await page.waitForURL(/\/recipes\/\d+\/edit$/);
    const form = await page.getByLabel("Ingredients").inputValue();
    assert(form === LINES.join("\n"), `the form holds the lines (${form})`);
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.waitForURL(/\/recipes\/\d+$/);
    await waitForText(page.locator("h1"), title);
    const again = await page.locator(".ingredients li").allTextContents();
    assert(JSON.stringify(again) === JSON.stringify(LINES), `unchanged by an edit (${again.join(" | ")})`);
    await shot(page, "b01-recipe-desktop.png", true);
  });

  await step(page, "portions scale the lines, in fractions", async () => {
    await page.getByLabel("Cook for (portions)").fill("6");
    await page.getByRole("button", { name: "Scale" }).click();
    await page.waitForURL(/portions=6/);
    await waitForText(page.locator(".ingredients"), "1 ½ cups cream");
    const scaled = await page.locator(".ingredients li").allTextContents();
    assert(scaled.includes("a pinch of salt") && scaled.includes("salt to taste"), `a pinch and to taste unscaled (${scaled.join(" | ")})`);
    await waitForText(page.locator(".portions-form"), "Scaled from 2 portions");
  });

  await step(page, "an allergy warning once the allergy is set", async () => {
    const token = await page.evaluate(() => localStorage.getItem("newsReader.token"));
    const set = await page.request.patch("/api/recipes/users/me", { headers: { authorization: `Bearer ${token}` }, data: { preferences: { allergies: ["dairy"] } } });
    assert(set.status() === 200, `preferences answered ${set.status()}`);
    await page.goto(recipePath);
    await waitForText(page.locator(".allergy-warning"), "dairy (cream)");
  });

  await step(page, "search by a word and by a tag", async () => {
    await page.goto("/recipes");
    const token = await page.evaluate(() => localStorage.getItem("newsReader.token"));
    const other = await page.request.post("/api/recipes/recipes", {
      headers: { authorization: `Bearer ${token}` },
      data: { title: `Tomato pasta ${run}`, ingredients: [{ line: "200 g spaghetti" }, { line: "2 tomatoes" }, { line: "1 tbsp olive oil" }], instructions: ["Boil.", "Toss."], portions: 2, tags: ["pasta"] },
    });
    assert(other.status() === 201, `second recipe answered ${other.status()}`);
    await page.getByLabel("Search (optional)", { exact: true }).fill("chili CREAM");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/\/recipes\?q=chili/);
    await waitForText(page.locator("#my-recipes"), "Found");
    const found = await page.locator(".recipe-list .card > a").allTextContents();
    assert(JSON.stringify(found) === JSON.stringify([title]), `the search finds the soup only (${found.join(", ")})`);
    await page.locator(".recipe-list .tags").getByRole("link", { name: "weeknight" }).click();
    await page.waitForURL(/tag=weeknight/);
    await waitForText(page.locator(".recipe-list"), title);
    await page.goto("/recipes?q=spaghetti");
    await waitForText(page.locator(".recipe-list"), `Tomato pasta ${run}`);
    await shot(page, "b02-search-desktop.png", true);
  });

  await step(page, "plan two dinners, then one shopping list for the week", async () => {
    await page.goto("/recipes/plan?week=2026-12-09");
    await waitForText(page.locator("h1"), "Meal plan");
    await waitForText(page.locator(".page-head .meta"), "Week of 2026-12-07");
    for (const [day, recipe, portions] of [
      ["2026-12-07", title, "4"],
      ["2026-12-08", `Tomato pasta ${run}`, "2"],
    ]) {
      const dinner = page.locator(`[data-day="${day}"] [data-meal="dinner"]`);
      await dinner.getByLabel("Recipe", { exact: true }).selectOption({ label: recipe });
      await dinner.getByLabel("Portions", { exact: true }).fill(portions);
      await dinner.getByRole("button", { name: "Add", exact: true }).click();
      await waitForText(dinner.locator(".plan-entries"), recipe);
    }
    await shot(page, "b03-plan-desktop.png", true);
    await page.getByRole("button", { name: "Shopping list for this week" }).click();
    await waitForPath(page, "/recipes/shopping-list");
    const items = page.locator(".shopping-items li label");
    await waitForText(page.locator(".shopping-items"), "olive oil");
    const lines = await items.allTextContents();
    // The soup for 4 (twice its quantities) and the pasta for 2: 800 g + 2 tomatoes stay apart
    // (weight and count), the rest as planned.
    for (const expected of ["1 cup cream", "1 tsp chili flakes", "800 g tomatoes", "200 g spaghetti", "2 tomatoes", "1 tbsp olive oil", "salt"]) {
      assert(lines.includes(expected), `${expected} in the list (${lines.join(" | ")})`);
    }
    await page.getByLabel("200 g spaghetti").check();
    await page.locator(".shopping-items li.checked").waitFor();
    await page.getByLabel("Item", { exact: true }).fill("Coffee");
    await page.getByRole("button", { name: "Add item" }).click();
    await waitForText(page.locator(".shopping-items"), "Coffee");
    await page.reload();
    await waitForText(page.locator(".shopping-items"), "Coffee");
    assert(await page.getByLabel("200 g spaghetti").isChecked(), "the check is kept");
    await shot(page, "b04-shopping-desktop.png", true);
  });

  await step(page, "delete the recipe: gone from the list, marked in the plan", async () => {
    await page.goto(recipePath);
    await waitForText(page.locator("h1"), title);
    await page.getByRole("button", { name: "Delete recipe" }).click();
    await page.getByRole("button", { name: "Delete for good" }).click();
    await waitForPath(page, "/recipes");
    await waitForText(page.locator(".recipe-list"), `Tomato pasta ${run}`);
    const listed = await page.locator(".recipe-list .card > a").allTextContents();
    assert(!listed.includes(title), `the deleted recipe is not listed (${listed.join(", ")})`);
    const gone = await page.request.get(`/api${recipePath.replace("/recipes/", "/recipes/recipes/")}`, {
      headers: { authorization: `Bearer ${await page.evaluate(() => localStorage.getItem("newsReader.token"))}` },
    });
    assert(gone.status() === 404, `the recipe answers 404 (${gone.status()})`);
    await page.goto("/recipes/plan?week=2026-12-07");
    await waitForText(page.locator('[data-day="2026-12-07"] [data-meal="dinner"]'), `${title} (deleted)`);
  });
  await desktop.close();
});
