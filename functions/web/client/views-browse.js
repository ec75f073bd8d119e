// Browsing: the latest articles, sources (with subscribing, and adding a feed or a site with
// a choice among its feeds), topics, and the articles of one source or one topic, page by page.

import * as contentApi from "./api-content.gen.js";
import { allPages } from "./http.js";
import { announce, h, mount, plural, safeUrl, time } from "./dom.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { articleCard, busy, clearFormErrors, describe, empty, errorAfter, errorBox, field, formError, headed, loading, pager, showFormError, topicChips } from "./ui.js";

/** @typedef {import("./api-types.gen.js").Source} Source */

/** Articles per page. */
export const PAGE_SIZE = 10;

/**
 * @typedef {Object} ViewContext
 * @property {AbortSignal} signal Aborted when the user navigates away.
 * @property {(title: string) => void} title Sets the document title.
 */

/** @param {URLSearchParams} query */
function pageOf(query) {
  const page = Number.parseInt(query.get("page") ?? "0", 10);
  return Number.isFinite(page) && page > 0 ? page : 0;
}

/**
 * A paged list of articles into `container`; several `sourceId`s make a personal feed.
 * @param {HTMLElement} container
 * @param {{sourceId?: string|string[], topicId?: string, page: number, href: (page: number) => string, signal: AbortSignal, emptyText: string}} options
 */
