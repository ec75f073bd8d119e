// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").ImportProgress} ImportProgress */
/** @typedef {import("./api-types.gen.js").ImportStarted} ImportStarted */
/** @typedef {import("./api-types.gen.js").LabelList} LabelList */
/** @typedef {import("./api-types.gen.js").LabelPage} LabelPage */
/** @typedef {import("./api-types.gen.js").LabelRename} LabelRename */
/** @typedef {import("./api-types.gen.js").MarkAllRead} MarkAllRead */
/** @typedef {import("./api-types.gen.js").MarkRequest} MarkRequest */
/** @typedef {import("./api-types.gen.js").Marked} Marked */
/** @typedef {import("./api-types.gen.js").OpmlUpload} OpmlUpload */
/** @typedef {import("./api-types.gen.js").StreamPage} StreamPage */
/** @typedef {import("./api-types.gen.js").SubscriptionPage} SubscriptionPage */
/** @typedef {import("./api-types.gen.js").UnreadCounts} UnreadCounts */

/**
 * The person's articles, with read and starred state: everything, one subscription, a
 * label's or the starred ones; by state; newest or oldest first; a page at a time.
 *
 * `GET /api/content/reader/articles`
 * @param {{sourceId?: string, label?: string, state?: string, order?: string, after?: string, before?: string, size?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<StreamPage>}
 */
export function readerArticles(query = {}, options = {}) {
  return request("GET", `/api/content/reader/articles`, { ...options, query, auth: "required" });
}

/**
 * The person's unread counts: per source, per label, in all.
 *
 * `GET /api/content/reader/counts`
 * @param {RequestOptions} [options]
 * @returns {Promise<UnreadCounts>}
 */
export function readerCounts(options = {}) {
  return request("GET", `/api/content/reader/counts`, { ...options, auth: "required" });
}

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
 * The person's labels with their unread counts, by name.
 *
 * `GET /api/content/reader/labels`
 * @param {RequestOptions} [options]
 * @returns {Promise<LabelPage>}
 */
export function readerLabels(options = {}) {
  return request("GET", `/api/content/reader/labels`, { ...options, auth: "required" });
}

/**
 * Takes a label off every subscription (the subscriptions stay).
 *
 * `DELETE /api/content/reader/labels/{name}`
 * @param {string} name The label's name
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteLabel(name, options = {}) {
  return request("DELETE", `/api/content/reader/labels/${encodeURIComponent(name)}`, { ...options, auth: "required" });
}

/**
 * Renames a label on every subscription carrying it (its "mark all as read" goes along);
 * renaming onto an existing label merges the two.
 *
 * `PUT /api/content/reader/labels/{name}`
 * @param {string} name The label's name
 * @param {LabelRename} body
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function renameLabel(name, body, options = {}) {
  return request("PUT", `/api/content/reader/labels/${encodeURIComponent(name)}`, { ...options, body, auth: "required" });
}

/**
 * Marks every article of a subscription, a label or everything (neither given) published
 * before a time as read: one write, whatever the number of articles.
 *
 * `POST /api/content/reader/mark-all-read`
 * @param {MarkAllRead} body
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function markAllRead(body, options = {}) {
  return request("POST", `/api/content/reader/mark-all-read`, { ...options, body, auth: "required" });
}

/**
 * Marks articles read or unread, starred or not. Each mark is idempotent: a repeat changes
 * nothing, and the counts stay exact.
 *
 * `POST /api/content/reader/marks`
 * @param {MarkRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Marked>}
 */
export function markArticles(body, options = {}) {
  return request("POST", `/api/content/reader/marks`, { ...options, body, auth: "required" });
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

/**
 * The person's subscriptions, in source id order, each with its source, labels, unread
 * count and newest article.
 *
 * `GET /api/content/reader/subscriptions`
 * @param {{cursor?: string, limit?: number}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<SubscriptionPage>}
 */
export function readerSubscriptions(query = {}, options = {}) {
  return request("GET", `/api/content/reader/subscriptions`, { ...options, query, auth: "required" });
}

/**
 * Replaces the labels (folders) of one of the person's subscriptions.
 *
 * `PUT /api/content/reader/subscriptions/{sourceId}/labels`
 * @param {string} sourceId The source's id
 * @param {LabelList} body
 * @param {RequestOptions} [options]
 * @returns {Promise<LabelList>}
 */
export function setSubscriptionLabels(sourceId, body, options = {}) {
  return request("PUT", `/api/content/reader/subscriptions/${encodeURIComponent(sourceId)}/labels`, { ...options, body, auth: "required" });
}
