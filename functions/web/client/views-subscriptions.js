// `/subscriptions`: the person's subscriptions and folders (a source in folders, a folder
// renamed or deleted), OPML import with its progress and each feed's outcome, and export.

import * as readerApi from "./api-reader.gen.js";
import { needsLogin } from "./access.js";
import { announce, h, mount } from "./dom.js";
import * as account from "./session.js";
import { busy, confirmFirst, errorAfter, errorBox, loading } from "./ui.js";
import { allSubscriptions, unreadBadge } from "./reading.js";

/** @typedef {import("./api-types.gen.js").ReaderSubscription} Subscription */

/**
 * `/subscriptions`: the person's subscriptions and folders (put a source in folders, rename
 * and delete a folder), OPML import with its progress, and export.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} _match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function subscriptionsPage(main, _match, { signal, title }) {
  title("Subscriptions");
  if (!account.session.user) {
    needsLogin(main, "Subscriptions");
    return;
  }
  const folderSlot = h("div", null, loading("Loading your folders"));
  const subsSlot = h("div", null, loading("Loading your subscriptions"));
  mount(
    main,
    h(
      "div",
      { class: "page-head" },
      h("h1", { tabindex: "-1" }, "Subscriptions"),
      h("p", { class: "lede" }, "Sort your sources into folders, bring subscriptions from another reader, or take them with you. ", h("a", { href: "/sources" }, "Add a feed"), " · ", h("a", { href: "/settings/apps" }, "Read in an app")),
    ),
    h(
      "div",
      { class: "settings-grid" },
      h("section", { class: "card", "aria-labelledby": "folders-heading" }, h("h2", { id: "folders-heading" }, "Folders"), folderSlot),
      opmlSection(signal),
      h("section", { class: "card wide", "aria-labelledby": "your-subs-heading" }, h("h2", { id: "your-subs-heading" }, "Your subscriptions"), subsSlot),
    ),
  );

  const load = async () => {
    try {
      const [subs, folders] = await Promise.all([allSubscriptions({ signal }), readerApi.readerLabels({ signal })]);
      const names = folders.items.map((f) => f.name).sort((a, b) => a.localeCompare(b));
      mount(folderSlot, folders.items.length ? h("ul", { class: "plain-list folder-list" }, folders.items.sort((a, b) => a.name.localeCompare(b.name)).map((f) => folderRow(f, load))) : h("p", { class: "hint" }, "No folders yet: give a subscription a folder below."));
      const sorted = [...subs].sort((a, b) => a.source.title.localeCompare(b.source.title));
      mount(
        subsSlot,
        sorted.length
          ? h("ul", { class: "plain-list sub-list" }, sorted.map((s) => subscriptionRow(s, names, load)))
          : h("p", { class: "hint" }, "You are not subscribed to any source. ", h("a", { href: "/sources" }, "Browse sources"), " or import an OPML file."),
      );
    } catch (error) {
      if (!signal.aborted) {
        mount(folderSlot, errorBox(error, load));
        mount(subsSlot);
      }
    }
  };
  await load();
}

/**
 * A folder with its unread count, renamed or deleted in place.
 * @param {{name: string, unread: number}} folder
 * @param {() => Promise<void>} reload
 */
