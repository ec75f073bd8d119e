// Reading one article: it is marked read as it opens; star it, mark it unread, go to the next
// or previous article of the list it was opened from (also with j and k), and the AI
// assistant beside it.

import { aiPanel } from "./ai-panel.js";
import * as contentApi from "./api-content.gen.js";
import { announce, h, mount, safeUrl, time } from "./dom.js";
import * as readerApi from "./api-reader.gen.js";
import { listContext, setRead, setStarred, shortcuts } from "./reading.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { busy, describe, errorAfter, errorBox, loading, topicChips } from "./ui.js";

/** @typedef {import("./api-types.gen.js").Article} Article */

/**
 * `/articles/{id}`.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function article(main, match, { signal, title }) {
  const id = match.params.id;
  const heading = h("h1", { tabindex: "-1" }, "Article");
  title("Article");
  const load = async () => {
    mount(main, h("div", { class: "page-head" }, heading), loading("Loading the article"));
    try {
      const found = await contentApi.getArticle(id, { signal });
      heading.textContent = found.title;
      title(found.title);
      const marks = account.session.user ? markControls(found, signal) : null;
      mount(main, neighbours(found.id, "top"), h("div", { class: "article-layout" }, reader(found, heading, marks), aiPanel(found.id)), neighbours(found.id, "bottom"));
    } catch (error) {
      if (!signal.aborted) {
        mount(main, h("div", { class: "page-head" }, heading), errorBox(error, load));
      }
    }
  };
  await load();
}

/**
 * The list the article was opened from, and its neighbours there.
 * @param {string} id
 */
function around(id) {
  const context = listContext();
  const at = context ? context.entries.findIndex((e) => e.id === id) : -1;
  if (!context || at < 0) return null;
  return { context, previous: context.entries[at - 1] ?? null, next: context.entries[at + 1] ?? null };
}

/**
 * "Previous", "Back to the list" and "Next", when the article was opened from a list.
 * @param {string} id
 * @param {"top"|"bottom"} where
 */
function neighbours(id, where) {
  const found = around(id);
  if (!found) return null;
  const { context, previous, next } = found;
  const href = (/** @type {{id: string}} */ e) => `/articles/${encodeURIComponent(e.id)}`;
  return h(
    "nav",
    { class: `article-nav ${where}`, "aria-label": where === "top" ? "Articles of the list" : "More articles of the list" },
    previous ? h("a", { class: "button secondary small", href: href(previous), rel: "prev", title: previous.title, "aria-keyshortcuts": "k" }, "← Previous") : h("span"),
    h("a", { class: "back-to-list", href: context.href, "aria-keyshortcuts": "u" }, `Back to ${context.name}`),
    next ? h("a", { class: "button secondary small", href: href(next), rel: "next", title: next.title, "aria-keyshortcuts": "j" }, "Next →") : h("span"),
  );
}

/**
 * Star and read/unread for a signed-in reader; the article is marked read as it opens, and
 * the keyboard's j, k, s, m and u work here.
 * @param {Article} found
 * @param {AbortSignal} signal
 */
function markControls(found, signal) {
  const entry = around(found.id)?.context.entries.find((e) => e.id === found.id);
  let starred = entry?.starred ?? false;
  let read = true;
  const star = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary star-button", "aria-keyshortcuts": "s" }));
  const readButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary", "aria-keyshortcuts": "m" }));
  const render = () => {
    star.textContent = starred ? "★ Starred" : "☆ Star";
    star.setAttribute("aria-pressed", String(starred));
    readButton.textContent = read ? "Mark as unread" : "Mark as read";
  };
  const toggleStar = async () => {
    try {
      await busy(star, starred ? "Unstarring…" : "Starring…", () => setStarred(found.id, !starred));
      starred = !starred;
      render();
      announce(starred ? "Starred" : "Star removed");
    } catch (error) {
      render();
      announce(describe(error).text);
      errorAfter(star, error);
    }
  };
  const toggleRead = async () => {
    try {
      await busy(readButton, "Saving…", () => setRead(found.id, !read));
      read = !read;
      render();
      announce(read ? "Marked as read" : "Marked as unread");
    } catch (error) {
      render();
      errorAfter(readButton, error);
    }
  };
  star.addEventListener("click", () => void toggleStar());
  readButton.addEventListener("click", () => void toggleRead());
  render();
  // Opening is reading: marked at once, unless it is read already.
  const markRead = () =>
    setRead(found.id, true).catch((error) => {
      if (signal.aborted) return;
      read = false;
      render();
      errorAfter(readButton, error);
    });
  if (entry) {
    if (!entry.read) void markRead();
  } else {
    // Opened from no list (a link, a reload elsewhere): its state is read from its source's
    // stream around its time; an article of a source the person does not read stays unmarked.
    const at = Date.parse(found.publishedAt);
    readerApi
      .readerArticles({ sourceId: found.sourceId, after: new Date(at - 1000).toISOString(), before: new Date(at + 1000).toISOString(), size: 20 }, { signal })
      .then((page) => {
        const mine = page.items.find((a) => a.id === found.id);
        if (!mine) return;
        starred = mine.starred;
        render();
        if (!mine.read) void markRead();
      })
      .catch(() => {});
  }
  const go = (/** @type {"next"|"previous"} */ which) => {
    const target = around(found.id)?.[which];
    if (target) navigate(`/articles/${encodeURIComponent(target.id)}`);
    else announce(which === "next" ? "This is the last article of the list" : "This is the first article of the list");
  };
  shortcuts(signal, {
    j: () => go("next"),
    k: () => go("previous"),
    s: () => void toggleStar(),
    m: () => void toggleRead(),
    u: () => {
      const context = around(found.id)?.context;
      navigate(context?.href ?? "/");
    },
  });
  return [star, readButton];
}

/**
 * @param {Article} found
 * @param {HTMLElement} heading
 * @param {HTMLElement[]|null} marks Star and read buttons (signed in), else a login link.
 */
function reader(found, heading, marks) {
  const original = safeUrl(found.link);
  const image = safeUrl(found.imageUrl, ["https:"]);
  const paragraphs = found.paragraphs ?? [];
  return h(
    "article",
    { class: "reader", "aria-labelledby": "article-title" },
    h(
      "header",
      null,
      h("p", { class: "eyebrow" }, h("a", { href: `/sources/${encodeURIComponent(found.sourceId)}` }, found.sourceTitle)),
      Object.assign(heading, { id: "article-title" }),
      h("p", { class: "meta" }, found.author ? [`By ${found.author}`, " · "] : null, time(found.publishedAt)),
      topicChips(found.topics),
      h("div", { class: "actions" }, marks ?? h("a", { class: "button secondary", href: `/login?next=${encodeURIComponent(window.location.pathname)}` }, "Log in to star"), original ? h("a", { class: "button secondary", href: original, rel: "noopener noreferrer", target: "_blank" }, "Read the original ↗") : null),
    ),
    image ? h("img", { class: "hero", src: image, alt: "", referrerpolicy: "no-referrer" }) : null,
    h(
      "div",
      { class: "body" },
      paragraphs.length
        ? paragraphs.map((p) => h("p", null, p))
        : found.summary
          ? h("p", null, found.summary)
          : h("p", { class: "hint" }, "The feed gives no text for this article; read it on the original site."),
    ),
  );
}
