// The digest lists: the reader's own digests, newest day first, and the latest public digest.

import * as digestsApi from "./api-digests.gen.js";
import { h, mount } from "./dom.js";
import * as account from "./session.js";
import { pageOf, withPage } from "./community.js";
import { DIGESTS_PER_PAGE, digestCard } from "./digests.js";
import { ApiError } from "./http.js";
import { empty, errorBox, headed, loading, pager } from "./ui.js";
import { eyebrow, showDigest } from "./view-digest.js";
import { needsLogin } from "./access.js";

/**
 * `/digests`: the reader's digests (PERSONAL ones, and the PUBLIC ones they were given on
 * days they followed no topic), a page at a time.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function myDigests(main, match, { signal, title }) {
  title("Your digests");
  if (!account.session.user) {
    needsLogin(main, "Your digests");
    main.append(h("p", { class: "actions" }, h("a", { href: "/digests/public" }, "Read the latest public digest")));
    return;
  }
  const page = pageOf(match.query);
  const list = h("div");
  mount(
    main,
    h(
      "div",
      { class: "page-head" },
      h("h1", { tabindex: "-1" }, "Your digests"),
      h("p", { class: "lede" }, "A digest of each day’s news in the topics you follow, newest day first. Following no topic, you get the day’s public digest."),
      h("p", { class: "actions" }, h("a", { class: "button secondary", href: "/digests/public" }, "The latest public digest"), h("a", { class: "button secondary", href: "/settings" }, "Choose topics")),
    ),
    headed("Your digests", list),
  );
  const load = async () => {
    mount(list, loading("Loading your digests"));
    list.setAttribute("aria-busy", "true");
    try {
      const envelope = await digestsApi.myDigests({ page, size: DIGESTS_PER_PAGE }, { signal });
      if (!envelope.content.length) {
        mount(
          list,
          page > 0
            ? empty("No digests on this page", h("a", { href: "/digests" }, "Back to the first page"))
            : empty("No digests yet", h("p", null, "Digests are written each night for the day before. Follow topics in ", h("a", { href: "/settings" }, "Settings"), " to get your own.")),
        );
        return;
      }
      mount(list, h("ul", { class: "cards digest-cards", "aria-label": "Your digests" }, envelope.content.map(digestCard)), pager(envelope, (p) => withPage("/digests", {}, p), "digest"));
    } catch (error) {
      if (!signal.aborted) {
        mount(list, errorBox(error, load));
      }
    } finally {
      list.removeAttribute("aria-busy");
    }
  };
  await load();
}

/**
 * `/digests/public`: the newest PUBLIC digest, to anyone; before the first one is written,
 * a page that says so.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} _match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function publicDigest(main, _match, { signal, title }) {
  const heading = h("h1", { tabindex: "-1", id: "digest-title" }, "The latest public digest");
  title("The latest public digest");
  const load = async () => {
    mount(main, h("div", { class: "page-head" }, eyebrow(), heading), loading("Loading the latest public digest"));
    try {
      const found = await digestsApi.latestPublicDigest({ signal });
      showDigest(main, found, heading, title);
    } catch (error) {
      if (signal.aborted) {
        return;
      }
      if (error instanceof ApiError && error.status === 404) {
        mount(
          main,
          h("div", { class: "page-head" }, eyebrow(), heading),
          empty("No public digest yet", h("p", null, "The first public digest is written with the first day’s news for readers who follow no topic. Come back tomorrow.")),
        );
        return;
      }
      mount(main, h("div", { class: "page-head" }, eyebrow(), heading), errorBox(error, load));
    }
  };
  await load();
}