function folderRow(folder, reload) {
  const row = h("li", { class: "folder-row" });
  const show = () => {
    const rename = h("button", { type: "button", class: "button secondary small", "aria-label": `Rename folder ${folder.name}` }, "Rename");
    const deleteSlot = h("span", { class: "inline-actions" });
    const remove = h("button", { type: "button", class: "button secondary small", "aria-label": `Delete folder ${folder.name}` }, "Delete…");
    confirmFirst(deleteSlot, remove, {
      warning: h("span", { class: "warning" }, `Delete “${folder.name}”? Its sources stay subscribed.`),
      confirmLabel: "Yes, delete the folder",
      busyLabel: "Deleting…",
      act: () => readerApi.deleteLabel(folder.name),
      done: () => {
        announce(`Folder ${folder.name} deleted`);
        void reload();
      },
      failed: (error, cancel) => errorAfter(cancel, error),
    });
    rename.addEventListener("click", () => {
      const input = /** @type {HTMLInputElement} */ (h("input", { type: "text", id: `rename-${folder.name}`, name: "name", value: folder.name, required: true, maxlength: 100 }));
      const save = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button small" }, "Save"));
      const cancel = h("button", { type: "button", class: "button secondary small" }, "Cancel");
      const form = h("form", { class: "inline-form rename-form" }, h("label", { for: input.id }, `New name for ${folder.name}`), input, save, cancel);
      cancel.addEventListener("click", () => {
        show();
        row.querySelector("button")?.focus();
      });
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const to = input.value.trim();
        try {
          await busy(save, "Saving…", () => readerApi.renameLabel(folder.name, { name: to }));
          announce(`Folder ${folder.name} is now ${to}`);
          void reload();
        } catch (error) {
          errorAfter(form, error);
        }
      });
      mount(row, form);
      input.focus();
      input.select();
    });
    mount(row, h("a", { href: `/?folder=${encodeURIComponent(folder.name)}` }, `📁 ${folder.name}`), " ", unreadBadge(folder.unread), h("span", { class: "inline-actions" }, rename, deleteSlot));
  };
  show();
  return row;
}

/**
 * A subscription with its folders: ticked folders and a new one, saved together.
 * @param {Subscription} sub
 * @param {string[]} folders Every folder of the person.
 * @param {() => Promise<void>} reload
 */
export function subscriptionRow(sub, folders, reload) {
  const id = sub.source.id;
  const save = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button small" }, "Save folders"));
  const fresh = /** @type {HTMLInputElement} */ (h("input", { type: "text", id: `new-folder-${id}`, name: "newFolder", maxlength: 100, autocomplete: "off" }));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "folders-form", "aria-label": `Folders of ${sub.source.title}` },
      folders.length
        ? h(
            "fieldset",
            { class: "checks" },
            h("legend", { class: "visually-hidden" }, `Folders of ${sub.source.title}`),
            folders.map((f) => h("label", { class: "check" }, h("input", { type: "checkbox", name: "folder", value: f, checked: sub.labels.includes(f) }), ` ${f}`)),
          )
        : null,
      h("div", { class: "inline-form" }, h("label", { for: fresh.id }, "New folder"), fresh, save),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const chosen = data.getAll("folder").map(String);
    const added = fresh.value.trim();
    const labels = [...new Set(added ? [...chosen, added] : chosen)];
    try {
      await busy(save, "Saving…", () => readerApi.setSubscriptionLabels(id, { labels }));
      announce(labels.length ? `${sub.source.title} is in ${labels.join(", ")}` : `${sub.source.title} is in no folder`);
      await reload();
      document.getElementById(`folders-${id}`)?.setAttribute("open", "");
      document.getElementById(`new-folder-${id}`)?.focus();
    } catch (error) {
      errorAfter(save, error);
    }
  });
  return h(
    "li",
    { class: "sub-row" },
    h("a", { href: `/?source=${encodeURIComponent(id)}` }, sub.source.title),
    " ",
    unreadBadge(sub.unread),
    h("details", { id: `folders-${id}`, class: "sub-folders" }, h("summary", null, sub.labels.length ? `Folders: ${sub.labels.join(", ")}` : "Put in a folder"), form),
  );
}

/** What each OPML outcome says. @type {Record<string, string>} */
const OUTCOMES = {
  subscribed: "Subscribed",
  alreadySubscribed: "Already subscribed",
  notAFeed: "Not a feed",
  unreachable: "Unreachable",
  invalid: "Invalid address",
  failed: "Failed",
};

/**
 * OPML: import a file (its progress and each feed's outcome), export the subscriptions.
 * @param {AbortSignal} signal
 */
