// The meal plan (a week of breakfasts, lunches, dinners and snacks, each with recipes and
// portions) and the shopping list built from it (checked off in the shop, items added by
// hand), both the signed-in user's own.

import { announce, h, mount } from "./dom.js";
import { request } from "./http.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { busy, clearFormErrors, empty, errorBox, field, formError, loading, showFormError } from "./ui.js";
import { needsLogin } from "./access.js";

/**
 * @typedef {"breakfast"|"lunch"|"dinner"|"snack"} Meal
 * @typedef {{recipeId: number, portions: number, title: string, deleted?: boolean}} PlanEntry
 * @typedef {{date: string, meal: Meal, entries: PlanEntry[], updatedAt: string}} PlanSlot
 * @typedef {{id: string, name: string, quantity?: number, unit: string, amount?: string, checked: boolean, extra: boolean, recipes: number[]}} ShoppingItem
 * @typedef {{items: ShoppingItem[], from?: string, to?: string, recipes?: number[], builtAt?: string, updatedAt?: string}} ShoppingList
 * @typedef {{id: number, title: string, portions: number}} RecipeSummary
 */

const MEALS = /** @type {Meal[]} */ (["breakfast", "lunch", "dinner", "snack"]);

/**
 * `date` as `yyyy-mm-dd` (UTC, as the plan's days are).
 * @param {Date} date
 */
function isoDay(date) {
  return date.toISOString().slice(0, 10);
}

/**
 * The Monday of the week `day` (yyyy-mm-dd) is in.
 * @param {string} day
 */
function mondayOf(day) {
  const date = new Date(`${day}T00:00:00Z`);
  const back = (date.getUTCDay() + 6) % 7;
  date.setUTCDate(date.getUTCDate() - back);
  return date;
}

/**
 * `days` after `date`.
 * @param {Date} date
 * @param {number} days
 */
function plus(date, days) {
  const next = new Date(date);
  next.setUTCDate(next.getUTCDate() + days);
  return next;
}

/**
 * Every recipe of the user's (titles for the plan's pickers), up to 10 pages.
 * @param {AbortSignal} signal
 * @returns {Promise<RecipeSummary[]>}
 */
async function allRecipes(signal) {
  /** @type {RecipeSummary[]} */
  const out = [];
  /** @type {string|undefined} */
  let after;
  for (let n = 0; n < 10; n++) {
    /** @type {string|undefined} */
    let next;
    /** @type {RecipeSummary[]} */
    const page = await request("GET", "/api/recipes/recipes", {
      signal,
      auth: "required",
      cache: "no-store",
      query: after ? { limit: 20, after } : { limit: 20 },
      onHeaders: (headers) => {
        const target = headers.get("link")?.match(/<([^>]*)>/)?.[1];
        next = target ? (new URL(target, "http://localhost").searchParams.get("after") ?? undefined) : undefined;
      },
    });
    out.push(...page);
    if (!next) {
      break;
    }
    after = next;
  }
  return out;
}

