// A member's "Report…" of a post or a comment, with a reason picker and optional words: on the
// post's page and under each comment (not one's own). Its own module so the admin queue's page
// is not loaded with the post's.

import * as communityApi from "./api-community.gen.js";
import { announce, h, mount } from "./dom.js";
import { busy, clearFormErrors, formError, showFormError } from "./ui.js";

/** The reasons the API takes, with what the picker shows. */
const REASONS = [
  ["spam", "Spam or advertising"],
  ["abuse", "Abuse or harassment"],
  ["off-topic", "Off-topic"],
  ["other", "Something else"],
];
/** The longest words a report takes. */
const MAX_TEXT = 500;

/**
 * "Report…": a button that opens, in its slot, the reason picker and a text box; once sent
 * (or sent before: the API keeps one report per member), the slot says so.
 * @param {{targetType: "post"|"comment", targetId: string, label: string, buttonClass: string}} what
 *   `label` names the button for screen readers ("Report the comment by Ann").
 */
export function reportControl({ targetType, targetId, label, buttonClass }) {
  const slot = h("div", { class: "report-slot" });
  const start = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: buttonClass, "aria-label": label, "aria-expanded": "false" }, "Report…"));
  start.addEventListener("click", () => {
    const selectId = `report-reason-${targetId}`;
    const textId = `report-text-${targetId}`;
    const reason = /** @type {HTMLSelectElement} */ (h("select", { id: selectId, name: "reason", required: true }, REASONS.map(([value, text]) => h("option", { value }, text))));
    const text = /** @type {HTMLTextAreaElement} */ (h("textarea", { id: textId, name: "text", maxlength: MAX_TEXT, rows: 3 }));
    const send = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Send report"));
    const cancel = h("button", { type: "button", class: "button secondary" }, "Cancel");
    const form = /** @type {HTMLFormElement} */ (
      h(
        "form",
        { class: "comment-form report-form", novalidate: true, "aria-label": `Report this ${targetType}` },
        formError(),
        h("div", { class: "field", dataset: { field: "reason" } }, h("label", { for: selectId }, "Why are you reporting it?"), reason),
        h("div", { class: "field", dataset: { field: "text" } }, h("label", { for: textId }, "Anything to add (optional)"), text, h("p", { class: "hint" }, "Administrators read it; at most 500 characters.")),
        h("div", { class: "actions" }, send, cancel),
      )
    );
    const close = () => {
      mount(slot);
      start.hidden = false;
      start.setAttribute("aria-expanded", "false");
      start.focus();
    };
    cancel.addEventListener("click", close);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      clearFormErrors(form);
      const words = text.value.trim();
      try {
        await busy(send, "Sending…", () => communityApi.reportContent({ targetType, targetId, reason: /** @type {import("./api-types.gen.js").ReportReason} */ (reason.value), ...(words ? { text: words } : {}) }));
        const done = h("p", { class: "notice report-sent", role: "status" }, `Reported. An administrator will review this ${targetType}, and you will be notified of the outcome.`);
        mount(slot, done);
        announce("Report sent");
      } catch (error) {
        showFormError(form, error);
      }
    });
    start.hidden = true;
    start.setAttribute("aria-expanded", "true");
    mount(slot, form);
    reason.focus();
  });
  return [start, slot];
}
