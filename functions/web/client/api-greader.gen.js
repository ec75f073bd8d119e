// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */

/**
 * Whether the API answers (no authentication): `OK`.
 *
 * `GET /api/greader/reader/ping`
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function greaderPing(options = {}) {
  return request("GET", `/api/greader/reader/ping`, { ...options });
}
