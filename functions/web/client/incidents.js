// Shared pieces of the incident-log pages (incident platform): the section's tabs, badges, the
// timeline's filters as a URL, the moves an incident or alert may make, and the text an
// analysis is asked about.

import { h } from "./dom.js";

/** @type {import("./api-types.gen.js").Severity[]} */
export const SEVERITIES = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"];

/** The section's pages, in the order of its tabs. */
const SECTION = [
  ["/incidents", "Incidents"],
  ["/incidents/logs", "Timeline"],
  ["/incidents/alerts", "Alerts"],
  ["/incidents/rules", "Alert rules"],
  ["/incidents/channels", "Notifications"],
  ["/incidents/logbook", "Logbook"],
  ["/incidents/analyze", "Analyse"],
  ["/incidents/runbooks", "Runbooks"],
  ["/incidents/silences", "Silences"],
  ["/incidents/keys", "Ingest keys"],
];

/**
 * The tab of `path`: its own, or the list an item page belongs to (an incident's page is under
 * "Incidents", a rule's under "Alert rules").
 * @param {string} path
 */
export function sectionOf(path) {
  const exact = SECTION.find(([href]) => href === path);
  if (exact) {
    return exact[0];
  }
  const parent = SECTION.slice(1).find(([href]) => path.startsWith(`${href}/`));
  return parent ? parent[0] : "/incidents";
}

/**
 * The section's tabs, the current one marked.
 * @param {string} path
 */
export function sectionNav(path) {
  const current = sectionOf(path);
  return h(
    "nav",
    { class: "list-tabs section-tabs", "aria-label": "Incident pages" },
    h("ul", null, SECTION.map(([href, label]) => h("li", null, h("a", { href, "aria-current": href === current ? "page" : null }, label)))),
  );
}

/** @param {string} severity */
export function severityBadge(severity) {
  return h("span", { class: `badge severity severity-${severity.toLowerCase()}` }, severity);
}

/** @param {string} status An incident's or an alert's status. */
export function statusBadge(status) {
  return h("span", { class: `badge status status-${status.toLowerCase()}` }, statusWord(status));
}

/** @param {string} status */
export function statusWord(status) {
  return status.charAt(0) + status.slice(1).toLowerCase();
}

/**
 * The statuses a person may move an incident to from `status`: forward only (a RESOLVED
 * incident is reopened by a new occurrence, never by hand).
 * @param {string} status
 * @returns {("ACKNOWLEDGED"|"RESOLVED")[]}
 */
export function incidentMoves(status) {
  switch (status) {
    case "ACTIVE":
      return ["ACKNOWLEDGED", "RESOLVED"];
    case "ACKNOWLEDGED":
      return ["RESOLVED"];
    default:
      return [];
  }
}

/**
 * The statuses an alert may move to from `status`.
 * @param {string} status
 * @returns {("ACKNOWLEDGED"|"RESOLVED")[]}
 */
export function alertMoves(status) {
  return incidentMoves(status === "OPEN" ? "ACTIVE" : status);
}

/** The button that makes a move: "Acknowledge", "Resolve". */
export function moveLabel(/** @type {string} */ to) {
  return to === "ACKNOWLEDGED" ? "Acknowledge" : "Resolve";
}

/** The timeline's filters, as the URL and the API name them. */
export const TIMELINE_FILTERS = /** @type {const} */ (["serviceName", "severity", "type", "from", "to", "limit"]);

/**
 * The timeline's query from a page URL's query: the filters that are set, and the cursor.
 * @param {URLSearchParams} query
 * @returns {Record<string, string>}
 */
export function timelineQuery(query) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const name of [...TIMELINE_FILTERS, "cursor"]) {
    const value = query.get(name)?.trim();
    if (value) {
      out[name] = value;
    }
  }
  return out;
}

/**
 * The timeline page of `filters` (and a cursor: an older page).
 * @param {Record<string, string>} filters
 * @param {string|null} [cursor]
 */
export function timelineHref(filters, cursor = null) {
  const params = new URLSearchParams();
  for (const name of TIMELINE_FILTERS) {
    if (filters[name]) {
      params.set(name, filters[name]);
    }
  }
  if (cursor) {
    params.set("cursor", cursor);
  }
  const text = params.toString();
  return text ? `/incidents/logs?${text}` : "/incidents/logs";
}

/**
 * An instant (RFC 3339) as a `datetime-local` input's value in this browser's zone, to the
 * second; empty when it is not one.
 * @param {string|undefined} iso
 */
