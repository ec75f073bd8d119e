// A post's comment thread: the tree (oldest first), commenting, replying and liking comments,
// the author's edit and delete of their own comments, and an administrator's removal of any.

import * as communityApi from "./api-community.gen.js";
import { announce, h, mount, plural, time } from "./dom.js";
import * as account from "./session.js";
import { userHref } from "./community.js";
import { busy, clearFormErrors, confirmFirst, describe, errorAfter, errorBox, formError, loading, showFormError, textArea } from "./ui.js";
import { removeControl } from "./moderation.js";
import { reportControl } from "./report.js";

/** @typedef {import("./api-types.gen.js").CommunityComment} CommunityComment */

/** The API nests replies at most this deep. */
const MAX_DEPTH = 16;
/** A comment's longest text. */
const MAX_TEXT = 500;

/**
 * Loads and shows the thread of post `postId` in `section`.
 * @param {HTMLElement} section
 * @param {string} postId
 * @param {AbortSignal} signal
 */
export async function commentThread(section, postId, signal) {
  const heading = h("h2", { id: "comments-heading", tabindex: "-1" }, "Comments");
  const tree = h("div", { class: "comment-tree-holder" });
  /**
   * Draws the thread again; `focusId` is the comment to move focus to (one just added or
   * edited), or `HEADING` (after a delete).
   * @param {string|null} focusId
   */
  const load = async (focusId = null) => {
    mount(tree, loading("Loading comments"));
    try {
      const comments = await communityApi.listComments(postId, {}, { signal });
      const count = countAll(comments);
      heading.textContent = `Comments (${count.toLocaleString()})`;
      mount(
        tree,
        comments.length
          ? h("ul", { class: "comment-tree", "aria-label": plural(count, "comment") }, comments.map((c) => commentItem(c, 1, postId, load)))
          : h("p", { class: "hint" }, "No comments yet."),
      );
      if (focusId === HEADING) {
        heading.focus();
      } else if (focusId) {
        const added = tree.querySelector(`[data-comment-id="${CSS.escape(focusId)}"]`);
        if (added instanceof HTMLElement) {
          added.focus();
        }
      }
    } catch (error) {
      if (!signal.aborted) {
        mount(tree, errorBox(error, () => void load()));
      }
    }
  };
  mount(
    section,
    heading,
    account.session.user
      ? commentForm({ postId, parentId: null, label: "Add a comment", submit: "Comment", done: (id) => load(id) })
      : h("p", { class: "callout" }, h("a", { href: `/login?next=${encodeURIComponent(window.location.pathname)}` }, "Log in"), " to comment."),
    tree,
  );
  await load();
}

/** Where focus goes once a comment is deleted: the thread's heading. */
const HEADING = "#comments-heading";

/**
 * The comments of a thread, without the deleted ones kept for their replies.
 * @param {CommunityComment[]} comments
 */
function countAll(comments) {
  /** @type {number} */
  let n = 0;
  for (const c of comments) {
    n += (c.deleted ? 0 : 1) + countAll(c.replies);
  }
  return n;
}

/**
 * One comment with its replies.
 * @param {CommunityComment} comment
 * @param {number} depth 1 for a comment on the post.
 * @param {string} postId
 * @param {(focusId: string|null) => Promise<void>} reload
 * @returns {HTMLElement}
 */