function opmlSection(signal) {
  const file = /** @type {HTMLInputElement} */ (h("input", { id: "opml-file", name: "file", type: "file", accept: ".opml,.xml,text/x-opml,application/xml,text/xml", required: true, "aria-describedby": "opml-hint" }));
  const start = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Import"));
  const progress = h("div", { class: "opml-progress", role: "status", "aria-live": "polite" });
  const form = h(
    "form",
    { class: "opml-form", "aria-labelledby": "import-heading" },
    h("h3", { id: "import-heading" }, "Import"),
    h("div", { class: "field" }, h("label", { for: file.id }, "OPML file"), h("p", { class: "hint", id: "opml-hint" }, "Exported from another reader (Feedly, Inoreader, NetNewsWire, Miniflux…): up to 1 MiB and 1,000 feeds. Folders become folders here."), file),
    h("div", { class: "actions" }, start),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) {
      mount(progress, h("p", { class: "field-error" }, "Choose a file first."));
      file.focus();
      return;
    }
    try {
      const form = new FormData();
      form.append("file", chosen, chosen.name);
      const started = await busy(start, "Uploading…", () => readerApi.importOpml(form, { signal }));
      await follow(started.id);
    } catch (error) {
      if (!signal.aborted) mount(progress, errorBox(error));
    }
  });

  /**
   * Shows an import's progress (read every second) until it is done, then every result.
   * @param {string} id
   */
  const follow = async (id) => {
    for (let n = 0; n < 900 && !signal.aborted; n++) {
      // One page holds 500 results; a file holds at most 1,000 feeds.
      const current = await readerApi.getOpmlImport(id, { size: 500 }, { signal });
      if (current.status === "done") {
        const results = [...current.results];
        for (let cursor = current.nextCursor; cursor; ) {
          const page = await readerApi.getOpmlImport(id, { cursor, size: 500 }, { signal });
          results.push(...page.results);
          cursor = page.nextCursor;
        }
        drawProgress({ ...current, results });
        announce(`Import done: ${current.done.toLocaleString()} of ${current.total.toLocaleString()} feeds`);
        return;
      }
      drawProgress(current);
      await new Promise((resolve) => window.setTimeout(resolve, 1000));
    }
  };

  /** @param {import("./api-types.gen.js").ImportProgress} state */
  const drawProgress = (state) => {
    mount(
      progress,
      h("p", { class: "state-title" }, `${state.done.toLocaleString()} of ${state.total.toLocaleString()} feeds done`),
      h("progress", { max: String(Math.max(state.total, 1)), value: String(state.done), "aria-label": "Import progress" }),
      state.results.length
        ? h(
            "ul",
            { class: "plain-list opml-results" },
            state.results.map((f) =>
              h(
                "li",
                { class: `outcome outcome-${f.outcome}` },
                h("span", { class: "outcome-label" }, OUTCOMES[f.outcome] ?? f.outcome),
                " ",
                f.title || f.url,
                f.labels.length ? h("span", { class: "hint" }, ` in ${f.labels.join(", ")}`) : null,
                f.message ? h("span", { class: "hint" }, ` (${f.message})`) : null,
              ),
            ),
          )
        : null,
    );
  };

  const exportButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary" }, "Export OPML"));
  exportButton.addEventListener("click", async () => {
    try {
      // Asked for as text: the answer is the file, not JSON.
      const text = /** @type {string} */ (/** @type {unknown} */ (await busy(exportButton, "Exporting…", () => readerApi.exportOpml({ signal, text: true }))));
      const url = URL.createObjectURL(new Blob([text], { type: "text/x-opml" }));
      const link = h("a", { href: url, download: "subscriptions.opml", hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
      announce("Exported your subscriptions as subscriptions.opml");
    } catch (error) {
      errorAfter(exportButton, error);
    }
  });

  return h(
    "section",
    { class: "card", "aria-labelledby": "opml-heading" },
    h("h2", { id: "opml-heading" }, "Import and export (OPML)"),
    form,
    progress,
    h("h3", null, "Export"),
    h("p", { class: "hint" }, "Every subscription with its folders, as an OPML file any reader imports."),
    h("div", { class: "actions" }, exportButton),
  );
}