export function toLocalInput(iso) {
  const date = iso ? new Date(iso) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) {
    return "";
  }
  const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * A `datetime-local` value (this browser's zone) as an instant in UTC; the text as typed when it
 * is not a time, so the API names what is wrong with it.
 * @param {string} value
 */
export function fromLocalInput(value) {
  const text = value.trim();
  if (!text) {
    return "";
  }
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

/**
 * When a log happened, read from its id (its time in milliseconds, 13 digits, then `-`).
 * @param {string} id
 * @returns {string|null} RFC 3339, or null when the id is not a log id.
 */
export function logInstant(id) {
  const found = /^(\d{13})-[0-9a-f]{32}$/.exec(id);
  return found ? new Date(Number(found[1])).toISOString() : null;
}

/** The lines of an incident given to the analysis. */
export const ANALYSED_OCCURRENCES = 10;

/**
 * What an analysis of one log is asked about: where and when it came from, and its text.
 * @param {{timestamp: string, severity: string, serviceName: string, type: string, logContent: string}} log
 */
export function logAnalysisContent(log) {
  return `${log.timestamp} ${log.severity} ${log.serviceName} (${log.type}): ${log.logContent}`;
}

/**
 * What an analysis of an incident is asked about: its service, type and normalised message,
 * then its latest grouped logs.
 * @param {import("./api-types.gen.js").IncidentDetail} incident
 */
export function incidentAnalysisContent(incident) {
  const head = `Incident in ${incident.serviceName} (${incident.type}), ${incident.occurrences} occurrences since ${incident.firstSeen}: ${incident.normalizedMessage}`;
  const lines = incident.recentOccurrences.slice(0, ANALYSED_OCCURRENCES).map((o) => `${o.timestamp} ${o.severity} ${o.logContent}`);
  return [head, ...lines].join("\n");
}

/**
 * Comma-separated tags: trimmed, blank ones and repeats left out.
 * @param {string} text
 */
export function parseTags(text) {
  return [...new Set(text.split(",").map((t) => t.trim()).filter(Boolean))];
}

/**
 * A number field's value for the API: left out when empty, else the number typed (the API
 * names a bad one).
 * @param {FormDataEntryValue|null} value
 */
export function numberOrAbsent(value) {
  const text = String(value ?? "").trim();
  return text === "" ? undefined : Number(text);
}

/**
 * A text field's value for the API: null when blank (an optional field left out).
 * @param {FormDataEntryValue|null} value
 */
export function textOrNull(value) {
  const text = String(value ?? "").trim();
  return text === "" ? null : text;
}

/**
 * A rule's reach in words: "ERROR, FATAL · every service · 1 in 60 s".
 * @param {import("./api-types.gen.js").AlertRule} rule
 */
export function ruleSummary(rule) {
  const scope = [rule.serviceName ? `service ${rule.serviceName}` : "every service", rule.type ? `type ${rule.type}` : null].filter(Boolean).join(", ");
  const escalation = rule.escalateAfterMinutes ? ` · escalates after ${rule.escalateAfterMinutes} min unacknowledged` : "";
  return `${rule.severities.join(", ")} · ${scope} · ${rule.threshold} in ${rule.windowSeconds} s${escalation}`;
}

/**
 * How long before `now` the instant `iso` was, in words: "just now", "12 s ago", "5 min ago",
 * "3 h 5 min ago", "2 d 4 h ago" ("in 5 min" ahead of `now`); empty when `iso` is no time.
 * @param {string|null|undefined} iso
 * @param {number} [now] Epoch milliseconds.
 */
export function ago(iso, now = Date.now()) {
  const at = iso ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(at)) {
    return "";
  }
  const ahead = at > now + 1000;
  let seconds = Math.floor(Math.abs(now - at) / 1000);
  if (seconds < 5) {
    return "just now";
  }
  /** @type {string} */
  let span;
  if (seconds < 60) {
    span = `${seconds} s`;
  } else if (seconds < 3600) {
    span = `${Math.floor(seconds / 60)} min`;
  } else if (seconds < 86400) {
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    span = minutes ? `${hours} h ${minutes} min` : `${hours} h`;
  } else {
    const days = Math.floor(seconds / 86400);
    seconds %= 86400;
    const hours = Math.floor(seconds / 3600);
    span = hours ? `${days} d ${hours} h` : `${days} d`;
  }
  return ahead ? `in ${span}` : `${span} ago`;
}

/**
 * An instant to the second in this browser's zone, "2026-12-03 07:14:05"; with milliseconds
 * when `millis` ("07:14:05.123"). Empty when it is no time.
 * @param {string|null|undefined} iso
 * @param {{millis?: boolean, date?: boolean}} [options]
 */
export function clockTime(iso, { millis = false, date = true } = {}) {
  const at = iso ? new Date(iso) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime())) {
    return "";
  }
  const pad = (/** @type {number} */ n, width = 2) => String(n).padStart(width, "0");
  const day = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
  const clock = `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}${millis ? `.${pad(at.getMilliseconds(), 3)}` : ""}`;
  return date ? `${day} ${clock}` : clock;
}

