// The logbook (incident platform): notes and postmortems, each optionally about one incident; the
// list (of one incident with `?incidentId=`), a form for a new entry, and an entry's page to
// read, change or delete it (its author or an admin; a change is made on the version read).

import * as incidentsApi from "./api-incidents.gen.js";
import { announce, h, mount } from "./dom.js";
import { ApiError } from "./http.js";
import { linesKept, preciseTime, sectionNav, statusWord, textOrNull } from "./incidents.js";
import { fill, forOperators, loadItem, pageHead, submits } from "./incident-views.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { empty, field, formError, headed, loading, textArea } from "./ui.js";
import { incidentHref } from "./views-incidents.js";
import { deleteButton } from "./views-rules.js";

/** @typedef {import("./api-types.gen.js").LogbookEntry} LogbookEntry */
/** @typedef {import("./api-types.gen.js").LogbookKind} LogbookKind */
/** @typedef {import("./api-types.gen.js").LogbookRequest} LogbookRequest */

/** @param {string} id */
function entryHref(id) {
  return `/incidents/logbook/${encodeURIComponent(id)}`;
}

/** @param {LogbookKind} kind */
function kindWord(kind) {
  return kind === "POSTMORTEM" ? "Postmortem" : "Note";
}

/**
 * The incident an entry is about, picked from the newest incidents (searched by title or
 * service as typed), or none.
 * @param {string} current The id it is about now, if any.
 */
function incidentPicker(current) {
  const select = /** @type {HTMLSelectElement} */ (
    h("select", { id: "field-incidentId", name: "incidentId", "aria-describedby": "field-incidentId-hint field-incidentId-error" }, h("option", { value: "" }, "No incident"), current ? h("option", { value: current, selected: true }, `Incident ${current.slice(0, 8)}…`) : null)
  );
  const search = /** @type {HTMLInputElement} */ (h("input", { id: "incident-search", type: "search", class: "incident-search", autocomplete: "off", placeholder: "Part of its title or service", "aria-controls": "field-incidentId" }));
  /** @type {import("./api-types.gen.js").Incident[]} */
  let known = [];
  const draw = () => {
    const words = search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const chosen = select.value;
    const shown = known.filter((i) => i.id === chosen || words.every((w) => `${i.normalizedMessage} ${i.serviceName}`.toLowerCase().includes(w)));
    mount(
      select,
      h("option", { value: "" }, "No incident"),
      shown.map((i) => h("option", { value: i.id, selected: i.id === chosen }, `${i.normalizedMessage} · ${i.serviceName} · ${statusWord(i.status)}`)),
      chosen && !known.some((i) => i.id === chosen) ? h("option", { value: chosen, selected: true }, `Incident ${chosen.slice(0, 8)}…`) : null,
    );
    // One match: chosen at once, as a search that found it means it.
    if (words.length && !chosen) {
      const matches = shown.filter((i) => i.id);
      if (matches.length === 1) {
        select.value = matches[0].id;
      }
    }
  };
  search.addEventListener("input", draw);
  (async () => {
    try {
      known = await incidentsApi.listIncidents({ limit: 100 }, { cache: "no-store" });
      if (current && !known.some((i) => i.id === current)) {
        known = [await incidentsApi.getIncident(current), ...known];
      }
      draw();
    } catch {
      // The select keeps what it has; the API names a bad id on save.
    }
  })();
  return h(
    "div",
    { class: "field incident-picker", dataset: { field: "incidentId" } },
    h("label", { for: "incident-search" }, "Find an incident", h("span", { class: "optional" }, " (optional)")),
    search,
    h("label", { for: "field-incidentId", class: "picker-label" }, "Incident"),
    select,
    h("p", { class: "hint", id: "field-incidentId-hint" }, "The newest incidents; type to narrow them by title or service."),
    h("p", { class: "field-error", id: "field-incidentId-error", hidden: true }),
  );
}

/**
 * An entry's form: new (filled with `incidentId` when given) or the entry to change.
 * @param {{title?: string, kind?: LogbookKind, incidentId?: string|null, body?: string}} entry
 * @param {string} headingText
 * @param {string} submitText
 * @param {(body: LogbookRequest) => Promise<unknown>} save
 */
function entryForm(entry, headingText, submitText, save) {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, submitText));
  const kind = entry.kind ?? "NOTE";
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card logbook-form", "aria-labelledby": "logbook-form-heading", novalidate: true },
      h("h2", { id: "logbook-form-heading" }, headingText),
      formError(),
      field({ label: "Title", name: "title", value: entry.title ?? "", required: true }),
      h(
        "div",
        { class: "field", dataset: { field: "kind" } },
        h("label", { for: "field-kind" }, "Kind"),
        h("select", { id: "field-kind", name: "kind", "aria-describedby": "field-kind-error" }, h("option", { value: "NOTE", selected: kind === "NOTE" }, "Note"), h("option", { value: "POSTMORTEM", selected: kind === "POSTMORTEM" }, "Postmortem")),
        h("p", { class: "field-error", id: "field-kind-error", hidden: true }),
      ),
      incidentPicker(entry.incidentId ?? ""),
      textArea({ label: "Text", name: "body", value: entry.body ?? "", required: true, rows: 8 }),
      h("div", { class: "actions" }, button),
    )
  );
  submits(
    form,
    [button],
    "Saving…",
    (data) => ({
      title: String(data.get("title") ?? "").trim(),
      kind: /** @type {LogbookKind} */ (String(data.get("kind") ?? "NOTE")),
      incidentId: textOrNull(data.get("incidentId")),
      body: String(data.get("body") ?? ""),
    }),
    save,
  );
  return form;
}

