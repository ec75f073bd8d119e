// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").LoginToken} LoginToken */
/** @typedef {import("./api-types.gen.js").Message} Message */
/** @typedef {import("./api-types.gen.js").RecipeCredentials} RecipeCredentials */
/** @typedef {import("./api-types.gen.js").RecipeUser} RecipeUser */
/** @typedef {import("./api-types.gen.js").RecipeUserUpdate} RecipeUserUpdate */
/** @typedef {import("./api-types.gen.js").UserUpdated} UserUpdated */

/**
 * Logs in with recipe credentials: the platform's user token.
 *
 * `POST /api/recipes/auth/login`
 * @param {RecipeCredentials} body
 * @param {RequestOptions} [options]
 * @returns {Promise<LoginToken>}
 */
export function loginRecipeUser(body, options = {}) {
  return request("POST", `/api/recipes/auth/login`, { ...options, body });
}

/**
 * Registers a recipe account (an account of the whole platform, without an email).
 *
 * `POST /api/recipes/auth/register`
 * @param {RecipeCredentials} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Message>}
 */
export function registerRecipeUser(body, options = {}) {
  return request("POST", `/api/recipes/auth/register`, { ...options, body });
}

/**
 * The signed-in user: username and recipe preferences.
 *
 * `GET /api/recipes/users/me`
 * @param {RequestOptions} [options]
 * @returns {Promise<RecipeUser>}
 */
export function getRecipeUser(options = {}) {
  return request("GET", `/api/recipes/users/me`, { ...options, auth: "required" });
}

/**
 * Changes the username, the password and/or preferences (each optional; absent preference
 * fields keep their value). A new password needs `currentPassword` and ends every other
 * session of the account.
 *
 * `PATCH /api/recipes/users/me`
 * @param {RecipeUserUpdate} body
 * @param {RequestOptions} [options]
 * @returns {Promise<UserUpdated>}
 */
export function updateRecipeUser(body, options = {}) {
  return request("PATCH", `/api/recipes/users/me`, { ...options, body, auth: "required" });
}
