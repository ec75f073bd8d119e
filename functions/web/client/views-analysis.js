// Log analysis and its runbooks (the incident platform's intelligence routes): a form that asks the
// model about a log or an incident (prefilled from either), local or cloud, with or without
// retrieval, showing the summary, root cause, severity, recommendations and the runbook
// passages it cited; and the runbooks retrieval reads (add, list, delete, try a search).

import { announce, h, mount, plural } from "./dom.js";
import * as incidentsApi from "./api-incidents.gen.js";
import * as intelligenceApi from "./api-intelligence.gen.js";
import { incidentAnalysisContent, logAnalysisContent, logInstant, numberOrAbsent, parseTags, sectionNav, severityBadge, textOrNull } from "./incidents.js";
import { fill, forOperators, pageHead, submits } from "./incident-views.js";
import * as account from "./session.js";
import { empty, errorBox, field, formError, headed, loading, textArea } from "./ui.js";
import { deleteButton } from "./views-rules.js";

/** @typedef {import("./api-types.gen.js").Analysis} Analysis */
/** @typedef {import("./api-types.gen.js").AnalysisReference} AnalysisReference */
/** @typedef {import("./api-types.gen.js").ProviderKind} ProviderKind */
/** @typedef {import("./api-types.gen.js").RagDocument} RagDocument */
/** @typedef {import("./api-types.gen.js").RagSearchHit} RagSearchHit */

/**
 * The passages retrieval found or an analysis cited: each one's title, score and text.
 * @param {(AnalysisReference|RagSearchHit)[]} hits
 */
export function referenceList(hits) {
  return h(
    "ol",
    { class: "plain-list references" },
    hits.map((hit) =>
      h(
        "li",
        { class: "reference", dataset: { kind: "kind" in hit ? String(hit.kind) : "runbook" } },
        h("p", { class: "reference-title" }, h("strong", null, hit.title), h("span", { class: "meta" }, ` · score ${hit.score.toFixed(2)}`)),
        h("blockquote", null, hit.chunk),
      ),
    ),
  );
}

/**
 * An analysis's answer.
 * @param {Analysis} analysis
 */
function analysisResult(analysis) {
  const { recommendations, references } = analysis;
  return h(
    "section",
    { class: "card analysis-result", "aria-labelledby": "analysis-heading", tabindex: "-1" },
    h("h2", { id: "analysis-heading" }, "Analysis ", severityBadge(analysis.severity)),
    h("p", { class: "analysis-summary" }, analysis.summary),
    h("h3", null, "Root cause"),
    h("p", { class: "root-cause" }, analysis.root_cause),
    h("h3", null, "Recommendations"),
    recommendations.length ? h("ol", { class: "recommendations" }, recommendations.map((r) => h("li", null, r))) : h("p", { class: "meta" }, "None."),
    h("h3", null, "References"),
    references.length ? referenceList(references) : h("p", { class: "meta" }, "No runbook passage was cited."),
    h("p", { class: "meta provenance" }, `${analysis.provider} · ${analysis.model} · mode ${analysis.mode}`),
  );
}

/**
 * What the analysis form starts with: a log's or an incident's text when the page names one.
 * @param {URLSearchParams} query
 * @param {AbortSignal} signal
 * @returns {Promise<{content: string, logId: string, source: string}>}
 */
async function prefill(query, signal) {
  const logId = query.get("logId") ?? "";
  const incidentId = query.get("incidentId") ?? "";
  if (logId) {
    const at = logInstant(logId);
    if (at) {
      // The timeline at the log's own millisecond holds it (ids are time and randomness).
      const logs = await incidentsApi.listLogs({ from: at, to: at, limit: 500 }, { signal, cache: "no-store" });
      const log = logs.find((l) => l.id === logId);
      if (log) {
        return { content: logAnalysisContent(log), logId, source: `the ${log.severity} log of ${log.serviceName}` };
      }
    }
    return { content: "", logId: "", source: "" };
  }
  if (incidentId) {
    const incident = await incidentsApi.getIncident(incidentId, { signal, cache: "no-store" });
    // Stored under its newest log, so the incident's page lists it among its analyses.
    const newest = incident.recentOccurrences[0]?.logId ?? "";
    return { content: incidentAnalysisContent(incident), logId: newest, source: `the incident in ${incident.serviceName}` };
  }
  return { content: "", logId: "", source: "" };
}

