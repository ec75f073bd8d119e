// The platform's shell: header and navigation (the four products grouped, each section shown
// to the roles it is open to), the routes, focus and title on every page change, the session restored before the first
// page is shown, and the sign-in page when the server ends the session. Only the shell loads
// with the page; each page's view module (and its product's API module) is imported on the
// first visit to one of its pages.

import { announce, h, mount } from "./dom.js";
import { dispatch, fallback, navigate, prepare, route, start } from "./router.js";
import * as account from "./session.js";
import { empty, errorBox, loading } from "./ui.js";

/** The product's one name, above all four of its parts. */
const APP_NAME = "News platform";

const main = h("main", { id: "main", tabindex: "-1" });
const nav = h("nav", { id: "site-nav", "aria-label": "Main" });
const menuButton = /** @type {HTMLButtonElement} */ (
  h("button", { type: "button", class: "menu-toggle", "aria-expanded": "false", "aria-controls": "site-nav" }, "Menu")
);

/**
 * The products, each a group of sections with who sees each link (the server checks every
 * request; a link nobody may follow is left out, and so is a group left empty).
 * @type {{name: string, links: [string, string, () => boolean][]}[]}
 */
const PRODUCTS = [
  {
    name: "News reader",
    links: [
      ["/", "Articles", () => true],
      ["/sources", "Sources", () => true],
      ["/topics", "Topics", () => true],
      ["/starred", "Starred", () => true],
      ["/subscriptions", "Subscriptions", () => Boolean(account.session.user)],
      ["/digests", "Digests", () => true],
    ],
  },
  { name: "Community", links: [["/community", "Community", () => true]] },
  { name: "Recipes", links: [["/recipes", "Recipes", () => true]] },
  { name: "Incident platform", links: [["/incidents", "Incidents", account.isOperator]] },
  { name: "Administration", links: [["/admin/users", "Admin", account.isAdmin]] },
];

function renderNav() {
  const path = window.location.pathname;
  const current = (/** @type {string} */ href) => {
    // The accounts page's link stands for every administration page.
    const section = href === "/admin/users" ? "/admin" : href;
    return href === "/" ? path === "/" || path.startsWith("/articles/") : path === section || path.startsWith(`${section}/`);
  };
  const user = account.session.user;
  const logout = h("button", { type: "button", class: "link-button" }, "Log out");
  logout.addEventListener("click", () => {
    account.logOut();
    announce("Logged out");
    navigate("/");
  });
  const groups = PRODUCTS.map((product) => ({ ...product, links: product.links.filter(([, , shown]) => shown()) })).filter((product) => product.links.length > 0);
  mount(
    nav,
    h(
      "ul",
      { class: "nav-links" },
      groups.map((product, i) => {
        // A product of one section is named by its link; a larger one carries its name.
        const labelled = product.links.length > 1;
        const id = `nav-group-${i}`;
        return h(
          "li",
          { class: "nav-group" },
          labelled ? h("span", { class: "nav-group-name", id }, product.name) : null,
          h(
            "ul",
            labelled ? { "aria-labelledby": id } : { "aria-label": product.name },
            product.links.map(([href, label]) => h("li", null, h("a", { href, "aria-current": current(href) ? "page" : null }, label))),
          ),
        );
      }),
    ),
    h(
      "div",
      { class: "account" },
      user
        ? [
            h("a", { href: "/settings", "aria-current": current("/settings") ? "page" : null }, "Settings"),
            h("span", { class: "who", title: user.username }, h("span", { class: "visually-hidden" }, "Logged in as "), user.username),
            logout,
          ]
        : [
            h("a", { href: "/settings", "aria-current": current("/settings") ? "page" : null }, "Settings"),
            h("a", { href: "/login", "aria-current": path === "/login" ? "page" : null }, "Log in"),
            h("a", { class: "button small", href: "/register" }, "Register"),
          ],
    ),
  );
}

function setMenu(/** @type {boolean} */ open) {
  menuButton.setAttribute("aria-expanded", String(open));
  document.body.classList.toggle("menu-open", open);
}

