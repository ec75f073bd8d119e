// The recipe service: the signed-in user's recipes (a page at a time, searched by words and
// tags, write, read, edit, delete, a photo), recipes imported from a page's address or
// generated from a prompt (saved with one click), the nutrients of a recipe (stored, per
// portion), portions scaled, allergy warnings, questions about a recipe, and the preferences
// generation and answers follow. The meal plan and the shopping list are in
// views-recipe-plan.js. Ingredients are sent as the lines the cook wrote (`{line}`): the
// server's one parser reads them, so `1/2 cup cream` and `salt to taste` are kept as written.

import * as recipeAccountsApi from "./api-recipe-accounts.gen.js";
import * as recipesApi from "./api-recipes.gen.js";
import { announce, h, mount, time } from "./dom.js";
import { nextAfter, request, sendToStorage } from "./http.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { busy, clearFormErrors, confirmFirst, empty, errorBox, field, formError, loading, showFormError, textArea } from "./ui.js";
import { needsLogin } from "./access.js";

/** @typedef {import("./api-types.gen.js").Recipe} Recipe */
/** @typedef {import("./api-types.gen.js").RecipeIngredient} RecipeIngredient */
/** @typedef {import("./api-types.gen.js").RecipeInput} RecipeInput */
/** @typedef {import("./api-types.gen.js").RecipeInputBody} RecipeInputBody */
/** @typedef {import("./api-types.gen.js").RecipeLanguage} RecipeLanguage */
/** @typedef {import("./api-types.gen.js").ComputedNutrients} ComputedNutrients */

/**
 * A recipe as the recipe box answers it (the fields beside the contract's Recipe).
 * @typedef {{key: string, url: string}} RecipeImage
 * @typedef {{allergy: string, ingredients: string[]}} Allergen
 * @typedef {{calories: number, protein: number, fat: number, carbs: number}} Nutrients
 * @typedef {{tags?: string[], image?: RecipeImage, allergens?: Allergen[], nutrientsPerPortion?: Nutrients, scaledFrom?: number}} RecipeBox
 */

/**
 * An ingredient as written: the amount as the cook wrote it (or the number), the unit, the
 * name and its note (`½ tsp chili flakes`, `salt, to taste`).
 * @param {RecipeIngredient} i
 */
export function ingredientText(i) {
  const amount = i.amount ?? (i.quantity === undefined || i.quantity === null ? "" : String(i.quantity));
  const text = [amount, i.unit, i.name].filter((part) => part !== "" && part !== undefined).join(" ");
  return i.note ? `${text}, ${i.note}` : text;
}

/**
 * A recipe's ingredients as lines: the server's own writing of each (`ingredientLines`) when
 * it sent them, else the parts joined (a generated suggestion).
 * @param {RecipeInput|Recipe} recipe
 * @returns {string[]}
 */
function ingredientLines(recipe) {
  const written = "ingredientLines" in recipe ? recipe.ingredientLines : undefined;
  return written && written.length === recipe.ingredients.length ? written : recipe.ingredients.map(ingredientText);
}

/**
 * The recipe's tags from a comma-separated field.
 * @param {string} text
 */
function tagList(text) {
  return text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
}

/**
 * The warning of a recipe naming the reader's allergies (nothing when none).
 * @param {RecipeBox} r
 */
