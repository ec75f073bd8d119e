// The account: logging in (told why when the server ended the session), registering, settings
// with the password and the sessions.

import * as contentApi from "./api-content.gen.js";
import { needsLogin } from "./access.js";
import { announce, h, mount } from "./dom.js";
import { allPages, ApiError } from "./http.js";
import { navigate, sameOriginPath } from "./router.js";
import * as account from "./session.js";
import { busy, clearFormErrors, confirmFirst, errorAfter, errorBox, field, formError, loading, showFormError } from "./ui.js";

/** @typedef {import("./api-types.gen.js").Profile} Profile */
/** @typedef {import("./api-types.gen.js").Settings} Settings */
/** @typedef {import("./api-types.gen.js").SettingsUpdate} SettingsUpdate */

/**
 * Where to go after logging in: a path on this origin from `?next=`, else home.
 * @param {URLSearchParams} query
 */
function nextPath(query) {
  return sameOriginPath(query.get("next") ?? "/", window.location.origin) ?? "/";
}

/**
 * `/login`.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export function login(main, match, { title }) {
  title("Log in");
  const ended = account.takeEndedReason();
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Log in"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card narrow", novalidate: true },
      formError(),
      field({ label: "Username", name: "username", required: true, autocomplete: "username" }),
      field({ label: "Password", name: "password", type: "password", required: true, autocomplete: "current-password" }),
      h("div", { class: "actions" }, button),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    try {
      await busy(button, "Logging in…", () => account.logIn(String(data.get("username") ?? "").trim(), String(data.get("password") ?? "")));
      announce(`Logged in as ${account.session.user?.username ?? ""}`);
      navigate(nextPath(match.query), { replace: true });
    } catch (error) {
      const wrong = error instanceof ApiError && error.status === 401;
      showFormError(form, error, wrong ? { title: "Wrong username or password", text: "Check both and try again." } : undefined);
    }
  });
  mount(
    main,
    h(
      "div",
      { class: "page-head narrow" },
      h("h1", { tabindex: "-1" }, "Log in"),
      ended ? h("div", { class: "callout session-ended", role: "status" }, h("p", { class: "state-title" }, "You were signed out"), h("p", null, ended)) : null,
      h("p", { class: "lede" }, "No account yet? ", h("a", { href: `/register${window.location.search}` }, "Create one"), "."),
    ),
    form,
  );
}

/**
 * `/register`.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export function register(main, match, { title }) {
  title("Create an account");
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Create account"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card narrow", novalidate: true },
      formError(),
      field({ label: "Username", name: "username", required: true, autocomplete: "username", minlength: 3, maxlength: 50, hint: "3 to 50 letters, digits, '_', '.' or '-'." }),
      field({ label: "Email", name: "email", type: "email", required: true, autocomplete: "email" }),
      field({ label: "Password", name: "password", type: "password", required: true, autocomplete: "new-password", minlength: 8, maxlength: 128, hint: "At least 8 characters." }),
      field({ label: "Name", name: "name", autocomplete: "name", maxlength: 100 }),
      h("div", { class: "actions" }, button),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    const text = (/** @type {string} */ name) => String(data.get(name) ?? "").trim();
    try {
      await busy(button, "Creating your account…", () =>
        account.register({ username: text("username"), email: text("email"), password: String(data.get("password") ?? ""), name: text("name") || null }),
      );
      announce(`Welcome, ${account.session.user?.name ?? account.session.user?.username ?? ""}`);
      navigate(nextPath(match.query), { replace: true });
    } catch (error) {
      showFormError(form, error);
    }
  });
  mount(
    main,
    h("div", { class: "page-head narrow" }, h("h1", { tabindex: "-1" }, "Create an account"), h("p", { class: "lede" }, "Already registered? ", h("a", { href: `/login${window.location.search}` }, "Log in"), ".")),
    form,
  );
}

