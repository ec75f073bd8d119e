// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").AskRequest} AskRequest */
/** @typedef {import("./api-types.gen.js").AskResponse} AskResponse */
/** @typedef {import("./api-types.gen.js").ComputedNutrients} ComputedNutrients */
/** @typedef {import("./api-types.gen.js").CreatedRecipe} CreatedRecipe */
/** @typedef {import("./api-types.gen.js").GenerateRequest} GenerateRequest */
/** @typedef {import("./api-types.gen.js").Health} Health */
/** @typedef {import("./api-types.gen.js").ImportRequest} ImportRequest */
/** @typedef {import("./api-types.gen.js").NutrientsRequest} NutrientsRequest */
/** @typedef {import("./api-types.gen.js").PlanMeal} PlanMeal */
/** @typedef {import("./api-types.gen.js").PlanSlot} PlanSlot */
/** @typedef {import("./api-types.gen.js").PlanSlotBody} PlanSlotBody */
/** @typedef {import("./api-types.gen.js").Recipe} Recipe */
/** @typedef {import("./api-types.gen.js").RecipeImageUpload} RecipeImageUpload */
/** @typedef {import("./api-types.gen.js").RecipeImageUploadBody} RecipeImageUploadBody */
/** @typedef {import("./api-types.gen.js").RecipeInput} RecipeInput */
/** @typedef {import("./api-types.gen.js").RecipeInputBody} RecipeInputBody */
/** @typedef {import("./api-types.gen.js").RecipePatchBody} RecipePatchBody */
/** @typedef {import("./api-types.gen.js").ShoppingItem} ShoppingItem */
/** @typedef {import("./api-types.gen.js").ShoppingList} ShoppingList */
/** @typedef {import("./api-types.gen.js").ShoppingListBuildBody} ShoppingListBuildBody */
/** @typedef {import("./api-types.gen.js").ShoppingListCheckBody} ShoppingListCheckBody */
/** @typedef {import("./api-types.gen.js").ShoppingListItemBody} ShoppingListItemBody */
/** @typedef {import("./api-types.gen.js").StoredRecipeNutrients} StoredRecipeNutrients */

/**
 * `UP` when the recipes table answers.
 *
 * `GET /api/recipes/actuator/health`
 * @param {RequestOptions} [options]
 * @returns {Promise<Health>}
 */
export function recipesHealth(options = {}) {
  return request("GET", `/api/recipes/actuator/health`, { ...options });
}

/**
 * The caller's meal plan from `from` to `to`, by day and meal (breakfast, lunch, dinner,
 * snack); days without a plan are absent. A recipe deleted since it was planned is still
 * listed, `deleted`.
 *
 * `GET /api/recipes/plan`
 * @param {{from?: string, to?: string, limit?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<PlanSlot>>}
 */
export function getMealPlan(query = {}, options = {}) {
  return request("GET", `/api/recipes/plan`, { ...options, query, auth: "required" });
}

/**
 * Clears a day's meal (nothing planned there is fine).
 *
 * `DELETE /api/recipes/plan/{date}/{meal}`
 * @param {string} date The day, yyyy-mm-dd
 * @param {PlanMeal} meal The meal
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function unplanMeal(date, meal, options = {}) {
  return request("DELETE", `/api/recipes/plan/${encodeURIComponent(date)}/${encodeURIComponent(meal)}`, { ...options, auth: "required" });
}

/**
 * Sets a day's meal: its recipes (1 to 10, each one of the caller's) and portions (the
 * recipe's own when absent). The whole meal is replaced.
 *
 * `PUT /api/recipes/plan/{date}/{meal}`
 * @param {string} date The day, yyyy-mm-dd
 * @param {PlanMeal} meal The meal
 * @param {PlanSlotBody} body
 * @param {RequestOptions} [options]
 * @returns {Promise<PlanSlot>}
 */
export function planMeal(date, meal, body, options = {}) {
  return request("PUT", `/api/recipes/plan/${encodeURIComponent(date)}/${encodeURIComponent(meal)}`, { ...options, body, auth: "required" });
}

/**
 * Lists the caller's own recipes, in id order, a page at a time; or, with `q` or `tag`,
 * searches them, newest first. Each recipe says which of the reader's allergies its
 * ingredients name (`allergens`).
 *
 * `GET /api/recipes/recipes`
 * @param {{limit?: number, after?: number, q?: string, tag?: string, cursor?: number, portions?: number}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Recipe>>}
 */
