// Document C's recipe service: the signed-in user's recipes (list, write, read), recipes
// generated from a prompt (saved with one click), and the nutrients of a recipe.

import * as api from "./api.gen.js";
import { announce, h, mount, time } from "./dom.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { busy, clearFormErrors, empty, errorBox, field, formError, loading, showFormError, textArea } from "./ui.js";
import { needsLogin } from "./views-account.js";

const UNITS = new Set(["g", "kg", "mg", "ml", "l", "dl", "cl", "cup", "cups", "tbsp", "tsp", "oz", "lb", "piece", "pieces", "pc", "pcs", "clove", "cloves"]);

/**
 * One ingredient line, `quantity [unit] name` ("200 g flour", "2 eggs", "salt").
 * @param {string} line
 * @returns {api.RecipeIngredient}
 */
export function parseIngredient(line) {
  const words = line.trim().split(/\s+/);
  const quantity = Number((words[0] ?? "").replace(",", "."));
  if (words.length < 2 || !Number.isFinite(quantity)) {
    return { quantity: 1, unit: "", name: line.trim() };
  }
  const unit = UNITS.has((words[1] ?? "").toLowerCase()) && words.length > 2 ? words[1] ?? "" : "";
  const name = words.slice(unit ? 2 : 1).join(" ");
  return { quantity, unit, name };
}

/** @param {api.RecipeIngredient} i */
function ingredientText(i) {
  return [i.quantity, i.unit, i.name].filter((part) => part !== "").join(" ");
}

/** @param {string} text */
function lines(text) {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}

/**
 * A recipe's body: portions, ingredients and steps.
 * @param {api.RecipeInput|api.Recipe} recipe
 */
function recipeBody(recipe) {
  return [
    h("p", { class: "meta" }, `${recipe.portions} portions`),
    h("h3", null, "Ingredients"),
    h("ul", { class: "ingredients" }, recipe.ingredients.map((i) => h("li", null, ingredientText(i)))),
    h("h3", null, "Steps"),
    h("ol", { class: "steps" }, recipe.instructions.map((s) => h("li", null, s))),
  ];
}

