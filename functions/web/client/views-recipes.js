// The recipe service: the signed-in user's recipes (a page at a time, write, read,
// edit), recipes generated from a prompt (saved with one click), the nutrients of a recipe,
// questions about a recipe, and the preferences generation and answers follow.

import * as recipeAccountsApi from "./api-recipe-accounts.gen.js";
import * as recipesApi from "./api-recipes.gen.js";
import { announce, h, mount, time } from "./dom.js";
import { nextAfter } from "./http.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { busy, clearFormErrors, empty, errorBox, field, formError, loading, showFormError, textArea } from "./ui.js";
import { needsLogin } from "./access.js";

/** @typedef {import("./api-types.gen.js").Recipe} Recipe */
/** @typedef {import("./api-types.gen.js").RecipeIngredient} RecipeIngredient */
/** @typedef {import("./api-types.gen.js").RecipeInput} RecipeInput */
/** @typedef {import("./api-types.gen.js").RecipeInputBody} RecipeInputBody */
/** @typedef {import("./api-types.gen.js").RecipeLanguage} RecipeLanguage */

const UNITS = new Set(["g", "kg", "mg", "ml", "l", "dl", "cl", "cup", "cups", "tbsp", "tsp", "oz", "lb", "piece", "pieces", "pc", "pcs", "clove", "cloves"]);

/**
 * One ingredient line, `quantity [unit] name` ("200 g flour", "2 eggs", "salt").
 * @param {string} line
 * @returns {RecipeIngredient}
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

/** @param {RecipeIngredient} i */
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
 * A recipe's body: portions, ingredients and steps, under headings one level below the
 * recipe's title (`level`).
 * @param {RecipeInput|Recipe} recipe
 * @param {"h2"|"h4"} level
 */
function recipeBody(recipe, level) {
  return [
    h("p", { class: "meta" }, `${recipe.portions} portions`),
    h(level, null, "Ingredients"),
    h("ul", { class: "ingredients" }, recipe.ingredients.map((i) => h("li", null, ingredientText(i)))),
    h(level, null, "Steps"),
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
  const more = h("div", { class: "actions recipe-more" });
  mount(
    main,
    h(
      "div",
      { class: "page-head" },
      h("h1", { tabindex: "-1" }, "Recipes"),
      h("p", { class: "actions" }, h("a", { class: "button secondary", href: "/recipes/preferences" }, "Preferences")),
    ),
    h("section", { "aria-labelledby": "my-recipes" }, h("h2", { id: "my-recipes" }, "Your recipes"), list, more),
    generateForm(),
    recipeForm({ heading: "New recipe", submit: "Save recipe", busyText: "Saving…", save: async (input) => navigate(`/recipes/${(await recipesApi.createRecipe(input)).id}`), done: "Recipe saved" }),
  );
  const cards = h("ul", { class: "cards" });
  /**
   * Adds the page after `after` to the list, and a "More recipes" button when the answer's
   * `Link` says more follow.
   * @param {number|undefined} after
   */
  const load = async (after) => {
    /** @type {number|undefined} */
    let next;
    const page = await recipesApi.listRecipes(after ? { limit: RECIPES_PER_PAGE, after } : { limit: RECIPES_PER_PAGE }, {
      signal,
      cache: "no-store",
      onHeaders: (headers) => {
        next = nextAfter(headers.get("link"));
      },
    });
    cards.append(...page.map(recipeCard));
    mount(more);
    if (next !== undefined) {
      const from = next;
      const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary" }, "More recipes"));
      button.addEventListener("click", async () => {
        const shownBefore = cards.children.length;
        try {
          await busy(button, "Loading…", () => load(from));
          announce(`${cards.children.length - shownBefore} more recipes`);
          /** @type {HTMLElement|null} */ (cards.children[shownBefore]?.querySelector("a") ?? null)?.focus();
        } catch (error) {
          if (!signal.aborted) {
            mount(more, errorBox(error));
          }
        }
      });
      mount(more, button);
    }
  };
  try {
    await load(undefined);
    mount(list, cards.children.length ? cards : empty("No recipes yet.", "Write one below, or let the assistant suggest some."));
  } catch (error) {
    if (!signal.aborted) {
      mount(list, errorBox(error));
    }
  }
}

/** Recipes a page of the list holds (the API's largest page). */
const RECIPES_PER_PAGE = 20;

/** @param {Recipe} r */
function recipeCard(r) {
  return h("li", { class: "card" }, h("a", { href: `/recipes/${r.id}` }, r.title), h("p", { class: "meta" }, `${r.ingredients.length} ingredients · ${r.portions} portions`));
}

/**
 * A recipe's form: title, ingredients (one a line), steps (one a line) and portions, filled
 * from `values`; `save` sends the recipe and goes on.
 * @param {{heading: string, submit: string, busyText: string, done: string, values?: Recipe, save: (input: RecipeInputBody) => Promise<void>}} options
 */
function recipeForm({ heading, submit, busyText, done, values, save }) {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, submit));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card", "aria-labelledby": "recipe-form-heading", novalidate: true },
      h("h2", { id: "recipe-form-heading" }, heading),
      formError(),
      field({ label: "Title", name: "title", required: true, maxlength: 255, value: values?.title ?? "" }),
      textArea({ label: "Ingredients", name: "ingredients", required: true, hint: "One per line: quantity, unit, name (200 g flour).", rows: 5, value: values ? values.ingredients.map(ingredientText).join("\n") : "" }),
      textArea({ label: "Steps", name: "instructions", required: true, hint: "One step per line.", rows: 5, value: values ? values.instructions.join("\n") : "" }),
      field({ label: "Portions", name: "portions", type: "number", value: values ? String(values.portions) : "2", required: true, inputmode: "decimal" }),
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
      await busy(button, busyText, () => save(recipe));
      announce(done);
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
      const suggested = await busy(button, "Thinking…", () => recipesApi.generateRecipes({ prompt }));
      mount(results, suggested.map((recipe) => suggestion(recipe)));
      announce(`${suggested.length} recipes suggested`);
    } catch (error) {
      showFormError(form, error);
    }
  });
  return form;
}