async function articleList(container, { sourceId, topicId, page, href, signal, emptyText }) {
  const load = async () => {
    mount(container, loading("Loading articles"));
    container.setAttribute("aria-busy", "true");
    try {
      const sourceIds = sourceId === undefined ? undefined : Array.isArray(sourceId) ? sourceId : [sourceId];
      const envelope = await contentApi.listArticles({ sourceId: sourceIds, topicId, page, size: PAGE_SIZE }, { signal });
      if (!envelope.content.length) {
        mount(container, empty(page > 0 ? "No articles on this page" : emptyText, page > 0 ? h("a", { href: href(0) }, "Back to the first page") : null));
        return;
      }
      mount(container, h("ul", { class: "cards", "aria-label": "Articles" }, envelope.content.map(articleCard)), pager(envelope, href));
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
 * The latest articles of every source (a visitor's home, and `/?all=1`).
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {ViewContext} context
 */
export async function home(main, match, { signal, title }) {
  const page = pageOf(match.query);
  const heading = "Latest articles";
  title(heading);
  const topicsSlot = h("div", { class: "topic-strip" });
  const list = h("section", { "aria-labelledby": "latest-heading" });
  mount(
    main,
    h(
      "div",
      { class: "page-head" },
      h("h1", { tabindex: "-1" }, heading),
      h("p", { class: "lede" }, "From every source readers share here, newest first."),
      account.session.user ? h("p", { class: "feed-switch" }, h("a", { href: "/" }, "Back to your reading list")) : null,
    ),
    topicsSlot,
    h("h2", { id: "latest-heading", class: "visually-hidden" }, "Articles"),
    list,
  );
  void showTopicStrip(topicsSlot, signal);
  const base = account.session.user ? "/?all=1" : "/";
  const href = (/** @type {number} */ p) => (p ? `${base}${base.includes("?") ? "&" : "?"}page=${p}` : base);
  await articleList(list, { page, href, signal, emptyText: "No articles yet — add a feed on the Sources page." });
}

/**
 * The most used topics as quick filters, the user's followed ones first.
 * @param {HTMLElement} slot
 * @param {AbortSignal} signal
 */
async function showTopicStrip(slot, signal) {
  try {
    const topics = await allPages((cursor, options) => contentApi.listTopics({ limit: 100, cursor }, options), { signal });
    const followed = topics.filter((t) => account.isFollowed(t.id));
    const popular = topics
      .filter((t) => !account.isFollowed(t.id))
      .sort((a, b) => b.articleCount - a.articleCount)
      .slice(0, 12);
    mount(
      slot,
      followed.length ? h("div", null, h("h2", { class: "strip-title" }, "Your topics"), topicChips(followed, "Your topics")) : null,
      popular.length ? h("div", null, h("h2", { class: "strip-title" }, "Browse by topic"), topicChips(popular, "Browse by topic")) : null,
    );
  } catch {
    // The strip is a shortcut; the article list shows its own errors.
    mount(slot);
  }
}

/**
 * A subscribe/unsubscribe button for a source; `onChange` gets the new source (null when
 * unsubscribing deleted it).
 * @param {Source} source
 * @param {(source: (Source|null)) => void} onChange
 */
function subscribeButton(source, onChange) {
  if (!account.session.user) {
    return h("a", { class: "button secondary", href: `/login?next=${encodeURIComponent(window.location.pathname)}` }, "Log in to subscribe");
  }
  const subscribed = account.isSubscribed(source.id);
  const button = /** @type {HTMLButtonElement} */ (
    h("button", { type: "button", class: subscribed ? "button secondary" : "button", "aria-pressed": String(subscribed) }, subscribed ? "Unsubscribe" : "Subscribe")
  );
  button.addEventListener("click", async () => {
    const want = !account.isSubscribed(source.id);
    try {
      const result = await busy(button, want ? "Subscribing…" : "Unsubscribing…", () => account.setSubscribed(source.id, want));
      announce(want ? `Subscribed to ${source.title}` : `Unsubscribed from ${source.title}`);
      onChange(result);
    } catch (error) {
      announce(describe(error).text);
      errorAfter(button, error);
    }
  });
  return button;
}

/**
 * `/sources`: every source, subscribing, and adding a feed.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} _match
 * @param {ViewContext} context
 */
export async function sources(main, _match, { signal, title }) {
  title("Sources");
  const list = h("section", { "aria-labelledby": "sources-heading" });
  mount(
    main,
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Sources"), h("p", { class: "lede" }, "RSS and Atom feeds shared by everyone. Subscribe to the ones you read.")),
    submitFeedForm(),
    h("h2", { id: "sources-heading" }, "All sources"),
    list,
  );
  const load = async () => {
    mount(list, loading("Loading sources"));
    try {
      const all = await allPages((cursor, options) => contentApi.listSources({ limit: 100, cursor }, options), { signal });
      if (!all.length) {
        mount(list, empty("No sources yet", account.session.user ? "Add the first feed above." : h("span", null, h("a", { href: "/login?next=/sources" }, "Log in"), " to add the first feed.")));
        return;
      }
      all.sort((a, b) => a.title.localeCompare(b.title));
      mount(list, h("ul", { class: "cards" }, all.map(sourceCard)));
    } catch (error) {
      if (!signal.aborted) {
        mount(list, errorBox(error, load));
      }
    }
  };
  await load();
}

/**
 * One source in the list; subscribing updates the card in place (keeping focus on its
 * button), and a source its last subscriber left disappears.
 * @param {Source} source
 * @returns {HTMLElement}
 */
function sourceCard(source) {
  const site = safeUrl(source.siteUrl);
  const card = h(
    "li",
    { class: "card source-card" },
    h("h3", { class: "card-title" }, h("a", { href: `/sources/${encodeURIComponent(source.id)}` }, source.title)),
    source.description ? h("p", { class: "excerpt" }, source.description) : null,
    h("p", { class: "meta" }, plural(source.subscriberCount, "subscriber"), site ? [" · ", h("a", { href: site, rel: "noopener noreferrer", target: "_blank" }, new URL(site).host)] : null),
    h(
      "div",
      { class: "actions" },
      subscribeButton(source, (changed) => {
        if (changed === null) {
          announce(`${source.title} was removed: you were its last subscriber.`);
          card.remove();
          return;
        }
        const next = sourceCard(changed);
        card.replaceWith(next);
        next.querySelector("button")?.focus();
      }),
    ),
  );
  return card;
}

/** The "add a feed" form (a feed's or a site's address), or an invitation to log in. */
function submitFeedForm() {
  if (!account.session.user) {
    return h("p", { class: "callout" }, h("a", { href: "/login?next=/sources" }, "Log in"), " to add a feed or subscribe to a source.");
  }
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Add feed"));
  const choices = h("div", { class: "feed-choices" });
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "inline-form card", "aria-labelledby": "add-feed-heading", novalidate: true },
      h("h2", { id: "add-feed-heading" }, "Add a feed"),
      formError(),
      field({ label: "Feed URL", name: "url", type: "url", required: true, inputmode: "url", hint: "The address of an RSS or Atom feed, or of a site that has one (https://example.com/). It is fetched and checked before it is added." }),
      choices,
      h("div", { class: "actions" }, button),
    )
  );
  /** @param {string} url */
  const add = async (url) => {
    const added = await contentApi.submitSource({ url });
    await account.setSubscribed(added.id, true);
    return added;
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    const chosen = data.get("feed");
    const url = String(data.get("url") ?? "").trim();
    try {
      const source = await busy(button, "Checking the feed…", async () => {
        if (chosen) {
          return add(String(chosen));
        }
        // A feed's address finds the feed itself; a site's, the feeds it offers.
        const { feeds } = await contentApi.discoverSources({ url });
        if (feeds.length > 1) {
          return feeds;
        }
        return add(feeds[0]?.url ?? url);
      });
      if (Array.isArray(source)) {
        showChoices(source);
        return;
      }
      announce(`Added ${source.title}; you are subscribed.`);
      navigate(`/sources/${encodeURIComponent(source.id)}`);
    } catch (error) {
      showFormError(form, error);
    }
  });
  /** @param {import("./api-types.gen.js").DiscoveredFeed[]} feeds */
  const showChoices = (feeds) => {
    mount(
      choices,
      h(
        "fieldset",
        { class: "field choices" },
        h("legend", null, `This site has ${feeds.length} feeds: choose one`),
        feeds.map((f, i) =>
          h("label", { class: "check choice" }, h("input", { type: "radio", name: "feed", value: f.url, checked: i === 0 }), " ", h("span", null, f.title || f.url, f.kind ? h("span", { class: "hint" }, ` (${f.kind.toUpperCase()})`) : null, h("br"), h("span", { class: "hint feed-url" }, f.url))),
        ),
      ),
    );
    button.textContent = "Add this feed";
    announce(`This site has ${feeds.length} feeds: choose one`);
    /** @type {HTMLElement|null} */ (choices.querySelector("input"))?.focus();
  };
  form.querySelector("input[name=url]")?.addEventListener("input", () => {
    mount(choices);
    button.textContent = "Add feed";
  });
  return form;
}