/**
 * One entry in the list.
 * @param {LogbookEntry} entry
 */
function entryCard(entry) {
  return h(
    "li",
    { class: "card logbook-card", dataset: { entryId: entry.id } },
    h("p", { class: "meta" }, h("span", { class: "badge" }, kindWord(entry.kind)), " by ", entry.author, " · ", preciseTime(entry.createdAt)),
    h("h3", { class: "card-title" }, h("a", { href: entryHref(entry.id) }, entry.title)),
    entry.incidentId ? h("p", { class: "meta" }, h("a", { href: incidentHref(entry.incidentId) }, "About an incident")) : null,
    linesKept(entry.body, "p", "excerpt"),
  );
}

/**
 * `/incidents/logbook`: entries newest first (of one incident with `?incidentId=`), and a form
 * for a new one.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function logbookPage(main, match, { signal, title }) {
  if (!forOperators(main, "Logbook", title)) {
    return;
  }
  const incidentId = match.query.get("incidentId") ?? "";
  const list = h("div", { class: "logbook-list" }, loading("Loading the logbook"));
  const form = entryForm({ incidentId }, incidentId ? "Write about this incident" : "New entry", "Save entry", async (body) => {
    const created = await incidentsApi.createLogbookEntry(body);
    announce("Entry saved");
    navigate(entryHref(created.id));
  });
  mount(
    main,
    pageHead("Logbook", "Notes and postmortems, newest first."),
    sectionNav(match.path),
    incidentId ? h("p", { class: "callout" }, "Entries about ", h("a", { href: incidentHref(incidentId) }, "one incident"), ". ", h("a", { href: "/incidents/logbook" }, "Every entry")) : null,
    headed("Entries", list),
    form,
  );
  await fill(
    list,
    signal,
    () => incidentsApi.listLogbookEntries(incidentId ? { incidentId, limit: 100 } : { limit: 100 }, { signal, cache: "no-store" }),
    (entries) => (entries.length ? h("ul", { class: "cards logbook-cards" }, entries.map(entryCard)) : empty("No entries yet.")),
  );
}

/**
 * `/incidents/logbook/{id}`: one entry; its author (or an admin) may change or delete it.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function logbookEntryPage(main, match, { signal, title }) {
  const user = account.session.user;
  if (!forOperators(main, "Logbook entry", title) || !user) {
    return;
  }
  const entry = await loadItem(main, match, signal, "Logbook entry", () => incidentsApi.getLogbookEntry(match.params.id, { signal, cache: "no-store" }));
  if (!entry) {
    return;
  }
  const article = h("article", { class: "card reader logbook-entry" });
  /** @param {LogbookEntry} shown */
  const draw = (shown) => {
    title(shown.title);
    mount(
      article,
      h("p", { class: "meta" }, h("span", { class: "badge" }, kindWord(shown.kind)), " by ", shown.author, " · written ", preciseTime(shown.createdAt), shown.updatedAt !== shown.createdAt ? [" · changed ", preciseTime(shown.updatedAt)] : null),
      shown.incidentId ? h("p", { class: "entry-incident" }, "About ", h("a", { href: incidentHref(shown.incidentId) }, "incident ", h("code", null, shown.incidentId))) : null,
      linesKept(shown.body, "div", "body"),
    );
  };
  draw(entry);
  const heading = h("h1", { tabindex: "-1" }, entry.title);
  const mayChange = entry.authorId === user.id || account.isAdmin();
  const id = entry.id;
  // The version this page shows: an edit made on it is refused (409) once another has landed.
  let version = entry.version;
  mount(
    main,
    h("div", { class: "page-head" }, heading),
    sectionNav(match.path),
    article,
    mayChange
      ? [
          entryForm(entry, "Change the entry", "Save changes", async (body) => {
            let saved;
            try {
              saved = await incidentsApi.replaceLogbookEntry(id, { ...body, version });
            } catch (error) {
              // Its `version: ...` detail names no field of the form: the message says it all.
              throw error instanceof ApiError && error.status === 409 ? new ApiError(409, `${error.message}. Reload the page to see it.`) : error;
            }
            version = saved.version;
            heading.textContent = saved.title;
            draw(saved);
            announce("Entry saved");
          }),
          h(
            "div",
            { class: "actions" },
            deleteButton("Delete entry", async () => {
              await incidentsApi.deleteLogbookEntry(id);
              announce("Entry deleted");
              navigate("/incidents/logbook");
            }),
          ),
        ]
      : h("p", { class: "meta" }, "Only its author or an admin may change it."),
    h("p", null, h("a", { href: "/incidents/logbook" }, "The whole logbook")),
  );
}
