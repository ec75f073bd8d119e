// Shared digest pieces: links, the digest day in words, figures, and a digest card for lists.

import { h, plural } from "./dom.js";
import { communityTopicChips } from "./community.js";

/** @typedef {import("./api-types.gen.js").DigestSummary} DigestSummary */

/** Digests per page of "Your digests". */
export const DIGESTS_PER_PAGE = 10;

/** @param {string} id */
export function digestHref(id) {
  return `/digests/${encodeURIComponent(id)}`;
}

/** A digest day is a calendar date, not an instant: formatted as UTC so no zone moves it. */
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeZone: "UTC" });

/**
 * A `<time>` for a digest day (`YYYY-MM-DD`), or the text as given when it is not one.
 * @param {string} day
 */
export function digestDay(day) {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(day) ? new Date(`${day}T00:00:00Z`) : new Date(Number.NaN);
  return h("time", { datetime: day }, Number.isNaN(date.getTime()) ? day : dayFormat.format(date));
}

/**
 * A digest's size in words: "2 stories · 3 sources · 1 min read".
 * @param {DigestSummary} digest
 */
export function digestFigures(digest) {
  return `${plural(digest.eventCount, "story", "stories")} · ${plural(digest.sourceCount, "source")} · ${digest.readTimeMinutes} min read`;
}

/**
 * "Public digest" for the day's digest everyone may read; a personal one has no badge.
 * @param {DigestSummary} digest
 */
export function digestBadge(digest) {
  return digest.digestType === "PUBLIC" ? h("span", { class: "badge public" }, "Public digest") : null;
}

/**
 * One digest in a list: title, day, subtitle, figures, the first headlines, topics.
 * @param {DigestSummary} digest
 */
export function digestCard(digest) {
  const headingId = `digest-${digest.id}`;
  return h(
    "li",
    { class: "card digest-card", dataset: { digestId: digest.id } },
    h(
      "article",
      { "aria-labelledby": headingId },
      h("h3", { class: "card-title", id: headingId }, h("a", { href: digestHref(digest.id) }, digest.title)),
      h("p", { class: "meta" }, digestDay(digest.digestDate), " · ", digestFigures(digest), digestBadge(digest)),
      digest.subtitle ? h("p", { class: "excerpt digest-subtitle" }, digest.subtitle) : null,
      digest.previewHeadlines.length
        ? h("ul", { class: "preview-headlines", "aria-label": "First stories" }, digest.previewHeadlines.map((headline) => h("li", null, headline)))
        : null,
      communityTopicChips(digest.topics),
    ),
  );
}