function commentItem(comment, depth, postId, reload) {
  if (comment.deleted) {
    // Kept only for its replies: no author, no text, nothing to do with it.
    return h(
      "li",
      { class: "comment" },
      h("article", { tabindex: "-1", dataset: { commentId: comment.id }, "aria-label": "Deleted comment" }, h("p", { class: "comment-text deleted" }, "[deleted]")),
      comment.replies.length ? h("ul", { class: "comment-tree" }, comment.replies.map((r) => commentItem(r, depth + 1, postId, reload))) : null,
    );
  }
  const replySlot = h("div", { class: "reply-slot" });
  const text = h("p", { class: "comment-text" }, comment.text);
  const actions = h("div", { class: "actions" }, likeButton(comment));
  if (account.session.user && depth < MAX_DEPTH) {
    const reply = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "link-button", "aria-expanded": "false" }, "Reply"));
    reply.setAttribute("aria-label", `Reply to ${comment.author.displayName}`);
    reply.addEventListener("click", () => {
      if (reply.getAttribute("aria-expanded") === "true") {
        mount(replySlot);
        reply.setAttribute("aria-expanded", "false");
        return;
      }
      reply.setAttribute("aria-expanded", "true");
      const form = commentForm({
        postId,
        parentId: comment.id,
        label: `Your reply to ${comment.author.displayName}`,
        submit: "Post reply",
        done: (id) => reload(id),
        cancel: () => {
          mount(replySlot);
          reply.setAttribute("aria-expanded", "false");
          reply.focus();
        },
      });
      mount(replySlot, form);
      form.querySelector("textarea")?.focus();
    });
    actions.append(reply);
  }
  if (account.session.user?.id === comment.author.id) {
    actions.append(...ownActions(comment, text, actions, reload));
  }
  if (account.session.user && account.session.user.id !== comment.author.id) {
    actions.append(...reportControl({ targetType: "comment", targetId: comment.id, label: `Report the comment by ${comment.author.displayName}`, buttonClass: "link-button" }));
  }
  if (account.isAdmin()) {
    actions.append(
      ...removeControl({
        id: comment.id,
        noun: "comment",
        label: `Remove the comment by ${comment.author.displayName} (moderation)`,
        buttonClass: "link-button danger-link",
        remove: (reason) => communityApi.deleteComment(comment.id, { reason }),
        done: () => {
          announce("Comment removed");
          void reload(HEADING);
        },
      }),
    );
  }
  return h(
    "li",
    { class: "comment" },
    h(
      "article",
      { tabindex: "-1", dataset: { commentId: comment.id }, "aria-label": `Comment by ${comment.author.displayName}` },
      h(
        "p",
        { class: "meta" },
        h("a", { href: userHref(comment.author.id) }, comment.author.displayName),
        " · ",
        time(comment.createdAt),
        comment.editedAt ? h("span", { class: "edited" }, " · edited ", time(comment.editedAt)) : null,
      ),
      text,
      actions,
      replySlot,
    ),
    comment.replies.length ? h("ul", { class: "comment-tree" }, comment.replies.map((r) => commentItem(r, depth + 1, postId, reload))) : null,
  );
}

/**
 * The author's "Edit" (the text becomes a form in place) and "Delete" (confirmed first) of
 * their own comment.
 * @param {CommunityComment} comment
 * @param {HTMLElement} text The comment's text, which the edit form stands in for.
 * @param {HTMLElement} actions The comment's actions, hidden while the form is open.
 * @param {(focusId: string|null) => Promise<void>} reload
 */
function ownActions(comment, text, actions, reload) {
  const edit = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "link-button" }, "Edit"));
  edit.setAttribute("aria-label", "Edit your comment");
  edit.addEventListener("click", () => {
    const form = editForm(comment, {
      done: () => reload(comment.id),
      cancel: () => {
        form.replaceWith(text);
        actions.hidden = false;
        edit.focus();
      },
    });
    text.replaceWith(form);
    actions.hidden = true;
    form.querySelector("textarea")?.focus();
  });
  const slot = h("div", { class: "actions delete-comment" });
  const start = h("button", { type: "button", class: "link-button danger-link", "aria-label": "Delete your comment" }, "Delete");
  confirmFirst(slot, start, {
    warning: h("p", { class: "warning" }, comment.replies.length ? "Delete this comment? Its replies stay, under “[deleted]”." : "Delete this comment? It cannot be undone."),
    confirmLabel: "Yes, delete the comment",
    busyLabel: "Deleting…",
    act: () => communityApi.deleteComment(comment.id),
    done: () => {
      announce("Comment deleted");
      void reload(HEADING);
    },
    failed: (error, cancel) => errorAfter(cancel, error),
  });
  return [edit, slot];
}