export function listRecipes(query = {}, options = {}) {
  return request("GET", `/api/recipes/recipes`, { ...options, query, auth: "required" });
}

/**
 * Creates a recipe of the caller's.
 *
 * `POST /api/recipes/recipes`
 * @param {RecipeInputBody} body
 * @param {RequestOptions} [options]
 * @returns {Promise<CreatedRecipe>}
 */
export function createRecipe(body, options = {}) {
  return request("POST", `/api/recipes/recipes`, { ...options, body, auth: "required" });
}

/**
 * Answers a free-text question about a recipe, in the user's language.
 *
 * `POST /api/recipes/recipes/ask`
 * @param {AskRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<AskResponse>}
 */
export function askAboutRecipe(body, options = {}) {
  return request("POST", `/api/recipes/recipes/ask`, { ...options, body, auth: "required" });
}

/**
 * Generates recipes for a prompt, in the request's language, else the user's preference,
 * else EN. The user's diets and allergies are given to the model and checked in code on
 * every recipe it answers: one that breaks them is never returned.
 *
 * `POST /api/recipes/recipes/generate`
 * @param {GenerateRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<RecipeInput>>}
 */
export function generateRecipes(body, options = {}) {
  return request("POST", `/api/recipes/recipes/generate`, { ...options, body, auth: "required" });
}

/**
 * Imports a recipe from a page of any recipe site: its schema.org Recipe (JSON-LD, including
 * `@graph`, or microdata), else the model's reading of its text (`source.importedBy:
 * "model"`). The page is fetched under the platform's guard (no private or reserved
 * addresses, 10 s, 5 MiB, 5 redirects) once its host's robots.txt allows it.
 *
 * `POST /api/recipes/recipes/import`
 * @param {ImportRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Recipe>}
 */
export function importRecipe(body, options = {}) {
  return request("POST", `/api/recipes/recipes/import`, { ...options, body, auth: "required" });
}

/**
 * Computes the nutrients of a whole recipe: from the service's food composition table for
 * the ingredients it knows (name and unit), from the model for the rest; the answer says
 * which ingredient came from where.
 *
 * `POST /api/recipes/recipes/nutrients`
 * @param {NutrientsRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<ComputedNutrients>}
 */
export function computeNutrients(body, options = {}) {
  return request("POST", `/api/recipes/recipes/nutrients`, { ...options, body, auth: "required" });
}

/**
 * Deletes one of the caller's recipes, with its photo and its search entry. Plan entries
 * naming it stay, marked `deleted` when the plan is read, and are left out of shopping
 * lists.
 *
 * `DELETE /api/recipes/recipes/{recipeId}`
 * @param {number} recipeId The recipe's id
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteRecipe(recipeId, options = {}) {
  return request("DELETE", `/api/recipes/recipes/${encodeURIComponent(recipeId)}`, { ...options, auth: "required" });
}

/**
 * Reads one of the caller's recipes (and records that it was opened).
 *
 * `GET /api/recipes/recipes/{recipeId}`
 * @param {number} recipeId The recipe's id
 * @param {{portions?: number}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Recipe>}
 */
export function getRecipe(recipeId, query = {}, options = {}) {
  return request("GET", `/api/recipes/recipes/${encodeURIComponent(recipeId)}`, { ...options, query, auth: "required" });
}

/**
 * Changes some fields of one of the caller's recipes.
 *
 * `PATCH /api/recipes/recipes/{recipeId}`
 * @param {number} recipeId The recipe's id
 * @param {RecipePatchBody} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Recipe>}
 */
export function updateRecipe(recipeId, body, options = {}) {
  return request("PATCH", `/api/recipes/recipes/${encodeURIComponent(recipeId)}`, { ...options, body, auth: "required" });
}

/**
 * Removes the recipe's photo (and deletes it).
 *
 * `DELETE /api/recipes/recipes/{recipeId}/image`
 * @param {number} recipeId The recipe's id
 * @param {RequestOptions} [options]
 * @returns {Promise<Recipe>}
 */
export function deleteRecipeImage(recipeId, options = {}) {
  return request("DELETE", `/api/recipes/recipes/${encodeURIComponent(recipeId)}/image`, { ...options, auth: "required" });
}

