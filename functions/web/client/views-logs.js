// The live log timeline (incident platform): filters that deep-link, cursor paging to older logs,
// and the newest page asked for again every few seconds until the user pauses it.

import * as incidentsApi from "./api-incidents.gen.js";
import { announce, h, mount, plural } from "./dom.js";
import { ApiError } from "./http.js";
import { SEVERITIES, clockTime, fromLocalInput, logAttributes, preciseTime, sectionNav, severityBadge, timelineHref, timelineQuery, toLocalInput } from "./incidents.js";
import { forOperators, pageHead } from "./incident-views.js";
import { navigate } from "./router.js";
import { clearFormErrors, empty, errorBox, field, formError, loading, showFormError } from "./ui.js";

/** @typedef {import("./api-types.gen.js").Log} Log */

/** How often the newest page is asked for again while live (ms). */
export const LIVE_EVERY_MS = 4000;
/** Logs per page unless the filters say otherwise. */
const DEFAULT_LIMIT = 50;

/** Whether live updates were paused, for the rest of the visit. */
let paused = false;

/**
 * A select of the severities, "Any" first.
 * @param {string} value
 */
function severitySelect(value) {
  return h(
    "div",
    { class: "field", dataset: { field: "severity" } },
    h("label", { for: "field-severity" }, "Severity", h("span", { class: "optional" }, " (optional)")),
    h(
      "select",
      { id: "field-severity", name: "severity", "aria-describedby": "field-severity-error" },
      h("option", { value: "" }, "Any"),
      SEVERITIES.map((s) => h("option", { value: s, selected: s === value }, s)),
    ),
    h("p", { class: "field-error", id: "field-severity-error", hidden: true }),
  );
}

/**
 * The filter form, filled from the page's query; submitting shows the newest page of the new
 * filters (a URL of its own, so a filtered timeline can be bookmarked).
 * @param {Record<string, string>} filters
 */
function filterForm(filters) {
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card filter-form", "aria-label": "Filters", novalidate: true },
      formError(),
      h(
        "div",
        { class: "filter-grid" },
        field({ label: "Service", name: "serviceName", value: filters.serviceName ?? "" }),
        severitySelect(filters.severity ?? ""),
        field({ label: "Type", name: "type", value: filters.type ?? "", hint: "DEPLOYMENT_LOG, APPLICATION_LOG, …" }),
        field({ label: "From", name: "from", type: "datetime-local", value: toLocalInput(filters.from) }),
        field({ label: "To", name: "to", type: "datetime-local", value: toLocalInput(filters.to) }),
        field({ label: "Logs per page", name: "limit", type: "number", value: filters.limit ?? String(DEFAULT_LIMIT), inputmode: "numeric", hint: "1 to 500" }),
      ),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "button" }, "Show logs"), h("a", { class: "button secondary", href: "/incidents/logs" }, "Clear filters")),
    )
  );
  for (const input of form.querySelectorAll('input[type="datetime-local"]')) {
    input.setAttribute("step", "1");
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    /** @type {Record<string, string>} */
    const next = {};
    for (const name of ["serviceName", "severity", "type", "limit"]) {
      next[name] = String(data.get(name) ?? "").trim();
    }
    next.from = fromLocalInput(String(data.get("from") ?? ""));
    next.to = fromLocalInput(String(data.get("to") ?? ""));
    navigate(timelineHref(next));
  });
  const set = TIMELINE_SET.filter((name) => filters[name]).length;
  // Folded on a phone, so the first screen shows logs; open on a wider window.
  const fold = h(
    "details",
    { class: "filters-fold", open: window.matchMedia("(min-width: 48rem)").matches },
    h("summary", { class: "button secondary small" }, set ? `Filters (${set} set)` : "Filters"),
    form,
  );
  return { form, fold };
}

/** The filters that narrow the timeline (the page size does not). */
const TIMELINE_SET = ["serviceName", "severity", "type", "from", "to"];

/**
 * A log's detail, folded: its time to the millisecond, its id, trace and attributes.
 * @param {Log} log
 */
function logDetail(log) {
  return h(
    "details",
    { class: "log-detail" },
    h("summary", null, "Details"),
    h(
      "dl",
      { class: "facts log-facts" },
      h("dt", null, "Time"),
      h("dd", null, h("time", { datetime: log.timestamp }, clockTime(log.timestamp, { millis: true })), " ", h("span", { class: "meta" }, log.timestamp)),
      h("dt", null, "Log id"),
      h("dd", null, h("code", null, log.id)),
    ),
    logAttributes(log),
  );
}

/**
 * One log of the timeline, with a link to analyse it and a two-step delete.
 * @param {Log} log
 */
