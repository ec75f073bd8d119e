// Incidents and fired alerts (incident platform): the incidents by status, one incident with its
// grouped logs and why they are together, acknowledging and resolving it with a note and an
// assignee, its history, alerts and logbook entries; and the alerts rules raised.

import * as incidentsApi from "./api-incidents.gen.js";
import { announce, h, mount, plural, time } from "./dom.js";
import { alertMoves, incidentMoves, moveLabel, sectionNav, severityBadge, statusBadge, statusWord, textOrNull } from "./incidents.js";
import { fill, forOperators, loadItem, pageHead, submits } from "./incident-views.js";
import { busy, empty, errorAfter, errorBox, field, formError, headed, loading, textArea } from "./ui.js";

/** @typedef {import("./api-types.gen.js").Alert} Alert */
/** @typedef {import("./api-types.gen.js").AlertStatus} AlertStatus */
/** @typedef {import("./api-types.gen.js").Incident} Incident */
/** @typedef {import("./api-types.gen.js").IncidentDetail} IncidentDetail */
/** @typedef {import("./api-types.gen.js").IncidentEvent} IncidentEvent */
/** @typedef {import("./api-types.gen.js").IncidentStatus} IncidentStatus */
/** @typedef {import("./api-types.gen.js").Occurrence} Occurrence */

/** @param {string} id */
export function incidentHref(id) {
  return `/incidents/${encodeURIComponent(id)}`;
}

/**
 * Status tabs of a list: "All" and each status, the current one marked.
 * @param {string} base The list's path.
 * @param {string[]} statuses
 * @param {string} current
 * @param {string} label
 */
function statusTabs(base, statuses, current, label) {
  const tabs = [["", "All"], ...statuses.map((s) => [s, statusWord(s)])];
  return h(
    "nav",
    { class: "list-tabs status-tabs", "aria-label": label },
    h("ul", null, tabs.map(([status, text]) => h("li", null, h("a", { href: status ? `${base}?status=${status}` : base, "aria-current": status === current ? "page" : null }, text)))),
  );
}

/**
 * One incident in the list.
 * @param {Incident} incident
 */
function incidentCard(incident) {
  const headingId = `incident-${incident.id}`;
  return h(
    "li",
    { class: "card incident-card", dataset: { incidentId: incident.id, status: incident.status } },
    h(
      "article",
      { "aria-labelledby": headingId },
      h("p", { class: "meta" }, statusBadge(incident.status), " ", incident.serviceName, " · ", incident.type),
      h("h3", { class: "card-title", id: headingId }, h("a", { href: incidentHref(incident.id) }, incident.normalizedMessage)),
      h("p", { class: "meta incident-figures" }, plural(incident.occurrences, "occurrence"), " · last ", time(incident.lastSeen), incident.assignee ? ` · assigned to ${incident.assignee}` : null),
    ),
  );
}

/**
 * `/incidents`: incidents, newest opened first, by status.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function incidentsHome(main, match, { signal, title }) {
  if (!forOperators(main, "Incidents", title)) {
    return;
  }
  const status = match.query.get("status") ?? "";
  const list = h("div", { class: "incident-list" }, loading("Loading incidents"));
  mount(
    main,
    pageHead("Incidents", "Logs with one fingerprint that an alert rule raised on, newest opened first."),
    sectionNav(match.path),
    statusTabs("/incidents", ["ACTIVE", "ACKNOWLEDGED", "RESOLVED"], status, "Incidents by status"),
    headed("Incidents", list),
  );
  await fill(
    list,
    signal,
    () => incidentsApi.listIncidents(status ? { status: /** @type {IncidentStatus} */ (status), limit: 100 } : { limit: 100 }, { signal, cache: "no-store" }),
    (incidents) =>
      incidents.length
        ? h("ul", { class: "cards incident-cards" }, incidents.map(incidentCard))
        : empty(status ? `No ${statusWord(status).toLowerCase()} incidents.` : "No incidents.", "An incident opens when logs meet an alert rule."),
  );
}

/**
 * What the incident is and why its logs are together.
 * @param {IncidentDetail} incident
 */
function incidentFacts(incident) {
  /** @type {[string, import("./dom.js").Children][]} */
  const rows = [
    ["Status", statusBadge(incident.status)],
    ["Service", incident.serviceName],
    ["Type", incident.type],
    ["Occurrences", String(incident.occurrences)],
    ["First seen", time(incident.firstSeen)],
    ["Last seen", time(incident.lastSeen)],
    ["Opened", time(incident.openedAt)],
    ["Reopened", plural(incident.reopenCount, "time")],
    ["Assignee", incident.assignee ?? "nobody"],
  ];
  return h("dl", { class: "facts incident-facts", tabindex: "-1" }, rows.map(([k, v]) => [h("dt", null, k), h("dd", null, v)]));
}

/**
 * The logs grouped into the incident, newest first, each with the rules it matched.
 * @param {Occurrence[]} occurrences
 * @param {number} total
 */
