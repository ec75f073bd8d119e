// The community's reading pages: topic catalog with the latest posts, one topic's posts, search.

import * as communityApi from "./api-community.gen.js";
import { announce, h, mount, plural } from "./dom.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { POSTS_PER_PAGE, markChanged, pageOf, postList, topicFigures, topicHref, topicSlug, topicsCache, withPage } from "./community.js";
import { followButton } from "./views-browse.js";
import { bell } from "./notifications-bell.js";
import { empty, errorBox, headed, loading } from "./ui.js";

/**
 * The search box every community page starts with.
 * @param {string} [value]
 */
function searchForm(value = "") {
  const input = /** @type {HTMLInputElement} */ (h("input", { id: "community-q", name: "q", type: "search", value, maxlength: 200, required: true, autocomplete: "off", "aria-describedby": "community-q-hint" }));
  const form = h(
    "form",
    { class: "search-form", role: "search", "aria-label": "Search posts" },
    h("label", { for: "community-q" }, "Search posts"),
    h("div", { class: "search-row" }, input, h("button", { type: "submit", class: "button" }, "Search")),
    h("p", { class: "hint", id: "community-q-hint" }, "Published posts holding every word, best matches first."),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const q = input.value.trim();
    if (q) {
      navigate(`/community/search?q=${encodeURIComponent(q)}`);
    } else {
      input.focus();
    }
  });
  return form;
}

/** "Write a post" and "Your posts", or an invitation to log in. */
function writeActions() {
  if (!account.session.user) {
    return h("p", { class: "actions" }, h("a", { class: "button", href: "/login?next=%2Fcommunity%2Fwrite" }, "Log in to write a post"));
  }
  return h("p", { class: "actions" }, h("a", { class: "button", href: "/community/write" }, "Write a post"), h("a", { class: "button secondary", href: "/community/me" }, "Your posts"), bell());
}

/**
 * `/community`: the topic catalog with statistics beside the newest posts of every topic.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function communityHome(main, match, { signal, title }) {
  title("Community");
  const page = pageOf(match.query);
  const catalog = h("section", { class: "topic-catalog", "aria-labelledby": "catalog-heading" }, h("h2", { id: "catalog-heading" }, "Topics"), loading("Loading topics"));
  const list = h("section", { "aria-labelledby": "latest-posts-heading" }, h("h2", { id: "latest-posts-heading" }, "Latest posts"));
  const posts = h("div");
  list.append(posts);
  mount(
    main,
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Community"), h("p", { class: "lede" }, "Posts written by readers, by topic, newest first."), writeActions()),
    searchForm(),
    h("div", { class: "community-layout" }, list, catalog),
  );
  void showCatalog(catalog, signal);
  await postList(posts, {
    fetch: (p) => communityApi.listPosts({ page: p, size: POSTS_PER_PAGE }, { signal }),
    page,
    href: (p) => withPage("/community", {}, p),
    signal,
    emptyText: "No posts yet — be the first to write one.",
    label: "Latest posts",
  });
}

/**
 * The catalog: each category with its topics and their figures.
 * @param {HTMLElement} slot
 * @param {AbortSignal} signal
 */
async function showCatalog(slot, signal) {
  const heading = slot.querySelector("h2");
  const load = async () => {
    mount(slot, heading, loading("Loading topics"));
    try {
      const categories = (await communityApi.topicCatalog({ signal, cache: topicsCache() })).filter((c) => c.topics.length);
      if (!categories.length) {
        mount(slot, heading, empty("No topics yet", "Topics appear with the posts that name them."));
        return;
      }
      mount(
        slot,
        heading,
        categories.map((c) =>
          h(
            "div",
            { class: "category" },
            h("h3", { class: "strip-title" }, c.label),
            h(
              "ul",
              { class: "topic-list", "aria-label": c.label },
              c.topics.map((t) => h("li", { dataset: { topic: t.slug } }, h("a", { href: topicHref(t.name) }, t.displayName), t.isHot ? h("span", { class: "badge hot" }, "Hot") : null, h("br"), h("span", { class: "count" }, topicFigures(t)))),
            ),
          ),
        ),
      );
    } catch (error) {
      if (!signal.aborted) {
        mount(slot, heading, errorBox(error, load));
      }
    }
  };
  await load();
}

/**
 * `/community/topics/{slug}`: one topic's figures and its posts, newest first.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function communityTopic(main, match, { signal, title }) {
  const slug = topicSlug(match.params.name);
  const heading = h("h1", { tabindex: "-1" }, match.params.name);
  const figures = h("p", { class: "meta topic-figures", "aria-live": "polite" });
  const actions = h("div", { class: "actions" });
  const posts = h("div");
  title(match.params.name);
  mount(main, h("div", { class: "page-head" }, h("p", { class: "eyebrow" }, h("a", { href: "/community" }, "Community")), heading, figures, actions), headed("Posts on this topic", posts));
  const showFigures = async () => {
    try {
      const found = (await communityApi.topicStats({ signal, cache: topicsCache() })).find((t) => t.slug === slug);
      if (found) {
        heading.textContent = found.displayName;
        title(found.displayName);
        mount(figures, topicFigures(found), found.isHot ? h("span", { class: "badge hot" }, "Hot") : null);
      } else {
        mount(figures, "No posts have named this topic yet.");
      }
      // Following is kept in the settings by slug; the follower count moves with it.
      mount(
        actions,
        followButton({ id: slug, name: found?.displayName ?? slug }, () => {
          markChanged();
          void showFigures();
        }),
      );
    } catch {
      // The figures are extra; the list below shows its own errors.
    }
  };
  void showFigures();
  await postList(posts, {
    fetch: (p) => communityApi.listPosts({ topic: slug, page: p, size: POSTS_PER_PAGE }, { signal }),
    page: pageOf(match.query),
    href: (p) => withPage(`/community/topics/${encodeURIComponent(slug)}`, {}, p),
    signal,
    emptyText: "No published posts on this topic.",
    label: "Posts on this topic",
  });
}

/**
 * `/community/search?q=`: published posts holding every word, best first, with whether the
 * user likes or bookmarked each.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function communitySearch(main, match, { signal, title }) {
  const q = (match.query.get("q") ?? "").trim();
  title(q ? `Search: ${q}` : "Search posts");
  const results = h("div");
  mount(main, h("div", { class: "page-head" }, h("p", { class: "eyebrow" }, h("a", { href: "/community" }, "Community")), h("h1", { tabindex: "-1" }, "Search posts")), searchForm(q), headed("Search results", results));
  if (!q) {
    mount(results, empty("Type the words to look for", "Search finds published posts holding every word you type."));
    return;
  }
  const summary = h("p", { class: "search-summary" });
  const list = h("div");
  mount(results, summary, list);
  await postList(list, {
    fetch: async (p) => {
      const found = await communityApi.searchPosts({ q, page: p, size: POSTS_PER_PAGE }, { signal });
      const text = `${plural(found.totalElements, "post")} found for “${q}”`;
      summary.textContent = text;
      announce(text);
      return found;
    },
    page: pageOf(match.query),
    href: (p) => withPage("/community/search", { q }, p),
    signal,
    emptyText: `No published post holds every word of “${q}”. New posts take a few seconds to be found.`,
    label: "Search results",
  });
}
