// Silences and maintenance windows (incident platform, OPERATOR): those active, pending and
// expired; a new one by service, severity, type or labels, now for some minutes or scheduled
// with a start and an end; and expiring one now. A silenced incident is still recorded and
// shown, but neither notified nor escalated.
//
// Its calls of `/api/v1/silences` are written here, under the contract's operation names, until
// they are in this contract's generated layer.

import { ApiError, request } from "./http.js";
import { announce, h, mount } from "./dom.js";
import { SEVERITIES, fromLocalInput, matcherWords, parseLabels, parseTags, preciseTime, sectionNav, statusWord } from "./incidents.js";
import { forOperators, pageHead, submits } from "./incident-views.js";
import { busy, empty, errorAfter, errorBox, field, formError, headed, loading, textArea } from "./ui.js";

/**
 * @typedef {Object} SilenceMatchers
 * @property {string[]} [services]
 * @property {string[]} [severities]
 * @property {string[]} [types]
 * @property {Record<string, string>} [labels]
 */
/**
 * @typedef {Object} Silence
 * @property {string} id
 * @property {string} comment
 * @property {SilenceMatchers} matchers
 * @property {string} startsAt
 * @property {string} endsAt
 * @property {string} createdBy
 * @property {string} createdAt
 * @property {"active"|"pending"|"expired"|string} state
 */

/** The states a silence is listed by, in the page's order. */
const STATES = /** @type {const} */ (["active", "pending", "expired"]);

/**
 * `GET /api/v1/silences` (`listSilences`): one state's silences, a page at a time.
 * @param {{state: string, limit?: number, cursor?: string}} query
 * @param {import("./http.js").RequestOptions} [options]
 * @returns {Promise<Silence[]>}
 */
export async function listSilences(query, options = {}) {
  const answer = await request("GET", "/api/v1/silences", { ...options, query, auth: "required" });
  // A bare array (the cursor in `X-Next-Cursor`), or an envelope.
  return Array.isArray(answer) ? answer : (answer?.items ?? answer?.silences ?? []);
}

/**
 * `POST /api/v1/silences` (`createSilence`).
 * @param {Record<string, unknown>} body
 * @returns {Promise<Silence>}
 */
export function createSilence(body) {
  return request("POST", "/api/v1/silences", { body, auth: "required" });
}

/**
 * `DELETE /api/v1/silences/{id}` (`expireSilence`): it ends now and stays listed as expired.
 * @param {string} id
 */
export function expireSilence(id) {
  return request("DELETE", `/api/v1/silences/${encodeURIComponent(id)}`, { auth: "required" });
}

/**
 * One silence, with "Expire now" unless it has ended.
 * @param {Silence} silence
 * @param {() => void} changed
 */
function silenceCard(silence, changed) {
  const expire = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button small secondary" }, silence.state === "pending" ? "Cancel it" : "Expire now"));
  expire.addEventListener("click", async () => {
    try {
      await busy(expire, "Expiring…", () => expireSilence(silence.id));
      announce("Silence expired");
      changed();
    } catch (error) {
      errorAfter(expire, error);
    }
  });
  return h(
    "li",
    { class: "card silence-card", id: `silence-${silence.id}`, dataset: { silenceId: silence.id, state: silence.state } },
    h("p", { class: "meta" }, h("span", { class: `badge silence-${silence.state}` }, statusWord(silence.state.toUpperCase())), " by ", silence.createdBy),
    h("h3", { class: "card-title keep-lines" }, silence.comment),
    h("p", { class: "silence-matchers" }, "Silences ", h("strong", null, matcherWords(silence.matchers))),
    h("p", { class: "meta" }, "From ", preciseTime(silence.startsAt), " to ", preciseTime(silence.endsAt)),
    silence.state === "expired" ? null : h("div", { class: "actions" }, expire),
  );
}

/**
 * A checkbox group of the severities.
 */
function severityChecks() {
  return h(
    "fieldset",
    { class: "field", dataset: { field: "matchers.severities" }, "aria-describedby": "field-matchers.severities-error" },
    h("legend", null, "Severities", h("span", { class: "optional" }, " (optional)")),
    h("div", { class: "checks" }, SEVERITIES.map((s) => h("label", { class: "check" }, h("input", { type: "checkbox", name: "severities", value: s }), s))),
    h("p", { class: "field-error", id: "field-matchers.severities-error", hidden: true }),
  );
}

/**
 * The form of a new silence: what it matches, why, and when (now for some minutes, or a
 * window with a start and an end).
 * @param {() => void} created
 */
