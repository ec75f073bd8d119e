// The reader: the reading list of a person's subscriptions (everything, a folder, a source,
// or what they starred), unread first, as a compact list or as cards; the folders and
// sources beside it with their unread counts; marking read, starring, "mark all as read",
// and the keyboard shortcuts. A visitor's home is the latest articles of every source.
// (Subscriptions, folders and OPML are `views-subscriptions.js`.)

import * as readerApi from "./api-reader.gen.js";
import { needsLogin } from "./access.js";
import { announce, h, mount, time } from "./dom.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { busy, confirmFirst, describe, empty, errorAfter, errorBox, headed, loading } from "./ui.js";
import { allSubscriptions, listContext, rememberList, setRead, setStarred, shortcuts, showHelp, unreadBadge } from "./reading.js";

/** @typedef {import("./api-types.gen.js").ReaderSubscription} Subscription */
/** @typedef {import("./api-types.gen.js").ReaderArticle} ReaderArticle */
/** @typedef {{kind: "all"} | {kind: "starred"} | {kind: "source", id: string} | {kind: "folder", name: string}} Scope */

/** Articles per page of the reading list. */
const PAGE_SIZE = 50;
/** Where the chosen view (list or cards) is kept on the device. */
const VIEW_KEY = "newsReader.view";

/** The chosen view: the compact list unless the person chose cards. */
function viewMode() {
  return localStorage.getItem(VIEW_KEY) === "cards" ? "cards" : "list";
}

/**
 * `/`: a logged-in person's reading list (`?source=`, `?folder=`); a visitor's, and `?all=1`,
 * the latest articles of every source.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function home(main, match, context) {
  if (!account.session.user || match.query.get("all") === "1") {
    const browse = await import("./views-browse.js");
    if (!context.signal.aborted) {
      const shown = browse.home(main, match, context);
      // The page was drawn after the shell moved focus: its heading takes it.
      if (document.activeElement === document.body) main.querySelector("h1")?.focus();
      await shown;
    }
    return;
  }
  const source = match.query.get("source");
  const folder = match.query.get("folder");
  /** @type {Scope} */
  const scope = source ? { kind: "source", id: source } : folder ? { kind: "folder", name: folder } : { kind: "all" };
  await readingList(main, match, context, scope);
}

/**
 * `/starred`: the articles the person starred, newest starred first.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function starred(main, match, context) {
  if (!account.session.user) {
    context.title("Starred articles");
    needsLogin(main, "Starred articles");
    return;
  }
  await readingList(main, match, context, { kind: "starred" });
}

/**
 * The address of a scope's list, with the filter and order given.
 * @param {Scope} scope
 * @param {{state?: string, order?: string}} [options]
 */
function scopeHref(scope, { state, order } = {}) {
  const query = new URLSearchParams();
  if (scope.kind === "source") query.set("source", scope.id);
  if (scope.kind === "folder") query.set("folder", scope.name);
  if (state === "all") query.set("state", "all");
  if (order === "oldest") query.set("order", "oldest");
  const path = scope.kind === "starred" ? "/starred" : "/";
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}

/**
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 * @param {Scope} scope
 */