/**
 * `/sources/{id}`: one source and its articles.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {ViewContext} context
 */
export async function source(main, match, { signal, title }) {
  const id = match.params.id;
  const heading = h("h1", { tabindex: "-1" }, "Source");
  const head = h("div", { class: "page-head" }, heading, loading("Loading the source"));
  const list = h("div");
  mount(main, head, headed("Articles of this source", list));
  title("Source");
  try {
    const found = await contentApi.getSource(id, { signal });
    heading.textContent = found.title;
    title(found.title);
    const render = (/** @type {Source} */ current) => {
      const site = safeUrl(current.siteUrl);
      const feed = safeUrl(current.url);
      mount(
        head,
        heading,
        current.description ? h("p", { class: "lede" }, current.description) : null,
        h(
          "p",
          { class: "meta" },
          h("span", { class: "subscriber-count" }, plural(current.subscriberCount, "subscriber")),
          current.lastFetchedAt ? [" · updated ", time(current.lastFetchedAt)] : null,
          site ? [" · ", h("a", { href: site, rel: "noopener noreferrer", target: "_blank" }, "website")] : null,
          feed ? [" · ", h("a", { href: feed, rel: "noopener noreferrer", target: "_blank" }, "feed")] : null,
        ),
        h(
          "div",
          { class: "actions" },
          subscribeButton(current, (changed) => {
            if (changed === null) {
              announce(`${current.title} was removed: you were its last subscriber.`);
              navigate("/sources", { replace: true });
            } else {
              render({ ...current, subscriberCount: changed.subscriberCount });
            }
          }),
          account.isSubscribed(current.id) ? h("a", { class: "button secondary", href: `/?source=${encodeURIComponent(current.id)}` }, "Read in your list") : null,
        ),
      );
    };
    render(found);
  } catch (error) {
    if (!signal.aborted) {
      mount(head, heading, errorBox(error));
    }
    return;
  }
  await articleList(list, {
    sourceId: id,
    page: pageOf(match.query),
    href: (p) => `/sources/${encodeURIComponent(id)}${p ? `?page=${p}` : ""}`,
    signal,
    emptyText: "This source has no articles yet.",
  });
}

