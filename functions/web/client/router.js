// Client-side routes with the History API: real paths (/articles/{id}), so every page can be
// bookmarked and reloaded (the web function answers the same HTML for all of them).

/**
 * @typedef {Object} Match
 * @property {Record<string, string>} params Path parameters by name.
 * @property {URLSearchParams} query
 * @property {string} path
 */

/**
 * A route's handler; `ready`, when there is one, says whether it can draw its page at once
 * (`null`) or when it will be able to (a page whose module is still to be loaded).
 * @typedef {((match: Match) => void) & {ready?: () => (Promise<unknown>|null)}} Handler
 */

/** Paths the server answers itself: links to them are ordinary page loads. */
const SERVER_PREFIXES = ["/api", "/actuator", "/swagger-ui", "/v3/api-docs", "/health", "/prometheus", "/grafana", "/assets"];

/** @type {{pattern: RegExp, names: string[], handler: Handler}[]} */
const routes = [];
/** @type {Handler} */
let notFound = () => {};

/**
 * Adds a route; `pattern` segments like `:id` capture one path segment.
 * @param {string} pattern
 * @param {Handler} handler
 */
export function route(pattern, handler) {
  /** @type {string[]} */
  const names = [];
  const source = pattern
    .split("/")
    .map((segment) => {
      if (segment.startsWith(":")) {
        names.push(segment.slice(1));
        return "([^/]+)";
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  routes.push({ pattern: new RegExp(`^${source}/?$`), names, handler });
}

/** @param {Handler} handler */
export function fallback(handler) {
  notFound = handler;
}

/** @param {string} pathname */
export function isServerPath(pathname) {
  return SERVER_PREFIXES.some((p) => pathname === p || pathname.startsWith(`${p}/`) || pathname === `${p}.html`);
}

/**
 * `target` as a path on `origin` (path, query and fragment), or `null` when it is not one: it
 * must start with a single `/`, and hold no backslash or control character (browsers read
 * `/\host` as `//host`, and drop tabs and newlines, so `/<tab>/host` is `//host` too).
 * @param {string} target
 * @param {string} origin
 * @returns {string | null}
 */
export function sameOriginPath(target, origin) {
  if (!target.startsWith("/") || target.startsWith("//") || target.includes("\\")) {
    return null;
  }
  // C0 controls and DEL: the URL parser strips or drops some of them.
  if (/[\u0000-\u001f\u007f]/.test(target)) {
    return null;
  }
  let url;
  try {
    url = new URL(target, origin);
  } catch {
    return null;
  }
  const path = url.pathname + url.search + url.hash;
  // `/..//host` normalises to `//host`, which is another origin once used as a link.
  return url.origin === origin && !path.startsWith("//") ? path : null;
}

/**
 * Shows `to` (a path with an optional query) and records it in the history; anything that is
 * not a path on this origin shows the home page instead.
 * @param {string} to
 * @param {{replace?: boolean}} [options]
 */
export function navigate(to, { replace = false } = {}) {
  const url = new URL(sameOriginPath(to, window.location.origin) ?? "/", window.location.origin);
  if (isServerPath(url.pathname)) {
    window.location.assign(url.href);
    return;
  }
  const mine = ++navigations;
  const go = () => {
    // A later navigation (or the back button) meanwhile wins.
    if (mine !== navigations) return;
    if (replace) {
      window.history.replaceState(null, "", url.pathname + url.search + url.hash);
    } else {
      window.history.pushState(null, "", url.pathname + url.search + url.hash);
    }
    dispatch();
  };
  // The address changes when the page can be drawn, as it is for a page already loaded.
  const ready = matching(url.pathname).handler.ready?.() ?? null;
  if (ready) {
    ready.then(go, go);
  } else {
    go();
  }
}

/** Navigations started: a page still loading is not shown after a later one. */
let navigations = 0;

/** The path and query last rendered: a change of only the fragment renders nothing. */
let shown = "";

/** Renders the view of the current location. */
export function dispatch() {
  const { pathname, search } = window.location;
  shown = pathname + search;
  const { handler, params } = matching(pathname);
  handler({ params, query: new URLSearchParams(search), path: pathname });
}

/**
 * The handler of `pathname` (the first route that matches it, else the fallback) and its
 * path parameters.
 * @param {string} pathname
 * @returns {{handler: Handler, params: Record<string, string>}}
 */
function matching(pathname) {
  for (const { pattern, names, handler } of routes) {
    const found = pattern.exec(pathname);
    if (found) {
      /** @type {Record<string, string>} */
      const params = {};
      names.forEach((name, i) => {
        params[name] = decodeURIComponent(found[i + 1]);
      });
      return { handler, params };
    }
  }
  return { handler: notFound, params: {} };
}

/**
 * Starts loading what the current location's page needs (its module), so that it arrives
 * while the shell is still busy (restoring the session); a failure is shown by the page.
 */
export function prepare() {
  matching(window.location.pathname)
    .handler.ready?.()
    ?.catch(() => {});
}

/** Follows same-origin links without reloading, and the back and forward buttons. */
export function start() {
  document.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
      return;
    }
    const target = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!(target instanceof HTMLAnchorElement) || target.target || target.hasAttribute("download")) {
      return;
    }
    const url = new URL(target.href);
    if (url.origin !== window.location.origin || isServerPath(url.pathname)) {
      return;
    }
    // An anchor on this page (the skip link): the browser scrolls and focuses it.
    if (url.hash && url.pathname === window.location.pathname && url.search === window.location.search) {
      return;
    }
    event.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
  window.addEventListener("popstate", () => {
    navigations += 1;
    if (window.location.pathname + window.location.search !== shown) {
      dispatch();
    }
  });
  dispatch();
}
