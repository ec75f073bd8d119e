// One community post: body and cover, its AI summary with the summary's state, like/dislike
// with counts, bookmark, the author's edit link and delete, an administrator's removal with a
// reason, comment thread.

import * as communityApi from "./api-community.gen.js";
import * as communityAdminApi from "./api-community-admin.gen.js";
import { announce, h, mount, plural, time } from "./dom.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { commentThread } from "./comments.js";
import { communityTopicChips, cover, userHref } from "./community.js";
import { busy, confirmFirst, describe, errorAfter, errorBox, loading } from "./ui.js";
import { removeControl } from "./moderation.js";
import { reportControl } from "./report.js";
import { postBody } from "./post-body.js";

/** @typedef {import("./api-types.gen.js").Post} Post */
/** @typedef {import("./api-types.gen.js").PostSummary} PostSummary */

/** How often a PENDING summary is asked for again, and how many times before the page stops. */
const SUMMARY_POLL_MS = 2000;
const SUMMARY_POLLS = 60;

/**
 * `/community/posts/{id}`.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function communityPost(main, match, { signal, title }) {
  const id = match.params.id;
  const heading = h("h1", { tabindex: "-1", id: "post-title" }, "Post");
  title("Post");
  let viewed = false;
  const load = async () => {
    mount(main, h("div", { class: "page-head" }, heading), loading("Loading the post"));
    try {
      const post = await communityApi.getPost(id, { signal });
      heading.textContent = post.title;
      title(post.title);
      const thread = h("section", { class: "comments", "aria-labelledby": "comments-heading" });
      // The heading moves into the post: keep the focus the page change gave it.
      const focused = document.activeElement === heading;
      mount(main, reader(post, heading, signal), post.status === "PUBLISHED" ? thread : null);
      if (focused) {
        heading.focus();
      }
      if (post.status === "PUBLISHED" && !viewed) {
        // One view beacon per page open (a retry of the page is not another view); the
        // server counts it at most once an hour per reader, and a lost one only loses a view.
        viewed = true;
        communityApi.viewPost(post.id).catch(() => {});
      }
      if (post.status === "PUBLISHED") {
        await commentThread(thread, post.id, signal);
      }
    } catch (error) {
      if (!signal.aborted) {
        mount(main, h("div", { class: "page-head" }, h("p", { class: "eyebrow" }, h("a", { href: "/community" }, "Community")), heading), errorBox(error, load));
      }
    }
  };
  await load();
}

/**
 * @param {Post} post
 * @param {HTMLElement} heading
 * @param {AbortSignal} signal
 */
function reader(post, heading, signal) {
  const mine = account.session.user?.id === post.author.id;
  const draft = post.status === "DRAFT";
  return h(
    "article",
    { class: "reader post", "aria-labelledby": "post-title" },
    h(
      "header",
      null,
      h("p", { class: "eyebrow" }, h("a", { href: "/community" }, "Community"), draft ? h("span", { class: "badge draft" }, "Draft — only you can see it") : null),
      heading,
      h(
        "p",
        { class: "meta" },
        "By ",
        h("a", { href: userHref(post.author.id) }, post.author.displayName),
        " · ",
        time(post.createdAt),
        post.updatedAt !== post.createdAt ? [" · edited ", time(post.updatedAt)] : null,
        ` · ${post.readTimeMinutes} min read · ${plural(post.viewCount, "view")}`,
      ),
      communityTopicChips(post.topics),
      h(
        "div",
        { class: "actions" },
        draft ? null : reactions(post),
        draft ? null : bookmarkButton(post),
        mine ? h("a", { class: "button secondary", href: `/community/posts/${encodeURIComponent(post.id)}/edit` }, draft ? "Edit draft" : "Edit post") : null,
      ),
      mine ? deletePost(post) : null,
      account.isAdmin() && !draft ? removePost(post) : null,
      account.session.user && !mine && !draft ? h("div", { class: "actions report-post" }, ...reportControl({ targetType: "post", targetId: post.id, label: "Report the post", buttonClass: "button secondary" })) : null,
    ),
    cover(post.coverImageUrl, "hero"),
    summarySection(post, signal),
    // The server's safe rendering of the Markdown; plain paragraphs only if an answer lacks it.
    post.contentHtml !== undefined
      ? postBody(post.contentHtml)
      : h("div", { class: "body" }, post.content.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean).map((p) => h("p", null, p))),
  );
}