/**
 * Signs the upload of a photo for one of the caller's recipes: `PUT` the file to
 * `uploadUrl` with exactly `headers` within 5 minutes, then confirm. The photo is private:
 * recipes answer it as a URL signed for an hour at least.
 *
 * `POST /api/recipes/recipes/{recipeId}/image`
 * @param {number} recipeId The recipe's id
 * @param {RecipeImageUploadBody} body
 * @param {RequestOptions} [options]
 * @returns {Promise<RecipeImageUpload>}
 */
export function signRecipeImageUpload(recipeId, body, options = {}) {
  return request("POST", `/api/recipes/recipes/${encodeURIComponent(recipeId)}/image`, { ...options, body, auth: "required" });
}

/**
 * Makes the file sent for `uploadId` the recipe's photo, once its first bytes show a JPEG,
 * PNG or WebP image of at most 10 MiB (anything else is deleted and refused); the photo it
 * had is deleted.
 *
 * `POST /api/recipes/recipes/{recipeId}/image/{uploadId}`
 * @param {number} recipeId The recipe's id
 * @param {string} uploadId The upload's id, as signed
 * @param {RequestOptions} [options]
 * @returns {Promise<Recipe>}
 */
export function confirmRecipeImage(recipeId, uploadId, options = {}) {
  return request("POST", `/api/recipes/recipes/${encodeURIComponent(recipeId)}/image/${encodeURIComponent(uploadId)}`, { ...options, auth: "required" });
}

/**
 * Computes the recipe's nutrients (the food table, then the model for the rest, as
 * `computeNutrients`) and stores them on it: reads show them (and per portion) without
 * asking again; changing the ingredients clears them.
 *
 * `POST /api/recipes/recipes/{recipeId}/nutrients`
 * @param {number} recipeId The recipe's id
 * @param {RequestOptions} [options]
 * @returns {Promise<StoredRecipeNutrients>}
 */
export function storeRecipeNutrients(recipeId, options = {}) {
  return request("POST", `/api/recipes/recipes/${encodeURIComponent(recipeId)}/nutrients`, { ...options, auth: "required" });
}

/**
 * The caller's shopping list (empty until built or added to). One document of at most 500
 * items, answered whole.
 *
 * `GET /api/recipes/shopping-list`
 * @param {RequestOptions} [options]
 * @returns {Promise<ShoppingList>}
 */
export function getShoppingList(options = {}) {
  return request("GET", `/api/recipes/shopping-list`, { ...options, auth: "required" });
}

/**
 * Builds the caller's shopping list from the meals planned `from`..`to`, or from chosen
 * `recipes`: every ingredient scaled to the portions planned, merged by name and compatible
 * unit (g+kg, ml+l, tsp+tbsp+cup, counts; others kept apart). Items added by hand stay, and
 * an item checked before stays checked. Recipes deleted since they were planned are left
 * out.
 *
 * `POST /api/recipes/shopping-list`
 * @param {ShoppingListBuildBody} body
 * @param {RequestOptions} [options]
 * @returns {Promise<ShoppingList>}
 */
export function buildShoppingList(body, options = {}) {
  return request("POST", `/api/recipes/shopping-list`, { ...options, body, auth: "required" });
}

/**
 * Adds an item by hand (kept when the list is built again).
 *
 * `POST /api/recipes/shopping-list/items`
 * @param {ShoppingListItemBody} body
 * @param {RequestOptions} [options]
 * @returns {Promise<ShoppingItem>}
 */
export function addShoppingListItem(body, options = {}) {
  return request("POST", `/api/recipes/shopping-list/items`, { ...options, body, auth: "required" });
}

/**
 * Removes an item.
 *
 * `DELETE /api/recipes/shopping-list/items/{itemId}`
 * @param {string} itemId The item's id
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function removeShoppingListItem(itemId, options = {}) {
  return request("DELETE", `/api/recipes/shopping-list/items/${encodeURIComponent(itemId)}`, { ...options, auth: "required" });
}

/**
 * Checks an item off, or on again.
 *
 * `PATCH /api/recipes/shopping-list/items/{itemId}`
 * @param {string} itemId The item's id
 * @param {ShoppingListCheckBody} body
 * @param {RequestOptions} [options]
 * @returns {Promise<ShoppingItem>}
 */
export function checkShoppingListItem(itemId, body, options = {}) {
  return request("PATCH", `/api/recipes/shopping-list/items/${encodeURIComponent(itemId)}`, { ...options, body, auth: "required" });
}