/**
 * `/incidents/analyze`: the analysis form (`?logId=` or `?incidentId=` fills it) and its answer.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function analyzePage(main, match, { signal, title }) {
  if (!forOperators(main, "Analyse", title)) {
    return;
  }
  mount(main, pageHead("Analyse"), sectionNav(match.path), loading("Loading"));
  let start = { content: "", logId: "", source: "" };
  /** @type {unknown} */
  let missing = null;
  try {
    start = await prefill(match.query, signal);
  } catch (error) {
    if (signal.aborted) {
      return;
    }
    missing = error;
  }
  const wanted = match.query.get("logId") || match.query.get("incidentId");
  const result = h("div", { class: "analysis-slot", "aria-live": "polite" });
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Analyse"));
  const radio = (/** @type {string} */ value, /** @type {string} */ label) =>
    h("label", { class: "check" }, h("input", { type: "radio", name: "mode", value, checked: value === "local" }), label);
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card analysis-form", "aria-labelledby": "analysis-form-heading", novalidate: true },
      h("h2", { id: "analysis-form-heading" }, start.source ? `About ${start.source}` : "What to analyse"),
      formError(),
      textArea({ label: "Log text", name: "content", value: start.content, required: true, rows: 8, hint: "Paste log lines, or open this page from a log or an incident." }),
      h(
        "fieldset",
        { class: "field", dataset: { field: "mode" }, "aria-describedby": "field-mode-error" },
        h("legend", null, "Model"),
        h("div", { class: "checks" }, radio("local", "Local"), radio("cloud", "Cloud")),
        h("p", { class: "field-error", id: "field-mode-error", hidden: true }),
      ),
      h(
        "div",
        { class: "field", dataset: { field: "use_rag" } },
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "use_rag", checked: true, "aria-describedby": "field-use_rag-error" }), "Use the runbooks (cite the passages retrieval finds)"),
        h("p", { class: "field-error", id: "field-use_rag-error", hidden: true }),
      ),
      field({ label: "Log id", name: "log_id", value: start.logId, hint: "Ties the analysis to this log." }),
      h("div", { class: "actions" }, button),
    )
  );
  submits(
    form,
    [button],
    "Analysing…",
    (data) => ({
      content: String(data.get("content") ?? ""),
      // Sent as chosen: the API answers another value with a 400 naming `mode`.
      mode: /** @type {ProviderKind} */ (String(data.get("mode") ?? "local")),
      use_rag: data.get("use_rag") !== null,
      log_id: textOrNull(data.get("log_id")),
    }),
    async (body) => {
      mount(result);
      const shown = analysisResult(await intelligenceApi.analyzeLog(body));
      mount(result, shown);
      announce("Analysis ready");
      shown.focus();
    },
  );
  mount(
    main,
    pageHead("Analyse", "Ask the model what a log or an incident means, what caused it and what to do."),
    sectionNav(match.path),
    missing ? errorBox(missing) : wanted && !start.content ? h("p", { class: "callout" }, "That log is no longer in the timeline: paste its text instead.") : null,
    form,
    result,
  );
}

/**
 * One runbook in the list, with its delete button for its author or an admin.
 * @param {RagDocument} doc
 */
function documentCard(doc) {
  const card = h("li", { class: "card runbook-card", dataset: { documentId: doc.id } });
  mount(
    card,
    h("h3", { class: "card-title" }, doc.title),
    doc.tags.length ? h("ul", { class: "chips", "aria-label": "Tags" }, doc.tags.map((t) => h("li", null, h("span", { class: "chip" }, t)))) : null,
    h("p", { class: "meta" }, plural(doc.chunks, "passage")),
    doc.created_by === account.session.user?.id || account.isAdmin()
      ? h(
          "div",
          { class: "actions" },
          deleteButton("Delete", async () => {
            await intelligenceApi.deleteRagDocument(doc.id);
            card.remove();
            announce(`${doc.title} deleted`);
          }),
        )
      : null,
  );
  return card;
}

/**
 * `/incidents/runbooks`: the documents retrieval reads, a form to add one, and a search to see
 * which passages a text finds.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function runbooksPage(main, match, { signal, title }) {
  if (!forOperators(main, "Runbooks", title)) {
    return;
  }
  const list = h("div", { class: "runbook-list" }, loading("Loading runbooks"));
  const load = () =>
    fill(
      list,
      signal,
      () => intelligenceApi.listRagDocuments({ limit: 100 }, { signal }),
      (docs) => (docs.length ? h("ul", { class: "cards runbook-cards" }, docs.map(documentCard)) : empty("No runbooks yet.", "Add one below: analyses with retrieval cite its passages.")),
    );

  const addButton = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Add runbook"));
  const add = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card runbook-form", "aria-labelledby": "runbook-form-heading", novalidate: true },
      h("h2", { id: "runbook-form-heading" }, "Add a runbook"),
      formError(),
      field({ label: "Title", name: "title", required: true }),
      textArea({ label: "Content", name: "content", required: true, rows: 8 }),
      field({ label: "Tags", name: "tags", hint: "Comma-separated: database, checkout." }),
      h("div", { class: "actions" }, addButton),
    )
  );
  submits(
    add,
    [addButton],
    "Adding…",
    (data) => ({ title: String(data.get("title") ?? "").trim(), content: String(data.get("content") ?? ""), tags: parseTags(String(data.get("tags") ?? "")) }),
    async (body) => {
      await intelligenceApi.createRagDocument(body);
      add.reset();
      announce(`${body.title} added`);
      await load();
    },
  );

  const hits = h("div", { class: "search-hits", "aria-live": "polite" });
  const searchButton = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button secondary" }, "Search"));
  const search = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card runbook-search", "aria-labelledby": "runbook-search-heading", novalidate: true },
      h("h2", { id: "runbook-search-heading" }, "Try retrieval"),
      formError(),
      field({ label: "Search text", name: "query", required: true }),
      field({ label: "Passages", name: "top_k", type: "number", value: "3", inputmode: "numeric" }),
      h("div", { class: "actions" }, searchButton),
      hits,
    )
  );
  submits(
    search,
    [searchButton],
    "Searching…",
    (data) => ({ query: String(data.get("query") ?? ""), top_k: numberOrAbsent(data.get("top_k")) }),
    async (body) => {
      const found = await intelligenceApi.searchRagDocuments(body);
      mount(hits, found.length ? referenceList(found) : empty("No passage matches."));
    },
  );

  mount(
    main,
    pageHead("Runbooks", "What analyses with retrieval read and cite."),
    sectionNav(match.path),
    headed("Runbooks", list),
    add,
    search,
  );
  await load();
}