/**
 * `/recipes/plan`: the week (`?week=yyyy-mm-dd`, any day of it; this week by default), each
 * day's meals with their recipes; a recipe is added to a meal with its portions, removed
 * again, and the week's shopping list is built with one button.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} _match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function mealPlan(main, _match, { signal, title }) {
  title("Meal plan");
  if (!account.session.user) {
    needsLogin(main, "Meal plan");
    return;
  }
  const asked = new URLSearchParams(window.location.search).get("week");
  const monday = mondayOf(asked && /^\d{4}-\d{2}-\d{2}$/.test(asked) ? asked : isoDay(new Date()));
  const from = isoDay(monday);
  const to = isoDay(plus(monday, 6));
  mount(main, loading("Loading the week"));
  /** @type {PlanSlot[]} */
  let slots;
  /** @type {RecipeSummary[]} */
  let recipes;
  try {
    [slots, recipes] = await Promise.all([request("GET", "/api/recipes/plan", { signal, auth: "required", cache: "no-store", query: { from, to } }), allRecipes(signal)]);
  } catch (error) {
    if (!signal.aborted) {
      mount(main, h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Meal plan")), errorBox(error));
    }
    return;
  }
  /** @type {Map<string, PlanEntry[]>} */
  const planned = new Map(slots.map((s) => [`${s.date}.${s.meal}`, s.entries]));

  /**
   * Writes a meal's entries (none: cleared) and shows the week again.
   * @param {string} day
   * @param {Meal} meal
   * @param {PlanEntry[]} entries
   */
  const save = async (day, meal, entries) => {
    const path = `/api/recipes/plan/${day}/${meal}`;
    if (entries.length) {
      await request("PUT", path, { auth: "required", body: { entries: entries.map((e) => ({ recipeId: e.recipeId, portions: e.portions })) } });
    } else {
      await request("DELETE", path, { auth: "required" });
    }
    planned.set(`${day}.${meal}`, entries);
    draw();
  };

  const week = h("div", { class: "plan-week" });
  const draw = () => {
    mount(
      week,
      Array.from({ length: 7 }, (_, i) => {
        const date = plus(monday, i);
        const day = isoDay(date);
        const label = date.toLocaleDateString(undefined, { weekday: "long", day: "numeric", month: "short", timeZone: "UTC" });
        return h(
          "section",
          { class: "card plan-day", "aria-label": label, dataset: { day } },
          h("h2", null, label),
          MEALS.map((meal) => mealCell(day, meal, planned.get(`${day}.${meal}`) ?? [], recipes, save)),
        );
      }),
    );
  };
  draw();
  const build = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button" }, "Shopping list for this week"));
  const buildStatus = h("div", { "aria-live": "polite" });
  build.addEventListener("click", async () => {
    try {
      await busy(build, "Building…", () => request("POST", "/api/recipes/shopping-list", { auth: "required", body: { from, to } }));
      announce("Shopping list built");
      navigate("/recipes/shopping-list");
    } catch (error) {
      mount(buildStatus, errorBox(error));
    }
  });
  mount(
    main,
    h(
      "div",
      { class: "page-head" },
      h("p", { class: "eyebrow" }, h("a", { href: "/recipes" }, "Recipes")),
      h("h1", { tabindex: "-1" }, "Meal plan"),
      h("p", { class: "meta" }, `Week of ${from}`),
      h(
        "p",
        { class: "actions" },
        h("a", { class: "button secondary", href: `/recipes/plan?week=${isoDay(plus(monday, -7))}` }, "Previous week"),
        h("a", { class: "button secondary", href: `/recipes/plan?week=${isoDay(plus(monday, 7))}` }, "Next week"),
        build,
      ),
      buildStatus,
    ),
    recipes.length ? week : empty("No recipes to plan yet.", h("a", { href: "/recipes" }, "Write or import one first.")),
  );
}

/**
 * One meal of a day: its recipes (each removable) and a form adding one.
 * @param {string} day
 * @param {Meal} meal
 * @param {PlanEntry[]} entries
 * @param {RecipeSummary[]} recipes
 * @param {(day: string, meal: Meal, entries: PlanEntry[]) => Promise<void>} save
 */
function mealCell(day, meal, entries, recipes, save) {
  const id = `plan-${day}-${meal}`;
  const select = h(
    "select",
    { id: `${id}-recipe`, name: "recipe" },
    recipes.map((r) => h("option", { value: String(r.id) }, r.title)),
  );
  const portions = /** @type {HTMLInputElement} */ (h("input", { id: `${id}-portions`, name: "portions", type: "number", min: "0.5", max: "1000", step: "0.5", inputmode: "decimal", value: String(recipes[0]?.portions ?? 2) }));
  select.addEventListener("change", () => {
    const chosen = recipes.find((r) => String(r.id) === /** @type {HTMLSelectElement} */ (select).value);
    if (chosen) {
      portions.value = String(chosen.portions);
    }
  });
  const add = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button small" }, "Add"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "plan-add", "aria-label": `Add to ${meal} on ${day}`, novalidate: true },
      formError(),
      h("label", { for: `${id}-recipe` }, "Recipe"),
      select,
      h("label", { for: `${id}-portions` }, "Portions"),
      portions,
      add,
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const chosen = recipes.find((r) => String(r.id) === /** @type {HTMLSelectElement} */ (select).value);
    if (!chosen || entries.length >= 10) {
      return;
    }
    try {
      await busy(add, "Adding…", () => save(day, meal, [...entries, { recipeId: chosen.id, portions: Number(portions.value), title: chosen.title }]));
      announce(`${chosen.title} planned for ${meal}`);
    } catch (error) {
      showFormError(form, error);
    }
  });
  return h(
    "div",
    { class: "plan-meal", dataset: { meal } },
    h("h3", null, meal[0]?.toUpperCase() + meal.slice(1)),
    entries.length
      ? h(
          "ul",
          { class: "plan-entries" },
          entries.map((e, i) => {
            const remove = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button small secondary", "aria-label": `Remove ${e.title} from ${meal}` }, "Remove"));
            remove.addEventListener("click", async () => {
              try {
                await busy(remove, "Removing…", () =>
                  save(
                    day,
                    meal,
                    entries.filter((_, j) => j !== i),
                  ),
                );
              } catch (error) {
                remove.after(errorBox(error));
              }
            });
            return h(
              "li",
              { class: e.deleted ? "deleted" : null },
              e.deleted ? h("span", null, `${e.title} (deleted)`) : h("a", { href: `/recipes/${e.recipeId}?portions=${e.portions}` }, e.title),
              ` · ${e.portions} portions `,
              remove,
            );
          }),
        )
      : null,
    form,
  );
}