/** @param {RecipeInput} recipe */
function suggestion(recipe) {
  const save = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button small" }, "Save this recipe"));
  const card = h("article", { class: "card suggestion" }, h("h3", null, recipe.title), ...recipeBody(recipe, "h4"), save);
  save.addEventListener("click", async () => {
    try {
      const created = await busy(save, "Saving…", () => recipesApi.createRecipe(recipe));
      announce("Recipe saved");
      navigate(`/recipes/${created.id}`);
    } catch (error) {
      card.append(errorBox(error));
    }
  });
  return card;
}

/**
 * The caller's recipe `match.params.id`, or the page's error shown under `heading` (null).
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {AbortSignal} signal
 * @param {string} heading
 * @returns {Promise<Recipe|null>}
 */
async function loadRecipe(main, match, signal, heading) {
  mount(main, loading("Loading the recipe"));
  try {
    return await recipesApi.getRecipe(Number(match.params.id), { signal });
  } catch (error) {
    if (!signal.aborted) {
      mount(main, h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, heading)), errorBox(error));
    }
    return null;
  }
}

/** @param {Recipe} recipe */
function recipeInput(recipe) {
  return { title: recipe.title, ingredients: recipe.ingredients, instructions: recipe.instructions, portions: recipe.portions };
}

/**
 * `/recipes/{id}`: one recipe, its nutrients on request, and questions about it.
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
  const shown = await loadRecipe(main, match, signal, "Recipe");
  if (!shown) {
    return;
  }
  title(shown.title);
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button" }, "Compute nutrients"));
  const nutrients = h("div", { class: "nutrients", "aria-live": "polite" });
  button.addEventListener("click", async () => {
    try {
      const n = await busy(button, "Computing…", () => recipesApi.computeNutrients({ recipe: recipeInput(shown) }));
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
    h(
      "div",
      { class: "page-head" },
      h("h1", { tabindex: "-1" }, shown.title),
      h("p", { class: "meta" }, "Saved ", time(shown.createdAt), shown.editedAt ? [" · edited ", time(shown.editedAt)] : null),
      h("p", { class: "actions" }, h("a", { class: "button secondary", href: `/recipes/${shown.id}/edit` }, "Edit recipe")),
    ),
    h("article", { class: "card recipe" }, ...recipeBody(shown, "h2")),
    h("section", { class: "card", "aria-labelledby": "nutrients-heading" }, h("h2", { id: "nutrients-heading" }, "Nutrients (whole recipe)"), button, nutrients),
    askForm(shown),
    h("p", null, h("a", { href: "/recipes" }, "All your recipes")),
  );
}

/**
 * A question about `recipe` and the assistant's answer (in the user's language).
 * @param {Recipe} recipe
 */
function askForm(recipe) {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Ask"));
  const answer = h("div", { class: "recipe-answer", "aria-live": "polite" });
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card", "aria-labelledby": "ask-heading", novalidate: true },
      h("h2", { id: "ask-heading" }, "Ask about this recipe"),
      formError(),
      textArea({ label: "Your question", name: "prompt", required: true, maxlength: 4096, rows: 2, hint: "For example: what can I use instead of eggs?" }),
      h("div", { class: "actions" }, button),
      answer,
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const prompt = String(new FormData(form).get("prompt") ?? "").trim();
    try {
      const answered = await busy(button, "Thinking…", () => recipesApi.askAboutRecipe({ prompt, recipe: recipeInput(recipe) }));
      mount(answer, h("h3", null, "Answer"), answered.response.split(/\n\s*\n/).map((p) => h("p", null, p)));
      announce("The assistant answered");
    } catch (error) {
      showFormError(form, error);
    }
  });
  return form;
}

