// Incidents and fired alerts (incident platform): the incidents as a live table with their counts
// by status and bulk acknowledge and resolve; one incident with its respond actions first, its
// grouped logs and why they are together, its history, alerts, analyses and logbook entries;
// and the alerts rules raised.

import * as incidentsApi from "./api-incidents.gen.js";
import * as intelligenceApi from "./api-intelligence.gen.js";
import { announce, h, mount, plural } from "./dom.js";
import { ApiError } from "./http.js";
import { ago, alertMoves, backoff, incidentMoves, linesKept, logAttributes, moveLabel, preciseTime, refreshAges, sectionNav, silencedBy, severityBadge, statusBadge, statusWord, textOrNull } from "./incidents.js";
import { fill, forOperators, loadItem, pageHead, submits } from "./incident-views.js";
import { busy, empty, errorAfter, errorBox, formError, headed, loading, textArea } from "./ui.js";

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
 * Status tabs of a list: "All" and each status, the current one marked; with their counts when
 * known.
 * @param {string} base The list's path.
 * @param {string[]} statuses
 * @param {string} current
 * @param {string} label
 * @param {Record<string, number>|null} [counts]
 */
function statusTabs(base, statuses, current, label, counts = null) {
  const total = counts ? statuses.reduce((sum, s) => sum + (counts[s] ?? 0), 0) : null;
  const tabs = [["", "All", total], ...statuses.map((s) => [s, statusWord(s), counts ? (counts[s] ?? 0) : null])];
  return h(
    "nav",
    { class: "list-tabs status-tabs", "aria-label": label },
    h(
      "ul",
      null,
      tabs.map(([status, text, count]) =>
        h(
          "li",
          null,
          h(
            "a",
            { href: status ? `${base}?status=${status}` : base, "aria-current": status === current ? "page" : null, dataset: { status: String(status) } },
            text,
            count === null ? null : h("span", { class: "status-count", dataset: { count: String(count) } }, ` ${Number(count).toLocaleString()}`),
          ),
        ),
      ),
    ),
  );
}

/** How often the incidents table asks again while it answers (ms). */
export const INCIDENTS_EVERY_MS = 5000;

/** Incidents a bulk action changes at once. */
const BULK_PARALLEL = 4;

/**
 * The ids of an incident list's rows, for telling whether a redraw is needed.
 * @param {Incident[]} incidents
 */
function signature(incidents) {
  return incidents.map((i) => `${i.id}:${i.status}:${i.occurrences}:${i.assignee ?? ""}:${i.lastSeen}:${silencedBy(i).length}`).join(",");
}

/**
 * One incident as a row of the table, its checkbox as `selected` says.
 * @param {Incident} incident
 * @param {boolean} selected
 */
function incidentRow(incident, selected) {
  const silenced = silencedBy(incident).length > 0;
  return h(
    "tr",
    { class: "incident-row", dataset: { incidentId: incident.id, status: incident.status } },
    h(
      "td",
      { class: "select-cell" },
      h("input", { type: "checkbox", class: "select-incident", value: incident.id, checked: selected, "aria-label": `Select: ${incident.normalizedMessage}` }),
    ),
    h("td", { class: "severity-cell" }, incident.severity ? severityBadge(incident.severity) : h("span", { class: "meta" }, "–")),
    h("td", { class: "service-cell" }, incident.serviceName),
    h("td", { class: "title-cell" }, h("a", { href: incidentHref(incident.id) }, incident.normalizedMessage)),
    h("td", { class: "status-cell" }, statusBadge(incident.status), silenced ? [" ", h("span", { class: "badge silenced" }, "Silenced")] : null),
    h("td", { class: "age-cell", "data-label": "opened" }, h("span", { class: "ago bare", dataset: { at: incident.openedAt }, title: `Opened ${incident.openedAt}` }, ago(incident.openedAt))),
    h("td", { class: "assignee-cell", "data-label": "assignee" }, incident.assignee ?? h("span", { class: "meta" }, "–")),
    h("td", { class: "occurrences-cell num", "data-label": "occurrences" }, incident.occurrences.toLocaleString()),
  );
}