/**
 * A `<time>` to the second, its milliseconds and zone in the tooltip, and how long ago beside
 * it (kept fresh by `refreshAges`).
 * @param {string|null|undefined} iso
 * @param {{relative?: boolean, date?: boolean}} [options]
 */
export function preciseTime(iso, { relative = true, date = true } = {}) {
  const text = clockTime(iso, { date });
  if (!iso || !text) {
    return null;
  }
  const when = h("time", { datetime: iso, title: `${clockTime(iso, { millis: true })} (${Intl.DateTimeFormat().resolvedOptions().timeZone})` }, text);
  return relative ? h("span", { class: "precise-time" }, when, " ", h("span", { class: "ago", dataset: { at: iso } }, `(${ago(iso)})`)) : when;
}

/**
 * Brings every "… ago" under `root` up to date.
 * @param {ParentNode} root
 */
export function refreshAges(root) {
  for (const span of root.querySelectorAll(".ago[data-at]")) {
    const at = /** @type {HTMLElement} */ (span).dataset.at;
    const text = span.classList.contains("bare") ? ago(at) : `(${ago(at)})`;
    if (span.textContent !== text) {
      span.textContent = text;
    }
  }
}

/**
 * The wait before the next refresh of a live list: `base` while it answers, doubling after
 * each failure in a row up to `max`.
 * @param {number} failures Failures in a row.
 * @param {number} [base]
 * @param {number} [max]
 */
export function backoff(failures, base = 5000, max = 60000) {
  return Math.min(max, base * 2 ** Math.min(failures, 10));
}

/**
 * A log's attributes and trace, as rows of a definition list (name, value), names in order.
 * @param {{attributes?: Record<string, string>|null, traceId?: string|null, spanId?: string|null}} log
 * @returns {[string, string][]}
 */
export function logDetails(log) {
  /** @type {[string, string][]} */
  const rows = [];
  if (log.traceId) {
    rows.push(["traceId", log.traceId]);
  }
  if (log.spanId) {
    rows.push(["spanId", log.spanId]);
  }
  for (const name of Object.keys(log.attributes ?? {}).sort()) {
    rows.push([name, String(log.attributes?.[name] ?? "")]);
  }
  return rows;
}

/**
 * Text shown with its line breaks kept (never parsed as HTML).
 * @param {string} text
 * @param {string} [tag]
 * @param {string} [className]
 */
export function linesKept(text, tag = "div", className = "") {
  return h(tag, { class: `keep-lines ${className}`.trim() }, text);
}

/**
 * A log's attributes and trace, folded under "Attributes (N)"; null when it has none.
 * @param {{attributes?: Record<string, string>|null, traceId?: string|null, spanId?: string|null}} log
 */
export function logAttributes(log) {
  const rows = logDetails(log);
  if (!rows.length) {
    return null;
  }
  return h(
    "details",
    { class: "log-attributes" },
    h("summary", null, `Attributes (${rows.length})`),
    h("dl", { class: "facts attribute-list" }, rows.map(([k, v]) => [h("dt", null, h("code", null, k)), h("dd", null, h("code", null, v))])),
  );
}

/**
 * The silences holding an incident (`silencedBy`), none when it is not silenced.
 * @param {object} incident
 * @returns {string[]}
 */
export function silencedBy(incident) {
  const ids = /** @type {{silencedBy?: unknown}} */ (incident).silencedBy;
  return Array.isArray(ids) ? ids.map(String) : [];
}

/**
 * Labels typed one a line as `name=value`: the object the API takes, and the lines that are not
 * labels (named to the user).
 * @param {string} text
 */
export function parseLabels(text) {
  /** @type {Record<string, string>} */
  const labels = {};
  /** @type {string[]} */
  const bad = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed) {
      continue;
    }
    const at = trimmed.indexOf("=");
    if (at <= 0) {
      bad.push(trimmed);
      continue;
    }
    labels[trimmed.slice(0, at).trim()] = trimmed.slice(at + 1).trim();
  }
  return { labels, bad };
}

/**
 * A silence's matchers in words: "service checkout, api · severity ERROR · label env=prod".
 * @param {{services?: string[], severities?: string[], types?: string[], labels?: Record<string, string>}} m
 */
export function matcherWords(m) {
  const parts = [];
  if (m.services?.length) {
    parts.push(`service ${m.services.join(", ")}`);
  }
  if (m.severities?.length) {
    parts.push(`severity ${m.severities.join(", ")}`);
  }
  if (m.types?.length) {
    parts.push(`type ${m.types.join(", ")}`);
  }
  const labels = Object.entries(m.labels ?? {});
  if (labels.length) {
    parts.push(`label ${labels.map(([k, v]) => `${k}=${v}`).join(", ")}`);
  }
  return parts.join(" · ") || "everything";
}
