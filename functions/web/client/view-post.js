// One community post: body and cover, like/dislike with counts, bookmark, edit link, comment thread.

import * as api from "./api.gen.js";
import { announce, h, mount, plural, time } from "./dom.js";
import * as account from "./session.js";
import { commentThread } from "./comments.js";
import { communityTopicChips, cover, userHref } from "./community.js";
import { busy, describe, errorAfter, errorBox, loading } from "./ui.js";

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
      const post = await api.getPost(id, { signal });
      heading.textContent = post.title;
      title(post.title);
      const thread = h("section", { class: "comments", "aria-labelledby": "comments-heading" });
      // The heading moves into the post: keep the focus the page change gave it.
      const focused = document.activeElement === heading;
      mount(main, reader(post, heading), post.status === "PUBLISHED" ? thread : null);
      if (focused) {
        heading.focus();
      }
      if (post.status === "PUBLISHED" && !viewed) {
        // One view beacon per page open (a retry of the page is not another view); the
        // server counts it at most once an hour per reader, and a lost one only loses a view.
        viewed = true;
        api.viewPost(post.id).catch(() => {});
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
 * @param {api.Post} post
 * @param {HTMLElement} heading
 */
function reader(post, heading) {
  const mine = account.session.user?.id === post.author.id;
  const draft = post.status === "DRAFT";
  const paragraphs = post.content.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
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
    ),
    cover(post.coverImageUrl, "hero"),
    h("div", { class: "body" }, paragraphs.map((p) => h("p", null, p))),
  );
}

/** A link to log in and come back, for actions that need an account. */
function loginLink(/** @type {string} */ text) {
  return h("a", { class: "button secondary", href: `/login?next=${encodeURIComponent(window.location.pathname)}` }, text);
}

/**
 * Like and dislike buttons with their counts; pressing the pressed one takes it back.
 * @param {api.Post} post
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
      state = await busy(button, "Saving…", () => api.reactToPost(post.id, { type }));
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

/** @param {api.Post} post */
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
      state = await busy(button, want ? "Bookmarking…" : "Removing…", () => (want ? api.bookmarkPost(post.id) : api.unbookmarkPost(post.id)));
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