/** What each state of a summary is called on the page, and what it means for the reader. */
const SUMMARY_STATES = {
  PENDING: ["Being written", "The model is writing the summary; it shows here when it is ready."],
  COMPLETED: ["Written", ""],
  FAILED: ["Failed", "The model could not summarise this post; an administrator can try again."],
  NONE: ["None yet", "This post has no summary yet."],
};

/**
 * The post's AI summary under its own heading, with its state; while PENDING the page asks
 * again every few seconds (a live region says when it changes). A FAILED one offers an
 * administrator "Retry the summary".
 * @param {Post} post
 * @param {AbortSignal} signal
 */
function summarySection(post, signal) {
  const body = h("div", { class: "summary-body", "aria-live": "polite" });
  const retrySlot = h("div", { class: "actions summary-retry" });
  const section = h("section", { class: "post-summary", "aria-labelledby": "summary-heading" }, h("h2", { id: "summary-heading" }, "AI summary"), body, retrySlot);
  /** @param {PostSummary} summary */
  const draw = (summary) => {
    const status = summary.status ?? "NONE";
    const [label, note] = SUMMARY_STATES[status];
    section.dataset.status = status;
    mount(
      body,
      h(
        "p",
        { class: "meta summary-state" },
        h("span", { class: `badge summary-${status.toLowerCase()}` }, label),
        status === "COMPLETED" && summary.model ? [" by ", summary.model] : null,
        status === "COMPLETED" && summary.generatedAt ? [" · ", time(summary.generatedAt)] : null,
        note ? [" ", note] : null,
      ),
      // While PENDING or after a failure, the summary is the previous one: say so.
      summary.summary && status !== "COMPLETED" ? h("p", { class: "hint" }, "The previous summary:") : null,
      summary.summary ? h("p", { class: "summary-text" }, summary.summary) : null,
    );
    mount(retrySlot, status === "FAILED" && account.isAdmin() ? retryButton() : null);
  };
  const poll = async () => {
    for (let n = 0; n < SUMMARY_POLLS; n++) {
      await new Promise((resolve) => window.setTimeout(resolve, SUMMARY_POLL_MS));
      if (signal.aborted || !section.isConnected) {
        return;
      }
      try {
        const summary = await communityApi.getPostSummary(post.id, { signal, cache: "no-store" });
        if (summary.status !== "PENDING") {
          draw(summary);
          return;
        }
      } catch {
        // A failed look is only a missed update: the next one (or a reload) shows it.
      }
    }
  };
  const retryButton = () => {
    const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary small" }, "Retry the summary"));
    button.addEventListener("click", async () => {
      try {
        const summary = await busy(button, "Retrying…", () => communityAdminApi.retryPostSummary(post.id));
        draw(summary);
        announce("The summary is being written again");
        void poll();
      } catch (error) {
        errorAfter(button, error);
      }
    });
    return button;
  };
  draw({ status: post.summaryStatus, summary: post.summary, model: post.summaryModel, generatedAt: post.summaryGeneratedAt });
  if (post.summaryStatus === "PENDING") {
    void poll();
  }
  return section;
}

/**
 * An administrator's "Remove…" of the post, with a reason for the moderation log; then the
 * community's latest posts.
 * @param {Post} post
 */
function removePost(post) {
  return h(
    "div",
    { class: "actions remove-post" },
    removeControl({
      id: post.id,
      noun: "post",
      label: "Remove the post (moderation)",
      buttonClass: "button secondary danger-link",
      remove: (reason) => communityApi.deletePost(post.id, { reason }),
      done: () => {
        announce(`“${post.title}” was removed`);
        navigate("/community");
      },
    }),
  );
}

/**
 * The author's "Delete post", confirmed first; then the author's list of posts.
 * @param {Post} post
 */
