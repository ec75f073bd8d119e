// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").AppPasswordPage} AppPasswordPage */
/** @typedef {import("./api-types.gen.js").AppPasswordRequest} AppPasswordRequest */
/** @typedef {import("./api-types.gen.js").CreatedAppPassword} CreatedAppPassword */
/** @typedef {import("./api-types.gen.js").Health} Health */
/** @typedef {import("./api-types.gen.js").Jwks} Jwks */
/** @typedef {import("./api-types.gen.js").Login} Login */
/** @typedef {import("./api-types.gen.js").LoginToken} LoginToken */
/** @typedef {import("./api-types.gen.js").PasswordChangeRequest} PasswordChangeRequest */
/** @typedef {import("./api-types.gen.js").Profile} Profile */
/** @typedef {import("./api-types.gen.js").ProfileUpdate} ProfileUpdate */
/** @typedef {import("./api-types.gen.js").Registration} Registration */
/** @typedef {import("./api-types.gen.js").SavedArticleIds} SavedArticleIds */
/** @typedef {import("./api-types.gen.js").SavedArticleIdsMerge} SavedArticleIdsMerge */
/** @typedef {import("./api-types.gen.js").Settings} Settings */
/** @typedef {import("./api-types.gen.js").SettingsUpdate} SettingsUpdate */
/** @typedef {import("./api-types.gen.js").Source} Source */
/** @typedef {import("./api-types.gen.js").Subscriptions} Subscriptions */

/**
 * `ClientLogin` with `Email` and `Passwd` in the query string, as FreshRSS accepts it.
 *
 * `GET /api/greader/accounts/ClientLogin`
 * @param {{Email: string, Passwd: string}} query
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function greaderClientLoginByQuery(query, options = {}) {
  return request("GET", `/api/greader/accounts/ClientLogin`, { ...options, query });
}

/**
 * The public keys tokens are verified with.
 *
 * `GET /api/users/.well-known/jwks.json`
 * @param {RequestOptions} [options]
 * @returns {Promise<Jwks>}
 */
export function getJwks(options = {}) {
  return request("GET", `/api/users/.well-known/jwks.json`, { ...options });
}

/**
 * The users service and its table.
 *
 * `GET /api/users/actuator/health`
 * @param {RequestOptions} [options]
 * @returns {Promise<Health>}
 */
export function usersHealth(options = {}) {
  return request("GET", `/api/users/actuator/health`, { ...options });
}

/**
 * Logs in.
 *
 * `POST /api/users/auth/login`
 * @param {Login} body
 * @param {RequestOptions} [options]
 * @returns {Promise<LoginToken>}
 */
export function loginUser(body, options = {}) {
  return request("POST", `/api/users/auth/login`, { ...options, body });
}

/**
 * Renews a session: a fresh user token for a valid, unexpired one, so a reader in the middle
 * of an article is not logged out. Refused when the token's account is gone; the new token
 * belongs to the presented one's session, so it ends with it.
 *
 * `POST /api/users/auth/refresh`
 * @param {RequestOptions} [options]
 * @returns {Promise<LoginToken>}
 */
export function refreshToken(options = {}) {
  return request("POST", `/api/users/auth/refresh`, { ...options, auth: "required" });
}

/**
 * Registers an account.
 *
 * `POST /api/users/auth/register`
 * @param {Registration} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Profile>}
 */
export function registerUser(body, options = {}) {
  return request("POST", `/api/users/auth/register`, { ...options, body });
}

/**
 * Deletes the account: first every subscription (the last-subscriber rule applies), then
 * the community's side (followed topics' counts, and the cleanup of the user's posts,
 * comments, reactions and bookmarks), then the recipe service's (the user's recipes), then
 * the user's records. Safe to repeat after a failure part-way.
 *
 * `DELETE /api/users/users/me`
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteMyAccount(options = {}) {
  return request("DELETE", `/api/users/users/me`, { ...options, auth: "required" });
}

/**
 * The logged-in user's profile.
 *
 * `GET /api/users/users/me`
 * @param {RequestOptions} [options]
 * @returns {Promise<Profile>}
 */
export function getMyProfile(options = {}) {
  return request("GET", `/api/users/users/me`, { ...options, auth: "required" });
}

/**
 * Changes the profile's email or name.
 *
 * `PUT /api/users/users/me`
 * @param {ProfileUpdate} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Profile>}
 */
export function updateMyProfile(body, options = {}) {
  return request("PUT", `/api/users/users/me`, { ...options, body, auth: "required" });
}

/**
 * The person's app passwords, newest first (never their secrets).
 *
 * `GET /api/users/users/me/app-passwords`
 * @param {{cursor?: string, size?: number}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<AppPasswordPage>}
 */
export function getMyAppPasswords(query = {}, options = {}) {
  return request("GET", `/api/users/users/me/app-passwords`, { ...options, query, auth: "required" });
}

/**
 * Creates an app password for an app or device; the answer is the only time its password is
 * shown. It signs in the Google Reader API's `ClientLogin` (never the account's password).
 *
 * `POST /api/users/users/me/app-passwords`
 * @param {AppPasswordRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<CreatedAppPassword>}
 */
