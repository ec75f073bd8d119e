// What a page shows when it needs a login, or a role the session lacks: every product's pages
// use it, so none of them loads the account pages for it.

import { h, mount } from "./dom.js";
import * as account from "./session.js";
import { empty } from "./ui.js";

/**
 * An invitation to log in, for pages that need an account.
 * @param {HTMLElement} main
 * @param {string} heading
 * @param {string} [note] Who the page is for, when not every account.
 */
export function needsLogin(main, heading, note) {
  const here = encodeURIComponent(window.location.pathname + window.location.search);
  mount(
    main,
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, heading)),
    empty(
      "Log in to see this page",
      note ? h("p", null, note) : null,
      h("p", null, h("a", { class: "button", href: `/login?next=${here}` }, "Log in"), " ", h("a", { class: "button secondary", href: `/register?next=${here}` }, "Create an account")),
    ),
  );
}

/**
 * What a page needs when the logged-in account lacks the role it is for.
 * @param {HTMLElement} main
 * @param {string} heading
 * @param {"OPERATOR"|"ADMIN"} role
 * @param {string} why Who the page is for.
 */
export function needsRole(main, heading, role, why) {
  mount(
    main,
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, heading)),
    h(
      "div",
      { class: "state empty needs-role" },
      h("p", { class: "state-title" }, `This page needs the ${role} role`),
      h("p", null, `${why} Your account (${account.session.user?.username ?? ""}) does not have the ${role} role. An administrator can grant it; then log in again to use it.`),
      h("p", null, h("a", { href: "/" }, "Go to the latest articles")),
    ),
  );
}