function deletePost(post) {
  const slot = h("div", { class: "actions delete-post" });
  const start = h("button", { type: "button", class: "button secondary danger-link" }, post.status === "DRAFT" ? "Delete draft…" : "Delete post…");
  confirmFirst(slot, start, {
    warning: h("p", { class: "warning" }, "The post leaves every list, topic and search, with its comments. It cannot be undone."),
    confirmLabel: "Yes, delete the post",
    busyLabel: "Deleting…",
    act: () => communityApi.deletePost(post.id),
    done: () => {
      announce(`“${post.title}” was deleted`);
      navigate(post.status === "DRAFT" ? "/community/me?list=drafts" : "/community/me");
    },
    failed: (error, cancel) => errorAfter(cancel, error),
  });
  return slot;
}

/** A link to log in and come back, for actions that need an account. */
function loginLink(/** @type {string} */ text) {
  return h("a", { class: "button secondary", href: `/login?next=${encodeURIComponent(window.location.pathname)}` }, text);
}

/**
 * Like and dislike buttons with their counts; pressing the pressed one takes it back.
 * @param {Post} post
 */
function reactions(post) {
  let state = { likeCount: post.likeCount, dislikeCount: post.dislikeCount, isLikedByMe: post.isLikedByMe, isDislikedByMe: post.isDislikedByMe };
  const like = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary reaction like" }));
  const dislike = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary reaction dislike" }));
  const render = () => {
    mount(like, h("span", { "aria-hidden": "true" }, "▲"), " Like ", h("span", { class: "count" }, state.likeCount.toLocaleString()));
    mount(dislike, h("span", { "aria-hidden": "true" }, "▼"), " Dislike ", h("span", { class: "count" }, state.dislikeCount.toLocaleString()));
    like.setAttribute("aria-pressed", String(state.isLikedByMe));
    dislike.setAttribute("aria-pressed", String(state.isDislikedByMe));
  };
  render();
  if (!account.session.user) {
    like.disabled = true;
    dislike.disabled = true;
    return h("div", { class: "reactions", role: "group", "aria-label": "Reactions" }, like, dislike, loginLink("Log in to react"));
  }
  const react = async (/** @type {HTMLButtonElement} */ button, /** @type {"LIKE"|"DISLIKE"} */ kind) => {
    const pressed = kind === "LIKE" ? state.isLikedByMe : state.isDislikedByMe;
    const type = pressed ? "NONE" : kind;
    try {
      state = await busy(button, "Saving…", () => communityApi.reactToPost(post.id, { type }));
      render();
      announce(type === "NONE" ? "Reaction removed" : `${type === "LIKE" ? "Liked" : "Disliked"}: ${plural(state.likeCount, "like")}, ${plural(state.dislikeCount, "dislike")}`);
    } catch (error) {
      render();
      announce(describe(error).text);
      errorAfter(button.parentElement ?? button, error);
    }
  };
  like.addEventListener("click", () => react(like, "LIKE"));
  dislike.addEventListener("click", () => react(dislike, "DISLIKE"));
  return h("div", { class: "reactions", role: "group", "aria-label": "Reactions" }, like, dislike);
}

/** @param {Post} post */
function bookmarkButton(post) {
  if (!account.session.user) {
    return loginLink("Log in to bookmark");
  }
  let state = { saveCount: post.saveCount, isBookmarkedByMe: post.isBookmarkedByMe };
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary bookmark" }));
  const render = () => {
    mount(button, state.isBookmarkedByMe ? "★ Bookmarked" : "☆ Bookmark", " · ", h("span", { class: "count" }, plural(state.saveCount, "save")));
    button.setAttribute("aria-pressed", String(state.isBookmarkedByMe));
  };
  button.addEventListener("click", async () => {
    const want = !state.isBookmarkedByMe;
    try {
      state = await busy(button, want ? "Bookmarking…" : "Removing…", () => (want ? communityApi.bookmarkPost(post.id) : communityApi.unbookmarkPost(post.id)));
      render();
      announce(state.isBookmarkedByMe ? "Bookmarked: it is in your bookmarked posts" : "Bookmark removed");
    } catch (error) {
      render();
      announce(describe(error).text);
      errorAfter(button, error);
    }
  });
  render();
  return button;
}
