// Alert rules (incident platform): the list with a form for a new rule, and a rule's own page to
// change it, or delete it (an admin). Every bad value is the API's 400, shown under the field
// it names.

import * as incidentsApi from "./api-incidents.gen.js";
import { announce, h, mount } from "./dom.js";
import { SEVERITIES, numberOrAbsent, ruleSummary, sectionNav, textOrNull } from "./incidents.js";
import { fill, forOperators, loadItem, pageHead, submits } from "./incident-views.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { busy, empty, errorAfter, field, formError, headed, loading } from "./ui.js";

/** @typedef {import("./api-types.gen.js").AlertRule} AlertRule */
/** @typedef {import("./api-types.gen.js").RuleRequest} RuleRequest */
/** @typedef {import("./api-types.gen.js").Severity} Severity */

/** @param {string} id */
function ruleHref(id) {
  return `/incidents/rules/${encodeURIComponent(id)}`;
}

/**
 * A rule's form: new (`rule` null) or filled with the rule.
 * @param {AlertRule|null} rule
 * @param {string} headingText
 * @param {string} submitText
 * @param {(body: RuleRequest) => Promise<unknown>} save
 */
function ruleForm(rule, headingText, submitText, save) {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, submitText));
  const chosen = new Set(rule?.severities ?? ["ERROR", "FATAL"]);
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card rule-form", "aria-labelledby": "rule-form-heading", novalidate: true },
      h("h2", { id: "rule-form-heading" }, headingText),
      formError(),
      field({ label: "Name", name: "name", value: rule?.name ?? "", required: true }),
      h(
        "fieldset",
        { class: "field", dataset: { field: "severities" }, "aria-describedby": "field-severities-error" },
        h("legend", null, "Severities it counts"),
        h(
          "div",
          { class: "checks" },
          SEVERITIES.map((s) => h("label", { class: "check" }, h("input", { type: "checkbox", name: "severities", value: s, checked: chosen.has(s) }), s)),
        ),
        h("p", { class: "field-error", id: "field-severities-error", hidden: true }),
      ),
      h(
        "div",
        { class: "filter-grid" },
        field({ label: "Service", name: "serviceName", value: rule?.serviceName ?? "", hint: "Empty: every service." }),
        field({ label: "Type", name: "type", value: rule?.type ?? "", hint: "Empty: every type." }),
        field({ label: "Threshold", name: "threshold", type: "number", value: String(rule?.threshold ?? 1), required: true, inputmode: "numeric", hint: "Logs of one fingerprint, 1 to 1000." }),
        field({ label: "Window (seconds)", name: "windowSeconds", type: "number", value: String(rule?.windowSeconds ?? 60), required: true, inputmode: "numeric", hint: "1 to 86400." }),
        field({ label: "Escalate after (minutes)", name: "escalateAfterMinutes", type: "number", value: rule?.escalateAfterMinutes ? String(rule.escalateAfterMinutes) : "", inputmode: "numeric", hint: "1 to 1440; overrides the notified channels' delay. Empty: theirs." }),
      ),
      h("label", { class: "check" }, h("input", { type: "checkbox", name: "enabled", checked: rule?.enabled ?? true }), "Enabled"),
      h("div", { class: "actions" }, button),
    )
  );
  submits(
    form,
    [button],
    "Saving…",
    (data) => ({
      name: String(data.get("name") ?? "").trim(),
      severities: /** @type {Severity[]} */ (data.getAll("severities").map(String)),
      serviceName: textOrNull(data.get("serviceName")),
      type: textOrNull(data.get("type")),
      threshold: /** @type {number} */ (numberOrAbsent(data.get("threshold"))),
      windowSeconds: /** @type {number} */ (numberOrAbsent(data.get("windowSeconds"))),
      enabled: data.get("enabled") !== null,
      escalateAfterMinutes: numberOrAbsent(data.get("escalateAfterMinutes")) ?? null,
    }),
    save,
  );
  return form;
}

