// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.
// After changing a handler or the contract, regenerate both with
//   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract

import { request } from "./http.js";

/** @typedef {import("./http.js").RequestOptions} RequestOptions */
/** @typedef {import("./api-types.gen.js").Alert} Alert */
/** @typedef {import("./api-types.gen.js").AlertPatchRequest} AlertPatchRequest */
/** @typedef {import("./api-types.gen.js").AlertRule} AlertRule */
/** @typedef {import("./api-types.gen.js").AlertStatus} AlertStatus */
/** @typedef {import("./api-types.gen.js").Channel} Channel */
/** @typedef {import("./api-types.gen.js").ChannelRequest} ChannelRequest */
/** @typedef {import("./api-types.gen.js").Delivery} Delivery */
/** @typedef {import("./api-types.gen.js").Incident} Incident */
/** @typedef {import("./api-types.gen.js").IncidentCounts} IncidentCounts */
/** @typedef {import("./api-types.gen.js").IncidentDetail} IncidentDetail */
/** @typedef {import("./api-types.gen.js").IncidentMergeRequest} IncidentMergeRequest */
/** @typedef {import("./api-types.gen.js").IncidentPatchRequest} IncidentPatchRequest */
/** @typedef {import("./api-types.gen.js").IncidentStatus} IncidentStatus */
/** @typedef {import("./api-types.gen.js").IngestAccepted} IngestAccepted */
/** @typedef {import("./api-types.gen.js").IngestKey} IngestKey */
/** @typedef {import("./api-types.gen.js").IngestKeyRequest} IngestKeyRequest */
/** @typedef {import("./api-types.gen.js").IssuedIngestKey} IssuedIngestKey */
/** @typedef {import("./api-types.gen.js").Log} Log */
/** @typedef {import("./api-types.gen.js").LogbookEntry} LogbookEntry */
/** @typedef {import("./api-types.gen.js").LogbookReplaceRequest} LogbookReplaceRequest */
/** @typedef {import("./api-types.gen.js").LogbookRequest} LogbookRequest */
/** @typedef {import("./api-types.gen.js").LogsRequest} LogsRequest */
/** @typedef {import("./api-types.gen.js").Operator} Operator */
/** @typedef {import("./api-types.gen.js").PagerDutyEvent} PagerDutyEvent */
/** @typedef {import("./api-types.gen.js").PagerDutyProcessed} PagerDutyProcessed */
/** @typedef {import("./api-types.gen.js").RuleRequest} RuleRequest */
/** @typedef {import("./api-types.gen.js").Severity} Severity */
/** @typedef {import("./api-types.gen.js").Silence} Silence */
/** @typedef {import("./api-types.gen.js").SilenceRequest} SilenceRequest */
/** @typedef {import("./api-types.gen.js").SilenceState} SilenceState */

/**
 * Raised alerts, newest first.
 *
 * `GET /api/v1/alerts`
 * @param {{status?: AlertStatus, limit?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Alert>>}
 */
export function listAlerts(query = {}, options = {}) {
  return request("GET", `/api/v1/alerts`, { ...options, query, auth: "required" });
}

/**
 * Every alert rule (the built-in `default` rule on ERROR and FATAL first, unless deleted).
 *
 * `GET /api/v1/alerts/rules`
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<AlertRule>>}
 */
export function listAlertRules(options = {}) {
  return request("GET", `/api/v1/alerts/rules`, { ...options, auth: "required" });
}

/**
 * Adds an alert rule (at most 50 in all).
 *
 * `POST /api/v1/alerts/rules`
 * @param {RuleRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<AlertRule>}
 */
export function createAlertRule(body, options = {}) {
  return request("POST", `/api/v1/alerts/rules`, { ...options, body, auth: "required" });
}

/**
 * Deletes an alert rule (the built-in one too: it stays deleted).
 *
 * `DELETE /api/v1/alerts/rules/{id}`
 * @param {string} id A rule id (a uuid, or `default`)
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteAlertRule(id, options = {}) {
  return request("DELETE", `/api/v1/alerts/rules/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * One alert rule.
 *
 * `GET /api/v1/alerts/rules/{id}`
 * @param {string} id A rule id (a uuid, or `default`)
 * @param {RequestOptions} [options]
 * @returns {Promise<AlertRule>}
 */
