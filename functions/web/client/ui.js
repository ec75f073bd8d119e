// Pieces every view uses: loading, error and empty states, article cards, topic chips and the
// pager.

import { h, mount, plural, safeUrl, time } from "./dom.js";
import { ApiError } from "./http.js";

/**
 * A loading state: a live region that says what is loading.
 * @param {string} what e.g. "Loading articles"
 */
export function loading(what) {
  return h("div", { class: "state loading", role: "status", "aria-live": "polite" }, h("span", { class: "spinner", "aria-hidden": "true" }), `${what}…`);
}

/**
 * What went wrong, in words, for an error from `request()`.
 * @param {unknown} error
 * @returns {{title: string, text: string}}
 */
export function describe(error) {
  if (!(error instanceof ApiError)) {
    return { title: "Something went wrong", text: "The page hit an unexpected problem. Reload and try again." };
  }
  switch (error.status) {
    case 0:
      return { title: "You seem to be offline", text: error.message };
    case 400:
      return { title: "That did not work", text: [error.message, ...error.details].join(" — ") };
    case 401:
      return { title: "Please log in", text: "Your session has ended or you are not logged in." };
    case 403:
      return { title: "Not allowed", text: `Your account may not do this: ${error.message}` };
    case 404:
      return { title: "Not found", text: error.message };
    case 409:
      return { title: "Changed meanwhile", text: error.message };
    case 502:
      return {
        title: "The service behind this could not answer",
        text: `An upstream service failed (502): ${error.message}. Try again in a moment.`,
      };
    case 503:
    case 504:
      return { title: "The service is busy", text: `Try again in a moment. (${error.status}: ${error.message})` };
    default:
      return { title: "Something went wrong", text: `${error.message} (${error.status})` };
  }
}

/**
 * An error state with an optional retry.
 * @param {unknown} error
 * @param {(() => void)|null} [retry]
 * @param {{title: string, text: string}} [described] Overrides the default wording.
 */
export function errorBox(error, retry = null, described = describe(error)) {
  return h(
    "div",
    { class: "state error", role: "alert" },
    h("p", { class: "state-title" }, described.title),
    h("p", null, described.text),
    retry ? h("button", { type: "button", class: "button secondary", onClick: retry }, "Try again") : null,
  );
}

/** Lists headed so far (their headings' ids). */
let headedCount = 0;

/**
 * A list's section under a page's h1, with an h2 naming it for screen readers (the cards'
 * h3 titles then follow the heading order).
 * @param {string} label
 * @param {HTMLElement} body
 */
export function headed(label, body) {
  headedCount += 1;
  const id = `list-heading-${headedCount}`;
  return h("section", { "aria-labelledby": id }, h("h2", { id, class: "visually-hidden" }, label), body);
}

/**
 * @param {string} title
 * @param {...import("./dom.js").Children} body
 */
export function empty(title, ...body) {
  return h("div", { class: "state empty" }, h("p", { class: "state-title" }, title), ...body);
}

/**
 * The topics of an article or a list, as links.
 * @param {{id: string, name: string}[]} topics
 * @param {string} [label]
 */
export function topicChips(topics, label = "Topics") {
  if (!topics.length) {
    return null;
  }
  return h(
    "ul",
    { class: "chips", "aria-label": label },
    topics.map((t) => h("li", null, h("a", { class: "chip", href: `/topics/${encodeURIComponent(t.id)}` }, t.name))),
  );
}

/**
 * One article in a list.
 * @param {import("./api-types.gen.js").Article} article
 */
export function articleCard(article) {
  const image = safeUrl(article.imageUrl, ["https:"]);
  return h(
    "li",
    { class: "card article-card" },
    h(
      "article",
      null,
      image ? h("img", { class: "thumb", src: image, alt: "", loading: "lazy", referrerpolicy: "no-referrer" }) : null,
      h("h3", { class: "card-title" }, h("a", { href: `/articles/${encodeURIComponent(article.id)}` }, article.title)),
      h(
        "p",
        { class: "meta" },
        h("a", { href: `/sources/${encodeURIComponent(article.sourceId)}` }, article.sourceTitle),
        " · ",
        time(article.publishedAt),
      ),
      article.summary ? h("p", { class: "excerpt" }, article.summary) : null,
      topicChips(article.topics),
    ),
  );
}

/**
 * Previous and next links for a page envelope; `href(page)` makes a page's URL.
 * @param {{page: number, totalPages: number, totalElements: number}} envelope
 * @param {(page: number) => string} href
 * @param {string} [noun] What the list holds, singular.
 */
export function pager(envelope, href, noun = "article") {
  const { page, totalPages, totalElements } = envelope;
  if (totalPages <= 1) {
    return h("p", { class: "pager-summary" }, plural(totalElements, noun));
  }
  return h(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    page > 0 ? h("a", { class: "button secondary", href: href(page - 1), rel: "prev" }, "← Newer") : h("span"),
    h("span", { class: "pager-summary", "aria-current": "page" }, `Page ${page + 1} of ${totalPages} · ${plural(totalElements, noun)}`),
    page + 1 < totalPages ? h("a", { class: "button secondary", href: href(page + 1), rel: "next" }, "Older →") : h("span"),
  );
}

/**
 * A labelled form field with its error slot, wired for screen readers.
 * @param {{label: string, name: string, type?: string, value?: string, required?: boolean, autocomplete?: string, hint?: string, minlength?: number, maxlength?: number, inputmode?: string}} field
 */
