// Shared community pieces: topic slugs and chips, post cards, paged post lists, topic-cache freshness.

import { h, mount, plural, safeUrl, time } from "./dom.js";
import { empty, errorBox, loading, pager } from "./ui.js";

/** @typedef {import("./api-types.gen.js").CommunityTopic} CommunityTopic */
/** @typedef {import("./api-types.gen.js").Post} Post */
/** @typedef {import("./api-types.gen.js").PostPage} PostPage */

/** Posts per page (the API's default). */
export const POSTS_PER_PAGE = 10;

/** Where the time of the user's last post write is kept for this tab. */
const CHANGED_KEY = "newsReader.communityChangedAt";
/** The API lets caches keep topic lists 30 seconds; revalidate for a while after a write. */
const REVALIDATE_FOR_MS = 60_000;

/** Latin letters with diacritics and their ASCII base, as `platform::topic` folds them. */
const FOLD = new Map(
  Object.entries({
    A: "ÀÁÂÃÄÅĀĂĄ",
    a: "àáâãäåāăą",
    AE: "Æ",
    ae: "æ",
    C: "ÇĆČĈĊ",
    c: "çćčĉċ",
    D: "ÐĎĐ",
    d: "ðďđ",
    E: "ÈÉÊËĒĔĖĘĚ",
    e: "èéêëēĕėęě",
    G: "ĞĜĠĢ",
    g: "ğĝġģ",
    I: "ÌÍÎÏĪĮİ",
    i: "ìíîïīįı",
    L: "ŁĽĹĻ",
    l: "łľĺļ",
    N: "ÑŃŇŅ",
    n: "ñńňņ",
    O: "ÒÓÔÕÖØŌŐ",
    o: "òóôõöøōő",
    OE: "Œ",
    oe: "œ",
    R: "ŔŘ",
    r: "ŕř",
    S: "ŚŠŞȘ",
    s: "śšşș",
    ss: "ß",
    T: "ŤŢȚ",
    t: "ťţț",
    TH: "Þ",
    th: "þ",
    U: "ÙÚÛÜŪŮŰŲ",
    u: "ùúûüūůűų",
    Y: "ÝŸ",
    y: "ýÿ",
    Z: "ŹŻŽ",
    z: "źżž",
  }).flatMap(([base, letters]) => [...letters].map((letter) => [letter, base])),
);

/**
 * The slug of a topic name, as the API makes it (API.md, `platform::topic::slug`): NFKC,
 * Latin diacritics folded ("Café" is `cafe`), lowercase; letters, marks and digits of any
 * script kept ("日本" is `日本`); `#` and `+` after a letter or digit spelled `sharp` and `plus`
 * ("C#" is `c-sharp`, "C++" `c-plus-plus`); every other run one `-`, none at either end; at
 * most 60 characters. "Public Transport" is `public-transport`.
 * @param {string} name
 */
export function topicSlug(name) {
  let out = "";
  let gap = false;
  for (const c of name.normalize("NFKC")) {
    for (const lower of (FOLD.get(c) ?? c).toLowerCase()) {
      if (/[\p{L}\p{M}\p{N}]/u.test(lower)) {
        if (gap && out) out += "-";
        gap = false;
        out += lower;
      } else if ((lower === "#" || lower === "+") && out) {
        out += lower === "#" ? "-sharp" : "-plus";
        gap = true;
      } else {
        gap = true;
      }
    }
  }
  const chars = [...out];
  return chars.length > 60 ? chars.slice(0, 60).join("").replace(/-+$/, "") : out;
}

/** @param {string} name */
export function topicHref(name) {
  return `/community/topics/${encodeURIComponent(topicSlug(name))}`;
}

/** @param {string} id */
export function postHref(id) {
  return `/community/posts/${encodeURIComponent(id)}`;
}

/** @param {string} id */
export function userHref(id) {
  return `/community/users/${encodeURIComponent(id)}`;
}

/** Records that the user changed posts (topic statistics move with them). */
export function markChanged() {
  try {
    sessionStorage.setItem(CHANGED_KEY, String(Date.now()));
  } catch {
    // Storage refused (private mode): statistics may lag by the API's 30 seconds.
  }
}

/**
 * The cache mode for topic lists: revalidated shortly after the user's own writes, so the
 * counts they just changed show at once.
 * @returns {RequestCache}
 */
export function topicsCache() {
  let at = 0;
  try {
    at = Number(sessionStorage.getItem(CHANGED_KEY) ?? "0");
  } catch {
    at = 0;
  }
  return Date.now() - at < REVALIDATE_FOR_MS ? "no-cache" : "default";
}

