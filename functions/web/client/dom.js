// Building the page: elements from data with text nodes only (no HTML strings, so nothing
// a feed publishes can run as markup), plus dates, numbers and screen-reader announcements.

/** @typedef {Node|string|number|null|undefined|false} Child */
/** @typedef {Child|unknown[]} Children Nested arrays are flattened. */

/**
 * An element. `props` keys: `class`, `on<Event>` handlers, `dataset`, boolean and string
 * attributes (false or null leaves an attribute out).
 * @param {string} tag
 * @param {Record<string, any>|null} [props]
 * @param {...Children} children
 * @returns {HTMLElement}
 */
export function h(tag, props, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) {
      continue;
    }
    if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "dataset") {
      Object.assign(element.dataset, value);
    } else if (key === "value" && "value" in element) {
      /** @type {HTMLInputElement} */ (element).value = String(value);
    } else if (key === "checked" || key === "selected") {
      /** @type {any} */ (element)[key] = Boolean(value);
    } else {
      element.setAttribute(key === "className" ? "class" : key, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

/**
 * @param {Element} parent
 * @param {Children[]} children
 */
function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    parent.append(child instanceof Node ? child : String(child));
  }
}

/**
 * Replaces everything in `parent`.
 * @param {Element} parent
 * @param {...Children} children
 */
export function mount(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

/**
 * A `<time>` for an ISO 8601 instant.
 * @param {string|null|undefined} iso
 * @param {{withTime?: boolean}} [options]
 */
export function time(iso, { withTime = true } = {}) {
  if (!iso) {
    return null;
  }
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) {
    return null;
  }
  return h("time", { datetime: iso }, (withTime ? dateFormat : dayFormat).format(date));
}

/**
 * "1 subscriber", "3 subscribers".
 * @param {number} count
 * @param {string} one
 * @param {string} [many]
 */
export function plural(count, one, many = `${one}s`) {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}

/**
 * Says `message` to screen readers (and shows it as a toast for everyone else).
 * @param {string} message
 */
export function announce(message) {
  const region = document.getElementById("announcer");
  if (!region) {
    return;
  }
  region.textContent = "";
  // A fresh text node after a tick makes screen readers repeat an identical message.
  window.setTimeout(() => {
    region.textContent = message;
  }, 30);
  window.clearTimeout(announceTimer);
  announceTimer = window.setTimeout(() => {
    region.textContent = "";
  }, 6000);
}
/** @type {number|undefined} */
let announceTimer;

/**
 * An http(s) URL from a feed, or null (no `javascript:` or other schemes in links).
 * @param {string|null|undefined} raw
 * @param {string[]} [schemes]
 */
export function safeUrl(raw, schemes = ["http:", "https:"]) {
  if (!raw) {
    return null;
  }
  try {
    const url = new URL(raw);
    return schemes.includes(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}