function occurrenceList(occurrences, total) {
  return h(
    "section",
    { class: "occurrences", "aria-labelledby": "occurrences-heading" },
    h("h2", { id: "occurrences-heading" }, "Grouped logs"),
    h("p", { class: "meta" }, total > occurrences.length ? `The latest ${occurrences.length} of ${total}.` : plural(total, "log")),
    h(
      "ol",
      { class: "log-list" },
      occurrences.map((o) =>
        h(
          "li",
          { class: "log-row occurrence", dataset: { logId: o.logId } },
          h("p", { class: "log-head" }, severityBadge(o.severity), " ", time(o.timestamp), " · matched ", o.ruleIds.map((r) => h("a", { class: "rule-ref", href: `/incidents/rules/${encodeURIComponent(r)}` }, r))),
          h("p", { class: "log-content" }, o.logContent),
          h("p", { class: "log-actions" }, h("a", { href: `/incidents/analyze?logId=${encodeURIComponent(o.logId)}` }, "Analyse this log")),
        ),
      ),
    ),
  );
}

/**
 * The incident's changes, oldest first.
 * @param {IncidentEvent[]} history
 */
function historyList(history) {
  return h(
    "section",
    { class: "history", "aria-labelledby": "history-heading" },
    h("h2", { id: "history-heading" }, "History"),
    h(
      "ol",
      { class: "plain-list history-list" },
      history.map((e) =>
        h(
          "li",
          { class: "history-entry" },
          h("p", { class: "meta" }, time(e.at), " · ", e.by),
          h("p", null, e.from ? `${statusWord(e.from)} → ${statusWord(e.to)}` : `${statusWord(e.to)} (opened by a log)`, e.assignee ? ` · assigned to ${e.assignee}` : null),
          e.note ? h("p", { class: "history-note" }, e.note) : null,
        ),
      ),
    ),
  );
}

/**
 * The form that acknowledges or resolves the incident, with a note and an assignee.
 * @param {IncidentDetail} incident
 * @param {(changed: IncidentDetail) => void} done
 */
function changeForm(incident, done) {
  const moves = incidentMoves(incident.status);
  if (!moves.length) {
    return h("p", { class: "callout" }, "Resolved. A new occurrence reopens it.");
  }
  const buttons = moves.map((to) => /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button", value: to, name: "status" }, moveLabel(to))));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card change-form", "aria-labelledby": "change-heading", novalidate: true },
      h("h2", { id: "change-heading" }, "Respond"),
      formError(),
      textArea({ label: "Note", name: "note", hint: "Kept in the history.", rows: 3 }),
      field({ label: "Assignee", name: "assignee", value: incident.assignee ?? "" }),
      h("div", { class: "actions" }, buttons),
    )
  );
  submits(
    form,
    buttons,
    "Saving…",
    (data, button) => ({
      status: /** @type {IncidentStatus} */ (button.value),
      note: textOrNull(data.get("note")),
      assignee: textOrNull(data.get("assignee")),
    }),
    async (body) => {
      const changed = await incidentsApi.updateIncident(incident.id, body);
      announce(`Incident ${statusWord(changed.status).toLowerCase()}`);
      done(changed);
    },
  );
  return form;
}