async function readingList(main, match, { signal, title }, scope) {
  const filter = scope.kind === "starred" ? "starred" : match.query.get("state") === "all" ? "all" : "unread";
  const order = match.query.get("order") === "oldest" ? "oldest" : "newest";
  /** @type {Subscription[]} */
  let subs = [];
  /** @type {ReaderArticle[]} */
  let items = [];
  let selected = -1;
  let loadedAt = new Date().toISOString();
  /** @type {string|null|undefined} */
  let nextCursor = null;

  const heading = h("h1", { tabindex: "-1" }, scope.kind === "starred" ? "Starred" : scope.kind === "folder" ? scope.name : scope.kind === "source" ? "Source" : "All articles");
  const lede = h("p", { class: "lede" });
  const side = h("div", { class: "side-body" }, loading("Loading your subscriptions"));
  const fold = h("details", { class: "reader-side" }, h("summary", null, "Folders and sources"), h("nav", { "aria-label": "Folders and sources" }, side));
  if (window.matchMedia("(min-width: 1000px)").matches) {
    fold.setAttribute("open", "");
  }
  const list = h("div", { class: "entries-slot" });
  const more = h("div", { class: "more-slot" });
  const markAllSlot = h("div", { class: "mark-all" });
  const helpButton = h("button", { type: "button", class: "button secondary small", "aria-keyshortcuts": "Shift+?" }, "Shortcuts");
  helpButton.addEventListener("click", showHelp);

  const name = () => {
    if (scope.kind === "source") return subs.find((s) => s.source.id === scope.id)?.source.title ?? "Source";
    if (scope.kind === "folder") return scope.name;
    return scope.kind === "starred" ? "Starred" : "All articles";
  };
  const unreadOf = () => {
    if (scope.kind === "source") return subs.find((s) => s.source.id === scope.id)?.unread ?? 0;
    if (scope.kind === "folder") return subs.filter((s) => s.labels.includes(scope.name)).reduce((n, s) => n + s.unread, 0);
    return subs.reduce((n, s) => n + s.unread, 0);
  };

  /** Heading, title and the unread count of the scope, from the subscriptions. */
  const drawHead = () => {
    heading.textContent = name();
    title(name());
    if (scope.kind === "starred") {
      lede.textContent = "Articles you starred, on every device and app you read with.";
    } else {
      const n = unreadOf();
      lede.textContent = n ? `${n.toLocaleString()} unread` : "Nothing unread";
    }
  };

  /** The folders and sources with their unread counts. */
  const drawSide = () => {
    const current = (/** @type {Scope} */ s) => (s.kind === scope.kind && JSON.stringify(s) === JSON.stringify(scope) ? "page" : null);
    const keep = { state: filter === "all" ? "all" : undefined };
    const folders = [...new Set(subs.flatMap((s) => s.labels))].sort((a, b) => a.localeCompare(b));
    const sourceLink = (/** @type {Subscription} */ s) =>
      h(
        "li",
        { class: s.unread ? "has-unread" : null },
        h("a", { href: scopeHref({ kind: "source", id: s.source.id }, keep), "aria-current": current({ kind: "source", id: s.source.id }) }, h("span", { class: "side-name" }, s.source.title), unreadBadge(s.unread)),
      );
    const loose = subs.filter((s) => !s.labels.length).sort((a, b) => a.source.title.localeCompare(b.source.title));
    const total = subs.reduce((n, s) => n + s.unread, 0);
    fold.querySelector("summary")?.replaceChildren("Folders and sources", total ? ` · ${total.toLocaleString()} unread` : "");
    mount(
      side,
      h(
        "ul",
        { class: "side-list" },
        h("li", null, h("a", { href: scopeHref({ kind: "all" }, keep), "aria-current": current({ kind: "all" }) }, h("span", { class: "side-name" }, "All articles"), unreadBadge(total))),
        h("li", null, h("a", { href: "/starred", "aria-current": current({ kind: "starred" }) }, h("span", { class: "side-name" }, "★ Starred"))),
      ),
      folders.length ? h("h2", { class: "side-title" }, "Folders") : null,
      folders.length
        ? h(
            "ul",
            { class: "side-list" },
            folders.map((folder) => {
              const inside = subs.filter((s) => s.labels.includes(folder)).sort((a, b) => a.source.title.localeCompare(b.source.title));
              const unread = inside.reduce((n, s) => n + s.unread, 0);
              return h(
                "li",
                { class: "side-folder" },
                h("a", { href: scopeHref({ kind: "folder", name: folder }, keep), "aria-current": current({ kind: "folder", name: folder }) }, h("span", { class: "side-name" }, `📁 ${folder}`), unreadBadge(unread)),
                h("ul", { class: "side-list nested", "aria-label": `Sources in ${folder}` }, inside.map(sourceLink)),
              );
            }),
          )
        : null,
      loose.length ? h("h2", { class: "side-title" }, folders.length ? "Not in a folder" : "Sources") : null,
      loose.length ? h("ul", { class: "side-list" }, loose.map(sourceLink)) : null,
      subs.length ? null : h("p", { class: "hint" }, "No subscriptions yet."),
      h(
        "p",
        { class: "side-links" },
        h("a", { href: "/subscriptions" }, "Subscriptions, folders and OPML"),
        h("br"),
        h("a", { href: "/sources" }, "Add a feed"),
        h("br"),
        h("a", { href: "/?all=1" }, "Every source’s latest articles"),
      ),
    );
  };

  const loadSubs = async () => {
    try {
      subs = await allSubscriptions({ signal });
      drawSide();
      drawHead();
    } catch (error) {
      if (!signal.aborted) {
        mount(side, errorBox(error, loadSubs));
      }
    }
  };

  /**
   * Changes an article's unread count by `delta` in its source (and so its folders).
   * @param {string} sourceId
   * @param {number} delta
   */
  const bump = (sourceId, delta) => {
    const sub = subs.find((s) => s.source.id === sourceId);
    if (sub) {
      sub.unread = Math.max(0, sub.unread + delta);
      drawSide();
      drawHead();
    }
  };

  const remember = () =>
    rememberList({
      href: window.location.pathname + window.location.search,
      name: name(),
      entries: items.map((a) => ({ id: a.id, title: a.title, read: a.read, starred: a.starred })),
      last: items[selected]?.id,
    });

  /** The rows shown, in order. */
  const rows = () => /** @type {HTMLElement[]} */ ([...list.querySelectorAll(".entry")]);

  /**
   * Makes row `i` the selected one; `focus` moves focus to its title.
   * @param {number} i
   * @param {boolean} [focus]
   */
  const select = (i, focus = true) => {
    const all = rows();
    if (!all.length) return;
    selected = Math.max(0, Math.min(i, all.length - 1));
    all.forEach((row, n) => {
      row.classList.toggle("selected", n === selected);
      if (n === selected) row.setAttribute("aria-current", "true");
      else row.removeAttribute("aria-current");
    });
    const link = /** @type {HTMLElement|null} */ (all[selected].querySelector(".entry-title a, .card-title a"));
    if (focus && link) {
      link.focus({ preventScroll: true });
    }
    all[selected].scrollIntoView({ block: "nearest" });
  };

  /**
   * Toggles an article's read state, in its row and in the counts.
   * @param {ReaderArticle} item
   * @param {HTMLElement} row
   */
  const toggleRead = async (item, row) => {
    const read = !item.read;
    try {
      await setRead(item.id, read);
      item.read = read;
      bump(item.sourceId, read ? -1 : 1);
      const next = entryRow(item);
      row.replaceWith(next);
      select(rows().indexOf(next), row.contains(document.activeElement) || document.activeElement === document.body);
      remember();
      announce(read ? "Marked as read" : "Marked as unread");
    } catch (error) {
      announce(describe(error).text);
      errorAfter(row.querySelector(".entry-actions") ?? row, error);
    }
  };

  /**
   * @param {ReaderArticle} item
   * @param {HTMLElement} row
   */
  const toggleStar = async (item, row) => {
    const star = !item.starred;
    try {
      await setStarred(item.id, star);
      item.starred = star;
      const button = row.querySelector(".star");
      button?.setAttribute("aria-pressed", String(star));
      if (button) button.textContent = star ? "★" : "☆";
      remember();
      announce(star ? "Starred" : "Star removed");
    } catch (error) {
      announce(describe(error).text);
      errorAfter(row.querySelector(".entry-actions") ?? row, error);
    }
  };

  /**
   * One article of the list, compact or as a card.
   * @param {ReaderArticle} item
   * @returns {HTMLElement}
   */
  const entryRow = (item) => {
    const href = `/articles/${encodeURIComponent(item.id)}`;
    const star = h("button", { type: "button", class: "icon-button star", "aria-pressed": String(item.starred), "aria-label": `Star “${item.title}”` }, item.starred ? "★" : "☆");
    const readToggle = h("button", { type: "button", class: "icon-button read-toggle", "aria-label": item.read ? `Mark “${item.title}” as unread` : `Mark “${item.title}” as read` }, item.read ? "●" : "✓");
    const actions = h("div", { class: "entry-actions" }, star, readToggle);
    const status = item.read ? null : h("span", { class: "unread-dot", title: "Unread" }, h("span", { class: "visually-hidden" }, "Unread: "));
    const row =
      viewMode() === "cards"
        ? h(
            "li",
            { class: `card article-card entry ${item.read ? "read" : "unread"}`, dataset: { id: item.id } },
            h(
              "article",
              null,
              h("h3", { class: "card-title" }, status, h("a", { href }, item.title)),
              h("p", { class: "meta" }, item.sourceTitle, " · ", time(item.publishedAt)),
              item.summary ? h("p", { class: "excerpt" }, item.summary) : null,
              actions,
            ),
          )
        : h(
            "li",
            { class: `entry ${item.read ? "read" : "unread"}`, dataset: { id: item.id } },
            h("h3", { class: "entry-title" }, status, h("a", { href }, item.title)),
            h("p", { class: "entry-meta" }, h("span", { class: "entry-source" }, item.sourceTitle), " · ", time(item.publishedAt)),
            actions,
          );
    star.addEventListener("click", () => void toggleStar(item, row));
    readToggle.addEventListener("click", () => void toggleRead(item, row));
    return row;
  };

  /**
   * Shows the articles loaded so far.
   * @param {string|undefined} last The article to select (the one opened last).
   */
  const drawList = (last) => {
    if (!items.length) {
      const emptyTitle = filter === "unread" ? "All read" : filter === "starred" ? "Nothing starred yet" : "No articles yet";
      mount(
        list,
        empty(
          emptyTitle,
          filter === "unread" ? h("p", null, h("a", { href: scopeHref(scope, { state: "all", order }) }, "Show the read articles too")) : null,
          filter === "starred" ? h("p", null, "Press ☆ on an article (or s) to keep it here.") : null,
          !subs.length && scope.kind === "all" ? h("p", null, h("a", { href: "/sources" }, "Add or subscribe to a feed"), " or ", h("a", { href: "/subscriptions" }, "import an OPML file"), ".") : null,
        ),
      );
      mount(more);
      return;
    }
    const mode = viewMode();
    mount(list, h("ul", { class: mode === "cards" ? "cards entries" : "entries compact", "aria-label": "Articles" }, items.map(entryRow)));
    const index = last ? items.findIndex((a) => a.id === last) : -1;
    if (index >= 0) {
      select(index, false);
    }
    if (nextCursor) {
      const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary" }, "More articles"));
      button.addEventListener("click", () => void loadMore(button));
      mount(more, button);
    } else {
      mount(more);
    }
  };

  /** @param {HTMLButtonElement} [button] */
  const loadMore = async (button) => {
    if (!nextCursor) return;
    const cursor = nextCursor;
    try {
      const page = await (button ? busy(button, "Loading…", () => fetchPage(cursor)) : fetchPage(cursor));
      const from = items.length;
      items = [...items, ...page.items];
      nextCursor = page.nextCursor;
      const at = selected;
      drawList(undefined);
      select(at >= 0 ? at : from, false);
      remember();
      rows()[from]?.querySelector("a")?.focus({ preventScroll: true });
    } catch (error) {
      if (!signal.aborted) mount(more, errorBox(error, () => void loadMore()));
    }
  };

  /** @param {string} [cursor] */
  const fetchPage = (cursor) =>
    readerApi.readerArticles(
      {
        sourceId: scope.kind === "source" ? scope.id : undefined,
        label: scope.kind === "folder" ? scope.name : undefined,
        state: filter,
        order,
        size: PAGE_SIZE,
        cursor,
      },
      { signal },
    );

  const load = async () => {
    mount(list, loading("Loading articles"));
    list.setAttribute("aria-busy", "true");
    try {
      loadedAt = new Date().toISOString();
      const page = await fetchPage();
      items = page.items;
      nextCursor = page.nextCursor;
      const context = listContext();
      drawList(context?.href === window.location.pathname + window.location.search ? context.last : undefined);
      remember();
    } catch (error) {
      if (!signal.aborted) mount(list, errorBox(error, load));
    } finally {
      list.removeAttribute("aria-busy");
    }
  };

  // Opening an article from the list: the list is what its next and previous follow.
  list.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest(".entry a[href^='/articles/']") : null;
    const row = link?.closest(".entry");
    if (row instanceof HTMLElement) {
      selected = rows().indexOf(row);
      remember();
    }
  });

  // The toolbar: the filter, the view, the order, "mark all as read", the shortcuts.
  const filterNav =
    scope.kind === "starred"
      ? null
      : h(
          "nav",
          { class: "segmented", "aria-label": "Which articles" },
          h("a", { href: scopeHref(scope, { order }), "aria-current": filter === "unread" ? "page" : null }, "Unread"),
          h("a", { href: scopeHref(scope, { state: "all", order }), "aria-current": filter === "all" ? "page" : null }, "All"),
        );
  const viewButtons = ["list", "cards"].map((mode) => {
    const button = h("button", { type: "button", class: "segment", "aria-pressed": String(viewMode() === mode) }, mode === "list" ? "List" : "Cards");
    button.addEventListener("click", () => {
      localStorage.setItem(VIEW_KEY, mode);
      viewButtons.forEach((b, n) => b.setAttribute("aria-pressed", String(["list", "cards"][n] === mode)));
      const last = items[selected]?.id;
      drawList(last);
      button.focus();
    });
    return button;
  });
  const orderLink =
    scope.kind === "starred"
      ? null
      : h("a", { class: "order-link", href: scopeHref(scope, { state: filter, order: order === "oldest" ? "newest" : "oldest" }) }, order === "oldest" ? "Newest first" : "Oldest first");
  const markAllButton = h("button", { type: "button", class: "button secondary small" }, "Mark all as read…");
  if (scope.kind !== "starred") {
    confirmFirst(markAllSlot, markAllButton, {
      warning: h("p", { class: "warning" }, `Mark every article of “${scope.kind === "all" ? "All articles" : scope.kind === "folder" ? scope.name : "this source"}” as read?`),
      confirmLabel: "Yes, mark all as read",
      busyLabel: "Marking…",
      act: () => readerApi.markAllRead({ sourceId: scope.kind === "source" ? scope.id : undefined, label: scope.kind === "folder" ? scope.name : undefined, before: loadedAt }, { signal }),
      done: () => {
        announce(`Marked all of ${name()} as read`);
        mount(markAllSlot, markAllButton);
        markAllButton.focus();
        void loadSubs();
        void load();
      },
      failed: (error, cancel) => errorAfter(cancel, error),
    });
  }

  mount(
    main,
    h(
      "div",
      { class: "reader-layout" },
      fold,
      h(
        "div",
        { class: "reader-main" },
        h("div", { class: "page-head" }, heading, lede),
        h(
          "div",
          { class: "reader-toolbar" },
          filterNav,
          h("div", { class: "segmented", role: "group", "aria-label": "View" }, viewButtons),
          orderLink,
          scope.kind === "starred" ? null : markAllSlot,
          helpButton,
        ),
        headed("Articles", h("div", null, list, more)),
      ),
    ),
  );
  drawHead();

  shortcuts(signal, {
    j: () => {
      if (selected >= rows().length - 1 && nextCursor) void loadMore();
      else select(selected + 1);
    },
    k: () => select(selected - 1),
    o: () => {
      if (selected < 0) return;
      const link = rows()[selected]?.querySelector(".entry-title a, .card-title a");
      if (link instanceof HTMLAnchorElement) {
        remember();
        navigate(new URL(link.href).pathname);
      }
    },
    s: () => {
      const item = items[selected];
      const row = rows()[selected];
      if (item && row) void toggleStar(item, row);
    },
    m: () => {
      const item = items[selected];
      const row = rows()[selected];
      if (item && row) void toggleRead(item, row);
    },
    A: () => {
      if (scope.kind !== "starred") {
        (markAllSlot.querySelector("button") ?? markAllButton).click();
      }
    },
  });

  await Promise.all([loadSubs(), load()]);
}