function allergyWarning(r) {
  const found = r.allergens ?? [];
  if (!found.length) {
    return null;
  }
  return h(
    "div",
    { class: "allergy-warning", role: "note" },
    h("strong", null, "Allergy warning: "),
    found.map((a) => `${a.allergy} (${a.ingredients.join(", ")})`).join("; "),
  );
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
    h("ul", { class: "ingredients" }, ingredientLines(recipe).map((line) => h("li", null, line))),
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
  const params = new URLSearchParams(window.location.search);
  const q = params.get("q") ?? "";
  const tag = params.get("tag") ?? "";
  const searching = Boolean(q || tag);
  const list = h("div", { class: "recipe-list" }, loading(searching ? "Searching your recipes" : "Loading your recipes"));
  const more = h("div", { class: "actions recipe-more" });
  mount(
    main,
    h(
      "div",
      { class: "page-head" },
      h("h1", { tabindex: "-1" }, "Recipes"),
      h(
        "p",
        { class: "actions" },
        h("a", { class: "button secondary", href: "/recipes/plan" }, "Meal plan"),
        h("a", { class: "button secondary", href: "/recipes/shopping-list" }, "Shopping list"),
        h("a", { class: "button secondary", href: "/recipes/preferences" }, "Preferences"),
      ),
    ),
    searchForm(q, tag),
    h("section", { "aria-labelledby": "my-recipes" }, h("h2", { id: "my-recipes" }, searching ? "Found" : "Your recipes"), list, more),
    importForm(),
    generateForm(),
    recipeForm({ heading: "New recipe", submit: "Save recipe", busyText: "Saving…", save: async (input) => navigate(`/recipes/${(await recipesApi.createRecipe(input)).id}`), done: "Recipe saved" }),
  );
  const cards = h("ul", { class: "cards" });
  /**
   * Adds the page at `from` (the plain list's `after`, a search's `cursor`) to the list, and a
   * "More recipes" button when the answer's `Link` says more may follow.
   * @param {string|undefined} from
   */
  const load = async (from) => {
    /** @type {string|undefined} */
    let next;
    /** @type {Record<string, string|number>} */
    const query = { limit: RECIPES_PER_PAGE };
    if (q) query.q = q;
    if (tag) query.tag = tag;
    if (from) query[searching ? "cursor" : "after"] = from;
    /** @type {(Recipe & RecipeBox)[]} */
    const page = await request("GET", "/api/recipes/recipes", {
      signal,
      cache: "no-store",
      auth: "required",
      query,
      onHeaders: (headers) => {
        next = searching ? nextParam(headers.get("link"), "cursor") : nextAfter(headers.get("link"))?.toString();
      },
    });
    cards.append(...page.map(recipeCard));
    mount(more);
    if (next !== undefined) {
      const after = next;
      const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary" }, "More recipes"));
      button.addEventListener("click", async () => {
        const shownBefore = cards.children.length;
        try {
          await busy(button, "Loading…", () => load(after));
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
    mount(
      list,
      cards.children.length ? cards : searching ? empty("No recipe found.", "Try fewer or shorter words.") : empty("No recipes yet.", "Write one below, import one from a recipe site, or let the assistant suggest some."),
    );
    if (searching) {
      announce(`${cards.children.length} recipes found`);
    }
  } catch (error) {
    if (!signal.aborted) {
      mount(list, errorBox(error));
    }
  }
}

/**
 * The value of `name` in a list answer's `Link: <...>; rel="next"`; undefined on the last page.
 * @param {string|null} link
 * @param {string} name
 */
export function nextParam(link, name) {
  const target = link?.match(/<([^>]*)>\s*;\s*rel="?next"?/)?.[1];
  if (!target) {
    return undefined;
  }
  return new URL(target, "http://localhost").searchParams.get(name) ?? undefined;
}

/**
 * Search by words and a tag: the list's address carries them (`/recipes?q=lentil&tag=soup`).
 * @param {string} q
 * @param {string} tag
 */
function searchForm(q, tag) {
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card recipe-search", role: "search", "aria-label": "Search your recipes" },
      field({ label: "Search", name: "q", value: q, maxlength: 200, hint: "Words from the title, the ingredients or the tags." }),
      field({ label: "Tag", name: "tag", value: tag, maxlength: 50 }),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "button" }, "Search"), q || tag ? h("a", { class: "button secondary", href: "/recipes" }, "All recipes") : null),
    )
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const query = new URLSearchParams();
    for (const name of ["q", "tag"]) {
      const value = String(data.get(name) ?? "").trim();
      if (value) query.set(name, value);
    }
    const search = query.toString();
    navigate(search ? `/recipes?${search}` : "/recipes");
  });
  return form;
}

/** A recipe site's page address, imported as a recipe of the user's. */
function importForm() {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Import recipe"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card", "aria-labelledby": "import-heading", novalidate: true },
      h("h2", { id: "import-heading" }, "Import from a recipe site"),
      formError(),
      field({ label: "Page address", name: "url", type: "url", required: true, maxlength: 2048, hint: "Any page that publishes a recipe (nearly every recipe site does)." }),
      h("div", { class: "actions" }, button),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const url = String(new FormData(form).get("url") ?? "").trim();
    try {
      /** @type {{id: number}} */
      const created = await busy(button, "Importing…", () => request("POST", "/api/recipes/recipes/import", { body: { url }, auth: "required" }));
      announce("Recipe imported");
      navigate(`/recipes/${created.id}`);
    } catch (error) {
      showFormError(form, error);
    }
  });
  return form;
}

/** Recipes a page of the list holds (the API's largest page). */
const RECIPES_PER_PAGE = 20;

/** @param {Recipe & RecipeBox} r */
function recipeCard(r) {
  return h(
    "li",
    { class: "card recipe-card" },
    r.image ? h("img", { class: "recipe-thumb", src: r.image.url, alt: "", loading: "lazy" }) : null,
    h("a", { href: `/recipes/${r.id}` }, r.title),
    h("p", { class: "meta" }, `${r.ingredients.length} ingredients · ${r.portions} portions`),
    tagLinks(r.tags ?? []),
    allergyWarning(r),
  );
}