menuButton.addEventListener("click", () => setMenu(menuButton.getAttribute("aria-expanded") !== "true"));
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && document.body.classList.contains("menu-open")) {
    setMenu(false);
    menuButton.focus();
  }
});

/** The shown page's requests. @type {AbortController|null} */
let controller = null;
/** A page whose module is still loading: a later navigation cancels it. @type {AbortController|null} */
let pending = null;
let firstPage = true;

/**
 * A page's view: draws the page for `match` in `main`.
 * @typedef {(main: HTMLElement, match: import("./router.js").Match, context: import("./views-browse.js").ViewContext) => (void|Promise<void>)} View
 */

/**
 * A route handler that shows a view in the main landmark. The view's module is loaded on the
 * first visit to one of its pages, so a product's modules load when it is opened: `navigate`
 * changes the address once it is loaded (`ready`), and the page is drawn at once, as every
 * page is from then on. (The first page, or one reached by the back button, shows when its
 * module arrives; the page shown until then stays.)
 * @param {() => Promise<View>} load
 * @returns {import("./router.js").Handler}
 */
function page(load) {
  /** @type {View|null} */
  let view = null;
  /** @type {Promise<View>|null} */
  let loadingView = null;
  /** `null` when the view is loaded, else when it will be. */
  const ready = () =>
    view
      ? null
      : (loadingView ??= load().then(
          (loaded) => (view = loaded),
          (error) => {
            // Asked again next time.
            loadingView = null;
            throw error;
          },
        ));
  /** @type {import("./router.js").Handler} */
  const handler = (match) => {
    pending?.abort();
    const current = new AbortController();
    setMenu(false);
    if (view) {
      show(view, match, current);
      return;
    }
    pending = current;
    ready()?.then(
      (loaded) => {
        if (!current.signal.aborted) show(loaded, match, current);
      },
      (error) => {
        if (current.signal.aborted) return;
        // A module that failed to load stays failed in this document: reloading fetches it again.
        open(current);
        mount(main, errorBox(error, () => window.location.reload(), { title: "The page could not be loaded", text: "Check your connection and try again." }));
      },
    );
  };
  handler.ready = ready;
  return handler;
}

/**
 * Makes `current` the shown page's: the page shown until now stops its requests.
 * @param {AbortController} current
 */
function open(current) {
  controller?.abort();
  controller = current;
  if (pending === current) pending = null;
  renderNav();
}

/**
 * Shows `view` for `match`, then moves focus to its heading (after the first page).
 * @param {View} view
 * @param {import("./router.js").Match} match
 * @param {AbortController} current
 */
function show(view, match, current) {
  open(current);
  const title = (/** @type {string} */ text) => {
    document.title = `${text} · ${APP_NAME}`;
  };
  const shown = view(main, match, { signal: current.signal, title });
  if (!firstPage) {
    window.scrollTo(0, 0);
    // Move focus to the new page's heading, so screen readers announce it.
    const heading = main.querySelector("h1");
    (heading instanceof HTMLElement ? heading : main).focus();
  }
  firstPage = false;
  Promise.resolve(shown).catch(() => {});
}

/**
 * A route whose page depends on whether someone may be signed in: `yes` then, else `no`.
 * @param {() => boolean} test
 * @param {import("./router.js").Handler} yes
 * @param {import("./router.js").Handler} no
 * @returns {import("./router.js").Handler}
 */
function either(test, yes, no) {
  const handler = (/** @type {import("./router.js").Match} */ match) => (test() ? yes : no)(match);
  handler.ready = () => (test() ? yes : no).ready?.() ?? null;
  return handler;
}

function notFound(/** @type {HTMLElement} */ target, /** @type {import("./router.js").Match} */ match, /** @type {import("./views-browse.js").ViewContext} */ { title }) {
  title("Page not found");
  mount(target, h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, "Page not found")), empty(`There is no page at ${match.path}.`, h("a", { href: "/" }, "Go to the latest articles")));
}