export function field({ label, name, type = "text", value = "", required = false, autocomplete, hint, minlength, maxlength, inputmode }) {
  const id = `field-${name}`;
  const hintId = hint ? `${id}-hint` : null;
  const errorId = `${id}-error`;
  return h(
    "div",
    { class: "field", dataset: { field: name } },
    h("label", { for: id }, label, required ? null : h("span", { class: "optional" }, " (optional)")),
    hint ? h("p", { class: "hint", id: hintId }, hint) : null,
    h("input", {
      id,
      name,
      type,
      value,
      required,
      autocomplete,
      minlength,
      maxlength,
      inputmode,
      "aria-describedby": [hintId, errorId].filter(Boolean).join(" "),
    }),
    h("p", { class: "field-error", id: errorId, hidden: true }),
  );
}

/**
 * A labelled multi-line field with its error slot, like `field`.
 * @param {{label: string, name: string, value?: string, required?: boolean, hint?: string, maxlength?: number, rows?: number}} area
 */
export function textArea({ label, name, value = "", required = false, hint, maxlength, rows = 4 }) {
  const id = `field-${name}`;
  const hintId = hint ? `${id}-hint` : null;
  const errorId = `${id}-error`;
  return h(
    "div",
    { class: "field", dataset: { field: name } },
    h("label", { for: id }, label, required ? null : h("span", { class: "optional" }, " (optional)")),
    hint ? h("p", { class: "hint", id: hintId }, hint) : null,
    h("textarea", { id, name, required, maxlength, rows, value, "aria-describedby": [hintId, errorId].filter(Boolean).join(" ") }),
    h("p", { class: "field-error", id: errorId, hidden: true }),
  );
}

/**
 * Shows an API error on a form: each `field: reason` under its field, the rest on top.
 * @param {HTMLFormElement} form
 * @param {unknown} error
 * @param {{title: string, text: string}} [described] Overrides the default wording.
 */
export function showFormError(form, error, described = describe(error)) {
  clearFormErrors(form);
  const fields = error instanceof ApiError ? error.fieldErrors() : new Map();
  let first = null;
  for (const [name, reason] of fields) {
    const holder = form.querySelector(`[data-field="${CSS.escape(name)}"]`);
    const slot = /** @type {HTMLElement|null|undefined} */ (holder?.querySelector(".field-error"));
    const input = holder?.querySelector("input, select, textarea");
    if (slot && input) {
      slot.textContent = reason;
      slot.hidden = false;
      input.setAttribute("aria-invalid", "true");
      first ??= input;
      fields.delete(name);
    }
  }
  const summary = /** @type {HTMLElement|null} */ (form.querySelector(".form-error"));
  if (summary) {
    const rest = [...fields].map(([name, reason]) => `${name}: ${reason}`);
    const text = first ? (rest.length ? rest.join(" ") : "Check the fields marked below.") : described.text;
    summary.replaceChildren(h("p", { class: "state-title" }, described.title), h("p", null, text));
    summary.hidden = false;
  }
  if (first instanceof HTMLElement) {
    first.focus();
  } else if (summary instanceof HTMLElement) {
    summary.focus();
  }
}

/** @param {HTMLFormElement} form */
export function clearFormErrors(form) {
  for (const slot of form.querySelectorAll(".field-error")) {
    slot.textContent = "";
    /** @type {HTMLElement} */ (slot).hidden = true;
  }
  for (const input of form.querySelectorAll("[aria-invalid]")) {
    input.removeAttribute("aria-invalid");
  }
  const summary = form.querySelector(".form-error");
  if (summary instanceof HTMLElement) {
    summary.hidden = true;
  }
}

/** The error summary slot at the top of a form. */
export function formError() {
  return h("div", { class: "form-error state error", role: "alert", tabindex: "-1", hidden: true });
}

/**
 * Runs `action` with the button busy (disabled, labelled `busyLabel`).
 * @template T
 * @param {HTMLButtonElement} button
 * @param {string} busyLabel
 * @param {() => Promise<T>} action
 * @returns {Promise<T>}
 */
export async function busy(button, busyLabel, action) {
  const label = button.textContent;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  button.textContent = busyLabel;
  try {
    return await action();
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
    button.textContent = label;
    // A disabled button loses focus; give it back so keyboard users stay in place.
    if (button.isConnected && (document.activeElement === document.body || document.activeElement === null)) {
      button.focus();
    }
  }
}

/**
 * Shows `error` right after `anchor`, replacing an earlier one there.
 * @param {Element} anchor
 * @param {unknown} error
 */
export function errorAfter(anchor, error) {
  const next = anchor.nextElementSibling;
  if (next?.classList.contains("error")) {
    next.remove();
  }
  anchor.after(errorBox(error));
}

/**
 * A button that asks before it acts: `start` in `slot` becomes a warning, a confirm and a
 * cancel button; confirming runs `act` (busy meanwhile), a failure is shown by `failed`.
 * @param {HTMLElement} slot
 * @param {HTMLElement} start
 * @param {{warning: HTMLElement, confirmLabel: string, busyLabel: string, act: () => Promise<unknown>, done: () => void, failed: (error: unknown, cancel: HTMLElement) => void}} how
 */
export function confirmFirst(slot, start, how) {
  const ask = () => {
    const confirm = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button danger" }, how.confirmLabel));
    const cancel = h("button", { type: "button", class: "button secondary" }, "Cancel");
    cancel.addEventListener("click", () => {
      mount(slot, start);
      start.focus();
    });
    confirm.addEventListener("click", async () => {
      try {
        await busy(confirm, how.busyLabel, how.act);
        how.done();
      } catch (error) {
        how.failed(error, cancel);
      }
    });
    mount(slot, how.warning, confirm, cancel);
    confirm.focus();
  };
  start.addEventListener("click", ask);
  mount(slot, start);
}
