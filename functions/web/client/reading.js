// What the reading list and an article's page share: the list an article was opened from
// (kept for the tab, so an article knows its next and previous), marking read and starring,
// and the keyboard shortcuts with their help.

import * as readerApi from "./api-reader.gen.js";
import { h } from "./dom.js";

const LIST_KEY = "newsReader.list";

/**
 * An article of the list an article was opened from.
 * @typedef {{id: string, title: string, read: boolean, starred: boolean}} Entry
 */

/**
 * The list an article was opened from: where it is, its name and its articles in order.
 * @typedef {{href: string, name: string, entries: Entry[], last?: string}} ListContext
 */

/**
 * Remembers the list shown, for the article pages opened from it.
 * @param {ListContext} context
 */
export function rememberList(context) {
  try {
    sessionStorage.setItem(LIST_KEY, JSON.stringify(context));
  } catch {
    // Private mode or full: next and previous are then not offered.
  }
}

/** The list an article was last opened from, if any. @returns {ListContext|null} */
export function listContext() {
  try {
    const stored = JSON.parse(sessionStorage.getItem(LIST_KEY) ?? "null");
    return stored && typeof stored.href === "string" && Array.isArray(stored.entries) ? stored : null;
  } catch {
    return null;
  }
}

/**
 * Every subscription of the person (one page holds 1,000; more are followed by cursor).
 * @param {{signal?: AbortSignal}} [options]
 * @returns {Promise<import("./api-types.gen.js").ReaderSubscription[]>}
 */
export async function allSubscriptions(options = {}) {
  const items = [];
  /** @type {string|undefined} */
  let cursor;
  do {
    const page = await readerApi.readerSubscriptions({ cursor }, options);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/**
 * Changes an article's state in the remembered list (and makes it the last one opened).
 * @param {string} id
 * @param {Partial<Entry>} change
 */
export function updateEntry(id, change) {
  const context = listContext();
  const entry = context?.entries.find((e) => e.id === id);
  if (context && entry) {
    Object.assign(entry, change);
    context.last = id;
    rememberList(context);
  }
}

/**
 * Marks an article read or unread.
 * @param {string} id
 * @param {boolean} read
 */
export async function setRead(id, read) {
  await readerApi.markArticles({ ids: [id], read });
  updateEntry(id, { read });
}

/**
 * Stars or unstars an article.
 * @param {string} id
 * @param {boolean} starred
 */
export async function setStarred(id, starred) {
  await readerApi.markArticles({ ids: [id], starred });
  updateEntry(id, { starred });
}

/** The shortcuts, as the help lists them. */
const SHORTCUTS = [
  ["j", "Next article"],
  ["k", "Previous article"],
  ["o or Enter", "Open the selected article"],
  ["s", "Star or unstar"],
  ["m", "Mark read or unread"],
  ["Shift + A", "Mark all as read"],
  ["u", "Back to the list"],
  ["?", "Show these shortcuts"],
];

/** @type {HTMLDialogElement|null} */
let help = null;

/** Shows the keyboard shortcuts in a dialog (Escape or Close shuts it). */
export function showHelp() {
  if (!help) {
    const close = h("button", { type: "button", class: "button secondary" }, "Close");
    help = /** @type {HTMLDialogElement} */ (
      h(
        "dialog",
        { class: "shortcuts-help", "aria-labelledby": "shortcuts-heading" },
        h("h2", { id: "shortcuts-heading" }, "Keyboard shortcuts"),
        h(
          "dl",
          { class: "shortcut-list" },
          SHORTCUTS.map(([keys, what]) => [h("dt", null, h("kbd", null, keys)), h("dd", null, what)]),
        ),
        h("div", { class: "actions" }, close),
      )
    );
    close.addEventListener("click", () => help?.close());
    document.body.append(help);
  }
  if (!help.open) {
    help.showModal();
  }
}

/**
 * The reader's keyboard shortcuts while `signal` is not aborted: `actions` by key (`j`, `k`,
 * `o`, `s`, `m`, `A`, `u`); `?` shows the help. Keys typed into a field, or with Ctrl, Alt
 * or Meta, are left alone, and so is Enter on a link or button (it does what it says).
 * @param {AbortSignal} signal
 * @param {Partial<Record<"j"|"k"|"o"|"s"|"m"|"A"|"u", () => void>>} actions
 */
export function shortcuts(signal, actions) {
  /** @param {KeyboardEvent} event */
  const onKey = (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented || help?.open) {
      return;
    }
    const target = event.target;
    if (target instanceof HTMLElement && (target.isContentEditable || target.closest("input, textarea, select, dialog"))) {
      return;
    }
    if (event.key === "?") {
      event.preventDefault();
      showHelp();
      return;
    }
    const onControl = target instanceof HTMLElement && target.closest("a, button, summary") !== null;
    const key = event.key === "Enter" ? (onControl ? null : "o") : event.key === "A" && event.shiftKey ? "A" : event.shiftKey ? null : event.key;
    const action = key && /** @type {Record<string, (() => void)|undefined>} */ (actions)[key];
    if (action) {
      event.preventDefault();
      action();
    }
  };
  document.addEventListener("keydown", onKey);
  signal.addEventListener("abort", () => document.removeEventListener("keydown", onKey), { once: true });
}

/**
 * A count of unread articles, read out with its word.
 * @param {number} n
 */
export function unreadBadge(n) {
  return n > 0 ? h("span", { class: "count" }, n.toLocaleString(), h("span", { class: "visually-hidden" }, " unread")) : null;
}