// A signed-in person's home is their reading list; a visitor's, the latest articles.
route("/", either(account.maybeSignedIn, page(() => import("./views-reader.js").then((m) => m.home)), page(() => import("./views-browse.js").then((m) => m.home))));
route("/starred", page(() => import("./views-reader.js").then((m) => m.starred)));
route("/subscriptions", page(() => import("./views-subscriptions.js").then((m) => m.subscriptionsPage)));
route("/settings/apps", page(() => import("./views-apps.js").then((m) => m.appsPage)));
route("/sources", page(() => import("./views-browse.js").then((m) => m.sources)));
route("/sources/:id", page(() => import("./views-browse.js").then((m) => m.source)));
route("/topics", page(() => import("./views-browse.js").then((m) => m.topics)));
route("/topics/:id", page(() => import("./views-browse.js").then((m) => m.topic)));
route("/articles/:id", page(() => import("./view-article.js").then((m) => m.article)));
// Saved articles became starred ones: old bookmarks land there.
route("/saved", () => navigate("/starred", { replace: true }));
route("/settings", page(() => import("./views-account.js").then((m) => m.settings)));
route("/login", page(() => import("./views-account.js").then((m) => m.login)));
route("/register", page(() => import("./views-account.js").then((m) => m.register)));
route("/community", page(() => import("./views-community.js").then((m) => m.communityHome)));
route("/community/topics/:name", page(() => import("./views-community.js").then((m) => m.communityTopic)));
route("/community/search", page(() => import("./views-community.js").then((m) => m.communitySearch)));
route("/community/posts/:id", page(() => import("./view-post.js").then((m) => m.communityPost)));
route("/community/posts/:id/edit", page(() => import("./view-write.js").then((m) => m.communityEdit)));
route("/community/write", page(() => import("./view-write.js").then((m) => m.communityWrite)));
route("/community/me", page(() => import("./views-community-user.js").then((m) => m.communityMe)));
route("/community/users/:id", page(() => import("./views-community-user.js").then((m) => m.communityUser)));
route("/community/notifications", page(() => import("./views-notifications.js").then((m) => m.notificationsPage)));
// Before `/digests/:id`: the first route that matches a path shows it.
route("/digests", page(() => import("./views-digests.js").then((m) => m.myDigests)));
route("/digests/public", page(() => import("./views-digests.js").then((m) => m.publicDigest)));
route("/digests/:id", page(() => import("./view-digest.js").then((m) => m.digest)));
route("/recipes", page(() => import("./views-recipes.js").then((m) => m.recipes)));
// Before `/recipes/:id`.
route("/recipes/preferences", page(() => import("./views-recipes.js").then((m) => m.recipePreferences)));
route("/recipes/plan", page(() => import("./views-recipe-plan.js").then((m) => m.mealPlan)));
route("/recipes/shopping-list", page(() => import("./views-recipe-plan.js").then((m) => m.shoppingList)));
route("/recipes/:id", page(() => import("./views-recipes.js").then((m) => m.recipe)));
route("/recipes/:id/edit", page(() => import("./views-recipes.js").then((m) => m.recipeEdit)));
// Before `/incidents/:id`: the section's own pages.
route("/incidents", page(() => import("./views-incidents.js").then((m) => m.incidentsHome)));
route("/incidents/logs", page(() => import("./views-logs.js").then((m) => m.timeline)));
route("/incidents/alerts", page(() => import("./views-incidents.js").then((m) => m.alertsPage)));
route("/incidents/rules", page(() => import("./views-rules.js").then((m) => m.rulesPage)));
route("/incidents/rules/:id", page(() => import("./views-rules.js").then((m) => m.rulePage)));
route("/incidents/channels", page(() => import("./views-channels.js").then((m) => m.channelsPage)));
route("/incidents/channels/:id", page(() => import("./views-channels.js").then((m) => m.channelPage)));
route("/incidents/logbook", page(() => import("./views-logbook.js").then((m) => m.logbookPage)));
route("/incidents/logbook/:id", page(() => import("./views-logbook.js").then((m) => m.logbookEntryPage)));
route("/incidents/analyze", page(() => import("./views-analysis.js").then((m) => m.analyzePage)));
route("/incidents/runbooks", page(() => import("./views-analysis.js").then((m) => m.runbooksPage)));
route("/incidents/silences", page(() => import("./views-silences.js").then((m) => m.silencesPage)));
route("/incidents/keys", page(() => import("./views-keys.js").then((m) => m.keysPage)));
route("/incidents/:id", page(() => import("./views-incidents.js").then((m) => m.incidentPage)));
route("/admin/users", page(() => import("./views-admin.js").then((m) => m.accountsPage)));
route("/admin/summaries", page(() => import("./views-admin-ai.js").then((m) => m.failedSummariesPage)));
route("/admin/provider", page(() => import("./views-admin-ai.js").then((m) => m.providerPage)));
route("/admin/digests", page(() => import("./views-admin-ai.js").then((m) => m.digestJobsPage)));
route("/admin/moderation", page(() => import("./views-admin-moderation.js").then((m) => m.moderationLogPage)));
route("/admin/reports", page(() => import("./views-admin-reports.js").then((m) => m.reportsPage)));
fallback(page(() => Promise.resolve(notFound)));