function logRow(log) {
  const remove = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "link-button danger-link" }, "Delete"));
  const row = h(
    "li",
    { class: "log-row", dataset: { logId: log.id, severity: log.severity } },
    h("p", { class: "log-head" }, severityBadge(log.severity), " ", preciseTime(log.timestamp, { relative: false }), " · ", h("span", { class: "log-service" }, log.serviceName), " · ", h("span", { class: "log-type" }, log.type)),
    h("p", { class: "log-content" }, log.logContent),
    logDetail(log),
    h("p", { class: "log-actions" }, h("a", { href: `/incidents/analyze?logId=${encodeURIComponent(log.id)}` }, "Analyse"), " ", remove),
  );
  let armed = false;
  remove.addEventListener("click", async () => {
    if (!armed) {
      armed = true;
      remove.textContent = "Confirm delete";
      return;
    }
    remove.disabled = true;
    try {
      await incidentsApi.deleteLog(log.id);
      row.remove();
      announce("Log deleted");
    } catch (error) {
      remove.disabled = false;
      row.append(errorBox(error));
    }
  });
  return row;
}

/**
 * `/incidents/logs`: the timeline, newest first, filtered by the query; `cursor` shows an
 * older page. The newest page refreshes itself every few seconds while live.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function timeline(main, match, { signal, title }) {
  if (!forOperators(main, "Log timeline", title)) {
    return;
  }
  const query = timelineQuery(match.query);
  const filters = { ...query };
  delete filters.cursor;
  const { form, fold } = filterForm(filters);
  const list = h("div", { class: "timeline", "aria-live": "off" }, loading("Loading logs"));
  const status = h("p", { class: "meta live-status", role: "status" });
  const liveButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary small live-toggle" }, "Pause live updates"));
  const newest = !query.cursor;
  mount(
    main,
    pageHead("Log timeline", "Every log sent to the platform, newest first."),
    sectionNav(match.path),
    fold,
    h("div", { class: "timeline-bar" }, newest ? liveButton : h("a", { class: "button secondary small", href: timelineHref(filters) }, "Back to the newest logs"), status),
    list,
  );

  /** @type {string|null} */
  let cursor = null;
  /** @type {string} */
  let shownIds = "";
  /** @param {Log[]} logs */
  const draw = (logs) => {
    const ids = logs.map((l) => l.id).join(",");
    if (ids === shownIds && list.querySelector(".log-list, .state.empty")) {
      return;
    }
    shownIds = ids;
    mount(
      list,
      logs.length
        ? h("ol", { class: "log-list", "aria-label": "Logs" }, logs.map(logRow))
        : empty(query.cursor ? "No older logs." : "No logs match these filters.", newest ? "New logs show up here as they arrive." : null),
      cursor ? h("nav", { class: "pager", "aria-label": "Pages" }, h("span"), h("span", { class: "pager-summary" }, plural(logs.length, "log")), h("a", { class: "button secondary", rel: "next", href: timelineHref(filters, cursor) }, "Older logs →")) : null,
    );
  };

  /** @param {boolean} first */
  const load = async (first) => {
    /** @type {string|null} */
    let next = null;
    const logs = await incidentsApi.listLogs(query, {
      signal,
      cache: "no-store",
      onHeaders: (headers) => {
        next = headers.get("x-next-cursor");
      },
    });
    cursor = next;
    draw(logs);
    if (!first) {
      status.textContent = `Live · updated ${new Date().toLocaleTimeString()}`;
    }
  };

  try {
    await load(true);
  } catch (error) {
    if (signal.aborted) {
      return;
    }
    if (error instanceof ApiError && error.status === 400) {
      // A bad filter: the API's message under the field it names, the filters unfolded.
      /** @type {HTMLDetailsElement} */ (fold).open = true;
      showFormError(form, error);
      mount(list, empty("Fix the filters to see logs."));
    } else {
      mount(list, errorBox(error, () => navigate(window.location.pathname + window.location.search, { replace: true })));
    }
    return;
  }
  if (!newest) {
    status.textContent = "An older page: not updated live.";
    return;
  }

  /** @type {number|undefined} */
  let timer;
  const schedule = () => {
    window.clearTimeout(timer);
    if (!paused && !signal.aborted) {
      timer = window.setTimeout(tick, LIVE_EVERY_MS);
    }
  };
  const tick = async () => {
    if (document.hidden) {
      schedule();
      return;
    }
    try {
      await load(false);
    } catch (error) {
      if (signal.aborted) {
        return;
      }
      status.textContent = `Live updates failed: ${error instanceof Error ? error.message : String(error)}. Trying again.`;
    }
    schedule();
  };
  const label = () => {
    liveButton.textContent = paused ? "Resume live updates" : "Pause live updates";
    status.textContent = paused ? "Paused: the newest logs are not asked for." : `Live: the newest logs are asked for every ${LIVE_EVERY_MS / 1000} seconds.`;
  };
  liveButton.addEventListener("click", () => {
    paused = !paused;
    label();
    announce(paused ? "Live updates paused" : "Live updates resumed");
    if (paused) {
      window.clearTimeout(timer);
    } else {
      tick();
    }
  });
  signal.addEventListener("abort", () => window.clearTimeout(timer));
  label();
  schedule();
}
