// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").AnalysesQueryRequest} AnalysesQueryRequest */
/** @typedef {import("./api-types.gen.js").Analysis} Analysis */
/** @typedef {import("./api-types.gen.js").AnalyzeRequest} AnalyzeRequest */
/** @typedef {import("./api-types.gen.js").RagDocument} RagDocument */
/** @typedef {import("./api-types.gen.js").RagDocumentRequest} RagDocumentRequest */
/** @typedef {import("./api-types.gen.js").RagSearchHit} RagSearchHit */
/** @typedef {import("./api-types.gen.js").RagSearchRequest} RagSearchRequest */

/**
 * Deletes every stored analysis (ADMIN): gone from every answer at once, removed from the
 * table in the background.
 *
 * `DELETE /api/v1/analyses`
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteAnalyses(options = {}) {
  return request("DELETE", `/api/v1/analyses`, { ...options, auth: "required" });
}

/**
 * Stored analyses, best first for a `text`, else newest first.
 *
 * `POST /api/v1/analyses/query`
 * @param {AnalysesQueryRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Analysis>>}
 */
export function queryAnalyses(body, options = {}) {
  return request("POST", `/api/v1/analyses/query`, { ...options, body, auth: "required" });
}

/**
 * Deletes the caller's analysis of a log (an ADMIN's call: every operator's analyses of it);
 * other operators' analyses stay.
 *
 * `DELETE /api/v1/analyses/{log_id}`
 * @param {string} logId The log id the analysis was made for, or the id of an analysis made without a log
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteAnalysis(logId, options = {}) {
  return request("DELETE", `/api/v1/analyses/${encodeURIComponent(logId)}`, { ...options, auth: "required" });
}

/**
 * Analyses a log's text with the chosen provider, optionally with retrieval, and stores the
 * analysis (under `log_id` and the caller, or its own id). The log and any retrieved passages
 * reach the model inside delimited blocks that it is told hold data, never instructions.
 *
 * `POST /api/v1/analyze`
 * @param {AnalyzeRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Analysis>}
 */
export function analyzeLog(body, options = {}) {
  return request("POST", `/api/v1/analyze`, { ...options, body, auth: "required" });
}

/**
 * The runbook documents, newest first, a page at a time.
 *
 * `GET /api/v1/rag/documents`
 * @param {{limit?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<RagDocument>>}
 */
export function listRagDocuments(query = {}, options = {}) {
  return request("GET", `/api/v1/rag/documents`, { ...options, query, auth: "required" });
}

/**
 * Adds a runbook to the retrieval corpus (searchable when this answers).
 *
 * `POST /api/v1/rag/documents`
 * @param {RagDocumentRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<RagDocument>}
 */
export function createRagDocument(body, options = {}) {
  return request("POST", `/api/v1/rag/documents`, { ...options, body, auth: "required" });
}

/**
 * Deletes a runbook, its chunks and its index entries (its author or an admin). Repeating
 * it after a failure finishes it.
 *
 * `DELETE /api/v1/rag/documents/{id}`
 * @param {string} id A document id
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteRagDocument(id, options = {}) {
  return request("DELETE", `/api/v1/rag/documents/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * The runbook chunks that best match a query: BM25, fused with embeddings' cosine
 * similarity when an embeddings model is configured.
 *
 * `POST /api/v1/rag/search`
 * @param {RagSearchRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<RagSearchHit>>}
 */
export function searchRagDocuments(body, options = {}) {
  return request("POST", `/api/v1/rag/search`, { ...options, body, auth: "required" });
}