/**
 * `/recipes`: the user's recipes, a form for a new one, and generation from a prompt.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} _match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function recipes(main, _match, { signal, title }) {
  title("Recipes");
  if (!account.session.user) {
    needsLogin(main, "Recipes");
    return;
  }
  const list = h("div", { class: "recipe-list" }, loading("Loading your recipes"));
  mount(
    main,
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Recipes")),
    h("section", { "aria-labelledby": "my-recipes" }, h("h2", { id: "my-recipes" }, "Your recipes"), list),
    generateForm(),
    newRecipeForm(),
  );
  try {
    const mine = await api.listRecipes({ limit: 20 }, { signal });
    mount(
      list,
      mine.length
        ? h("ul", { class: "cards" }, mine.map((r) => h("li", { class: "card" }, h("a", { href: `/recipes/${r.id}` }, r.title), h("p", { class: "meta" }, `${r.ingredients.length} ingredients · ${r.portions} portions`))))
        : empty("No recipes yet.", "Write one below, or let the assistant suggest some."),
    );
  } catch (error) {
    if (!signal.aborted) {
      mount(list, errorBox(error));
    }
  }
}

function newRecipeForm() {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Save recipe"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card", "aria-labelledby": "new-recipe", novalidate: true },
      h("h2", { id: "new-recipe" }, "New recipe"),
      formError(),
      field({ label: "Title", name: "title", required: true, maxlength: 255 }),
      textArea({ label: "Ingredients", name: "ingredients", required: true, hint: "One per line: quantity, unit, name (200 g flour).", rows: 5 }),
      textArea({ label: "Steps", name: "instructions", required: true, hint: "One step per line.", rows: 5 }),
      field({ label: "Portions", name: "portions", type: "number", value: "2", required: true, inputmode: "decimal" }),
      h("div", { class: "actions" }, button),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    const recipe = {
      title: String(data.get("title") ?? "").trim(),
      ingredients: lines(String(data.get("ingredients") ?? "")).map(parseIngredient),
      instructions: lines(String(data.get("instructions") ?? "")),
      portions: Number(data.get("portions") ?? 0),
    };
    try {
      const created = await busy(button, "Saving…", () => api.createRecipe(recipe));
      announce("Recipe saved");
      navigate(`/recipes/${created.id}`);
    } catch (error) {
      showFormError(form, error);
    }
  });
  return form;
}

function generateForm() {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Suggest recipes"));
  const results = h("div", { class: "generated", "aria-live": "polite" });
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card", "aria-labelledby": "generate-heading", novalidate: true },
      h("h2", { id: "generate-heading" }, "Ask for ideas"),
      formError(),
      textArea({ label: "What would you like to cook?", name: "prompt", required: true, maxlength: 4096, rows: 2 }),
      h("div", { class: "actions" }, button),
      results,
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const prompt = String(new FormData(form).get("prompt") ?? "").trim();
    try {
      const suggested = await busy(button, "Thinking…", () => api.generateRecipes({ prompt }));
      mount(results, suggested.map((recipe) => suggestion(recipe)));
      announce(`${suggested.length} recipes suggested`);
    } catch (error) {
      showFormError(form, error);
    }
  });
  return form;
}

/** @param {api.RecipeInput} recipe */
function suggestion(recipe) {
  const save = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button small" }, "Save this recipe"));
  const card = h("article", { class: "card suggestion" }, h("h3", null, recipe.title), ...recipeBody(recipe), save);
  save.addEventListener("click", async () => {
    try {
      const created = await busy(save, "Saving…", () => api.createRecipe(recipe));
      announce("Recipe saved");
      navigate(`/recipes/${created.id}`);
    } catch (error) {
      card.append(errorBox(error));
    }
  });
  return card;
}

/**
 * `/recipes/{id}`: one recipe, and its nutrients on request.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function recipe(main, match, { signal, title }) {
  title("Recipe");
  if (!account.session.user) {
    needsLogin(main, "Recipe");
    return;
  }
  mount(main, loading("Loading the recipe"));
  let shown;
  try {
    shown = await api.getRecipe(Number(match.params.id), { signal });
  } catch (error) {
    if (!signal.aborted) {
      mount(main, h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Recipe")), errorBox(error));
    }
    return;
  }
  title(shown.title);
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button" }, "Compute nutrients"));
  const nutrients = h("div", { class: "nutrients", "aria-live": "polite" });
  const current = shown;
  button.addEventListener("click", async () => {
    try {
      const n = await busy(button, "Computing…", () => api.computeNutrients({ recipe: { title: current.title, ingredients: current.ingredients, instructions: current.instructions, portions: current.portions } }));
      mount(
        nutrients,
        h(
          "dl",
          { class: "nutrient-table" },
          [
            ["Calories", `${n.calories} kcal`],
            ["Protein", `${n.protein} g`],
            ["Fat", `${n.fat} g`],
            ["Carbohydrates", `${n.carbs} g`],
          ].map(([k, v]) => [h("dt", null, k), h("dd", null, v)]),
        ),
        n.estimatedByModel.length ? h("p", { class: "hint" }, `Estimated by the assistant: ${n.estimatedByModel.join(", ")}.`) : h("p", { class: "hint" }, "All from the food composition table."),
      );
    } catch (error) {
      mount(nutrients, errorBox(error));
    }
  });
  mount(
    main,
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, shown.title), h("p", { class: "meta" }, "Saved ", time(shown.createdAt))),
    h("article", { class: "card recipe" }, ...recipeBody(shown)),
    h("section", { class: "card", "aria-label": "Nutrients" }, h("h2", null, "Nutrients (whole recipe)"), button, nutrients),
    h("p", null, h("a", { href: "/recipes" }, "All your recipes")),
  );
}
