// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").Article} Article */
/** @typedef {import("./api-types.gen.js").DiscoveredFeeds} DiscoveredFeeds */
/** @typedef {import("./api-types.gen.js").DiscoveryRequest} DiscoveryRequest */
/** @typedef {import("./api-types.gen.js").Health} Health */
/** @typedef {import("./api-types.gen.js").Page_Article} Page_Article */
/** @typedef {import("./api-types.gen.js").SavedArticles} SavedArticles */
/** @typedef {import("./api-types.gen.js").Source} Source */
/** @typedef {import("./api-types.gen.js").SourceSubmission} SourceSubmission */
/** @typedef {import("./api-types.gen.js").TopicSummary} TopicSummary */

/**
 * The content service and its table.
 *
 * `GET /api/content/actuator/health`
 * @param {RequestOptions} [options]
 * @returns {Promise<Health>}
 */
export function contentHealth(options = {}) {
  return request("GET", `/api/content/actuator/health`, { ...options });
}

/**
 * Articles, newest first, a page at a time; by source or by topic, or a personal feed of
 * several sources. Each page but the last carries `nextCursor`, which asks for the next.
 *
 * `GET /api/content/articles`
 * @param {{sourceId?: Array<string>, topicId?: string, page?: number, cursor?: string, size?: number}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Page_Article>}
 */
export function listArticles(query = {}, options = {}) {
  return request("GET", `/api/content/articles`, { ...options, query });
}

/**
 * Gets a batch of articles by id (a user's saved articles).
 *
 * `POST /api/content/articles/saved`
 * @param {SavedArticles} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Article>>}
 */
export function getSavedArticles(body, options = {}) {
  return request("POST", `/api/content/articles/saved`, { ...options, body, auth: "required" });
}

/**
 * One article with its body paragraphs.
 *
 * `GET /api/content/articles/{id}`
 * @param {string} id The article's id
 * @param {RequestOptions} [options]
 * @returns {Promise<Article>}
 */
export function getArticle(id, options = {}) {
  return request("GET", `/api/content/articles/${encodeURIComponent(id)}`, { ...options });
}

/**
 * The sources, oldest first, a page at a time.
 *
 * `GET /api/content/sources`
 * @param {{cursor?: string, limit?: number}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Source>>}
 */
export function listSources(query = {}, options = {}) {
  return request("GET", `/api/content/sources`, { ...options, query });
}

/**
 * Submits a feed URL, or a site's address: a page is followed to the first feed it links to
 * (`<link rel="alternate">`), else to the first usual path serving one. Fetches and parses
 * the feed before answering, so the new source's articles show at once; a feed naming a
 * WebSub hub is then subscribed through it.
 *
 * `POST /api/content/sources`
 * @param {SourceSubmission} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Source>}
 */
export function submitSource(body, options = {}) {
  return request("POST", `/api/content/sources`, { ...options, body, auth: "required" });
}

/**
 * Finds the feeds at a site's address, for the person to choose one to submit. Nothing is
 * stored; counted like a submission (each fetches a site the caller chose).
 *
 * `POST /api/content/sources/discover`
 * @param {DiscoveryRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<DiscoveredFeeds>}
 */
export function discoverSources(body, options = {}) {
  return request("POST", `/api/content/sources/discover`, { ...options, body, auth: "required" });
}

/**
 * One source, with its subscriber count.
 *
 * `GET /api/content/sources/{id}`
 * @param {string} id The source's id
 * @param {RequestOptions} [options]
 * @returns {Promise<Source>}
 */
export function getSource(id, options = {}) {
  return request("GET", `/api/content/sources/${encodeURIComponent(id)}`, { ...options });
}

/**
 * The topics that have articles, by name, with their numbers of articles, a page at a time.
 *
 * `GET /api/content/topics`
 * @param {{cursor?: string, limit?: number}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<TopicSummary>>}
 */
export function listTopics(query = {}, options = {}) {
  return request("GET", `/api/content/topics`, { ...options, query });
}

/**
 * A hub verifies a subscription (or unsubscription) this service asked for, or says it
 * denied one. Confirmed: the challenge echoed as text; not asked for: 404.
 *
 * `GET /api/content/websub/{sourceId}`
 * @param {string} sourceId The source the callback is for
 * @param {{"hub.mode": string, "hub.topic": string, "hub.challenge"?: string, "hub.lease_seconds"?: number, "hub.reason"?: string}} query
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function verifyWebSub(sourceId, query, options = {}) {
  return request("GET", `/api/content/websub/${encodeURIComponent(sourceId)}`, { ...options, query });
}
