// OPML import and export, as the fixed design of issue 41 names their routes, written here
// until the contract's generated layer holds them.

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */

/**
 * @typedef {Object} OpmlImport
 * @property {string} id
 * @property {string} status
 * @property {number} total
 * @property {number} [done]
 * @property {{url: string, title?: (string|null), outcome?: string, result?: string, status?: string, sourceId?: (string|null), message?: (string|null)}[]} [feeds]
 */

/**
 * Starts importing an OPML file.
 * @param {File} file
 * @param {RequestOptions} [options]
 * @returns {Promise<OpmlImport>}
 */
export function importOpml(file, options = {}) {
  const form = new FormData();
  form.append("file", file, file.name);
  return request("POST", "/api/content/reader/opml", { ...options, form, auth: "required" });
}

/**
 * @param {string} id
 * @param {RequestOptions} [options]
 * @returns {Promise<OpmlImport>}
 */
export function opmlImport(id, options = {}) {
  return request("GET", `/api/content/reader/imports/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * The person's subscriptions as OPML 2.0.
 * @param {RequestOptions} [options]
 * @returns {Promise<string>}
 */
export function exportOpml(options = {}) {
  return request("GET", "/api/content/reader/opml", { ...options, auth: "required", text: true });
}