function silenceForm(created) {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Create silence"));
  const when = (/** @type {string} */ value, /** @type {string} */ label, /** @type {boolean} */ checked) =>
    h("label", { class: "check" }, h("input", { type: "radio", name: "when", value, checked }), label);
  const window_ = h(
    "div",
    { class: "filter-grid silence-window", hidden: true },
    field({ label: "Starts", name: "startsAt", type: "datetime-local", hint: "Your local time" }),
    field({ label: "Ends", name: "endsAt", type: "datetime-local", hint: "Your local time" }),
  );
  const minutes = field({ label: "For minutes", name: "durationMinutes", type: "number", value: "60", inputmode: "numeric", hint: "1 to 10,080 (a week)" });
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card silence-form", "aria-labelledby": "silence-form-heading", novalidate: true },
      h("h2", { id: "silence-form-heading" }, "New silence"),
      formError(),
      textArea({ label: "Comment", name: "comment", required: true, rows: 2, hint: "Why: \u201cdatabase migration 22:00-23:00\u201d." }),
      h(
        "div",
        { class: "filter-grid" },
        field({ label: "Services", name: "matchers.services", hint: "Comma-separated" }),
        field({ label: "Types", name: "matchers.types", hint: "Comma-separated: APPLICATION_LOG, …" }),
      ),
      severityChecks(),
      textArea({ label: "Labels", name: "matchers.labels", rows: 2, hint: "One a line, name=value; they match the logs' attributes." }),
      h("fieldset", { class: "field" }, h("legend", null, "When"), h("div", { class: "checks" }, when("now", "Now, for some minutes", true), when("window", "A window with a start and an end", false))),
      minutes,
      window_,
      h("div", { class: "actions" }, button),
    )
  );
  for (const input of form.querySelectorAll('input[type="datetime-local"]')) {
    input.setAttribute("step", "1");
  }
  form.addEventListener("change", (event) => {
    const target = /** @type {HTMLInputElement} */ (event.target);
    if (target.name === "when") {
      const scheduled = target.value === "window";
      window_.hidden = !scheduled;
      minutes.hidden = scheduled;
    }
  });
  submits(
    form,
    [button],
    "Creating…",
    (data) => {
      /** @type {SilenceMatchers} */
      const matchers = {};
      const services = parseTags(String(data.get("matchers.services") ?? ""));
      const types = parseTags(String(data.get("matchers.types") ?? ""));
      const severities = data.getAll("severities").map(String);
      const { labels, bad } = parseLabels(String(data.get("matchers.labels") ?? ""));
      if (services.length) {
        matchers.services = services;
      }
      if (severities.length) {
        matchers.severities = severities;
      }
      if (types.length) {
        matchers.types = types;
      }
      if (Object.keys(labels).length) {
        matchers.labels = labels;
      }
      /** @type {Record<string, unknown>} */
      const body = { comment: String(data.get("comment") ?? "").trim(), matchers };
      if (data.get("when") === "window") {
        const startsAt = fromLocalInput(String(data.get("startsAt") ?? ""));
        const endsAt = fromLocalInput(String(data.get("endsAt") ?? ""));
        if (startsAt) {
          body.startsAt = startsAt;
        }
        body.endsAt = endsAt;
      } else {
        const text = String(data.get("durationMinutes") ?? "").trim();
        body.durationMinutes = text === "" ? undefined : Number(text);
      }
      return { body, bad };
    },
    async ({ body, bad }) => {
      if (bad.length) {
        throw new ApiError(400, "Check the labels", [`matchers.labels: write each as name=value (${bad.join(", ")})`]);
      }
      await createSilence(body);
      announce("Silence created");
      form.reset();
      // Back to "now, for 60 minutes" (the defaults were set as properties, which reset clears).
      const now = /** @type {HTMLInputElement|null} */ (form.querySelector('input[name="when"][value="now"]'));
      const duration = /** @type {HTMLInputElement|null} */ (form.querySelector('input[name="durationMinutes"]'));
      if (now && duration) {
        now.checked = true;
        duration.value = "60";
      }
      window_.hidden = true;
      minutes.hidden = false;
      created();
    },
  );
  return form;
}

/**
 * `/incidents/silences`: silences by state, a form for a new one.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function silencesPage(main, match, { signal, title }) {
  if (!forOperators(main, "Silences", title)) {
    return;
  }
  const sections = STATES.map((state) => h("div", { class: `silence-list silences-${state}` }, loading(`Loading ${state} silences`)));
  const reload = async () => {
    await Promise.all(
      STATES.map(async (state, n) => {
        const slot = sections[n];
        try {
          const rows = await listSilences({ state, limit: 100 }, { signal, cache: "no-store" });
          mount(slot, rows.length ? h("ul", { class: "cards silence-cards" }, rows.map((s) => silenceCard(s, reload))) : empty(`No ${state} silences.`));
        } catch (error) {
          if (!signal.aborted) {
            mount(slot, errorBox(error));
          }
        }
      }),
    );
  };
  mount(
    main,
    pageHead("Silences", "Maintenance windows and mutes: matched incidents are recorded and shown, not notified nor escalated; what is still open when a silence ends notifies once."),
    sectionNav(match.path),
    silenceForm(() => reload()),
    STATES.map((state, n) => h("section", { class: "silence-state", "aria-labelledby": `silences-${state}-heading` }, h("h2", { id: `silences-${state}-heading` }, statusWord(state.toUpperCase())), sections[n])),
  );
  await reload();
}
