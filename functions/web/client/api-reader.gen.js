// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").ImportProgress} ImportProgress */
/** @typedef {import("./api-types.gen.js").ImportStarted} ImportStarted */
/** @typedef {import("./api-types.gen.js").OpmlUpload} OpmlUpload */

/**
 * An import's progress, with a page of its per-feed results in the file's order.
 *
 * `GET /api/content/reader/imports/{id}`
 * @param {string} id The import's id
 * @param {{cursor?: string, size?: number}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<ImportProgress>}
 */
export function getOpmlImport(id, query = {}, options = {}) {
  return request("GET", `/api/content/reader/imports/${encodeURIComponent(id)}`, { ...options, query, auth: "required" });
}

/**
 * The caller's subscriptions with their labels as an OPML 2.0 file: a folder per label
 * holding its feeds (a feed with several labels in each), the feeds without one after them.
 * `POST /reader/opml` imports it back to the same subscriptions and labels.
 *
 * `GET /api/content/reader/opml`
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function exportOpml(options = {}) {
  return request("GET", `/api/content/reader/opml`, { ...options, auth: "required" });
}

/**
 * Imports an OPML file: its feeds are subscribed in the background, each labelled with its
 * folders (nested outlines) and `category`. Answers at once with the import's id; `GET
 * /reader/imports/{id}` shows the progress.
 *
 * `POST /api/content/reader/opml`
 * @param {FormData} form Sent as multipart/form-data: the fields of `OpmlUpload`.
 * @param {RequestOptions} [options]
 * @returns {Promise<ImportStarted>}
 */
export function importOpml(form, options = {}) {
  return request("POST", `/api/content/reader/opml`, { ...options, form, auth: "required" });
}