/** Pages whose content depends on who is logged in: drawn again when the session ends. */
const ACCOUNT_PAGES = ["/", "/starred", "/subscriptions", "/settings/apps", "/settings", "/community/me", "/community/notifications", "/community/write", "/digests", "/recipes", "/recipes/preferences", "/recipes/plan", "/recipes/shopping-list"];

/** The incident and admin pages all need a session with a role: drawn again when it ends. */
function isRolePath(/** @type {string} */ path) {
  return path === "/incidents" || path.startsWith("/incidents/") || path === "/admin" || path.startsWith("/admin/");
}

/** A digest's page: a PERSONAL digest is its reader's only, so it is asked for again. */
function isPersonalDigestPath(/** @type {string} */ path) {
  return path.startsWith("/digests/") && path !== "/digests/public";
}

/** Whether the first page has been shown (the session is restored by then). */
let started = false;

/** The sign-in page, coming back to where the reader is. */
function signInHere() {
  const { pathname, search } = window.location;
  return pathname === "/login" ? pathname + search : `/login?next=${encodeURIComponent(pathname + search)}`;
}

account.onSessionChange(() => {
  renderNav();
  if (started && !account.session.user && account.endedReason() && window.location.pathname !== "/login") {
    // The server ended the session (its token now answers 401): sign in again.
    navigate(signInHere(), { replace: true });
    return;
  }
  if (started && !account.session.user && (ACCOUNT_PAGES.includes(window.location.pathname) || window.location.pathname.endsWith("/edit") || isPersonalDigestPath(window.location.pathname) || isRolePath(window.location.pathname))) {
    // The session ended (logged out, or the token expired): show the page's logged-out state.
    dispatch();
  }
});

document.body.prepend(
  h("a", { class: "skip-link", href: "#main" }, "Skip to content"),
  h("header", { class: "site-header" }, h("div", { class: "bar" }, h("a", { class: "brand", href: "/" }, h("span", { class: "logo", "aria-hidden": "true" }), APP_NAME), menuButton, nav)),
  main,
  h(
    "footer",
    { class: "site-footer" },
    h("p", null, `${APP_NAME}: news, community, recipes and incidents. Articles come from the feeds readers add. `, h("a", { href: "/swagger-ui.html" }, "API documentation"), " · ", h("a", { href: "/v3/api-docs" }, "OpenAPI contract")),
  ),
  h("div", { id: "announcer", class: "toast", role: "status", "aria-live": "polite", "aria-atomic": "true" }),
);
mount(main, loading("Loading"));
renderNav();
prepare();
account.restore().finally(() => {
  if (account.endedReason()) {
    // The stored session was ended elsewhere: the first page is the sign-in page.
    window.history.replaceState(null, "", signInHere());
  }
  started = true;
  start();
});
