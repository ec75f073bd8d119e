// An administrator's removal of a post or a comment with its reason, on the post's page: apart
// from the moderation log's page, so a post's page does not load the administration's pages.

import { h, mount } from "./dom.js";
import { ApiError } from "./http.js";
import { busy, clearFormErrors, field, formError, showFormError } from "./ui.js";

/** A removal's longest reason (the API takes 1 to 500 characters). */
const MAX_REASON = 500;

/**
 * An administrator's "Remove…" of a post or a comment: a button that opens, in `slot`, the
 * form asking the reason (a blank one is refused here, the API's other refusals show under
 * its field too).
 * @param {{id: string, noun: "post"|"comment", label: string, buttonClass: string, remove: (reason: string) => Promise<unknown>, done: () => void}} what
 *   `label` names the button for screen readers ("Remove the comment by Ann").
 */
export function removeControl({ id, noun, label, buttonClass, remove, done }) {
  const slot = h("div", { class: "remove-slot" });
  const start = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: buttonClass, "aria-label": label, "aria-expanded": "false" }, "Remove…"));
  start.addEventListener("click", () => {
    const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button danger" }, `Remove the ${noun}`));
    const cancel = h("button", { type: "button", class: "button secondary" }, "Cancel");
    const form = /** @type {HTMLFormElement} */ (
      h(
        "form",
        { class: "comment-form remove-form", novalidate: true },
        formError(),
        field({ label: `Reason for removing the ${noun}`, name: `reason-${id}`, required: true, maxlength: MAX_REASON, hint: "One line, kept in the moderation log, which administrators read." }),
        h("div", { class: "actions" }, button, cancel),
      )
    );
    // Ids differ per form; errors the API names `reason` land under this form's field.
    form.querySelector(".field")?.setAttribute("data-field", "reason");
    cancel.addEventListener("click", () => {
      mount(slot);
      start.hidden = false;
      start.setAttribute("aria-expanded", "false");
      start.focus();
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      clearFormErrors(form);
      const reason = /** @type {HTMLInputElement} */ (form.querySelector("input"));
      // A blank reason never reaches the API: without one, a delete is the author's own.
      if (!reason.value.trim()) {
        showFormError(form, new ApiError(400, "A removal needs its reason", ["reason: must not be blank"]));
        return;
      }
      try {
        await busy(button, "Removing…", () => remove(reason.value.trim()));
        done();
      } catch (error) {
        showFormError(form, error);
      }
    });
    start.hidden = true;
    start.setAttribute("aria-expanded", "true");
    mount(slot, form);
    form.querySelector("input")?.focus();
  });
  return [start, slot];
}