/**
 * `/topics`: every topic with its number of articles.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} _match
 * @param {ViewContext} context
 */
export async function topics(main, _match, { signal, title }) {
  title("Topics");
  const list = h("section", { "aria-label": "All topics" });
  mount(main, h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Topics"), h("p", { class: "lede" }, "Categories the feeds give their articles.")), list);
  const load = async () => {
    mount(list, loading("Loading topics"));
    try {
      const all = await allPages((cursor, options) => contentApi.listTopics({ limit: 100, cursor }, options), { signal });
      if (!all.length) {
        mount(list, empty("No topics yet", "Topics appear when feeds categorise their articles."));
        return;
      }
      all.sort((a, b) => b.articleCount - a.articleCount || a.name.localeCompare(b.name));
      mount(
        list,
        h(
          "ul",
          { class: "topic-list" },
          all.map((t) =>
            h("li", null, h("a", { href: `/topics/${encodeURIComponent(t.id)}` }, t.name), " ", h("span", { class: "count" }, plural(t.articleCount, "article")), account.isFollowed(t.id) ? h("span", { class: "badge" }, "following") : null),
          ),
        ),
      );
    } catch (error) {
      if (!signal.aborted) {
        mount(list, errorBox(error, load));
      }
    }
  };
  await load();
}

/**
 * `/topics/{id}`: the articles of one topic.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {ViewContext} context
 */
export async function topic(main, match, { signal, title }) {
  const id = match.params.id;
  const heading = h("h1", { tabindex: "-1" }, id);
  const actions = h("div", { class: "actions" });
  const list = h("div");
  mount(main, h("div", { class: "page-head" }, h("p", { class: "eyebrow" }, "Topic"), heading, actions), headed("Articles on this topic", list));
  title(id);
  allPages((cursor, options) => contentApi.listTopics({ limit: 100, cursor }, options), { signal })
    .then((all) => {
      const found = all.find((t) => t.id === id);
      if (found) {
        heading.textContent = found.name;
        title(found.name);
      }
      mount(actions, followButton(found ?? { id, name: id }));
    })
    .catch(() => mount(actions, followButton({ id, name: id })));
  await articleList(list, {
    topicId: id,
    page: pageOf(match.query),
    href: (p) => `/topics/${encodeURIComponent(id)}${p ? `?page=${p}` : ""}`,
    signal,
    emptyText: "No articles on this topic.",
  });
}

/**
 * Follow or unfollow a topic (by its slug, as the settings keep it); the news reader's and
 * the community's topic of one slug are one topic. `onChange` runs after each change.
 * @param {{id: string, name: string}} t
 * @param {() => void} [onChange]
 */
export function followButton(t, onChange = () => {}) {
  if (!account.session.user) {
    return null;
  }
  const render = () => {
    const following = account.isFollowed(t.id);
    const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: following ? "button secondary" : "button", "aria-pressed": String(following) }, following ? "Unfollow topic" : "Follow topic"));
    button.addEventListener("click", async () => {
      try {
        await busy(button, "Saving…", () => account.setFollowed(t.id, !following));
        announce(following ? `Stopped following ${t.name}` : `Following ${t.name}`);
        onChange();
        const next = render();
        button.replaceWith(next);
        next.focus();
      } catch (error) {
        errorAfter(button, error);
      }
    });
    return button;
  };
  return render();
}