/**
 * The form that changes the text of `comment`, in place of its text.
 * @param {CommunityComment} comment
 * @param {{done: () => Promise<void>, cancel: () => void}} how
 */
function editForm(comment, { done, cancel }) {
  return textForm({
    className: "comment-form edit-form",
    area: { label: "Your comment", name: `edit-${comment.id}`, rows: 3, value: comment.text },
    submit: "Save",
    busyLabel: "Saving…",
    cancel,
    send: async (text) => {
      await communityApi.editComment(comment.id, { text });
      announce("Comment saved");
      return done;
    },
  });
}

/**
 * A comment's like button and count.
 * @param {CommunityComment} comment
 */
function likeButton(comment) {
  let state = { likeCount: comment.likeCount, isLikedByMe: comment.isLikedByMe };
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary small comment-like" }));
  const render = () => {
    mount(button, state.isLikedByMe ? "♥ Liked" : "♡ Like", " · ", h("span", { class: "count" }, state.likeCount.toLocaleString()));
    button.setAttribute("aria-pressed", String(state.isLikedByMe));
    button.setAttribute("aria-label", `${state.isLikedByMe ? "Liked" : "Like"} — comment by ${comment.author.displayName}, ${plural(state.likeCount, "like")}`);
  };
  render();
  if (!account.session.user) {
    button.disabled = true;
    return button;
  }
  button.addEventListener("click", async () => {
    const type = state.isLikedByMe ? "NONE" : "LIKE";
    try {
      state = await busy(button, "Saving…", () => communityApi.likeComment(comment.id, { type }));
      render();
      announce(type === "LIKE" ? "Comment liked" : "Like removed");
    } catch (error) {
      render();
      announce(describe(error).text);
      errorAfter(button, error);
    }
  });
  return button;
}

/**
 * The form that adds a comment, or a reply when `parentId` is set.
 * @param {{postId: string, parentId: string|null, label: string, submit: string, done: (id: string) => Promise<void>, cancel?: () => void}} options
 */
function commentForm({ postId, parentId, label, submit, done, cancel }) {
  return textForm({
    className: parentId ? "comment-form reply-form" : "comment-form",
    area: { label, name: parentId ? `reply-${parentId}` : "text", rows: parentId ? 2 : 3, hint: parentId ? undefined : `Up to ${MAX_TEXT} characters.` },
    submit,
    busyLabel: "Posting…",
    cancel,
    send: async (text) => {
      const added = await communityApi.addComment(postId, { text, parentId });
      announce(parentId ? "Reply posted" : "Comment posted");
      return () => done(added.id);
    },
  });
}

/**
 * A form of one comment text: `send` gets the trimmed text (an empty one is not sent) and
 * resolves to what to do once the form is emptied; the API's refusal shows under the field.
 * @param {{className: string, area: {label: string, name: string, rows: number, value?: string, hint?: string}, submit: string, busyLabel: string, cancel?: () => void, send: (text: string) => Promise<() => Promise<void>>}} how
 */
function textForm({ className, area: fieldOptions, submit, busyLabel, cancel, send }) {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, submit));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: className, novalidate: true },
      formError(),
      textArea({ ...fieldOptions, required: true, maxlength: MAX_TEXT }),
      h("div", { class: "actions" }, button, cancel ? h("button", { type: "button", class: "button secondary", onClick: cancel }, "Cancel") : null),
    )
  );
  // Ids differ per form; errors the API names `text` still land under this form's field.
  form.querySelector(".field")?.setAttribute("data-field", "text");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const area = /** @type {HTMLTextAreaElement} */ (form.querySelector("textarea"));
    const text = area.value.trim();
    if (!text) {
      area.focus();
      return;
    }
    try {
      const then = await busy(button, busyLabel, () => send(text));
      area.value = "";
      await then();
    } catch (error) {
      showFormError(form, error);
    }
  });
  return form;
}
