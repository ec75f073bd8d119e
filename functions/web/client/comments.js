// A post's comment thread: the tree (oldest first), commenting, replying and liking comments.

import * as api from "./api.gen.js";
import { announce, h, mount, plural, time } from "./dom.js";
import * as account from "./session.js";
import { userHref } from "./community.js";
import { busy, clearFormErrors, describe, errorAfter, errorBox, formError, loading, showFormError, textArea } from "./ui.js";

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
  const heading = h("h2", { id: "comments-heading" }, "Comments");
  const tree = h("div", { class: "comment-tree-holder" });
  /**
   * Draws the thread again; `focusId` is the comment to move focus to (one just added).
   * @param {string|null} focusId
   */
  const load = async (focusId = null) => {
    mount(tree, loading("Loading comments"));
    try {
      const comments = await api.listComments(postId, { signal });
      const count = countAll(comments);
      heading.textContent = `Comments (${count.toLocaleString()})`;
      mount(
        tree,
        comments.length
          ? h("ul", { class: "comment-tree", "aria-label": plural(count, "comment") }, comments.map((c) => commentItem(c, 1, postId, load)))
          : h("p", { class: "hint" }, "No comments yet."),
      );
      if (focusId) {
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

/** @param {api.CommunityComment[]} comments */
function countAll(comments) {
  /** @type {number} */
  let n = 0;
  for (const c of comments) {
    n += 1 + countAll(c.replies);
  }
  return n;
}

/**
 * One comment with its replies.
 * @param {api.CommunityComment} comment
 * @param {number} depth 1 for a comment on the post.
 * @param {string} postId
 * @param {(focusId: string|null) => Promise<void>} reload
 * @returns {HTMLElement}
 */
function commentItem(comment, depth, postId, reload) {
  const replySlot = h("div", { class: "reply-slot" });
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
  return h(
    "li",
    { class: "comment" },
    h(
      "article",
      { tabindex: "-1", dataset: { commentId: comment.id }, "aria-label": `Comment by ${comment.author.displayName}` },
      h("p", { class: "meta" }, h("a", { href: userHref(comment.author.id) }, comment.author.displayName), " · ", time(comment.createdAt)),
      h("p", { class: comment.text === "[deleted]" ? "comment-text deleted" : "comment-text" }, comment.text),
      actions,
      replySlot,
    ),
    comment.replies.length ? h("ul", { class: "comment-tree" }, comment.replies.map((r) => commentItem(r, depth + 1, postId, reload))) : null,
  );
}

/**
 * A comment's like button and count.
 * @param {api.CommunityComment} comment
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
      state = await busy(button, "Saving…", () => api.likeComment(comment.id, { type }));
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
  const name = parentId ? `reply-${parentId}` : "text";
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, submit));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: parentId ? "comment-form reply-form" : "comment-form", novalidate: true },
      formError(),
      textArea({ label, name, required: true, maxlength: MAX_TEXT, rows: parentId ? 2 : 3, hint: parentId ? undefined : `Up to ${MAX_TEXT} characters.` }),
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
      const added = await busy(button, "Posting…", () => api.addComment(postId, { text, parentId }));
      area.value = "";
      announce(parentId ? "Reply posted" : "Comment posted");
      await done(added.id);
    } catch (error) {
      showFormError(form, error);
    }
  });
  return form;
}
