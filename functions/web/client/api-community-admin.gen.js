// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").FailedSummaryPage} FailedSummaryPage */
/** @typedef {import("./api-types.gen.js").ModerationLogPage} ModerationLogPage */
/** @typedef {import("./api-types.gen.js").PostSummary} PostSummary */
/** @typedef {import("./api-types.gen.js").ReportQueuePage} ReportQueuePage */
/** @typedef {import("./api-types.gen.js").ReportResolution} ReportResolution */
/** @typedef {import("./api-types.gen.js").ReportTarget} ReportTarget */
/** @typedef {import("./api-types.gen.js").ResolveRequest} ResolveRequest */

/**
 * The admins' removals of posts and comments, newest first (admin).
 *
 * `GET /api/v1/admin/moderation`
 * @param {{page?: number, size?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<ModerationLogPage>}
 */
export function listModerationLog(query = {}, options = {}) {
  return request("GET", `/api/v1/admin/moderation`, { ...options, query, auth: "required" });
}

/**
 * Generates a post's summary again (admin): the state becomes PENDING and the summary event
 * is sent again (a newer request: one still on its way is then ignored); the outcome is read
 * from `GET /posts/{id}/summary`.
 *
 * `POST /api/v1/admin/posts/{id}/summary/retry`
 * @param {string} id The post's id
 * @param {RequestOptions} [options]
 * @returns {Promise<PostSummary>}
 */
export function retryPostSummary(id, options = {}) {
  return request("POST", `/api/v1/admin/posts/${encodeURIComponent(id)}/summary/retry`, { ...options, auth: "required" });
}

/**
 * The open reports grouped by post or comment, with their counts by reason, the group
 * opened most recently first (admin).
 *
 * `GET /api/v1/admin/reports`
 * @param {{limit?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<ReportQueuePage>}
 */
export function listReports(query = {}, options = {}) {
  return request("GET", `/api/v1/admin/reports`, { ...options, query, auth: "required" });
}

/**
 * Resolves the open reports on a post or comment by removing it or dismissing them; every
 * reporter is notified of the outcome, and a removed content's author of the removal
 * (admin).
 *
 * `POST /api/v1/admin/reports/{targetType}/{targetId}/resolve`
 * @param {ReportTarget} targetType post or comment
 * @param {string} targetId The post's or the comment's id
 * @param {ResolveRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<ReportResolution>}
 */
export function resolveReports(targetType, targetId, body, options = {}) {
  return request("POST", `/api/v1/admin/reports/${encodeURIComponent(targetType)}/${encodeURIComponent(targetId)}/resolve`, { ...options, body, auth: "required" });
}

/**
 * Posts whose summary failed (every retry of the queue), most recently failed first
 * (admin).
 *
 * `GET /api/v1/admin/summaries/failed`
 * @param {{page?: number, size?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<FailedSummaryPage>}
 */
export function failedSummaries(query = {}, options = {}) {
  return request("GET", `/api/v1/admin/summaries/failed`, { ...options, query, auth: "required" });
}