/**
 * `/incidents/{id}`: one incident, its grouped logs and why, the response form, its history,
 * its alerts and its logbook entries.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function incidentPage(main, match, { signal, title }) {
  if (!forOperators(main, "Incident", title)) {
    return;
  }
  const incident = await loadItem(main, match, signal, "Incident", () => incidentsApi.getIncident(match.params.id, { signal, cache: "no-store" }));
  if (!incident) {
    return;
  }
  const alerts = h("section", { class: "incident-alerts", "aria-labelledby": "alerts-heading" }, h("h2", { id: "alerts-heading" }, "Alerts"), loading("Loading alerts"));
  const notes = h("section", { class: "incident-logbook", "aria-labelledby": "logbook-heading" }, h("h2", { id: "logbook-heading" }, "Logbook"), loading("Loading logbook entries"));
  const body = h("div", { class: "incident-body" });
  /** @param {IncidentDetail} shown */
  const draw = (shown) => {
    title(`Incident: ${shown.normalizedMessage}`);
    mount(
      body,
      incidentFacts(shown),
      h(
        "section",
        { class: "card why", "aria-labelledby": "why-heading" },
        h("h2", { id: "why-heading" }, "Why these logs are together"),
        h("p", { class: "grouped-by" }, `Grouped by ${shown.groupedBy}.`),
        h("p", null, "Normalised message: ", h("code", { class: "normalized" }, shown.normalizedMessage)),
        h("p", { class: "meta" }, "Fingerprint ", h("code", { class: "fingerprint" }, shown.fingerprint)),
        h("p", { class: "meta" }, "First message: ", shown.sampleMessage),
      ),
      changeForm(shown, (changed) => {
        draw(changed);
        /** @type {HTMLElement|null} */ (body.querySelector(".incident-facts"))?.focus();
      }),
      occurrenceList(shown.recentOccurrences, shown.occurrences),
      historyList(shown.history),
    );
  };
  draw(incident);
  mount(
    main,
    h("div", { class: "page-head" }, h("p", { class: "eyebrow" }, `Incident in ${incident.serviceName}`), h("h1", { tabindex: "-1" }, incident.normalizedMessage)),
    sectionNav(match.path),
    h(
      "p",
      { class: "actions" },
      h("a", { class: "button secondary", href: `/incidents/analyze?incidentId=${encodeURIComponent(incident.id)}` }, "Analyse this incident"),
      h("a", { class: "button secondary", href: `/incidents/logbook?incidentId=${encodeURIComponent(incident.id)}` }, "Write in the logbook"),
    ),
    body,
    alerts,
    notes,
  );
  const id = incident.id;
  const [raised, entries] = await Promise.allSettled([incidentsApi.listAlerts({ limit: 100 }, { signal, cache: "no-store" }), incidentsApi.listLogbookEntries({ incidentId: id, limit: 100 }, { signal, cache: "no-store" })]);
  if (signal.aborted) {
    return;
  }
  const heading = (/** @type {HTMLElement} */ section) => /** @type {Element} */ (section.firstElementChild);
  if (raised.status === "fulfilled") {
    const mine = raised.value.filter((a) => a.incidentId === id);
    mount(alerts, heading(alerts), mine.length ? h("ul", { class: "cards" }, mine.map(alertCard)) : empty("No alerts raised on it."));
  } else {
    mount(alerts, heading(alerts), errorBox(raised.reason));
  }
  if (entries.status === "fulfilled") {
    mount(
      notes,
      heading(notes),
      entries.value.length
        ? h("ul", { class: "plain-list logbook-links" }, entries.value.map((e) => h("li", null, h("a", { href: `/incidents/logbook/${encodeURIComponent(e.id)}` }, e.title), h("span", { class: "meta" }, ` · ${e.kind === "POSTMORTEM" ? "Postmortem" : "Note"} by ${e.author}`))))
        : empty("No logbook entries about it yet."),
    );
  } else {
    mount(notes, heading(notes), errorBox(entries.reason));
  }
}

/**
 * One fired alert, with the moves it may make.
 * @param {Alert} alert
 */
export function alertCard(alert) {
  const card = h("li", { class: "card alert-card", dataset: { alertId: alert.id, status: alert.status } });
  /** @param {Alert} shown */
  const draw = (shown) => {
    const buttons = alertMoves(shown.status).map((to) => {
      const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button small secondary" }, moveLabel(to)));
      button.addEventListener("click", async () => {
        try {
          const changed = await busy(button, "Saving…", () => incidentsApi.updateAlert(shown.id, { status: to }));
          announce(`Alert ${statusWord(changed.status).toLowerCase()}`);
          draw(changed);
          card.dataset.status = changed.status;
          /** @type {HTMLElement|null} */ (card.querySelector("button") ?? card.querySelector("a"))?.focus();
        } catch (error) {
          errorAfter(button.parentElement ?? button, error);
        }
      });
      return button;
    });
    mount(
      card,
      h(
        "article",
        null,
        h("p", { class: "meta" }, statusBadge(shown.status), " ", severityBadge(shown.severity), " ", shown.serviceName, " · ", shown.type),
        h("h3", { class: "card-title" }, shown.ruleName),
        h("p", null, shown.message),
        h("p", { class: "meta" }, `${shown.count} of ${shown.threshold} in ${shown.windowSeconds} s · raised `, time(shown.raisedAt)),
        h("p", null, h("a", { href: incidentHref(shown.incidentId) }, "The incident")),
        buttons.length ? h("div", { class: "actions" }, buttons) : null,
      ),
    );
  };
  draw(alert);
  return card;
}

/**
 * `/incidents/alerts`: the alerts rules raised, newest first, by status.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function alertsPage(main, match, { signal, title }) {
  if (!forOperators(main, "Alerts", title)) {
    return;
  }
  const status = match.query.get("status") ?? "";
  const list = h("div", { class: "alert-list" }, loading("Loading alerts"));
  mount(
    main,
    pageHead("Alerts", "Raised when an alert rule's threshold is met, newest first."),
    sectionNav(match.path),
    statusTabs("/incidents/alerts", ["OPEN", "ACKNOWLEDGED", "RESOLVED"], status, "Alerts by status"),
    headed("Alerts", list),
  );
  await fill(
    list,
    signal,
    () => incidentsApi.listAlerts(status ? { status: /** @type {AlertStatus} */ (status), limit: 100 } : { limit: 100 }, { signal, cache: "no-store" }),
    (alerts) => (alerts.length ? h("ul", { class: "cards" }, alerts.map(alertCard)) : empty(status ? `No ${statusWord(status).toLowerCase()} alerts.` : "No alerts yet.")),
  );
}