/**
 * `/recipes/{id}/edit`: the recipe's form, filled; saving goes back to the recipe.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function recipeEdit(main, match, { signal, title }) {
  title("Edit recipe");
  if (!account.session.user) {
    needsLogin(main, "Edit recipe");
    return;
  }
  const shown = await loadRecipe(main, match, signal, "Edit recipe");
  if (!shown) {
    return;
  }
  title(`Edit ${shown.title}`);
  mount(
    main,
    h("div", { class: "page-head" }, h("p", { class: "eyebrow" }, h("a", { href: `/recipes/${shown.id}` }, shown.title)), h("h1", { tabindex: "-1" }, "Edit recipe")),
    recipeForm({
      heading: "The recipe",
      submit: "Save changes",
      busyText: "Saving…",
      done: "Recipe updated",
      values: shown,
      save: async (input) => {
        await recipesApi.updateRecipe(shown.id, input);
        navigate(`/recipes/${shown.id}`);
      },
    }),
    h("p", null, h("a", { href: `/recipes/${shown.id}` }, "Back to the recipe without saving")),
  );
}

/** The languages recipes and answers are written in. */
const LANGUAGES = /** @type {[RecipeLanguage, string][]} */ ([
  ["EN", "English"],
  ["DE", "Deutsch"],
  ["HU", "Magyar"],
]);

/**
 * `/recipes/preferences`: the language, diets, allergies and "about me" that generation and
 * answers follow.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} _match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function recipePreferences(main, _match, { signal, title }) {
  const heading = "Recipe preferences";
  title(heading);
  if (!account.session.user) {
    needsLogin(main, heading);
    return;
  }
  mount(main, loading("Loading your preferences"));
  let user;
  try {
    user = await recipeAccountsApi.getRecipeUser({ signal, cache: "no-store" });
  } catch (error) {
    if (!signal.aborted) {
      mount(main, h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, heading)), errorBox(error));
    }
    return;
  }
  const prefs = user.preferences;
  const language = prefs.language ?? "EN";
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Save preferences"));
  const status = h("div", { class: "prefs-status", role: "status" });
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card", "aria-labelledby": "prefs-form-heading", novalidate: true },
      h("h2", { id: "prefs-form-heading" }, "What the assistant follows"),
      formError(),
      h(
        "div",
        { class: "field", dataset: { field: "language" } },
        h("label", { for: "field-language" }, "Language"),
        h("select", { id: "field-language", name: "language", "aria-describedby": "field-language-error" }, LANGUAGES.map(([code, name]) => h("option", { value: code, selected: code === language }, name))),
        h("p", { class: "field-error", id: "field-language-error", hidden: true }),
      ),
      textArea({ label: "Diets", name: "diet", rows: 2, hint: "One per line (vegetarian, vegan, ...). Generated recipes follow them.", value: (prefs.diet ?? []).join("\n") }),
      textArea({ label: "Allergies", name: "allergies", rows: 2, hint: "One per line. A generated recipe naming one is never shown.", value: (prefs.allergies ?? []).join("\n") }),
      textArea({ label: "About me", name: "aboutMe", rows: 3, hint: "One note per line, given to the assistant (I cook for two, ...).", value: (prefs.aboutMe ?? []).join("\n") }),
      h("div", { class: "actions" }, button),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    const preferences = {
      language: /** @type {RecipeLanguage} */ (String(data.get("language") ?? "EN")),
      diet: lines(String(data.get("diet") ?? "")),
      allergies: lines(String(data.get("allergies") ?? "")),
      aboutMe: lines(String(data.get("aboutMe") ?? "")),
    };
    try {
      await busy(button, "Saving…", () => recipeAccountsApi.updateRecipeUser({ preferences }));
      announce("Preferences saved");
      mount(status, h("p", null, "Saved."));
    } catch (error) {
      showFormError(form, error);
    }
  });
  mount(
    main,
    h("div", { class: "page-head" }, h("p", { class: "eyebrow" }, h("a", { href: "/recipes" }, "Recipes")), h("h1", { tabindex: "-1" }, heading), h("p", { class: "lede" }, "Generated recipes and answers about a recipe are written in your language and follow your diets and allergies.")),
    form,
    status,
  );
}
