// Reports (ADMIN): the open reports grouped by post or comment, newest first, a page at a
// time; each group removed (the admin removal, logged) or dismissed, with an optional note the
// reporters are told.

import * as communityAdminApi from "./api-community-admin.gen.js";
import { announce, h, mount, plural, time } from "./dom.js";
import { postHref, userHref } from "./community.js";
import * as account from "./session.js";
import { needsLogin, needsRole } from "./access.js";
import { adminNav } from "./views-admin-ai.js";
import { busy, empty, errorAfter, errorBox, loading } from "./ui.js";

/** @typedef {import("./api-types.gen.js").ReportGroup} ReportGroup */

const PER_PAGE = 20;
const HEADING = "Reports";

/** @param {ReportGroup} group */
function reasons(group) {
  const r = group.reasons;
  return [
    [r.spam, "spam"],
    [r.abuse, "abuse"],
    [r.offTopic, "off-topic"],
    [r.other, "other"],
  ]
    .filter(([n]) => Number(n) > 0)
    .map(([n, name]) => `${name} ${n}`)
    .join(" · ");
}

/**
 * A group's card: what is reported, how often and why, and its resolution.
 * @param {ReportGroup} group
 * @param {AbortSignal} signal
 */
function groupCard(group, signal) {
  const id = `report-${group.targetId}`;
  const noteId = `${id}-note`;
  const note = /** @type {HTMLInputElement} */ (h("input", { id: noteId, name: "note", type: "text", maxlength: 500, autocomplete: "off" }));
  const remove = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button danger", "aria-describedby": id }, `Remove the ${group.targetType}`));
  const dismiss = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary", "aria-describedby": id }, "Dismiss"));
  const item = h("li", { class: "card report-group", dataset: { targetId: group.targetId, targetType: group.targetType } });
  /** @param {"remove"|"dismiss"} action @param {HTMLButtonElement} button */
  const resolve = async (action, button) => {
    try {
      const words = note.value.trim();
      const done = await busy(button, action === "remove" ? "Removing…" : "Dismissing…", () =>
        communityAdminApi.resolveReports(group.targetType, group.targetId, { action, ...(words ? { note: words } : {}) }, { signal }),
      );
      const said = `${done.outcome === "removed" ? "Removed" : "Dismissed"}; ${plural(done.reports, "reporter")} notified.`;
      mount(item, h("p", { class: "notice", role: "status" }, said));
      announce(said);
    } catch (error) {
      if (!signal.aborted) errorAfter(button, error);
    }
  };
  remove.addEventListener("click", () => void resolve("remove", remove));
  dismiss.addEventListener("click", () => void resolve("dismiss", dismiss));
  mount(
    item,
    h("h3", { class: "card-title", id }, `${group.targetType === "post" ? "Post" : "Comment"}: ${plural(group.count, "report")}`),
    h("blockquote", { class: "excerpt" }, group.excerpt),
    h("p", { class: "meta" }, reasons(group), " · first ", time(group.openedAt), " · latest ", time(group.latestAt), " · by ", h("a", { href: userHref(group.authorId) }, "this member")),
    group.latestText ? h("p", { class: "report-text" }, h("strong", null, "A reporter wrote: "), group.latestText) : null,
    h("p", null, h("a", { href: postHref(group.postId) }, group.targetType === "post" ? "Open the post" : "Open the comment's post")),
    h("div", { class: "field" }, h("label", { for: noteId }, "Note (optional): told to the reporters, and the removal's reason"), note),
    h("div", { class: "actions" }, remove, dismiss),
  );
  return item;
}

/**
 * `/admin/reports`.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function reportsPage(main, match, { signal, title }) {
  title(HEADING);
  if (!account.session.user) {
    needsLogin(main, HEADING, "This page is for administrators.");
    return;
  }
  if (!account.isAdmin()) {
    needsRole(main, HEADING, "ADMIN", "Reports are resolved by administrators.");
    return;
  }
  const list = h("ul", { class: "cards report-cards", "aria-label": "Reported posts and comments" });
  const status = h("div", { class: "report-list" }, loading("Loading reports"));
  const more = h("div", { class: "actions report-more" });
  mount(
    main,
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, HEADING), h("p", { class: "lede" }, "Open reports by post or comment, the most recently reported first. Removing runs the moderation removal; every reporter is told the outcome.")),
    adminNav(match.path),
    h("section", { "aria-labelledby": "open-reports-heading" }, h("h2", { id: "open-reports-heading", class: "visually-hidden" }, "Open reports"), status, list, more),
  );
  /** @param {string|undefined} cursor */
  const load = async (cursor) => {
    const page = await communityAdminApi.listReports({ limit: PER_PAGE, ...(cursor ? { cursor } : {}) }, { signal, cache: "no-store" });
    list.append(...page.content.map((g) => groupCard(g, signal)));
    mount(status, list.childElementCount ? null : empty("No open reports", "A post or comment members report shows here."));
    if (!page.nextCursor) {
      mount(more);
      return;
    }
    const next = page.nextCursor;
    const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary" }, "More reports"));
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
    if (!signal.aborted) mount(status, errorBox(error));
  }
}
