// A post's body as the server rendered it (`contentHtml`, or a preview's `html`): the server
// writes only a safe subset of HTML; the page still never assigns markup. The HTML is parsed
// into an inert document (nothing in it runs or loads) and rebuilt element by element from an
// allowlist, so only that subset can ever reach the page, whatever the answer holds.

import { h } from "./dom.js";

/** The elements a post's body may hold, with the attributes each keeps. */
const ALLOWED = /** @type {Record<string, string[]>} */ ({
  p: [], br: [], hr: [], strong: [], em: [], del: [], code: ["class"], pre: [],
  ul: [], ol: ["start"], li: [], blockquote: [],
  h2: [], h3: [], h4: [], h5: [], h6: [],
  table: [], thead: [], tbody: [], tr: [], th: [], td: [],
  a: ["href", "title", "class"],
});

/** Link destinations a post may carry. */
const SAFE_HREF = /^(https?:|mailto:)/i;
/** A code block's language class, as the server writes it. */
const LANGUAGE_CLASS = /^language-[^\s"'<>]{1,64}$/;

/**
 * Copies `node`'s allowed content into plain DOM built by `h`.
 * @param {Node} node
 * @returns {Array<Node|string>}
 */
function rebuild(node) {
  /** @type {Array<Node|string>} */
  const out = [];
  for (const child of node.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) {
      out.push(child.textContent ?? "");
      continue;
    }
    if (child.nodeType !== Node.ELEMENT_NODE) {
      continue;
    }
    const element = /** @type {Element} */ (child);
    const tag = element.localName;
    const keep = ALLOWED[tag];
    if (!keep) {
      // An element outside the subset: only its text stays.
      out.push(...rebuild(element));
      continue;
    }
    /** @type {Record<string, string>} */
    const props = {};
    for (const name of keep) {
      const value = element.getAttribute(name);
      if (value === null) {
        continue;
      }
      if (name === "href" && !SAFE_HREF.test(value.trim())) {
        continue;
      }
      if (name === "class" && tag === "code" && !LANGUAGE_CLASS.test(value)) {
        continue;
      }
      if (name === "start" && !/^\d{1,9}$/.test(value)) {
        continue;
      }
      props[name] = value;
    }
    if (tag === "a") {
      if (!props.href) {
        out.push(...rebuild(element));
        continue;
      }
      props.rel = "nofollow ugc noopener";
    }
    out.push(h(tag, props, rebuild(element)));
  }
  return out;
}

/**
 * The body of a post from its server-rendered HTML.
 * @param {string} html
 * @param {string} [className]
 */
export function postBody(html, className = "body markdown") {
  const parsed = new DOMParser().parseFromString(`<!doctype html><body>${html}</body>`, "text/html");
  return h("div", { class: className }, rebuild(parsed.body));
}
