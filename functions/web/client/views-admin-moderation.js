// Moderation (ADMIN): removing anyone's post or comment with a reason, from the post's page,
// and the moderation log of every removal, newest first, a page at a time.

import * as communityAdminApi from "./api-community-admin.gen.js";
import { h, mount, plural, time } from "./dom.js";
import { ApiError } from "./http.js";
import { postHref, userHref } from "./community.js";
import { busy, clearFormErrors, empty, field, formError, showFormError } from "./ui.js";
import { cursorListPage } from "./views-admin-ai.js";

/** @typedef {import("./api-types.gen.js").ModerationLogEntry} ModerationLogEntry */

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

/**
 * `/admin/moderation`: every removal with its reason, who removed what of whose, newest first;
 * "More removals" adds the next page.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export function moderationLogPage(main, match, context) {
  return cursorListPage(main, match, context, {
    heading: "Moderation log",
    lede: "Posts and comments administrators removed, newest first, with the reason each was given.",
    kind: "moderation",
    label: "Removals",
    fetch: communityAdminApi.listModerationLog,
    card: entryCard,
    none: () => empty("No removals yet", "A post or comment an administrator removes is listed here with its reason."),
    // The API counts the log up to 1,000.
    count: (n) => (n >= 1000 ? "1,000 or more removals" : plural(n, "removal")),
    moreLabel: "More removals",
  });
}

/** @param {ModerationLogEntry} entry */
function entryCard(entry) {
  const post = entry.targetKind === "POST";
  return h(
    "li",
    { class: "card moderation-entry", dataset: { targetId: entry.targetId, kind: entry.targetKind } },
    h("h3", { class: "card-title" }, post ? "Post removed" : "Comment removed"),
    h("p", { class: "meta" }, time(entry.removedAt), " · by ", h("a", { href: userHref(entry.moderatorId) }, "this administrator"), " · written by ", h("a", { href: userHref(entry.authorId) }, "this member")),
    h("p", { class: "moderation-reason" }, h("strong", null, "Reason: "), entry.reason),
    // A removed post answers 404 to everyone: only a removed comment's post is worth a link.
    post ? h("p", { class: "hint" }, "Post ", h("code", null, entry.postId)) : h("p", { class: "hint" }, "On ", h("a", { href: postHref(entry.postId) }, "this post"), ", comment ", h("code", null, entry.targetId)),
  );
}