/**
 * `/incidents`: the incidents as a live table, newest (re)opened first, by status, with the
 * counts of each status; rows selected for bulk acknowledge or resolve stay selected, and the
 * page keeps its scroll, as it refreshes itself (every 5 s, less often after failures, not
 * while the tab is hidden).
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function incidentsHome(main, match, { signal, title }) {
  if (!forOperators(main, "Incidents", title)) {
    return;
  }
  const status = match.query.get("status") ?? "";
  const statuses = ["ACTIVE", "ACKNOWLEDGED", "RESOLVED"];
  const tabsSlot = h("div", { class: "status-tabs-slot" }, statusTabs("/incidents", statuses, status, "Incidents by status"));
  const list = h("div", { class: "incident-list" }, loading("Loading incidents"));
  const live = h("p", { class: "meta live-status", role: "status" });
  const chosen = h("span", { class: "selection-count", "aria-live": "polite" }, "None selected");
  const ackButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button small", disabled: true }, "Acknowledge"));
  const resolveButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button small secondary", disabled: true }, "Resolve"));
  const clearButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "link-button", disabled: true }, "Clear selection"));
  const outcome = h("div", { class: "bulk-outcome" });
  const bulk = h("div", { class: "bulk-bar", role: "group", "aria-label": "Selected incidents" }, chosen, ackButton, resolveButton, clearButton);
  mount(
    main,
    pageHead("Incidents", "Logs with one fingerprint that an alert rule raised on, newest opened first."),
    sectionNav(match.path),
    tabsSlot,
    h("div", { class: "incident-toolbar" }, bulk, live),
    outcome,
    headed("Incidents", list),
  );

  /** @type {Set<string>} */
  const selected = new Set();
  /** @type {Incident[]} */
  let shown = [];
  /** @type {Incident[]} Rows of pages loaded with "More incidents" (not refreshed). */
  let older = [];
  /** @type {string|null} */
  let cursor = null;
  let drawn = "";
  let failures = 0;
  /** @type {number|undefined} */
  let timer;

  const rows = () => {
    const seen = new Set(shown.map((i) => i.id));
    return [...shown, ...older.filter((i) => !seen.has(i.id))];
  };
  const selection = () => rows().filter((i) => selected.has(i.id));
  const label = () => {
    const picked = selection();
    chosen.textContent = picked.length ? `${plural(picked.length, "incident")} selected` : "None selected";
    ackButton.disabled = !picked.some((i) => incidentMoves(i.status).includes("ACKNOWLEDGED"));
    resolveButton.disabled = !picked.some((i) => incidentMoves(i.status).includes("RESOLVED"));
    clearButton.disabled = picked.length === 0;
    const all = /** @type {HTMLInputElement|null} */ (list.querySelector(".select-all"));
    if (all) {
      const every = rows();
      all.checked = every.length > 0 && every.every((i) => selected.has(i.id));
      all.indeterminate = !all.checked && picked.length > 0;
    }
  };

  const moreButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary" }, "More incidents"));
  const draw = () => {
    const every = rows();
    const sig = signature(every) + `|${cursor ?? ""}`;
    if (sig === drawn && list.querySelector("table, .state.empty")) {
      refreshAges(list);
      return;
    }
    drawn = sig;
    // The row or control that had focus gets it back after the redraw.
    const focused = /** @type {HTMLElement|null} */ (document.activeElement);
    const focusId = focused?.closest?.("tr")?.getAttribute("data-incident-id");
    const focusClass = focused?.className;
    if (!every.length) {
      mount(list, empty(status ? `No ${statusWord(status).toLowerCase()} incidents.` : "No incidents.", "An incident opens when logs meet an alert rule."));
      label();
      return;
    }
    const allBox = h("input", { type: "checkbox", class: "select-all", "aria-label": "Select every incident shown" });
    const table = h(
      "div",
      { class: "table-scroll" },
      h(
        "table",
        { class: "incident-table" },
        h("caption", { class: "visually-hidden" }, "Incidents, newest opened first"),
        h(
          "thead",
          null,
          h(
            "tr",
            null,
            h("th", { scope: "col", class: "select-cell" }, allBox),
            h("th", { scope: "col" }, "Severity"),
            h("th", { scope: "col" }, "Service"),
            h("th", { scope: "col" }, "Title"),
            h("th", { scope: "col" }, "Status"),
            h("th", { scope: "col" }, "Age"),
            h("th", { scope: "col" }, "Assignee"),
            h("th", { scope: "col", class: "num" }, "Occurrences"),
          ),
        ),
        h(
          "tbody",
          null,
          every.map((i) => incidentRow(i, selected.has(i.id))),
        ),
      ),
    );
    mount(list, table, cursor ? h("p", { class: "actions" }, moreButton) : null);
    if (focusId) {
      const row = list.querySelector(`tr[data-incident-id="${CSS.escape(focusId)}"]`);
      const again = /** @type {HTMLElement|null} */ (row?.querySelector(focusClass === "select-incident" ? ".select-incident" : "a") ?? null);
      again?.focus({ preventScroll: true });
    }
    label();
  };

  list.addEventListener("change", (event) => {
    const box = /** @type {HTMLInputElement} */ (event.target);
    if (box.classList.contains("select-all")) {
      for (const i of rows()) {
        if (box.checked) {
          selected.add(i.id);
        } else {
          selected.delete(i.id);
        }
      }
      for (const each of list.querySelectorAll(".select-incident")) {
        /** @type {HTMLInputElement} */ (each).checked = box.checked;
      }
    } else if (box.classList.contains("select-incident")) {
      if (box.checked) {
        selected.add(box.value);
      } else {
        selected.delete(box.value);
      }
    }
    label();
  });
  clearButton.addEventListener("click", () => {
    selected.clear();
    for (const each of list.querySelectorAll(".select-incident, .select-all")) {
      /** @type {HTMLInputElement} */ (each).checked = false;
    }
    label();
  });

  const listQuery = () => (status ? { status: /** @type {IncidentStatus} */ (status), limit: 100 } : { limit: 100 });
  const load = async () => {
    /** @type {string|null} */
    let next = null;
    const [incidents, counts] = await Promise.all([
      incidentsApi.listIncidents(listQuery(), {
        signal,
        cache: "no-store",
        onHeaders: (headers) => {
          next = headers.get("x-next-cursor");
        },
      }),
      incidentsApi.countIncidents({ signal, cache: "no-store" }),
    ]);
    shown = incidents;
    if (!older.length) {
      cursor = next;
    }
    mount(tabsSlot, statusTabs("/incidents", statuses, status, "Incidents by status", counts));
    draw();
  };
  moreButton.addEventListener("click", async () => {
    if (!cursor) {
      return;
    }
    try {
      await busy(moreButton, "Loading…", async () => {
        /** @type {string|null} */
        let next = null;
        const page = await incidentsApi.listIncidents(
          { ...listQuery(), cursor: /** @type {string} */ (cursor) },
          {
            signal,
            cache: "no-store",
            onHeaders: (headers) => {
              next = headers.get("x-next-cursor");
            },
          },
        );
        older = [...older, ...page];
        cursor = next;
      });
      draw();
    } catch (error) {
      errorAfter(moreButton.parentElement ?? moreButton, error);
    }
  });

  const schedule = () => {
    window.clearTimeout(timer);
    if (!signal.aborted) {
      timer = window.setTimeout(tick, backoff(failures, INCIDENTS_EVERY_MS));
    }
  };
  const tick = async () => {
    if (document.hidden) {
      // Asked again when the tab is shown (visibilitychange below).
      return;
    }
    try {
      await load();
      failures = 0;
      live.textContent = `Live · updated ${new Date().toLocaleTimeString()}`;
    } catch (error) {
      if (signal.aborted) {
        return;
      }
      failures += 1;
      live.textContent = `Updates failed: ${error instanceof Error ? error.message : String(error)}. Trying again in ${backoff(failures, INCIDENTS_EVERY_MS) / 1000} s.`;
    }
    schedule();
  };
  const onVisible = () => {
    if (!document.hidden && !signal.aborted) {
      window.clearTimeout(timer);
      tick();
    }
  };
  document.addEventListener("visibilitychange", onVisible);
  signal.addEventListener("abort", () => {
    window.clearTimeout(timer);
    document.removeEventListener("visibilitychange", onVisible);
  });

  /**
   * Moves every selected incident that may make the move to `to`, a few at a time.
   * @param {"ACKNOWLEDGED"|"RESOLVED"} to
   * @param {HTMLButtonElement} button
   */
  const bulkMove = async (to, button) => {
    const targets = selection().filter((i) => incidentMoves(i.status).includes(to));
    /** @type {string[]} */
    const failed = [];
    let done = 0;
    await busy(button, "Saving…", async () => {
      const queue = [...targets];
      const worker = async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const incident = next;
          try {
            await incidentsApi.updateIncident(incident.id, { status: to });
            selected.delete(incident.id);
            done += 1;
          } catch (error) {
            failed.push(`${incident.normalizedMessage}: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(BULK_PARALLEL, queue.length) }, worker));
    });
    const verb = to === "ACKNOWLEDGED" ? "Acknowledged" : "Resolved";
    const said = `${verb} ${plural(done, "incident")}${failed.length ? `; ${failed.length} failed` : ""}.`;
    mount(outcome, h("p", { class: failed.length ? "callout error" : "callout" }, said), failed.length ? h("ul", { class: "plain-list" }, failed.map((f) => h("li", null, f))) : null);
    announce(said);
    drawn = "";
    window.clearTimeout(timer);
    await tick();
  };
  ackButton.addEventListener("click", () => bulkMove("ACKNOWLEDGED", ackButton));
  resolveButton.addEventListener("click", () => bulkMove("RESOLVED", resolveButton));

  try {
    await load();
  } catch (error) {
    if (!signal.aborted) {
      mount(list, errorBox(error));
      failures = 1;
      schedule();
    }
    return;
  }
  live.textContent = `Live: asked again every ${INCIDENTS_EVERY_MS / 1000} seconds.`;
  schedule();
}

/**
 * What the incident is and why its logs are together.
 * @param {IncidentDetail} incident
 */
function incidentFacts(incident) {
  /** @type {[string, import("./dom.js").Children][]} */
  const rows = [
    ["Status", statusBadge(incident.status)],
    ["Severity", incident.severity ? severityBadge(incident.severity) : "not recorded"],
    ["Service", incident.serviceName],
    ["Type", incident.type],
    ["Occurrences", String(incident.occurrences)],
    ["First seen", preciseTime(incident.firstSeen)],
    ["Last seen", preciseTime(incident.lastSeen)],
    ["Opened", preciseTime(incident.openedAt)],
    ["Reopened", plural(incident.reopenCount, "time")],
    ["Assignee", incident.assignee ?? "nobody"],
  ];
  return h("dl", { class: "facts incident-facts", tabindex: "-1" }, rows.map(([k, v]) => [h("dt", null, k), h("dd", null, v)]));
}

/**
 * The logs grouped into the incident, newest first, each with the rules it matched and its
 * attributes.
 * @param {Occurrence[]} occurrences
 * @param {number} total
 */
function occurrenceList(occurrences, total) {
  return h(
    "section",
    { class: "occurrences", "aria-labelledby": "occurrences-heading" },
    h("h2", { id: "occurrences-heading" }, "Latest occurrences"),
    h("p", { class: "meta" }, total > occurrences.length ? `The latest ${occurrences.length} of ${total}.` : plural(total, "log")),
    h(
      "ol",
      { class: "log-list" },
      occurrences.map((o) =>
        h(
          "li",
          { class: "log-row occurrence", dataset: { logId: o.logId, severity: o.severity } },
          h("p", { class: "log-head" }, severityBadge(o.severity), " ", preciseTime(o.timestamp), " · matched ", o.ruleIds.map((r) => h("a", { class: "rule-ref", href: `/incidents/rules/${encodeURIComponent(r)}` }, r))),
          h("p", { class: "log-content" }, o.logContent),
          logAttributes(o),
          h("p", { class: "log-actions" }, h("a", { href: `/incidents/analyze?logId=${encodeURIComponent(o.logId)}` }, "Analyse this log")),
        ),
      ),
    ),
  );
}

/**
 * A history change in words.
 * @param {IncidentEvent} e
 */
function changeWords(e) {
  if (!e.from) {
    return `${statusWord(e.to)} (opened by a log)`;
  }
  if (e.from === e.to) {
    return e.assignee ? `Assigned to ${e.assignee}` : statusWord(e.to);
  }
  return `${statusWord(e.from)} → ${statusWord(e.to)}${e.assignee ? ` · assigned to ${e.assignee}` : ""}`;
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
          h("p", { class: "meta" }, preciseTime(e.at), " · ", e.by),
          h("p", null, changeWords(e)),
          e.note ? linesKept(e.note, "p", "history-note") : null,
        ),
      ),
    ),
  );
}

/** @type {Promise<import("./api-types.gen.js").Operator[]>|null} The operators, read once a visit. */
let operatorsRead = null;

/** The operators an incident may be assigned to (every page of them, read once). */
export function operators() {
  if (!operatorsRead) {
    operatorsRead = (async () => {
      /** @type {import("./api-types.gen.js").Operator[]} */
      const all = [];
      /** @type {string|null} */
      let cursor = null;
      for (let page = 0; page < 20; page += 1) {
        /** @type {string|null} */
        let next = null;
        const rows = await incidentsApi.listOperators(cursor ? { limit: 100, cursor } : { limit: 100 }, {
          cache: "no-store",
          onHeaders: (/** @type {Headers} */ headers) => {
            next = headers.get("x-next-cursor");
          },
        });
        all.push(...rows);
        cursor = next;
        if (!cursor) {
          break;
        }
      }
      return all;
    })();
    operatorsRead.catch(() => {
      operatorsRead = null;
    });
  }
  return operatorsRead;
}

/**
 * The assignee select: nobody (as it is) or one of the operators.
 * @param {string|null|undefined} current
 */
function assigneeSelect(current) {
  const select = /** @type {HTMLSelectElement} */ (
    h("select", { id: "field-assignee", name: "assignee", "aria-describedby": "field-assignee-error" }, h("option", { value: "" }, current ? `${current} (as now)` : "Nobody"), current ? h("option", { value: current, selected: true }, current) : null)
  );
  operators()
    .then((list) => {
      const chosen = select.value;
      mount(
        select,
        h("option", { value: "" }, current ? "Keep as it is" : "Nobody"),
        list.map((o) => h("option", { value: o.username, selected: o.username === (chosen || current) }, o.username)),
      );
      if (current && !list.some((o) => o.username === current)) {
        select.append(h("option", { value: current, selected: chosen === current || !chosen }, current));
      }
    })
    .catch(() => {
      select.append(h("option", { value: "", disabled: true }, "The operators could not be read"));
    });
  return h(
    "div",
    { class: "field", dataset: { field: "assignee" } },
    h("label", { for: "field-assignee" }, "Assignee"),
    select,
    h("p", { class: "field-error", id: "field-assignee-error", hidden: true }),
  );
}

/**
 * The respond actions, first on the page: acknowledge, resolve, assign (with a note kept in
 * the history).
 * @param {IncidentDetail} incident
 * @param {(changed: IncidentDetail) => void} done
 */
function changeForm(incident, done) {
  const moves = incidentMoves(incident.status);
  const buttons = moves.map((to) => /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button", value: to, name: "status" }, moveLabel(to))));
  const assign = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button secondary", value: "", name: "status" }, "Assign"));
  const silenced = silencedBy(incident);
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card change-form respond-bar", "aria-labelledby": "change-heading", novalidate: true },
      h("h2", { id: "change-heading", class: "respond-heading" }, "Respond ", statusBadge(incident.status), incident.severity ? [" ", severityBadge(incident.severity)] : null, silenced.length ? [" ", h("span", { class: "badge silenced" }, "Silenced")] : null),
      silenced.length ? h("p", { class: "meta silenced-by" }, "Silenced by ", silenced.map((id, n) => [n ? ", " : "", h("a", { href: `/incidents/silences#silence-${id}` }, h("code", null, id.slice(0, 8)))]), ": recorded, not notified nor escalated.") : null,
      moves.length ? null : h("p", { class: "callout" }, "Resolved. A new occurrence reopens it."),
      formError(),
      h("div", { class: "respond-fields" }, assigneeSelect(incident.assignee), textArea({ label: "Note", name: "note", hint: "Kept in the history, line breaks too.", rows: 2 })),
      h("div", { class: "actions" }, buttons, assign),
    )
  );
  submits(
    form,
    [...buttons, assign],
    "Saving…",
    (data, button) => {
      const assignee = textOrNull(data.get("assignee"));
      const note = String(data.get("note") ?? "").trim() ? String(data.get("note")) : null;
      /** @type {import("./api-types.gen.js").IncidentPatchRequest} */
      const body = button.value ? { status: /** @type {IncidentStatus} */ (button.value), note, assignee } : { note, assignee };
      return body;
    },
    async (body) => {
      if (!body.status && !body.assignee) {
        throw new ApiError(400, "Choose an operator to assign", ["assignee: choose an operator to assign"]);
      }
      const changed = await incidentsApi.updateIncident(incident.id, body);
      announce(body.status ? `Incident ${statusWord(changed.status).toLowerCase()}` : `Incident assigned to ${changed.assignee}`);
      done(changed);
    },
  );
  return form;
}

/**
 * The analyses made of this incident's logs, newest first: those of its service's latest 50
 * analyses whose log is one of its occurrences (an incident's analysis is stored under its
 * newest log).
 * @param {IncidentDetail} incident
 * @param {AbortSignal} signal
 */
async function pastAnalyses(incident, signal) {
  const logs = new Set(incident.recentOccurrences.map((o) => o.logId));
  const found = await intelligenceApi.queryAnalyses({ service_name: incident.serviceName, limit: 50 }, { signal });
  return found.filter((a) => a.log_id && logs.has(a.log_id));
}

/**
 * `/incidents/{id}`: one incident: the respond actions first, its facts, its latest
 * occurrences, why they are grouped, its history, alerts, past analyses and logbook entries.
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
  const analyses = h("section", { class: "incident-analyses", "aria-labelledby": "analyses-heading" }, h("h2", { id: "analyses-heading" }, "Analyses"), loading("Loading analyses"));
  const notes = h("section", { class: "incident-logbook", "aria-labelledby": "logbook-heading" }, h("h2", { id: "logbook-heading" }, "Logbook"), loading("Loading logbook entries"));
  const respond = h("div", { class: "respond-slot" });
  const body = h("div", { class: "incident-body" });
  /** @param {IncidentDetail} shown */
  const draw = (shown) => {
    title(`Incident: ${shown.normalizedMessage}`);
    mount(
      respond,
      changeForm(shown, (changed) => {
        draw(changed);
        /** @type {HTMLElement|null} */ (body.querySelector(".incident-facts"))?.focus();
      }),
    );
    mount(
      body,
      incidentFacts(shown),
      occurrenceList(shown.recentOccurrences, shown.occurrences),
      h(
        "section",
        { class: "card why", "aria-labelledby": "why-heading" },
        h("h2", { id: "why-heading" }, "Why these logs are together"),
        h("p", { class: "grouped-by" }, `Grouped by ${shown.groupedBy}.`),
        h("p", null, "Normalised message: ", h("code", { class: "normalized" }, shown.normalizedMessage)),
        h("p", { class: "meta" }, "Fingerprint ", h("code", { class: "fingerprint" }, shown.fingerprint)),
        h("p", { class: "meta" }, "First message: ", shown.sampleMessage),
      ),
      historyList(shown.history),
    );
  };
  draw(incident);
  mount(
    main,
    h("div", { class: "page-head incident-head" }, h("p", { class: "eyebrow" }, `Incident in ${incident.serviceName}`), h("h1", { tabindex: "-1" }, incident.normalizedMessage)),
    respond,
    sectionNav(match.path),
    body,
    alerts,
    analyses,
    notes,
    h(
      "p",
      { class: "actions" },
      h("a", { class: "button secondary", href: `/incidents/analyze?incidentId=${encodeURIComponent(incident.id)}` }, "Analyse this incident"),
      h("a", { class: "button secondary", href: `/incidents/logbook?incidentId=${encodeURIComponent(incident.id)}` }, "Write in the logbook"),
    ),
  );
  const ages = window.setInterval(() => refreshAges(main), 15000);
  signal.addEventListener("abort", () => window.clearInterval(ages));
  const id = incident.id;
  const [raised, entries, analysed] = await Promise.allSettled([
    incidentsApi.listAlerts({ limit: 100 }, { signal, cache: "no-store" }),
    incidentsApi.listLogbookEntries({ incidentId: id, limit: 100 }, { signal, cache: "no-store" }),
    pastAnalyses(incident, signal),
  ]);
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
  if (analysed.status === "fulfilled") {
    mount(
      analyses,
      heading(analyses),
      analysed.value.length
        ? h(
            "ul",
            { class: "plain-list analysis-links" },
            analysed.value.map((a) =>
              h(
                "li",
                { class: "analysis-item" },
                h("p", { class: "meta" }, preciseTime(a.created_at), ` · ${a.severity} · ${a.provider} ${a.model} · by ${a.created_by}`),
                linesKept(a.summary, "p", "analysis-summary"),
                a.log_id ? h("p", { class: "meta" }, h("a", { href: `/incidents/analyze?logId=${encodeURIComponent(a.log_id)}` }, "Analyse its log again")) : null,
              ),
            ),
          )
        : empty("No analyses of it yet.", "“Analyse this incident” asks the model and keeps its answer here."),
    );
  } else {
    mount(analyses, heading(analyses), errorBox(analysed.reason));
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
        h("p", { class: "meta" }, `${shown.count} of ${shown.threshold} in ${shown.windowSeconds} s · raised `, preciseTime(shown.raisedAt)),
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
