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
/** @typedef {import("./api-types.gen.js").NutrientsRequest} NutrientsRequest */
/** @typedef {import("./api-types.gen.js").Recipe} Recipe */
/** @typedef {import("./api-types.gen.js").RecipeInput} RecipeInput */
/** @typedef {import("./api-types.gen.js").RecipeInputBody} RecipeInputBody */
/** @typedef {import("./api-types.gen.js").RecipePatchBody} RecipePatchBody */

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
 * Lists the caller's own recipes, in id order, a page at a time.
 *
 * `GET /api/recipes/recipes`
 * @param {{limit?: number, after?: number}} [query]
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
 * Reads one of the caller's recipes (and records that it was opened).
 *
 * `GET /api/recipes/recipes/{recipeId}`
 * @param {number} recipeId The recipe's id
 * @param {RequestOptions} [options]
 * @returns {Promise<Recipe>}
 */
export function getRecipe(recipeId, options = {}) {
  return request("GET", `/api/recipes/recipes/${encodeURIComponent(recipeId)}`, { ...options, auth: "required" });
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
