// `/community/notifications`: the member's inbox, newest first, a page at a time: comments on
// their posts, replies to their comments, mentions, removals of their content and their
// reports' outcomes; each marked read, or all at once.

import * as communityApi from "./api-community.gen.js";
import { announce, h, mount, plural, time } from "./dom.js";
import { postHref } from "./community.js";
import * as account from "./session.js";
import { needsLogin } from "./access.js";
import { busy, empty, errorAfter, errorBox, loading } from "./ui.js";

/** @typedef {import("./api-types.gen.js").CommunityNotification} Notification */

/** Notifications a page holds. */
const PER_PAGE = 20;

/**
 * What a notification says.
 * @param {Notification} n
 */
function sentence(n) {
  const who = n.actor ? n.actor.username : "Someone";
  const noun = n.commentId ? "comment" : "post";
  switch (n.kind) {
    case "COMMENT":
      return `${who} commented on your post`;
    case "REPLY":
      return `${who} replied to your comment`;
    case "MENTION":
      return `${who} mentioned you in a ${noun}`;
    case "REMOVED":
      return `An administrator removed your ${noun}`;
    case "REPORT_RESOLVED":
      return n.outcome === "removed" ? `The ${noun} you reported was removed` : `Your report of a ${noun} was dismissed: the ${noun} stays`;
    default:
      return "Notification";
  }
}

/**
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function notificationsPage(main, match, { signal, title }) {
  title("Notifications");
  if (!account.session.user) {
    needsLogin(main, "Notifications", "Your notifications are yours: log in to read them.");
    return;
  }
  const unreadOnly = match.query.get("unread") === "true";
  const list = h("ul", { class: "cards notification-cards", "aria-label": "Notifications" });
  const status = h("div", { class: "notification-status" }, loading("Loading notifications"));
  const count = h("p", { class: "unread-count", role: "status" });
  const more = h("div", { class: "actions notification-more" });
  const readAll = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary" }, "Mark all read"));
  /** @param {number} n */
  const showCount = (n) => {
    count.textContent = n ? `${n >= 1000 ? "1,000 or more" : n} unread` : "Nothing unread";
  };
  readAll.addEventListener("click", async () => {
    try {
      const answer = await busy(readAll, "Marking…", () => communityApi.markAllNotificationsRead({ signal }));
      for (const item of list.querySelectorAll(".notification.unread")) {
        item.classList.remove("unread");
        item.querySelector(".mark-read")?.remove();
      }
      showCount(answer.unreadCount);
      announce("All notifications marked read");
    } catch (error) {
      if (!signal.aborted) errorAfter(readAll, error);
    }
  });
  mount(
    main,
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Notifications"), h("p", { class: "lede" }, "Replies, mentions and moderation of what you wrote, newest first.")),
    h(
      "nav",
      { class: "list-tabs section-tabs", "aria-label": "Which notifications" },
      h("ul", null, h("li", null, h("a", { href: "/community/notifications", "aria-current": unreadOnly ? null : "page" }, "All")), h("li", null, h("a", { href: "/community/notifications?unread=true", "aria-current": unreadOnly ? "page" : null }, "Unread"))),
    ),
    h("div", { class: "actions" }, readAll),
    count,
    h("section", { "aria-label": "Notifications" }, status, list, more),
  );

  /** @param {Notification} n */
  const card = (n) => {
    const item = h("li", { class: `card notification${n.read ? "" : " unread"}`, dataset: { notificationId: n.id, kind: n.kind } });
    const removedPost = n.kind === "REMOVED" && !n.commentId;
    const open = removedPost ? null : h("a", { href: postHref(n.postId) }, "Open");
    const markRead = n.read ? null : /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "link-button mark-read" }, "Mark read"));
    markRead?.addEventListener("click", async () => {
      try {
        const answer = await busy(markRead, "Marking…", () => communityApi.markNotificationsRead({ ids: [n.id] }, { signal }));
        item.classList.remove("unread");
        markRead.remove();
        showCount(answer.unreadCount);
        announce("Marked read");
      } catch (error) {
        if (!signal.aborted) errorAfter(markRead, error);
      }
    });
    mount(
      item,
      h("p", { class: "card-title" }, n.read ? null : h("span", { class: "visually-hidden" }, "Unread: "), sentence(n)),
      n.excerpt ? h("blockquote", { class: "excerpt" }, n.excerpt) : null,
      n.reason ? h("p", { class: "moderation-reason" }, h("strong", null, n.kind === "REMOVED" ? "Reason: " : "Note: "), n.reason) : null,
      h("p", { class: "meta" }, time(n.createdAt)),
      h("div", { class: "actions" }, open, markRead),
    );
    return item;
  };

  /** @param {string|undefined} cursor */
  const load = async (cursor) => {
    const page = await communityApi.listNotifications({ limit: PER_PAGE, ...(cursor ? { cursor } : {}), ...(unreadOnly ? { unread: true } : {}) }, { signal, cache: "no-store" });
    list.append(...page.content.map(card));
    showCount(page.unreadCount);
    mount(status, list.childElementCount ? h("p", { class: "pager-summary" }, plural(list.childElementCount, "notification") + " shown") : empty(unreadOnly ? "Nothing unread" : "No notifications yet", "Comments on your posts, replies, mentions and moderation show here."));
    if (!page.nextCursor) {
      mount(more);
      return;
    }
    const next = page.nextCursor;
    const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary" }, "More notifications"));
    button.addEventListener("click", async () => {
      try {
        await busy(button, "Loading…", () => load(next));
      } catch (error) {
        if (!signal.aborted) errorAfter(button, error);
      }
    });
    mount(more, button);
  };
  try {
    await load(undefined);
  } catch (error) {
    if (!signal.aborted) mount(status, errorBox(error, () => void notificationsPage(main, match, { signal, title })));
  }
}
