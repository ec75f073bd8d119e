// Reading one article, saving it, and the AI assistant beside it.

import { aiPanel } from "./ai-panel.js";
import * as contentApi from "./api-content.gen.js";
import { announce, h, mount, safeUrl, time } from "./dom.js";
import * as account from "./session.js";
import { busy, describe, errorAfter, errorBox, loading, topicChips } from "./ui.js";

/** @typedef {import("./api-types.gen.js").Article} Article */

/**
 * `/articles/{id}`.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function article(main, match, { signal, title }) {
  const id = match.params.id;
  const heading = h("h1", { tabindex: "-1" }, "Article");
  title("Article");
  const load = async () => {
    mount(main, h("div", { class: "page-head" }, heading), loading("Loading the article"));
    try {
      const found = await contentApi.getArticle(id, { signal });
      heading.textContent = found.title;
      title(found.title);
      mount(main, h("div", { class: "article-layout" }, reader(found, heading), aiPanel(found.id)));
    } catch (error) {
      if (!signal.aborted) {
        mount(main, h("div", { class: "page-head" }, heading), errorBox(error, load));
      }
    }
  };
  await load();
}

/**
 * @param {Article} found
 * @param {HTMLElement} heading
 */
function reader(found, heading) {
  const original = safeUrl(found.link);
  const image = safeUrl(found.imageUrl, ["https:"]);
  const paragraphs = found.paragraphs ?? [];
  return h(
    "article",
    { class: "reader", "aria-labelledby": "article-title" },
    h(
      "header",
      null,
      h("p", { class: "eyebrow" }, h("a", { href: `/sources/${encodeURIComponent(found.sourceId)}` }, found.sourceTitle)),
      Object.assign(heading, { id: "article-title" }),
      h("p", { class: "meta" }, found.author ? [`By ${found.author}`, " · "] : null, time(found.publishedAt)),
      topicChips(found.topics),
      h("div", { class: "actions" }, saveButton(found), original ? h("a", { class: "button secondary", href: original, rel: "noopener noreferrer", target: "_blank" }, "Read the original ↗") : null),
    ),
    image ? h("img", { class: "hero", src: image, alt: "", referrerpolicy: "no-referrer" }) : null,
    h(
      "div",
      { class: "body" },
      paragraphs.length
        ? paragraphs.map((p) => h("p", null, p))
        : found.summary
          ? h("p", null, found.summary)
          : h("p", { class: "hint" }, "The feed gives no text for this article; read it on the original site."),
    ),
  );
}

/** @param {Article} found */
function saveButton(found) {
  if (!account.session.user) {
    return h("a", { class: "button secondary", href: `/login?next=${encodeURIComponent(window.location.pathname)}` }, "Log in to save");
  }
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary" }));
  const render = () => {
    const saved = account.isSaved(found.id);
    button.textContent = saved ? "★ Saved" : "☆ Save";
    button.setAttribute("aria-pressed", String(saved));
    button.setAttribute("aria-label", saved ? "Saved — remove from saved articles" : "Save this article");
  };
  button.addEventListener("click", async () => {
    try {
      const saved = await busy(button, "Saving…", () => account.setSaved(found.id, !account.isSaved(found.id)));
      render();
      announce(saved ? "Article saved" : "Removed from saved articles");
    } catch (error) {
      render();
      announce(describe(error).text);
      errorAfter(button, error);
    }
  });
  render();
  return button;
}
