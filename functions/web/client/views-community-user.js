// A member's lists: published posts, and (their own, or where they show them) drafts, bookmarks, likes.

import * as communityApi from "./api-community.gen.js";
import { h, mount } from "./dom.js";
import * as account from "./session.js";
import { POSTS_PER_PAGE, pageOf, postList, withPage } from "./community.js";
import { needsLogin } from "./access.js";
import { headed } from "./ui.js";

/** @typedef {"posts"|"drafts"|"bookmarks"|"likes"} ListName */

/** @type {{name: ListName, label: string, own: string, other: string}[]} */
const LISTS = [
  { name: "posts", label: "Published", own: "You have not published a post yet.", other: "No published posts." },
  { name: "drafts", label: "Drafts", own: "No drafts. “Save draft” on the write page keeps one here, visible to you only.", other: "No drafts." },
  { name: "bookmarks", label: "Bookmarked", own: "No bookmarks yet: “Bookmark” on a post keeps it here.", other: "No bookmarked posts." },
  { name: "likes", label: "Liked", own: "No liked posts yet.", other: "No liked posts." },
];

/**
 * @param {string} userId
 * @param {ListName} list
 * @param {number} page
 * @param {AbortSignal} signal
 */
function fetchList(userId, list, page, signal) {
  const query = { page, size: POSTS_PER_PAGE };
  switch (list) {
    case "drafts":
      return communityApi.userPosts(userId, { ...query, status: "DRAFT" }, { signal });
    case "bookmarks":
      return communityApi.userBookmarks(userId, query, { signal });
    case "likes":
      return communityApi.userLikes(userId, query, { signal });
    default:
      return communityApi.userPosts(userId, { ...query, status: "PUBLISHED" }, { signal });
  }
}

/**
 * `/community/me`: the user's own lists, drafts included.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function communityMe(main, match, context) {
  const user = account.session.user;
  if (!user) {
    context.title("Your posts");
    needsLogin(main, "Your posts");
    return;
  }
  await memberLists(main, match, context, user.id, "/community/me");
}

/**
 * `/community/users/{id}`: a member's lists as others see them (their own when it is the
 * user); the API answers 403 for lists the member does not show, and for drafts.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function communityUser(main, match, context) {
  await memberLists(main, match, context, match.params.id, `/community/users/${encodeURIComponent(match.params.id)}`);
}

/**
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 * @param {string} userId
 * @param {string} base
 */
async function memberLists(main, match, { signal, title }, userId, base) {
  const own = account.session.user?.id === userId;
  const asked = match.query.get("list");
  const current = LISTS.find((l) => l.name === asked) ?? LISTS[0];
  const name = own ? "Your posts" : "A member’s posts";
  const heading = h("h1", { tabindex: "-1" }, name);
  title(name);
  // Others' drafts are never offered; a deep link to them shows the API's refusal.
  const tabs = LISTS.filter((l) => own || l.name !== "drafts" || l === current);
  const section = h("div");
  mount(
    main,
    h(
      "div",
      { class: "page-head" },
      h("p", { class: "eyebrow" }, h("a", { href: "/community" }, "Community")),
      heading,
      own ? h("p", { class: "actions" }, h("a", { class: "button", href: "/community/write" }, "Write a post")) : null,
    ),
    h(
      "nav",
      { class: "list-tabs", "aria-label": "Lists" },
      h("ul", null, tabs.map((l) => h("li", null, h("a", { href: withPage(base, l.name === "posts" ? {} : { list: l.name }, 0), "aria-current": l === current ? "page" : null }, l.label)))),
    ),
    headed(`${current.label} posts`, section),
  );
  await postList(section, {
    fetch: (p) => fetchList(userId, current.name, p, signal),
    page: pageOf(match.query),
    href: (p) => withPage(base, current.name === "posts" ? {} : { list: current.name }, p),
    signal,
    emptyText: own ? current.own : current.other,
    label: `${current.label} posts`,
    mine: own && (current.name === "posts" || current.name === "drafts"),
    onLoaded: (page) => {
      const author = page.content.find((p) => p.author.id === userId)?.author;
      if (!own && author) {
        heading.textContent = `Posts by ${author.displayName}`;
        title(author.displayName);
      }
    },
  });
}