/**
 * A recipe's tags, each a link to the recipes with it.
 * @param {string[]} tags
 */
function tagLinks(tags) {
  return tags.length ? h("ul", { class: "tags", "aria-label": "Tags" }, tags.map((t) => h("li", null, h("a", { href: `/recipes?tag=${encodeURIComponent(t)}` }, t)))) : null;
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
      textArea({ label: "Ingredients", name: "ingredients", required: true, hint: "One per line, as you would write it: 1/2 cup cream, ½ tsp chili flakes, salt to taste.", rows: 5, value: values ? ingredientLines(values).join("\n") : "" }),
      textArea({ label: "Steps", name: "instructions", required: true, hint: "One step per line.", rows: 5, value: values ? values.instructions.join("\n") : "" }),
      field({ label: "Portions", name: "portions", type: "number", value: values ? String(values.portions) : "2", required: true, inputmode: "decimal" }),
      field({ label: "Tags", name: "tags", value: values ? (/** @type {RecipeBox} */ (values).tags ?? []).join(", ") : "", hint: "Comma-separated, at most 20 (soup, weeknight)." }),
      h("div", { class: "actions" }, button),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    // The lines as written: the server parses them (quantity optional, fractions kept).
    const recipe = /** @type {RecipeInputBody} */ (
      /** @type {unknown} */ ({
        title: String(data.get("title") ?? "").trim(),
        ingredients: lines(String(data.get("ingredients") ?? "")).map((line) => ({ line })),
        instructions: lines(String(data.get("instructions") ?? "")),
        portions: Number(data.get("portions") ?? 0),
        tags: tagList(String(data.get("tags") ?? "")),
      })
    );
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
    return await recipesApi.getRecipe(Number(match.params.id), {}, { signal });
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
 * The nutrients table: the whole recipe's and each portion's.
 * @param {Nutrients} whole
 * @param {Nutrients|undefined} perPortion
 */
function nutrientTable(whole, perPortion) {
  const rows = /** @type {[string, keyof Nutrients, string][]} */ ([
    ["Calories", "calories", "kcal"],
    ["Protein", "protein", "g"],
    ["Fat", "fat", "g"],
    ["Carbohydrates", "carbs", "g"],
  ]);
  return h(
    "table",
    { class: "nutrient-table" },
    h("thead", null, h("tr", null, h("th", { scope: "col" }, "Nutrient"), h("th", { scope: "col" }, "Whole recipe"), perPortion ? h("th", { scope: "col" }, "Per portion") : null)),
    h(
      "tbody",
      null,
      rows.map(([label, key, unit]) => h("tr", null, h("th", { scope: "row" }, label), h("td", null, `${whole[key]} ${unit}`), perPortion ? h("td", null, `${perPortion[key]} ${unit}`) : null)),
    ),
  );
}

/**
 * The photo of a recipe, and its upload: signed, sent straight to storage, then confirmed
 * (the server checks its first bytes); `changed` gets the recipe as answered.
 * @param {Recipe & RecipeBox} shown
 * @param {(recipe: Recipe & RecipeBox) => void} changed
 */
function photoSection(shown, changed) {
  const input = /** @type {HTMLInputElement} */ (h("input", { type: "file", id: "recipe-photo", accept: "image/jpeg,image/png,image/webp" }));
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary" }, shown.image ? "Replace photo" : "Add photo"));
  const status = h("div", { "aria-live": "polite" });
  button.addEventListener("click", async () => {
    const file = input.files?.[0];
    if (!file) {
      mount(status, h("p", { class: "field-error" }, "Choose a JPEG, PNG or WebP photo first."));
      return;
    }
    try {
      const recipe = await busy(button, "Uploading…", async () => {
        const path = `/api/recipes/recipes/${shown.id}/image`;
        const upload = await request("POST", path, { body: { contentType: file.type, size: file.size }, auth: "required" });
        await sendToStorage(upload, file);
        return request("POST", `${path}/${upload.id}`, { auth: "required" });
      });
      announce("Photo saved");
      changed(recipe);
    } catch (error) {
      mount(status, errorBox(error));
    }
  });
  return h(
    "section",
    { class: "card recipe-photo", "aria-labelledby": "photo-heading" },
    h("h2", { id: "photo-heading" }, "Photo"),
    shown.image ? h("img", { src: shown.image.url, alt: `Photo of ${shown.title}`, class: "recipe-image" }) : h("p", { class: "hint" }, "No photo yet."),
    h("div", { class: "field" }, h("label", { for: "recipe-photo" }, "Photo file"), input),
    h("div", { class: "actions" }, button),
    status,
  );
}

/**
 * `/recipes/{id}`: one recipe (scaled to `?portions=`), its photo, tags, allergy warning,
 * stored nutrients (whole and per portion; computed and saved on request), questions about
 * it, and deleting it.
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
  const portionsAsked = Number(new URLSearchParams(window.location.search).get("portions") ?? "");
  mount(main, loading("Loading the recipe"));
  /** @type {Recipe & RecipeBox} */
  let shown;
  try {
    shown = await request("GET", `/api/recipes/recipes/${Number(match.params.id)}`, {
      signal,
      cache: "no-store",
      auth: "required",
      query: portionsAsked > 0 ? { portions: portionsAsked } : {},
    });
  } catch (error) {
    if (!signal.aborted) {
      mount(main, h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Recipe")), errorBox(error));
    }
    return;
  }
  title(shown.title);
  const render = (/** @type {Recipe & RecipeBox} */ current) => {
    shown = current;
    const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button" }, "Compute nutrients"));
    const nutrients = h(
      "div",
      { class: "nutrients", "aria-live": "polite" },
      shown.nutrients ? [nutrientTable(shown.nutrients, shown.nutrientsPerPortion), h("p", { class: "hint" }, `Stored with the recipe, for ${shown.portions} portions.`)] : h("p", { class: "hint" }, "Not computed yet."),
    );
    button.addEventListener("click", async () => {
      try {
        const stored = await busy(button, "Computing…", () => request("POST", `/api/recipes/recipes/${shown.id}/nutrients`, { auth: "required" }));
        /** @type {Recipe & RecipeBox} */
        const saved = stored.recipe;
        /** @type {ComputedNutrients} */
        const computed = stored.computed;
        shown = saved;
        mount(
          nutrients,
          saved.nutrients ? nutrientTable(saved.nutrients, saved.nutrientsPerPortion) : null,
          computed.estimatedByModel.length ? h("p", { class: "hint" }, `Estimated by the assistant: ${computed.estimatedByModel.join(", ")}.`) : h("p", { class: "hint" }, "All from the food composition table."),
        );
        announce("Nutrients computed and saved");
      } catch (error) {
        mount(nutrients, errorBox(error));
      }
    });
    const portions = /** @type {HTMLFormElement} */ (
      h(
        "form",
        { class: "portions-form", "aria-label": "Portions" },
        field({ label: "Cook for (portions)", name: "portions", type: "number", value: String(shown.portions), required: true, inputmode: "decimal" }),
        h("button", { type: "submit", class: "button secondary small" }, "Scale"),
        shown.scaledFrom ? h("p", { class: "hint" }, `Scaled from ${shown.scaledFrom} portions.`) : null,
      )
    );
    portions.addEventListener("submit", (event) => {
      event.preventDefault();
      const n = Number(new FormData(portions).get("portions") ?? "");
      navigate(`/recipes/${shown.id}?portions=${n}`);
    });
    const deleteSlot = h("div", { class: "actions delete-recipe" });
    confirmFirst(deleteSlot, h("button", { type: "button", class: "button danger" }, "Delete recipe"), {
      warning: h("p", { class: "warning" }, `Delete “${shown.title}” for good? Its photo goes too; meals planned with it stay, marked deleted.`),
      confirmLabel: "Delete for good",
      busyLabel: "Deleting…",
      act: () => request("DELETE", `/api/recipes/recipes/${shown.id}`, { auth: "required" }),
      done: () => {
        announce("Recipe deleted");
        navigate("/recipes");
      },
      failed: (error) => deleteSlot.append(errorBox(error)),
    });
    mount(
      main,
      h(
        "div",
        { class: "page-head" },
        h("h1", { tabindex: "-1" }, shown.title),
        h("p", { class: "meta" }, "Saved ", time(shown.createdAt), shown.editedAt ? [" · edited ", time(shown.editedAt)] : null),
        tagLinks(shown.tags ?? []),
        h("p", { class: "actions" }, h("a", { class: "button secondary", href: `/recipes/${shown.id}/edit` }, "Edit recipe"), h("a", { class: "button secondary", href: "/recipes/plan" }, "Plan it")),
      ),
      allergyWarning(shown),
      shown.image ? h("img", { src: shown.image.url, alt: `Photo of ${shown.title}`, class: "recipe-hero" }) : null,
      portions,
      h("article", { class: "card recipe" }, ...recipeBody(shown, "h2")),
      h("section", { class: "card", "aria-labelledby": "nutrients-heading" }, h("h2", { id: "nutrients-heading" }, "Nutrients"), nutrients, button),
      photoSection(shown, render),
      askForm(shown),
      deleteSlot,
      h("p", null, h("a", { href: "/recipes" }, "All your recipes")),
    );
  };
  render(shown);
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
