// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */

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