export function getAlertRule(id, options = {}) {
  return request("GET", `/api/v1/alerts/rules/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * Replaces an alert rule.
 *
 * `PUT /api/v1/alerts/rules/{id}`
 * @param {string} id A rule id (a uuid, or `default`)
 * @param {RuleRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<AlertRule>}
 */
export function replaceAlertRule(id, body, options = {}) {
  return request("PUT", `/api/v1/alerts/rules/${encodeURIComponent(id)}`, { ...options, body, auth: "required" });
}

/**
 * Acknowledges or resolves an alert.
 *
 * `PATCH /api/v1/alerts/{id}`
 * @param {string} id An alert id (32 hex digits)
 * @param {AlertPatchRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Alert>}
 */
export function updateAlert(id, body, options = {}) {
  return request("PATCH", `/api/v1/alerts/${encodeURIComponent(id)}`, { ...options, body, auth: "required" });
}

/**
 * Incidents, newest opened first.
 *
 * `GET /api/v1/incidents`
 * @param {{status?: IncidentStatus, limit?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Incident>>}
 */
export function listIncidents(query = {}, options = {}) {
  return request("GET", `/api/v1/incidents`, { ...options, query, auth: "required" });
}

/**
 * How many incidents are ACTIVE, ACKNOWLEDGED and RESOLVED now. The counts move in the
 * transactions that open, change, reopen and merge incidents, so they read in one Query
 * however many incidents there are.
 *
 * `GET /api/v1/incidents/counts`
 * @param {RequestOptions} [options]
 * @returns {Promise<IncidentCounts>}
 */
export function countIncidents(options = {}) {
  return request("GET", `/api/v1/incidents/counts`, { ...options, auth: "required" });
}

/**
 * One incident with samples of its grouped logs (and why they were grouped) and its history.
 *
 * `GET /api/v1/incidents/{id}`
 * @param {string} id An incident id (32 hex digits)
 * @param {RequestOptions} [options]
 * @returns {Promise<IncidentDetail>}
 */
export function getIncident(id, options = {}) {
  return request("GET", `/api/v1/incidents/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * Acknowledges or resolves an incident, with an optional note and assignee; or, without a
 * `status`, assigns it (a change in its history, notified to nobody).
 *
 * `PATCH /api/v1/incidents/{id}`
 * @param {string} id An incident id (32 hex digits)
 * @param {IncidentPatchRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<IncidentDetail>}
 */
export function updateIncident(id, body, options = {}) {
  return request("PATCH", `/api/v1/incidents/${encodeURIComponent(id)}`, { ...options, body, auth: "required" });
}

/**
 * Merges the incident into another (two fingerprints that are one problem): it is RESOLVED
 * and points at the target (`mergedInto`), its occurrences, batches and first/last seen move
 * onto the target's, and its fingerprint's new logs are grouped into the target. Merging
 * again into the same target changes nothing and answers the same.
 *
 * `POST /api/v1/incidents/{id}/merge`
 * @param {string} id The incident merged away (32 hex digits)
 * @param {IncidentMergeRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<IncidentDetail>}
 */
export function mergeIncident(id, body, options = {}) {
  return request("POST", `/api/v1/incidents/${encodeURIComponent(id)}/merge`, { ...options, body, auth: "required" });
}

/**
 * The issued ingest keys, newest first (ADMIN): never their secrets. Keys given at deploy
 * time (`IngestApiKeys`) are not listed.
 *
 * `GET /api/v1/ingest/keys`
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<IngestKey>>}
 */
export function listIngestKeys(options = {}) {
  return request("GET", `/api/v1/ingest/keys`, { ...options, auth: "required" });
}

/**
 * Issues an ingest key (ADMIN). The answer is the only time its secret is shown: keep it;
 * only a hash is stored. Rotate a key by issuing a new one, moving the sender to it and
 * revoking the old one.
 *
 * `POST /api/v1/ingest/keys`
 * @param {IngestKeyRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<IssuedIngestKey>}
 */
export function issueIngestKey(body, options = {}) {
  return request("POST", `/api/v1/ingest/keys`, { ...options, body, auth: "required" });
}

/**
 * Revokes an ingest key (ADMIN): refused from the next ingestion on.
 *
 * `DELETE /api/v1/ingest/keys/{id}`
 * @param {string} id A key id (32 hex digits)
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function revokeIngestKey(id, options = {}) {
  return request("DELETE", `/api/v1/ingest/keys/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * Enqueues a PagerDuty Events API v2 event: `trigger` opens or updates the incident of its
 * `dedup_key`, `acknowledge` and `resolve` move it (nothing when there is none, or it is
 * there already).
 *
 * `POST /api/v1/integrations/pagerduty/enqueue`
 * @param {PagerDutyEvent} body
 * @param {RequestOptions} [options]
 * @returns {Promise<PagerDutyProcessed>}
 */
export function enqueuePagerDutyEvent(body, options = {}) {
  return request("POST", `/api/v1/integrations/pagerduty/enqueue`, { ...options, body });
}

/**
 * Logbook entries, newest first.
 *
 * `GET /api/v1/logbook`
 * @param {{incidentId?: string, limit?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<LogbookEntry>>}
 */
export function listLogbookEntries(query = {}, options = {}) {
  return request("GET", `/api/v1/logbook`, { ...options, query, auth: "required" });
}

/**
 * Writes a note or a postmortem.
 *
 * `POST /api/v1/logbook`
 * @param {LogbookRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<LogbookEntry>}
 */
export function createLogbookEntry(body, options = {}) {
  return request("POST", `/api/v1/logbook`, { ...options, body, auth: "required" });
}

/**
 * Deletes a logbook entry (its author or an admin).
 *
 * `DELETE /api/v1/logbook/{id}`
 * @param {string} id An entry id (uuid)
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteLogbookEntry(id, options = {}) {
  return request("DELETE", `/api/v1/logbook/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * One logbook entry.
 *
 * `GET /api/v1/logbook/{id}`
 * @param {string} id An entry id (uuid)
 * @param {RequestOptions} [options]
 * @returns {Promise<LogbookEntry>}
 */
export function getLogbookEntry(id, options = {}) {
  return request("GET", `/api/v1/logbook/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * Replaces a logbook entry (its author or an admin), checked against the version read: an
 * edit made on an older copy of the entry is refused (409) and changes nothing.
 *
 * `PUT /api/v1/logbook/{id}`
 * @param {string} id An entry id (uuid)
 * @param {LogbookReplaceRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<LogbookEntry>}
 */
export function replaceLogbookEntry(id, body, options = {}) {
  return request("PUT", `/api/v1/logbook/${encodeURIComponent(id)}`, { ...options, body, auth: "required" });
}

/**
 * Deletes every log matching the filters (all logs without any), in the background.
 *
 * `DELETE /api/v1/logs`
 * @param {{serviceName?: string, severity?: Severity, type?: string, from?: string, to?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteLogs(query = {}, options = {}) {
  return request("DELETE", `/api/v1/logs`, { ...options, query, auth: "required" });
}

/**
 * The log timeline, newest first, a page at a time.
 *
 * `GET /api/v1/logs`
 * @param {{serviceName?: string, severity?: Severity, type?: string, from?: string, to?: string, contains?: string, limit?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Log>>}
 */
export function listLogs(query = {}, options = {}) {
  return request("GET", `/api/v1/logs`, { ...options, query, auth: "required" });
}

/**
 * Accepts one log or a batch of up to 500 for the timeline, incidents and alerts. Each
 * `logContent` is scrubbed of secrets before it is queued or stored.
 *
 * `POST /api/v1/logs`
 * @param {LogsRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<IngestAccepted>}
 */
export function ingestLogs(body, options = {}) {
  return request("POST", `/api/v1/logs`, { ...options, body, auth: "required" });
}

/**
 * Deletes one log.
 *
 * `DELETE /api/v1/logs/{id}`
 * @param {string} id A log id
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteLog(id, options = {}) {
  return request("DELETE", `/api/v1/logs/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * The notification channels.
 *
 * `GET /api/v1/notifications/channels`
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Channel>>}
 */
export function listNotificationChannels(options = {}) {
  return request("GET", `/api/v1/notifications/channels`, { ...options, auth: "required" });
}

/**
 * Adds a webhook or e-mail channel (at most 20 in all); an e-mail address is mailed a
 * confirmation link by SNS and gets nothing until it follows it.
 *
 * `POST /api/v1/notifications/channels`
 * @param {ChannelRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Channel>}
 */
export function createNotificationChannel(body, options = {}) {
  return request("POST", `/api/v1/notifications/channels`, { ...options, body, auth: "required" });
}

/**
 * Deletes a notification channel and an e-mail channel's subscription (its delivery log
 * expires with nothing pointing at it).
 *
 * `DELETE /api/v1/notifications/channels/{id}`
 * @param {string} id A channel id (a uuid)
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function deleteNotificationChannel(id, options = {}) {
  return request("DELETE", `/api/v1/notifications/channels/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * One notification channel.
 *
 * `GET /api/v1/notifications/channels/{id}`
 * @param {string} id A channel id (a uuid)
 * @param {RequestOptions} [options]
 * @returns {Promise<Channel>}
 */
export function getNotificationChannel(id, options = {}) {
  return request("GET", `/api/v1/notifications/channels/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * A channel's delivery log: one row per event, its attempts and last outcome.
 *
 * `GET /api/v1/notifications/channels/{id}/deliveries`
 * @param {string} id A channel id (a uuid)
 * @param {{limit?: number}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Delivery>>}
 */
export function listNotificationDeliveries(id, query = {}, options = {}) {
  return request("GET", `/api/v1/notifications/channels/${encodeURIComponent(id)}/deliveries`, { ...options, query, auth: "required" });
}

/**
 * The operators incidents may be assigned to, by username: everyone with the OPERATOR or
 * ADMIN role who has used the incident platform (the caller included).
 *
 * `GET /api/v1/operators`
 * @param {{limit?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Operator>>}
 */
export function listOperators(query = {}, options = {}) {
  return request("GET", `/api/v1/operators`, { ...options, query, auth: "required" });
}

/**
 * Silences: active ones ending soonest first, pending ones (and the default, pending and
 * active) starting soonest first, expired ones ended latest first (kept 30 days).
 *
 * `GET /api/v1/silences`
 * @param {{state?: SilenceState, limit?: number, cursor?: string}} [query]
 * @param {RequestOptions} [options]
 * @returns {Promise<Array<Silence>>}
 */
export function listSilences(query = {}, options = {}) {
  return request("GET", `/api/v1/silences`, { ...options, query, auth: "required" });
}

/**
 * Creates a silence: now for `durationMinutes`, or from `startsAt` (pending until then) to
 * `endsAt`. At most 100 pending or active silences.
 *
 * `POST /api/v1/silences`
 * @param {SilenceRequest} body
 * @param {RequestOptions} [options]
 * @returns {Promise<Silence>}
 */
export function createSilence(body, options = {}) {
  return request("POST", `/api/v1/silences`, { ...options, body, auth: "required" });
}

/**
 * Expires a silence now (a pending one is cancelled); it stays listed as expired. Within
 * a minute, each still-open incident it held notifies once.
 *
 * `DELETE /api/v1/silences/{id}`
 * @param {string} id A silence id (a uuid)
 * @param {RequestOptions} [options]
 * @returns {Promise<null>}
 */
export function expireSilence(id, options = {}) {
  return request("DELETE", `/api/v1/silences/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}

/**
 * One silence, its state now.
 *
 * `GET /api/v1/silences/{id}`
 * @param {string} id A silence id (a uuid)
 * @param {RequestOptions} [options]
 * @returns {Promise<Silence>}
 */
export function getSilence(id, options = {}) {
  return request("GET", `/api/v1/silences/${encodeURIComponent(id)}`, { ...options, auth: "required" });
}
