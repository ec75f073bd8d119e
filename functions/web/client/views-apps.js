// `/settings/apps`: reading apps (NetNewsWire, Reeder, Read You…) connect with the Google
// Reader API; each gets an app password of its own, shown once with the server address,
// listed with its last use and revoked here.

import * as usersApi from "./api-users.gen.js";
import { needsLogin } from "./access.js";
import { announce, h, mount, time } from "./dom.js";
import * as account from "./session.js";
import { busy, clearFormErrors, confirmFirst, empty, errorAfter, errorBox, field, formError, loading, showFormError } from "./ui.js";

/** @typedef {import("./api-types.gen.js").AppPassword} AppPassword */

/** The address a reading app is given: it appends `accounts/ClientLogin` and `reader/api/0/…`. */
export function serverAddress() {
  return `${window.location.origin}/api/greader`;
}

/**
 * A value to copy, with its Copy button.
 * @param {string} label
 * @param {string} value
 * @param {string} id
 */
function copyable(label, value, id) {
  const copy = h("button", { type: "button", class: "button secondary small", "aria-label": `Copy the ${label.toLowerCase()}` }, "Copy");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(value);
      announce(`${label} copied`);
    } catch {
      // No clipboard (an insecure origin): the value is selected for copying by hand.
      /** @type {HTMLInputElement|null} */ (document.getElementById(id))?.select();
    }
  });
  return h("div", { class: "copyable" }, h("label", { for: id }, label), h("div", { class: "copy-row" }, h("input", { type: "text", id, value, readonly: true, class: "mono", spellcheck: "false" }), copy));
}

/**
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} _match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function appsPage(main, _match, { signal, title }) {
  title("Reading apps");
  const user = account.session.user;
  if (!user) {
    needsLogin(main, "Reading apps");
    return;
  }
  const created = h("div", { class: "created-slot" });
  const list = h("div", null, loading("Loading your app passwords"));
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Create app password"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card", "aria-labelledby": "new-app-heading", novalidate: true },
      h("h2", { id: "new-app-heading" }, "Connect an app"),
      h("p", { class: "hint" }, "Apps that speak the Google Reader API (as FreshRSS and Miniflux serve it) can read, mark and star here: NetNewsWire, Reeder, Read You, FeedMe, NewsFlash, FocusReader, newsboat. Give each its own password, so you can end one without the others."),
      formError(),
      field({ label: "App name", name: "name", required: true, maxlength: 100, autocomplete: "off", hint: "Which app or device this is for, e.g. “Reeder on my phone”." }),
      h("div", { class: "actions" }, button),
      created,
    )
  );

  const load = async () => {
    try {
      // At most 20 a person: one page holds them all.
      const { items } = await usersApi.getMyAppPasswords({}, { signal });
      mount(
        list,
        items.length
          ? h(
              "ul",
              { class: "plain-list app-passwords" },
              items.map((p) => passwordRow(p, load)),
            )
          : empty("No app passwords yet", "Create one above for each app you read with."),
      );
    } catch (error) {
      if (!signal.aborted) mount(list, errorBox(error, load));
    }
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const name = String(new FormData(form).get("name") ?? "").trim();
    try {
      const made = await busy(button, "Creating…", () => usersApi.createMyAppPassword({ name }));
      form.reset();
      mount(
        created,
        h(
          "div",
          { class: "callout once", role: "status", tabindex: "-1", id: "new-password" },
          h("p", { class: "state-title" }, `App password for “${made.name}”`),
          h("p", null, "Enter these in the app now: the password is shown only this once. Choose the Google Reader, FreshRSS or Miniflux (Google Reader API) account type."),
          copyable("Server address", serverAddress(), "app-server"),
          copyable("Username", user.username, "app-username"),
          copyable("Password", made.password, "app-password"),
        ),
      );
      /** @type {HTMLElement|null} */ (created.firstElementChild)?.focus();
      announce(`App password for ${made.name} created`);
      await load();
    } catch (error) {
      showFormError(form, error);
    }
  });

  mount(
    main,
    h(
      "div",
      { class: "page-head" },
      h("h1", { tabindex: "-1" }, "Reading apps"),
      h("p", { class: "lede" }, "Server address: ", h("code", { class: "mono" }, serverAddress()), ". Log in with your username and an app password, never your account’s password."),
    ),
    h("div", { class: "settings-grid" }, form, h("section", { class: "card", "aria-labelledby": "app-list-heading" }, h("h2", { id: "app-list-heading" }, "Your app passwords"), h("p", { class: "hint" }, "Signing out everywhere, or changing your password, ends them all."), list)),
  );
  await load();
}

/**
 * One app password: its name, when it was made and last used, and Revoke.
 * @param {AppPassword} p
 * @param {() => Promise<void>} reload
 */
function passwordRow(p, reload) {
  const slot = h("span", { class: "inline-actions" });
  const revoke = h("button", { type: "button", class: "button secondary small", "aria-label": `Revoke ${p.name}` }, "Revoke…");
  confirmFirst(slot, revoke, {
    warning: h("span", { class: "warning" }, `The app using “${p.name}” is signed out.`),
    confirmLabel: "Yes, revoke",
    busyLabel: "Revoking…",
    act: () => usersApi.revokeMyAppPassword(p.id),
    done: () => {
      announce(`${p.name} revoked`);
      void reload();
    },
    failed: (error, cancel) => errorAfter(cancel, error),
  });
  return h(
    "li",
    { class: "app-password" },
    h("p", { class: "app-name" }, p.name),
    h("p", { class: "meta" }, "Created ", time(p.createdAt), " · ", p.lastUsedAt ? ["last used ", time(p.lastUsedAt)] : "never used"),
    slot,
  );
}
