// Administration (ADMIN): every account with its roles, a page at a time, and the roles an
// administrator grants or revokes (another administrator's account: nobody changes their own).
// A changed account's sessions end on the server; its owner logs in again to carry the new
// roles.

import * as administrationApi from "./api-administration.gen.js";
import { announce, h, mount, plural, time } from "./dom.js";
import { GRANTABLE, chosenRoles, pageSize } from "./roles.js";
import * as account from "./session.js";
import { busy, clearFormErrors, errorAfter, errorBox, formError, loading, showFormError } from "./ui.js";
import { needsLogin, needsRole } from "./access.js";
import { adminNav } from "./views-admin-ai.js";

/** @typedef {import("./api-types.gen.js").Profile} Profile */
/** @typedef {import("./api-types.gen.js").Role} Role */

/** Accounts a page holds unless `?limit=` asks for another number (the API takes 1 to 100). */
const PAGE = 50;

/**
 * An account's roles as badges.
 * @param {Role[]} roles
 */
function roleBadges(roles) {
  return roles.map((role) => h("span", { class: `badge role role-${role.toLowerCase()}` }, role));
}

/**
 * One account: who, since when, its roles, and the form that sets them (for another's).
 * @param {Profile} user
 */
function accountCard(user) {
  const headingId = `account-${user.id}`;
  const own = user.id === account.session.user?.id;
  const badges = h("p", { class: "meta account-roles" }, roleBadges(user.roles));
  return h(
    "li",
    { class: "card account-card", dataset: { userId: user.id, username: user.username } },
    h(
      "article",
      { "aria-labelledby": headingId },
      h("h2", { class: "card-title", id: headingId, tabindex: "-1" }, user.username, own ? h("span", { class: "badge" }, "You") : null),
      h("p", { class: "meta" }, [user.name, user.email].filter(Boolean).join(" · "), user.name || user.email ? " · " : null, "joined ", time(user.createdAt, { withTime: false })),
      badges,
      // The API refuses it: one administrator is always left to give ADMIN back.
      own ? h("p", { class: "hint own-roles" }, "Your own roles are changed by another administrator.") : roleForm(user, badges),
    ),
  );
}

/**
 * The form that sets an account's roles, drawing them in `badges` once saved.
 * @param {Profile} user
 * @param {HTMLElement} badges
 */
function roleForm(user, badges) {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button small" }, "Save roles"));
  const errorId = `roles-${user.id}-error`;
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "role-form", novalidate: true },
      formError(),
      h(
        "fieldset",
        { class: "field", dataset: { field: "roles" }, "aria-describedby": errorId },
        h("legend", null, h("span", { class: "visually-hidden" }, `${user.username}: `), "Roles"),
        h(
          "div",
          { class: "checks" },
          GRANTABLE.map(([role, label, opens]) =>
            h("label", { class: "check" }, h("input", { type: "checkbox", name: "roles", value: role, checked: user.roles.includes(role) }), ` ${label} `, h("span", { class: "hint" }, `(${opens})`)),
          ),
        ),
        h("p", { class: "field-error", id: errorId, hidden: true }),
      ),
      h("div", { class: "actions" }, button),
    )
  );
  /** @type {Role[]} */
  let held = user.roles;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const roles = chosenRoles(new FormData(form).getAll("roles").map(String));
    try {
      const saved = await busy(button, "Saving…", () => administrationApi.setAccountRoles(user.id, { roles }));
      const changed = saved.roles.join() !== held.join();
      held = saved.roles;
      mount(badges, roleBadges(saved.roles));
      announce(changed ? `Roles of ${saved.username} saved: ${saved.roles.join(", ")}. They log in again to use them.` : `Roles of ${saved.username} unchanged`);
    } catch (error) {
      showFormError(form, error);
    }
  });
  return form;
}

/**
 * `/admin/users`: every account with its roles, `?limit=` a page at a time ("More accounts"
 * adds the next one).
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function accountsPage(main, match, { signal, title }) {
  const heading = "Accounts and roles";
  title(heading);
  if (!account.session.user) {
    needsLogin(main, heading, "This page is for administrators.");
    return;
  }
  if (!account.isAdmin()) {
    needsRole(main, heading, "ADMIN", "Accounts and their roles are for administrators.");
    return;
  }
  const limit = pageSize(match.query, PAGE);
  const list = h("ul", { class: "cards account-cards", "aria-label": "Accounts" });
  const more = h("div", { class: "actions account-more" });
  const status = h("div", { class: "account-list" }, loading("Loading accounts"));
  mount(
    main,
    h(
      "div",
      { class: "page-head" },
      h("h1", { tabindex: "-1" }, heading),
      h("p", { class: "lede" }, "Every account holds USER. Operator opens the incident platform; Admin opens everything. A change signs the account out everywhere: its owner logs in again to use the new roles."),
    ),
    adminNav(match.path),
    status,
    list,
    more,
  );

  /**
   * Adds a page of accounts; resolves to the first one added (null when none was).
   * @param {string|undefined} cursor
   * @returns {Promise<HTMLElement|null>}
   */
  const load = async (cursor) => {
    const page = await administrationApi.listAccounts(cursor ? { cursor, limit } : { limit }, { signal, cache: "no-store" });
    const cards = page.users.map(accountCard);
    list.append(...cards);
    if (page.nextCursor) {
      const next = page.nextCursor;
      const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary" }, "More accounts"));
      button.addEventListener("click", async () => {
        try {
          const first = await busy(button, "Loading…", () => load(next));
          // The button is gone: keyboard and screen-reader users go on at the first new account.
          /** @type {HTMLElement|null|undefined} */ (first?.querySelector("h2"))?.focus();
        } catch (error) {
          if (!signal.aborted) {
            errorAfter(button, error);
          }
        }
      });
      mount(more, button);
    } else {
      mount(more, h("p", { class: "pager-summary" }, plural(list.childElementCount, "account")));
    }
    return cards[0] ?? null;
  };
  try {
    await load(undefined);
    mount(status);
  } catch (error) {
    if (!signal.aborted) {
      mount(status, errorBox(error, () => void accountsPage(main, match, { signal, title })));
    }
  }
}
