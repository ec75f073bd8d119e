// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").AccountPage} AccountPage */
/** @typedef {import("./api-types.gen.js").Profile} Profile */
/** @typedef {import("./api-types.gen.js").RoleChangeRequest} RoleChangeRequest */

/**
 * Every account, a page at a time in id order, with its roles.
 *
 * `GET /api/users/admin/users`
 * @param {{cursor?: string, limit?: number}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<AccountPage>}
 */
export function listAccounts(query = {}, options = {}) {
  return request("GET", `/api/users/admin/users`, { ...options, query, auth: "required" });
}

/**
 * Sets an account's roles. `USER` always stays; an administrator's own roles are changed by
 * another administrator. The account's sessions end, so it signs in again to carry the new
 * roles.
 *
 * `PUT /api/users/admin/users/{id}/roles`
 * @param {string} id The account's id
 * @param {RoleChangeRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Profile>}
 */
export function setAccountRoles(id, body, options = {}) {
  return request("PUT", `/api/users/admin/users/${encodeURIComponent(id)}/roles`, { ...options, body, auth: "required" });
}