/**
 * An item's line: amount, unit, name.
 * @param {ShoppingItem} item
 */
function itemText(item) {
  return [item.amount ?? "", item.unit, item.name].filter(Boolean).join(" ");
}

/**
 * `/recipes/shopping-list`: the list, checked off item by item, items added by hand and
 * removed.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} _match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function shoppingList(main, _match, { signal, title }) {
  title("Shopping list");
  if (!account.session.user) {
    needsLogin(main, "Shopping list");
    return;
  }
  mount(main, loading("Loading the shopping list"));
  /** @type {ShoppingList} */
  let list;
  try {
    list = await request("GET", "/api/recipes/shopping-list", { signal, auth: "required", cache: "no-store" });
  } catch (error) {
    if (!signal.aborted) {
      mount(main, h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Shopping list")), errorBox(error));
    }
    return;
  }
  const items = h("ul", { class: "shopping-items" });
  /** @param {ShoppingItem} item */
  const row = (item) => {
    const box = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", id: `item-${item.id}`, checked: item.checked }));
    box.addEventListener("change", async () => {
      box.disabled = true;
      try {
        const saved = await request("PATCH", `/api/recipes/shopping-list/items/${item.id}`, { auth: "required", body: { checked: box.checked } });
        line.classList.toggle("checked", saved.checked);
        announce(saved.checked ? `${item.name} checked off` : `${item.name} back on the list`);
      } catch (error) {
        box.checked = !box.checked;
        line.append(errorBox(error));
      } finally {
        box.disabled = false;
      }
    });
    const remove = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button small secondary", "aria-label": `Remove ${item.name}` }, "Remove"));
    remove.addEventListener("click", async () => {
      try {
        await busy(remove, "Removing…", () => request("DELETE", `/api/recipes/shopping-list/items/${item.id}`, { auth: "required" }));
        line.remove();
        announce(`${item.name} removed`);
      } catch (error) {
        line.append(errorBox(error));
      }
    });
    const line = h("li", { class: item.checked ? "checked" : null, dataset: { item: item.id } }, box, h("label", { for: `item-${item.id}` }, itemText(item)), item.extra ? h("span", { class: "meta" }, " (added)") : null, " ", remove);
    return line;
  };
  mount(items, list.items.map(row));
  const add = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Add item"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card", "aria-labelledby": "add-item-heading", novalidate: true },
      h("h2", { id: "add-item-heading" }, "Add an item"),
      formError(),
      field({ label: "Item", name: "name", required: true, maxlength: 100 }),
      field({ label: "Quantity", name: "quantity", type: "number", inputmode: "decimal" }),
      field({ label: "Unit", name: "unit", maxlength: 20 }),
      h("div", { class: "actions" }, add),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    const quantity = String(data.get("quantity") ?? "").trim();
    /** @type {{name: string, unit: string, quantity?: number}} */
    const body = { name: String(data.get("name") ?? "").trim(), unit: String(data.get("unit") ?? "").trim() };
    if (quantity) {
      body.quantity = Number(quantity);
    }
    try {
      const item = await busy(add, "Adding…", () => request("POST", "/api/recipes/shopping-list/items", { auth: "required", body }));
      items.append(row(item));
      form.reset();
      announce(`${item.name} added`);
    } catch (error) {
      showFormError(form, error);
    }
  });
  mount(
    main,
    h(
      "div",
      { class: "page-head" },
      h("p", { class: "eyebrow" }, h("a", { href: "/recipes" }, "Recipes")),
      h("h1", { tabindex: "-1" }, "Shopping list"),
      list.from ? h("p", { class: "meta" }, `For the meals planned ${list.from} to ${list.to}`) : null,
      h("p", { class: "actions" }, h("a", { class: "button secondary", href: "/recipes/plan" }, "Meal plan")),
    ),
    list.items.length ? null : empty("The list is empty.", "Build it from the meal plan, or add items below."),
    h("section", { class: "card", "aria-label": "Items" }, items),
    form,
  );
}
