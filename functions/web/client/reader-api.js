// The reader's calls (reading state, folders, OPML) as the fixed
// design of issue 41 names their routes, written here until the contract's generated layer
// holds them; the shapes are the contract's.

import { request } from "./http.js";

/**
 * A subscription as the reader sees it.
 * @typedef {Object} Subscription
 * @property {import("./api-types.gen.js").Source} source
 * @property {string[]} labels
 * @property {number} unread
 * @property {(string|null)} [newestAt]
 */

/**
 * An article of the reading list with the person's state.
 * @typedef {import("./api-types.gen.js").Article & {read: boolean, starred: boolean}} ReaderArticle
 */

/**
 * @typedef {Object} ArticleQuery
 * @property {string} [sourceId]
 * @property {string} [label]
 * @property {"all"|"unread"|"read"|"starred"} [state]
 * @property {"newest"|"oldest"} [order]
 * @property {string} [after] Only articles published after this time.
 * @property {string} [before] Only articles published before this time.
 * @property {string} [cursor]
 * @property {number} [size]
 */

/** @typedef {import("./http.js").RequestOptions} RequestOptions */

/**
 * The person's subscriptions with their folders and unread counts.
 * @param {RequestOptions} [options]
 * @returns {Promise<{items: Subscription[]}>}
 */
export function subscriptions(options = {}) {
  return request("GET", "/api/content/reader/subscriptions", { ...options, auth: "required" });
}

/**
 * @param {string} sourceId
 * @param {string[]} labels
 * @param {RequestOptions} [options]
 */
export function setLabels(sourceId, labels, options = {}) {
  return request("PUT", `/api/content/reader/subscriptions/${encodeURIComponent(sourceId)}/labels`, { ...options, body: { labels }, auth: "required" });
}

/**
 * The person's folders with their unread counts.
 * @param {RequestOptions} [options]
 * @returns {Promise<{items: {name: string, unread: number}[]}>}
 */
export function labels(options = {}) {
  return request("GET", "/api/content/reader/labels", { ...options, auth: "required" });
}

/**
 * @param {string} name
 * @param {string} to
 * @param {RequestOptions} [options]
 */
export function renameLabel(name, to, options = {}) {
  return request("PUT", `/api/content/reader/labels/${encodeURIComponent(name)}`, { ...options, body: { name: to }, auth: "required" });
}

/**
 * @param {string} name
 * @param {RequestOptions} [options]
 */
export function deleteLabel(name, options = {}) {
  return request("DELETE", `/api/content/reader/labels/${encodeURIComponent(name)}`, { ...options, auth: "required" });
}

/**
 * A page of the reading list.
 * @param {ArticleQuery} query
 * @param {RequestOptions} [options]
 * @returns {Promise<{items: ReaderArticle[], nextCursor?: (string|null)}>}
 */
export function articles(query, options = {}) {
  return request("GET", "/api/content/reader/articles", { ...options, query, auth: "required" });
}

/**
 * Marks articles read or unread, starred or not.
 * @param {{ids: string[], read?: boolean, starred?: boolean}} body
 * @param {RequestOptions} [options]
 */
export function mark(body, options = {}) {
  return request("POST", "/api/content/reader/marks", { ...options, body, auth: "required" });
}

/**
 * Marks a source's, a folder's or every article read, up to `before`.
 * @param {{sourceId?: string, label?: string, before?: string}} body
 * @param {RequestOptions} [options]
 */
export function markAllRead(body, options = {}) {
  return request("POST", "/api/content/reader/mark-all-read", { ...options, body, auth: "required" });
}

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
