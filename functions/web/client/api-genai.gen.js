// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").ExplainResponse} ExplainResponse */
/** @typedef {import("./api-types.gen.js").GenAiRequest} GenAiRequest */
/** @typedef {import("./api-types.gen.js").Health} Health */
/** @typedef {import("./api-types.gen.js").QaRequest} QaRequest */
/** @typedef {import("./api-types.gen.js").QaResponse} QaResponse */
/** @typedef {import("./api-types.gen.js").SentimentResponse} SentimentResponse */
/** @typedef {import("./api-types.gen.js").SummarizeResponse} SummarizeResponse */

/**
 * Explains the article for a `knowledgeLevel` (child, beginner, intermediate, expert).
 *
 * `POST /api/ai/explain`
 * @param {GenAiRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<ExplainResponse>}
 */
export function aiExplain(body, options = {}) {
  return request("POST", `/api/ai/explain`, { ...options, body, auth: "optional" });
}

/**
 * The GenAI service is up (it does not call the model).
 *
 * `GET /api/ai/health`
 * @param {RequestOptions} [options]
 * @returns {Promise<Health>}
 */
export function aiHealth(options = {}) {
  return request("GET", `/api/ai/health`, { ...options });
}

/**
 * Answers a `question` from the article's text only; says so when the article does not
 * contain the answer.
 *
 * `POST /api/ai/qa`
 * @param {QaRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<QaResponse>}
 */
export function aiQa(body, options = {}) {
  return request("POST", `/api/ai/qa`, { ...options, body, auth: "optional" });
}

/**
 * Rates the article's tone (sentiment and score) and political bias.
 *
 * `POST /api/ai/sentiment`
 * @param {GenAiRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<SentimentResponse>}
 */
export function aiSentiment(body, options = {}) {
  return request("POST", `/api/ai/sentiment`, { ...options, body, auth: "optional" });
}

/**
 * Explains the article as the model writes it (options as `/explain`).
 *
 * `POST /api/ai/stream/explain`
 * @param {GenAiRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function aiStreamExplain(body, options = {}) {
  return request("POST", `/api/ai/stream/explain`, { ...options, body, auth: "optional" });
}

/**
 * Answers the `question` as the model writes it (options as `/qa`).
 *
 * `POST /api/ai/stream/qa`
 * @param {QaRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function aiStreamQa(body, options = {}) {
  return request("POST", `/api/ai/stream/qa`, { ...options, body, auth: "optional" });
}

/**
 * Summarizes the article as the model writes it (options as `/summarize`).
 *
 * `POST /api/ai/stream/summarize`
 * @param {GenAiRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function aiStreamSummarize(body, options = {}) {
  return request("POST", `/api/ai/stream/summarize`, { ...options, body, auth: "optional" });
}

/**
 * Summarizes the article at the asked `length` (short, medium, long) and `style` (plain,
 * bullets).
 *
 * `POST /api/ai/summarize`
 * @param {GenAiRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<SummarizeResponse>}
 */
export function aiSummarize(body, options = {}) {
  return request("POST", `/api/ai/summarize`, { ...options, body, auth: "optional" });
}
