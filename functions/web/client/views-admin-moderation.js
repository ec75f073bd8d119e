// Moderation (ADMIN): the moderation log of every removal, newest first, a page at a time (the
// removal itself, on a post's page, is `moderation.js`).

import * as communityAdminApi from "./api-community-admin.gen.js";
import { h, plural, time } from "./dom.js";
import { postHref, userHref } from "./community.js";
import { empty } from "./ui.js";
import { cursorListPage } from "./views-admin-ai.js";

/** @typedef {import("./api-types.gen.js").ModerationLogEntry} ModerationLogEntry */

/**
 * `/admin/moderation`: every removal with its reason, who removed what of whose, newest first;
 * "More removals" adds the next page.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export function moderationLogPage(main, match, context) {
  return cursorListPage(main, match, context, {
    heading: "Moderation log",
    lede: "Posts and comments administrators removed, newest first, with the reason each was given.",
    kind: "moderation",
    label: "Removals",
    fetch: communityAdminApi.listModerationLog,
    card: entryCard,
    none: () => empty("No removals yet", "A post or comment an administrator removes is listed here with its reason."),
    // The API counts the log up to 1,000.
    count: (n) => (n >= 1000 ? "1,000 or more removals" : plural(n, "removal")),
    moreLabel: "More removals",
  });
}

/** @param {ModerationLogEntry} entry */
function entryCard(entry) {
  const post = entry.targetKind === "POST";
  return h(
    "li",
    { class: "card moderation-entry", dataset: { targetId: entry.targetId, kind: entry.targetKind } },
    h("h3", { class: "card-title" }, post ? "Post removed" : "Comment removed"),
    h("p", { class: "meta" }, time(entry.removedAt), " · by ", h("a", { href: userHref(entry.moderatorId) }, "this administrator"), " · written by ", h("a", { href: userHref(entry.authorId) }, "this member")),
    h("p", { class: "moderation-reason" }, h("strong", null, "Reason: "), entry.reason),
    // A removed post answers 404 to everyone: only a removed comment's post is worth a link.
    post ? h("p", { class: "hint" }, "Post ", h("code", null, entry.postId)) : h("p", { class: "hint" }, "On ", h("a", { href: postHref(entry.postId) }, "this post"), ", comment ", h("code", null, entry.targetId)),
  );
}