export function createMyAppPassword(body, options = {}) {
  return request("POST", `/api/users/users/me/app-passwords`, { ...options, body, auth: "required" });
}

/**
 * Revokes an app password: apps signed in with it are refused from now on.
 *
 * `DELETE /api/users/users/me/app-passwords/{id}`
 * @param {string} id The app password's id
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function revokeMyAppPassword(id, options = {}) {
  return request("DELETE", `/api/users/users/me/app-passwords/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * Changes the password. The current password is required: a token alone cannot take the
 * account over. Every other session ends (their tokens answer 401 on every system); the
 * answer is a token for this one.
 *
 * `PUT /api/users/users/me/password`
 * @param {PasswordChangeRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<LoginToken>}
 */
export function changeMyPassword(body, options = {}) {
  return request("PUT", `/api/users/users/me/password`, { ...options, body, auth: "required" });
}

/**
 * The user's saved articles (ids; `POST /api/content/articles/saved` gets the articles).
 *
 * `GET /api/users/users/me/saved`
 * @param {RequestOptions} [options]
 * @returns {Promise<SavedArticleIds>}
 */
export function getMySavedArticles(options = {}) {
  return request("GET", `/api/users/users/me/saved`, { ...options, auth: "required" });
}

/**
 * Adds articles to the saved ones (those already saved are skipped, the others kept after
 * them): how a browser's own list joins the account at login.
 *
 * `POST /api/users/users/me/saved`
 * @param {SavedArticleIdsMerge} body
 * @param {RequestOptions} [options]
 * @returns {Promise<SavedArticleIds>}
 */
export function mergeMySavedArticles(body, options = {}) {
  return request("POST", `/api/users/users/me/saved`, { ...options, body, auth: "required" });
}

/**
 * Forgets a saved article (idempotent).
 *
 * `DELETE /api/users/users/me/saved/{articleId}`
 * @param {string} articleId The article's id
 * @param {RequestOptions} [options]
 * @returns {Promise<SavedArticleIds>}
 */
export function unsaveArticle(articleId, options = {}) {
  return request("DELETE", `/api/users/users/me/saved/${encodeURIComponent(articleId)}`, { ...options, auth: "required" });
}

/**
 * Saves an article for the user, on every device (idempotent).
 *
 * `PUT /api/users/users/me/saved/{articleId}`
 * @param {string} articleId The article's id
 * @param {RequestOptions} [options]
 * @returns {Promise<SavedArticleIds>}
 */
export function saveArticle(articleId, options = {}) {
  return request("PUT", `/api/users/users/me/saved/${encodeURIComponent(articleId)}`, { ...options, auth: "required" });
}

/**
 * Signs out everywhere: every token of the account ends, this one included.
 *
 * `DELETE /api/users/users/me/sessions`
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function endMySessions(options = {}) {
  return request("DELETE", `/api/users/users/me/sessions`, { ...options, auth: "required" });
}

/**
 * The logged-in user's settings.
 *
 * `GET /api/users/users/me/settings`
 * @param {RequestOptions} [options]
 * @returns {Promise<Settings>}
 */
export function getMySettings(options = {}) {
  return request("GET", `/api/users/users/me/settings`, { ...options, auth: "required" });
}

/**
 * Changes settings: a merge, absent fields keep their value.
 *
 * `PUT /api/users/users/me/settings`
 * @param {SettingsUpdate} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Settings>}
 */
export function updateMySettings(body, options = {}) {
  return request("PUT", `/api/users/users/me/settings`, { ...options, body, auth: "required" });
}

/**
 * The sources the user subscribes to, enabled or not.
 *
 * `GET /api/users/users/me/subscriptions`
 * @param {RequestOptions} [options]
 * @returns {Promise<Subscriptions>}
 */
export function getMySubscriptions(options = {}) {
  return request("GET", `/api/users/users/me/subscriptions`, { ...options, auth: "required" });
}

/**
 * Unsubscribes the user from a source; the last subscriber leaving deletes the source and
 * its articles.
 *
 * `DELETE /api/users/users/me/subscriptions/{sourceId}`
 * @param {string} sourceId The source's id
 * @param {RequestOptions} [options]
 * @returns {Promise<Source|null>}
 */
export function unsubscribeFromSource(sourceId, options = {}) {
  return request("DELETE", `/api/users/users/me/subscriptions/${encodeURIComponent(sourceId)}`, { ...options, auth: "required" });
}

/**
 * Subscribes the user to a source (through the content service, with a `source.write`
 * service token) and enables it in the user's settings.
 *
 * `POST /api/users/users/me/subscriptions/{sourceId}`
 * @param {string} sourceId The source's id
 * @param {RequestOptions} [options]
 * @returns {Promise<Source>}
 */
export function subscribeToSource(sourceId, options = {}) {
  return request("POST", `/api/users/users/me/subscriptions/${encodeURIComponent(sourceId)}`, { ...options, auth: "required" });
}
