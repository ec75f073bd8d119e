// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").DigestDetail} DigestDetail */
/** @typedef {import("./api-types.gen.js").DigestGenerationJob} DigestGenerationJob */
/** @typedef {import("./api-types.gen.js").DigestPage} DigestPage */

/**
 * Starts a generation in the background: a PENDING job, run by the digest worker; its
 * outcome is read from the job.
 *
 * `POST /api/v1/admin/digests/generate/users/{userId}`
 * @param {string} userId The user's id
 * @param {{force?: boolean, date?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<DigestGenerationJob>}
 */
export function adminGenerateDigest(userId, query = {}, options = {}) {
  return request("POST", `/api/v1/admin/digests/generate/users/${encodeURIComponent(userId)}`, { ...options, query, auth: "required" });
}

/**
 * A generation job's status.
 *
 * `GET /api/v1/admin/digests/jobs/{jobId}`
 * @param {string} jobId The job's id
 * @param {RequestOptions} [options]
 * @returns {Promise<DigestGenerationJob>}
 */
export function digestJobStatus(jobId, options = {}) {
  return request("GET", `/api/v1/admin/digests/jobs/${encodeURIComponent(jobId)}`, { ...options, auth: "required" });
}

/**
 * The caller's digests (PERSONAL ones and the PUBLIC ones they were assigned), newest day
 * first.
 *
 * `GET /api/v1/digests/me`
 * @param {{page?: number, size?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<DigestPage>}
 */
export function myDigests(query = {}, options = {}) {
  return request("GET", `/api/v1/digests/me`, { ...options, query, auth: "required" });
}

/**
 * The newest PUBLIC digest. No authentication.
 *
 * `GET /api/v1/digests/public/latest`
 * @param {RequestOptions} [options]
 * @returns {Promise<DigestDetail>}
 */
export function latestPublicDigest(options = {}) {
  return request("GET", `/api/v1/digests/public/latest`, { ...options });
}

/**
 * One digest: PUBLIC ones to everyone, a PERSONAL one to its user only (404 otherwise).
 *
 * `GET /api/v1/digests/{id}`
 * @param {string} id The digest's id
 * @param {RequestOptions} [options]
 * @returns {Promise<DigestDetail>}
 */
export function getDigest(id, options = {}) {
  return request("GET", `/api/v1/digests/${encodeURIComponent(id)}`, { ...options, auth: "optional" });
}