/**
 * A topic's figures in words: "3 posts · 2 this week · 1 follower".
 * @param {CommunityTopic} topic
 */
export function topicFigures(topic) {
  return `${plural(topic.totalPostCount, "post")} · ${topic.postsThisWeek.toLocaleString()} this week · ${plural(topic.followerCount, "follower")}`;
}

/**
 * A post's topics as links to their community pages.
 * @param {{id: string, name: string}[]} topics
 */
export function communityTopicChips(topics) {
  if (!topics.length) {
    return null;
  }
  return h("ul", { class: "chips", "aria-label": "Topics" }, topics.map((t) => h("li", null, h("a", { class: "chip", href: topicHref(t.name) }, t.name))));
}

/**
 * A cover image: http(s) only; one the page's policy blocks (not from the uploads storage
 * or an https host) is hidden rather than shown broken.
 * @param {string|null|undefined} url
 * @param {string} className
 */
export function cover(url, className) {
  const src = safeUrl(url);
  if (!src) {
    return null;
  }
  const image = h("img", { class: className, src, alt: "", loading: "lazy", referrerpolicy: "no-referrer" });
  image.addEventListener("error", () => {
    image.hidden = true;
  });
  return image;
}

/**
 * One post in a list; `mine` adds an edit link.
 * @param {Post} post
 * @param {{mine?: boolean}} [options]
 */
export function postCard(post, { mine = false } = {}) {
  const draft = post.status === "DRAFT";
  return h(
    "li",
    { class: "card post-card", dataset: { postId: post.id } },
    h(
      "article",
      null,
      cover(post.coverImageUrl, "thumb"),
      h("h3", { class: "card-title" }, h("a", { href: postHref(post.id) }, post.title)),
      h(
        "p",
        { class: "meta" },
        h("a", { href: userHref(post.author.id) }, post.author.displayName),
        " · ",
        time(post.createdAt),
        ` · ${post.readTimeMinutes} min read`,
        draft ? h("span", { class: "badge draft" }, "Draft") : null,
      ),
      post.excerpt ? h("p", { class: "excerpt" }, post.excerpt) : null,
      communityTopicChips(post.topics),
      h(
        "p",
        { class: "post-stats" },
        `${plural(post.likeCount, "like")} · ${plural(post.commentCount, "comment")} · ${plural(post.saveCount, "save")}`,
        post.isLikedByMe ? h("span", { class: "badge liked" }, "You like this") : null,
        post.isDislikedByMe ? h("span", { class: "badge" }, "You dislike this") : null,
        post.isBookmarkedByMe ? h("span", { class: "badge bookmarked" }, "Bookmarked") : null,
      ),
      mine ? h("div", { class: "actions" }, h("a", { class: "button secondary small", href: `${postHref(post.id)}/edit`, "aria-label": `Edit “${post.title}”` }, "Edit")) : null,
    ),
  );
}

/**
 * A paged list of posts into `container`.
 * @param {HTMLElement} container
 * @param {{fetch: (page: number) => Promise<PostPage>, page: number, href: (page: number) => string, signal: AbortSignal, emptyText: string, label: string, mine?: boolean, onLoaded?: (page: PostPage) => void}} options
 */
export async function postList(container, { fetch, page, href, signal, emptyText, label, mine = false, onLoaded }) {
  const load = async () => {
    mount(container, loading("Loading posts"));
    container.setAttribute("aria-busy", "true");
    try {
      const envelope = await fetch(page);
      onLoaded?.(envelope);
      if (!envelope.content.length) {
        mount(container, empty(page > 0 ? "No posts on this page" : emptyText, page > 0 ? h("a", { href: href(0) }, "Back to the first page") : null));
        return;
      }
      mount(container, h("ul", { class: "cards", "aria-label": label }, envelope.content.map((p) => postCard(p, { mine }))), pager(envelope, href, "post"));
    } catch (error) {
      if (!signal.aborted) {
        mount(container, errorBox(error, load));
      }
    } finally {
      container.removeAttribute("aria-busy");
    }
  };
  await load();
}

/**
 * The page number of `?page=`, 0 when absent or not a number.
 * @param {URLSearchParams} query
 */
export function pageOf(query) {
  const page = Number.parseInt(query.get("page") ?? "0", 10);
  return Number.isFinite(page) && page > 0 ? Math.min(page, 49) : 0;
}

/**
 * `path` with `?page=` (left out for the first page), keeping `params`.
 * @param {string} path
 * @param {Record<string, string>} params
 * @param {number} page
 */
export function withPage(path, params, page) {
  const query = new URLSearchParams(params);
  if (page > 0) {
    query.set("page", String(page));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
