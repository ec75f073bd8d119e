// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").ProviderConfig} ProviderConfig */
/** @typedef {import("./api-types.gen.js").ProviderUpdate} ProviderUpdate */

/**
 * The provider configuration in effect for this deployment.
 *
 * `GET /api/v1/admin/ai/provider`
 * @param {RequestOptions} [options]
 * @returns {Promise<ProviderConfig>}
 */
export function getAiProviderConfig(options = {}) {
  return request("GET", `/api/v1/admin/ai/provider`, { ...options, auth: "required" });
}

/**
 * Chooses the provider and model for this deployment (every instance; until the next
 * deployment).
 *
 * `PUT /api/v1/admin/ai/provider`
 * @param {ProviderUpdate} body
 * @param {RequestOptions} [options]
 * @returns {Promise<ProviderConfig>}
 */
export function setAiProviderConfig(body, options = {}) {
  return request("PUT", `/api/v1/admin/ai/provider`, { ...options, body, auth: "required" });
}
