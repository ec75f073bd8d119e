// One digest: its summary, then each story with its bullets and the sources that reported it.

import * as digestsApi from "./api-digests.gen.js";
import { h, mount, plural, time } from "./dom.js";
import * as account from "./session.js";
import { communityTopicChips } from "./community.js";
import { digestBadge, digestDay, digestFigures } from "./digests.js";
import { ApiError } from "./http.js";
import { empty, errorBox, loading } from "./ui.js";

/** @typedef {import("./api-types.gen.js").DigestDetail} DigestDetail */
/** @typedef {import("./api-types.gen.js").Event} Event */

/**
 * `/digests/{id}`: PUBLIC digests to anyone, a PERSONAL one to its reader only (the API
 * answers 404 to anyone else, and the page says so).
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function digest(main, match, { signal, title }) {
  const heading = h("h1", { tabindex: "-1", id: "digest-title" }, "Digest");
  title("Digest");
  const load = async () => {
    mount(main, h("div", { class: "page-head" }, eyebrow(), heading), loading("Loading the digest"));
    try {
      const found = await digestsApi.getDigest(match.params.id, { signal });
      showDigest(main, found, heading, title);
    } catch (error) {
      if (!signal.aborted) {
        // Asking again cannot change a 400 or a 404.
        const final = error instanceof ApiError && (error.status === 400 || error.status === 404);
        mount(main, h("div", { class: "page-head" }, eyebrow(), heading), errorBox(error, final ? null : load), final ? backLinks() : null);
      }
    }
  };
  await load();
}

/** Where the digest pages start: the reader's own list (logged out, its login invitation). */
export function eyebrow() {
  return h("p", { class: "eyebrow" }, h("a", { href: "/digests" }, account.session.user ? "Your digests" : "Digests"));
}

function backLinks() {
  return h(
    "p",
    { class: "actions" },
    account.session.user ? h("a", { class: "button secondary", href: "/digests" }, "Your digests") : null,
    h("a", { class: "button secondary", href: "/digests/public" }, "The latest public digest"),
  );
}

/**
 * Shows `found` in `main`, keeping the focus the page change gave the heading.
 * @param {HTMLElement} main
 * @param {DigestDetail} found
 * @param {HTMLElement} heading
 * @param {(text: string) => void} title
 */
export function showDigest(main, found, heading, title) {
  heading.textContent = found.title;
  title(found.title);
  const focused = document.activeElement === heading;
  mount(main, reader(found, heading));
  if (focused) {
    heading.focus();
  }
}

/**
 * @param {DigestDetail} found
 * @param {HTMLElement} heading
 */
function reader(found, heading) {
  return h(
    "article",
    { class: "reader digest", "aria-labelledby": heading.id },
    h(
      "header",
      null,
      eyebrow(),
      heading,
      h("p", { class: "meta" }, digestDay(found.digestDate), " · ", digestFigures(found), digestBadge(found)),
      found.subtitle ? h("p", { class: "lede digest-subtitle" }, found.subtitle) : null,
      communityTopicChips(found.topics),
    ),
    found.summary
      ? h("section", { class: "digest-summary callout", "aria-labelledby": "digest-summary-heading" }, h("h2", { id: "digest-summary-heading" }, "Summary"), found.summary.split(/\n\s*\n/).map((p) => h("p", null, p.trim())))
      : null,
    h(
      "section",
      { class: "digest-events", "aria-labelledby": "digest-events-heading" },
      h("h2", { id: "digest-events-heading" }, `Stories (${found.events.length.toLocaleString()})`),
      found.events.length ? h("ol", { class: "event-list" }, found.events.map((event, i) => eventItem(event, i))) : empty("This digest has no stories"),
    ),
    found.generatedAt ? h("p", { class: "provenance" }, "Written by a language model", found.model ? ` (${found.model})` : null, " on ", time(found.generatedAt), " from the articles listed.") : null,
  );
}

/**
 * One story: headline, bullets, and who reported it.
 * @param {Event} event
 * @param {number} index
 */
function eventItem(event, index) {
  const headingId = `event-${index + 1}`;
  return h(
    "li",
    { class: "card digest-event" },
    h(
      "article",
      { "aria-labelledby": headingId },
      h("h3", { id: headingId, class: "card-title" }, event.headline),
      event.summaryBullets.length ? h("ul", { class: "bullets" }, event.summaryBullets.map((b) => h("li", null, b))) : null,
      event.sources.length
        ? [
            h("h4", { class: "sources-title", id: `${headingId}-sources` }, `Reported by ${plural(event.sources.length, "source")}`),
            h(
              "ul",
              { class: "event-sources", "aria-labelledby": `${headingId}-sources` },
              event.sources.map((s) =>
                h(
                  "li",
                  null,
                  h("p", { class: "source-title" }, s.title),
                  h("p", { class: "meta" }, h("span", { class: "source-name" }, s.sourceName), s.provider && s.provider !== s.sourceName ? [" · ", h("span", { class: "provider" }, s.provider)] : null, s.publishedAt ? [" · ", time(s.publishedAt)] : null),
                ),
              ),
            ),
          ]
        : null,
    ),
  );
}