/**
 * `/settings`: profile, reading preferences, followed topics, where subscriptions and reading
 * apps are managed, the password, signing out everywhere, deleting the account.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} _match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function settings(main, _match, { signal, title }) {
  title("Settings");
  const user = account.session.user;
  const current = account.session.settings;
  if (!user || !current) {
    needsLogin(main, "Settings");
    return;
  }
  const topicsSlot = h("fieldset", { class: "field" }, h("legend", null, "Followed topics"), loading("Loading topics"));
  mount(
    main,
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Settings"), h("p", { class: "lede" }, `Logged in as ${user.username}.`)),
    h("div", { class: "settings-grid" }, profileForm(user), preferencesForm(current, topicsSlot), readingSection(), passwordForm(), sessionsSection(), deleteSection()),
  );
  const [topics] = await Promise.allSettled([allPages((cursor, options) => contentApi.listTopics({ limit: 100, cursor }, options), { signal })]);
  if (signal.aborted) {
    return;
  }
  if (topics.status === "fulfilled") {
    const sorted = [...topics.value].sort((a, b) => a.name.localeCompare(b.name));
    mount(
      topicsSlot,
      h("legend", null, "Followed topics"),
      h("p", { class: "hint" }, "Your daily digest covers the topics you follow; following none, you get the day’s public digest. ", h("a", { href: "/digests" }, "Your digests"), "."),
      sorted.length
        ? h("div", { class: "checks" }, sorted.map((t) => h("label", { class: "check" }, h("input", { type: "checkbox", name: "followedTopics", value: t.id, checked: current.followedTopics.includes(t.id) }), ` ${t.name}`)))
        : h("p", { class: "hint" }, "No topics yet."),
    );
  } else {
    mount(topicsSlot, h("legend", null, "Followed topics"), errorBox(topics.reason));
  }
}

/** Where subscriptions, folders, OPML and reading apps are managed. */
function readingSection() {
  return h(
    "section",
    { class: "card", "aria-labelledby": "subs-heading" },
    h("h2", { id: "subs-heading" }, "Subscriptions and apps"),
    h("ul", { class: "plain-list" }, h("li", null, h("a", { href: "/subscriptions" }, "Subscriptions, folders, OPML import and export")), h("li", null, h("a", { href: "/settings/apps" }, "Reading apps and app passwords"))),
    h("p", { class: "hint" }, "Read with NetNewsWire, Reeder, Read You, FeedMe, NewsFlash, FocusReader or newsboat: give the app a password made for it, never your account’s."),
  );
}

/** @param {Profile} user */
function profileForm(user) {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Save profile"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card", "aria-labelledby": "profile-heading", novalidate: true },
      h("h2", { id: "profile-heading" }, "Profile"),
      formError(),
      field({ label: "Name", name: "name", value: user.name ?? "", autocomplete: "name", maxlength: 100 }),
      // An account registered through the recipe service has no email until one is set here.
      field({ label: "Email", name: "email", type: "email", value: user.email ?? "", required: user.email !== undefined, autocomplete: "email" }),
      h("div", { class: "actions" }, button),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    try {
      const email = String(data.get("email") ?? "").trim();
      const name = String(data.get("name") ?? "").trim();
      await busy(button, "Saving…", () => account.saveProfile(email || user.email !== undefined ? { name, email } : { name }));
      announce("Profile saved");
    } catch (error) {
      showFormError(form, error);
    }
  });
  return form;
}

/**
 * @param {Settings} current
 * @param {HTMLElement} topicsSlot
 */
function preferencesForm(current, topicsSlot) {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Save preferences"));
  const radio = (/** @type {string} */ value, /** @type {string} */ label) =>
    h("label", { class: "check" }, h("input", { type: "radio", name: "theme", value, checked: current.theme === value }), ` ${label}`);
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card", "aria-labelledby": "prefs-heading", novalidate: true },
      h("h2", { id: "prefs-heading" }, "Reading preferences"),
      formError(),
      h("fieldset", { class: "field", dataset: { field: "theme" } }, h("legend", null, "Theme"), h("div", { class: "checks" }, radio("system", "Like my device"), radio("light", "Light"), radio("dark", "Dark"))),
      h(
        "div",
        { class: "field", dataset: { field: "summaryLength" } },
        h("label", { for: "field-summaryLength" }, "Default summary length"),
        h("select", { id: "field-summaryLength", name: "summaryLength" }, ["short", "medium", "long"].map((v) => h("option", { value: v, selected: current.summaryLength === v }, v[0].toUpperCase() + v.slice(1)))),
        h("p", { class: "field-error", hidden: true }),
      ),
      field({ label: "Language", name: "language", value: current.language, required: true, hint: "A language code such as en, de or pt-BR.", maxlength: 35 }),
      h(
        "fieldset",
        { class: "field" },
        h("legend", null, "Community profile"),
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "showBookmarks", checked: current.showBookmarks }), " Show my bookmarks"),
        h("label", { class: "check" }, h("input", { type: "checkbox", name: "showLikes", checked: current.showLikes }), " Show my likes"),
      ),
      topicsSlot,
      h("div", { class: "actions" }, button),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    /** @type {SettingsUpdate} */
    const update = {
      theme: /** @type {any} */ (data.get("theme") ?? current.theme),
      summaryLength: /** @type {any} */ (data.get("summaryLength") ?? current.summaryLength),
      language: String(data.get("language") ?? "").trim(),
      showBookmarks: data.get("showBookmarks") === "on",
      showLikes: data.get("showLikes") === "on",
    };
    if (topicsSlot.querySelector("input")) {
      update.followedTopics = data.getAll("followedTopics").map(String);
    }
    try {
      await busy(button, "Saving…", () => account.saveSettings(update));
      announce("Preferences saved");
    } catch (error) {
      showFormError(form, error);
    }
  });
  return form;
}