/**
 * A two-step delete button: the first press asks, the second deletes.
 * @param {string} label
 * @param {() => Promise<void>} action
 */
export function deleteButton(label, action) {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button small danger" }, label));
  let armed = false;
  button.addEventListener("click", async () => {
    if (!armed) {
      armed = true;
      button.textContent = "Press again to delete";
      return;
    }
    try {
      await busy(button, "Deleting…", action);
    } catch (error) {
      errorAfter(button, error);
    }
  });
  return button;
}

/**
 * One rule in the list.
 * @param {AlertRule} rule
 */
function ruleCard(rule) {
  const card = h("li", { class: "card rule-card", dataset: { ruleId: rule.id } });
  mount(
    card,
    h("h3", { class: "card-title" }, h("a", { href: ruleHref(rule.id) }, rule.name), rule.enabled ? null : h("span", { class: "badge" }, "Disabled")),
    h("p", { class: "meta rule-summary" }, ruleSummary(rule)),
    h(
      "div",
      { class: "actions" },
      h("a", { class: "button small secondary", href: ruleHref(rule.id) }, "Edit"),
      account.isAdmin()
        ? deleteButton("Delete", async () => {
            await incidentsApi.deleteAlertRule(rule.id);
            card.remove();
            announce(`Rule ${rule.name} deleted`);
          })
        : null,
    ),
  );
  return card;
}

/**
 * `/incidents/rules`: every alert rule, and a form for a new one.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function rulesPage(main, match, { signal, title }) {
  if (!forOperators(main, "Alert rules", title)) {
    return;
  }
  const list = h("div", { class: "rule-list" }, loading("Loading alert rules"));
  const form = ruleForm(null, "New alert rule", "Add rule", async (body) => {
    const created = await incidentsApi.createAlertRule(body);
    announce(`Rule ${created.name} added`);
    navigate(ruleHref(created.id));
  });
  mount(
    main,
    pageHead("Alert rules", "A rule raises an alert, and opens the incident, when enough logs of one fingerprint match it within its window."),
    sectionNav(match.path),
    headed("Rules", list),
    form,
  );
  await fill(
    list,
    signal,
    () => incidentsApi.listAlertRules({ signal, cache: "no-store" }),
    (rules) => (rules.length ? h("ul", { class: "cards rule-cards" }, rules.map(ruleCard)) : empty("No alert rules: no log opens an incident.")),
  );
}

/**
 * `/incidents/rules/{id}`: one rule, to change (or, for an admin, delete).
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function rulePage(main, match, { signal, title }) {
  if (!forOperators(main, "Alert rule", title)) {
    return;
  }
  const rule = await loadItem(main, match, signal, "Alert rule", () => incidentsApi.getAlertRule(match.params.id, { signal, cache: "no-store" }));
  if (!rule) {
    return;
  }
  title(rule.name);
  const heading = h("h1", { tabindex: "-1" }, rule.name);
  const summary = h("p", { class: "lede rule-summary" }, ruleSummary(rule));
  const id = rule.id;
  mount(
    main,
    h("div", { class: "page-head" }, heading, summary),
    sectionNav(match.path),
    ruleForm(rule, "Change the rule", "Save rule", async (body) => {
      const saved = await incidentsApi.replaceAlertRule(id, body);
      heading.textContent = saved.name;
      summary.textContent = ruleSummary(saved);
      title(saved.name);
      announce("Rule saved");
    }),
    h(
      "div",
      { class: "actions" },
      account.isAdmin()
        ? deleteButton("Delete rule", async () => {
            await incidentsApi.deleteAlertRule(id);
            announce("Rule deleted");
            navigate("/incidents/rules");
          })
        : h("p", { class: "hint admin-only" }, "Only an admin may delete a rule; disable it instead."),
      h("a", { href: "/incidents/rules" }, "All alert rules"),
    ),
  );
}