/** Changing the password: the current one, the new one twice. */
function passwordForm() {
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Change password"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card password-form", "aria-labelledby": "password-heading", novalidate: true },
      h("h2", { id: "password-heading" }, "Change password"),
      h("p", { class: "hint" }, "Every other device you are logged in on is signed out; this one stays logged in."),
      formError(),
      field({ label: "Current password", name: "currentPassword", type: "password", required: true, autocomplete: "current-password" }),
      field({ label: "New password", name: "password", type: "password", required: true, autocomplete: "new-password", minlength: 8, maxlength: 128, hint: "At least 8 characters." }),
      field({ label: "Confirm new password", name: "confirmPassword", type: "password", required: true, autocomplete: "new-password", maxlength: 128 }),
      h("div", { class: "actions" }, button),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    const current = String(data.get("currentPassword") ?? "");
    const password = String(data.get("password") ?? "");
    if (password !== String(data.get("confirmPassword") ?? "")) {
      // Checked here: the API never sees the confirmation.
      showFormError(form, new ApiError(400, "The new passwords differ", ["confirmPassword: does not match the new password"]));
      return;
    }
    try {
      await busy(button, "Changing…", () => account.changePassword(current, password));
      form.reset();
      announce("Password changed; your other sessions were signed out");
    } catch (error) {
      const wrong = error instanceof ApiError && error.status === 403;
      showFormError(form, error, wrong ? { title: "Wrong current password", text: "Type the password you log in with now." } : undefined);
    }
  });
  return form;
}

/** Signing out everywhere: every session of the account ends, this one too. */
function sessionsSection() {
  const slot = h("div", { class: "actions" });
  const start = h("button", { type: "button", class: "button secondary" }, "Sign out everywhere…");
  confirmFirst(slot, start, {
    warning: h("p", { class: "warning" }, "Every device logged in to your account is signed out, this one too; you log in again with your password."),
    confirmLabel: "Yes, sign out everywhere",
    busyLabel: "Signing out…",
    act: () => account.signOutEverywhere(),
    done: () => {
      announce("Signed out everywhere");
      navigate("/login", { replace: true });
    },
    failed: (error, cancel) => errorAfter(cancel, error),
  });
  return h(
    "section",
    { class: "card", "aria-labelledby": "sessions-heading" },
    h("h2", { id: "sessions-heading" }, "Sessions"),
    h("p", { class: "hint" }, "Lost a device, or logged in somewhere you should not have? End every session of your account."),
    slot,
  );
}

function deleteSection() {
  const slot = h("div", { class: "actions" });
  const start = h("button", { type: "button", class: "button danger" }, "Delete my account…");
  confirmFirst(slot, start, {
    warning: h("p", { class: "warning", id: "delete-warning" }, "This removes your account, your settings and your subscriptions. It cannot be undone."),
    confirmLabel: "Yes, delete my account",
    busyLabel: "Deleting…",
    act: () => account.deleteAccount(),
    done: () => {
      announce("Your account was deleted");
      navigate("/", { replace: true });
    },
    failed: (error) => slot.append(errorBox(error)),
  });
  return h("section", { class: "card", "aria-labelledby": "danger-heading" }, h("h2", { id: "danger-heading" }, "Delete account"), slot);
}
