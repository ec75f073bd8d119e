// Writing and editing a post or draft: fields, the Markdown content with a toolbar and a
// Preview tab (rendered by the server, as the post will show), topics as chips with
// suggestions as they are typed, a cover uploaded when chosen.

import * as communityApi from "./api-community.gen.js";
import { announce, h, mount } from "./dom.js";
import { sendToStorage } from "./http.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { cover, markChanged, postHref } from "./community.js";
import { needsLogin } from "./access.js";
import { busy, clearFormErrors, describe, errorBox, field, formError, loading, showFormError, textArea } from "./ui.js";
import { postBody } from "./post-body.js";

/** @typedef {import("./api-types.gen.js").ImageContentType} ImageContentType */
/** @typedef {import("./api-types.gen.js").Post} Post */
/** @typedef {import("./api-types.gen.js").PostStatusName} PostStatusName */
/** @typedef {import("./api-types.gen.js").UploadedImage} UploadedImage */

/** The presigned upload's largest file (20 MiB). */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** @type {ImageContentType[]} */
const UPLOAD_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
const IMAGE_TYPES = UPLOAD_TYPES.join(",");

/**
 * `/community/write`: a new post.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} _match
 * @param {import("./views-browse.js").ViewContext} context
 */
export function communityWrite(main, _match, { title }) {
  title("Write a post");
  if (!account.session.user) {
    needsLogin(main, "Write a post");
    return;
  }
  mount(main, head("Write a post", "Publish it now, or save a draft only you can see."), postForm(null));
}

/**
 * `/community/posts/{id}/edit`: the author's post or draft.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function communityEdit(main, match, { signal, title }) {
  title("Edit post");
  const user = account.session.user;
  if (!user) {
    needsLogin(main, "Edit post");
    return;
  }
  const heading = h("h1", { tabindex: "-1" }, "Edit post");
  /** Shows `content` under the heading, keeping the focus the page change gave it. */
  const show = (/** @type {string|null} */ lede, /** @type {import("./dom.js").Children} */ content) => {
    const focused = document.activeElement === heading;
    mount(main, head(heading, lede), content);
    if (focused) {
      heading.focus();
    }
  };
  show(null, loading("Loading the post"));
  try {
    const post = await communityApi.getPost(match.params.id, { signal });
    if (post.author.id !== user.id) {
      show(null, errorBox(null, null, { title: "Not your post", text: "Only its author can edit a post." }));
      return;
    }
    const draft = post.status === "DRAFT";
    heading.textContent = draft ? "Edit draft" : "Edit post";
    title(`Edit: ${post.title}`);
    show(draft ? "A draft: only you can see it until you publish it." : "Published: changes show at once.", postForm(post));
  } catch (error) {
    if (!signal.aborted) {
      show(null, errorBox(error));
    }
  }
}

/**
 * The page's head: a way back to the community, the heading and an optional lede.
 * @param {string|HTMLElement} heading
 * @param {string|null} [lede]
 */
function head(heading, lede = null) {
  return h(
    "div",
    { class: "page-head" },
    h("p", { class: "eyebrow" }, h("a", { href: "/community" }, "Community")),
    typeof heading === "string" ? h("h1", { tabindex: "-1" }, heading) : heading,
    lede ? h("p", { class: "lede" }, lede) : null,
  );
}

/**
 * The post form; `post` is the one being edited, or null for a new one.
 * @param {Post|null} post
 */
function postForm(post) {
  const publish = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button", value: "PUBLISHED" }, post?.status === "PUBLISHED" ? "Save and publish" : "Publish"));
  const draft = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button secondary", value: "DRAFT" }, post?.status === "PUBLISHED" ? "Unpublish to draft" : "Save draft"));
  const image = coverField(post?.coverImageUrl ?? null, [publish, draft]);
  const editor = markdownEditor(post?.content ?? "");
  const topics = topicPicker(post?.topics.map((t) => t.name) ?? []);
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card write-form", novalidate: true, "aria-label": post ? "Edit the post" : "The new post" },
      formError(),
      field({ label: "Title", name: "title", value: post?.title ?? "", required: true, minlength: 5, maxlength: 100, hint: "5 to 100 characters." }),
      editor.element,
      textArea({ label: "Excerpt", name: "excerpt", value: post?.excerpt ?? "", maxlength: 500, rows: 3, hint: "Shown in lists, at most 500 characters. Leave it empty to have it made from the content." }),
      topics.element,
      image.element,
      h("div", { class: "actions" }, publish, draft, post ? h("a", { class: "button secondary", href: postHref(post.id) }, "Cancel") : null),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const submitter = /** @type {SubmitEvent} */ (event).submitter;
    const button = submitter === draft ? draft : publish;
    /** @type {PostStatusName} */
    const status = button === draft ? "DRAFT" : "PUBLISHED";
    const data = new FormData(form);
    const text = (/** @type {string} */ name) => String(data.get(name) ?? "").trim();
    const fields = { title: text("title"), content: text("content"), excerpt: text("excerpt") || null, topics: topics.names(), status };
    try {
      const saved = await busy(button, status === "DRAFT" ? "Saving the draft…" : "Publishing…", async () => {
        // A cover still uploading is waited for, so the post names it.
        await image.settled();
        const body = { ...fields, coverImageUrl: image.url() };
        return post ? communityApi.patchPost(post.id, body) : communityApi.createPost(body);
      });
      markChanged();
      announce(status === "DRAFT" ? "Draft saved: only you can see it" : post?.status === "PUBLISHED" ? "Post updated" : "Post published");
      navigate(postHref(saved.id));
    } catch (error) {
      // A refused content is shown under its text: the Write tab, not the preview.
      editor.showWrite();
      showFormError(form, error);
    }
  });
  return form;
}

/**
 * Uploads `file` straight to storage, whatever its size: a presigned upload from the API, the
 * file sent to its URL, then the API's confirm, which checks the file's first bytes and
 * publishes it (refusing, as the direct upload does, what is not a PNG, JPEG, GIF or WebP).
 * The declared type is only what the file is sent as: one the browser does not name as one
 * of the four is sent as PNG and judged by its bytes at the confirm.
 * @param {File} file
 * @returns {Promise<UploadedImage>}
 */
async function uploadImage(file) {
  const contentType = UPLOAD_TYPES.find((t) => t === file.type) ?? "image/png";
  const upload = await communityApi.presignImageUpload({ contentType, size: file.size });
  await sendToStorage(upload, file);
  return communityApi.confirmImageUpload(upload.id);
}

/**
 * The cover image: chosen, uploaded at once (straight to storage, then confirmed), previewed,
 * and removable. `buttons` are disabled while an upload runs.
 * @param {string|null} initial
 * @param {HTMLButtonElement[]} buttons
 */
function coverField(initial, buttons) {
  let url = initial;
  /** @type {Promise<void>} */
  let uploading = Promise.resolve();
  const input = /** @type {HTMLInputElement} */ (h("input", { id: "field-cover", name: "cover", type: "file", accept: IMAGE_TYPES, "aria-describedby": "field-cover-hint field-cover-error" }));
  const error = h("p", { class: "field-error", id: "field-cover-error", hidden: true });
  const status = h("p", { class: "hint", role: "status" });
  const preview = h("div", { class: "cover-preview" });
  const showPreview = () => {
    if (!url) {
      mount(preview);
      return;
    }
    const remove = h("button", { type: "button", class: "button secondary small" }, "Remove cover");
    remove.addEventListener("click", () => {
      url = null;
      input.value = "";
      showPreview();
      status.textContent = "The cover will be removed when you save.";
      input.focus();
    });
    mount(preview, cover(url, "cover-thumb"), remove);
  };
  const fail = (/** @type {string} */ message) => {
    error.textContent = message;
    error.hidden = false;
    input.setAttribute("aria-invalid", "true");
    status.textContent = "";
  };
  input.addEventListener("change", () => {
    error.hidden = true;
    input.removeAttribute("aria-invalid");
    const file = input.files?.[0];
    if (!file) {
      return;
    }
    if (file.size > MAX_IMAGE_BYTES) {
      fail("The image is larger than 20 MB: choose a smaller one.");
      return;
    }
    if (file.size === 0) {
      fail("The file is empty: choose an image.");
      return;
    }
    status.textContent = "Uploading the image…";
    for (const b of buttons) {
      b.disabled = true;
    }
    uploading = uploadImage(file)
      .then((stored) => {
        url = stored.url;
        status.textContent = "Cover image uploaded.";
        showPreview();
      })
      .catch((e) => fail(describe(e).text))
      .finally(() => {
        for (const b of buttons) {
          b.disabled = false;
        }
      });
  });
  showPreview();
  const element = h(
    "div",
    { class: "field", dataset: { field: "coverImageUrl" } },
    h("label", { for: "field-cover" }, "Cover image", h("span", { class: "optional" }, " (optional)")),
    h("p", { class: "hint", id: "field-cover-hint" }, "PNG, JPEG, GIF or WebP, at most 20 MB; it is uploaded when you choose it."),
    input,
    status,
    preview,
    error,
  );
  return { element, url: () => url, settled: () => uploading };
}

/** The most topics a post carries. */
const MAX_TOPICS = 10;
/** How long typing pauses before topics are suggested. */
const SUGGEST_DELAY_MS = 150;

/**
 * The content field: a Markdown text area with a small toolbar, and a Preview tab that asks
 * the server to render the text exactly as the post will show it.
 * @param {string} initial
 */
function markdownEditor(initial) {
  const area = /** @type {HTMLTextAreaElement} */ (
    h("textarea", { id: "field-content", name: "content", required: true, maxlength: 50000, rows: 14, value: initial, class: "markdown-source", "aria-describedby": "field-content-hint field-content-error" })
  );
  const preview = h("div", { class: "markdown-preview", "aria-live": "polite" });
  const writePanel = h("div", { role: "tabpanel", id: "content-write", "aria-labelledby": "content-tab-write" });
  const previewPanel = h("div", { role: "tabpanel", id: "content-preview", "aria-labelledby": "content-tab-preview", tabindex: "0", hidden: true }, preview);
  /** Wraps the selection in `before`/`after`, or inserts `empty` between them. */
  const wrap = (/** @type {string} */ before, /** @type {string} */ after, /** @type {string} */ empty) => {
    const { selectionStart: start, selectionEnd: end, value } = area;
    const inner = value.slice(start, end) || empty;
    area.setRangeText(`${before}${inner}${after}`, start, end, "end");
    area.setSelectionRange(start + before.length, start + before.length + inner.length);
    area.focus();
  };
  /** Starts each selected line with `prefix`. */
  const lines = (/** @type {string} */ prefix) => {
    const { selectionStart: start, selectionEnd: end, value } = area;
    const from = value.lastIndexOf("\n", start - 1) + 1;
    const text = value.slice(from, end) || "item";
    area.setRangeText(text.split("\n").map((l) => `${prefix}${l}`).join("\n"), from, end, "end");
    area.focus();
  };
  const tool = (/** @type {string} */ label, /** @type {string} */ text, /** @type {() => void} */ act) => {
    const button = h("button", { type: "button", class: "button secondary small", "aria-label": label, title: label }, text);
    button.addEventListener("click", act);
    return button;
  };
  const toolbar = h(
    "div",
    { class: "markdown-toolbar", role: "toolbar", "aria-label": "Formatting", "aria-controls": "field-content" },
    tool("Bold", "B", () => wrap("**", "**", "bold text")),
    tool("Italic", "I", () => wrap("*", "*", "italic text")),
    tool("Code", "</>", () => wrap("`", "`", "code")),
    tool("Link", "Link", () => wrap("[", "](https://)", "link text")),
    tool("Bulleted list", "• List", () => lines("- ")),
    tool("Code block", "Code block", () => wrap("\n```\n", "\n```\n", "code")),
  );
  writePanel.append(toolbar, area);
  const tabs = [
    h("button", { type: "button", role: "tab", id: "content-tab-write", "aria-controls": "content-write", "aria-selected": "true", tabindex: "0" }, "Write"),
    h("button", { type: "button", role: "tab", id: "content-tab-preview", "aria-controls": "content-preview", "aria-selected": "false", tabindex: "-1" }, "Preview"),
  ];
  /** The text last rendered, so switching tabs again asks nothing new. */
  /** @type {string|null} */
  let rendered = null;
  const showPreview = async () => {
    const content = area.value;
    if (!content.trim()) {
      mount(preview, h("p", { class: "hint" }, "Nothing to preview yet."));
      return;
    }
    if (rendered === content) {
      return;
    }
    mount(preview, loading("Rendering the preview"));
    try {
      const answer = await communityApi.previewPost({ content });
      rendered = content;
      mount(preview, postBody(answer.html, "body markdown"));
    } catch (error) {
      rendered = null;
      mount(preview, errorBox(error, showPreview));
    }
  };
  const select = (/** @type {number} */ index, /** @type {boolean} */ focus) => {
    tabs.forEach((tab, i) => {
      tab.setAttribute("aria-selected", String(i === index));
      tab.tabIndex = i === index ? 0 : -1;
    });
    writePanel.hidden = index !== 0;
    previewPanel.hidden = index !== 1;
    if (focus) {
      tabs[index].focus();
    }
    if (index === 1) {
      void showPreview();
    }
  };
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", () => select(i, false));
    tab.addEventListener("keydown", (event) => {
      const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 };
      const next = /** @type {Record<string, number>} */ (moves)[event.key];
      if (next !== undefined) {
        event.preventDefault();
        select((next + tabs.length) % tabs.length, true);
      }
    });
  });
  const element = h(
    "div",
    { class: "field markdown-editor", dataset: { field: "content" } },
    h("label", { for: "field-content" }, "Content"),
    h("p", { class: "hint", id: "field-content-hint" }, "Markdown: **bold**, *italic*, `code`, ``` fenced code blocks, - lists, > quotes, [links](https://…). Up to 50,000 characters."),
    h("div", { class: "tabs" }, h("div", { role: "tablist", "aria-label": "Write or preview", class: "two-tabs" }, tabs), writePanel, previewPanel),
    h("p", { class: "field-error", id: "field-content-error", hidden: true }),
  );
  // A failed save shows its error under the text: back to the Write tab so it can be fixed.
  area.addEventListener("invalid", () => select(0, false));
  return { element, showWrite: () => select(0, false) };
}

/**
 * The topics field: chosen topics as removable chips, and an input that suggests existing
 * topics as their name is typed (a listbox: arrows move, Enter picks, Escape closes). Enter
 * or a comma adds the typed name as it is (a new name starts a new topic); Backspace in the
 * empty input removes the last chip.
 * @param {string[]} initial
 */
function topicPicker(initial) {
  /** @type {string[]} */
  const chosen = [...initial];
  const listId = "field-topics-suggestions";
  const input = /** @type {HTMLInputElement} */ (
    h("input", { id: "field-topics", type: "text", role: "combobox", autocomplete: "off", maxlength: 50, "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": listId, "aria-describedby": "field-topics-hint field-topics-error" })
  );
  const list = h("ul", { id: listId, role: "listbox", class: "suggestions", "aria-label": "Suggested topics", hidden: true });
  const chips = h("ul", { class: "chips topic-chips", "aria-label": "Chosen topics" });
  // A live region of its own (not a `status` role: the cover's upload status is the form's).
  const status = h("p", { class: "visually-hidden", "aria-live": "polite" });
  /** @type {string[]} */
  let options = [];
  let active = -1;
  let timer = 0;
  /** @type {AbortController|null} */
  let pending = null;

  const drawChips = () => {
    mount(
      chips,
      chosen.map((name, i) => {
        const remove = h("button", { type: "button", class: "chip-remove", "aria-label": `Remove topic ${name}` }, "×");
        remove.addEventListener("click", () => {
          chosen.splice(i, 1);
          drawChips();
          status.textContent = `Removed ${name}.`;
          input.focus();
        });
        return h("li", { class: "chip topic-chip" }, name, " ", remove);
      }),
    );
    input.disabled = chosen.length >= MAX_TOPICS;
    input.placeholder = chosen.length >= MAX_TOPICS ? "At most 10 topics" : "Type a topic";
  };
  const close = () => {
    options = [];
    active = -1;
    list.hidden = true;
    mount(list);
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
  };
  const add = (/** @type {string} */ raw) => {
    const name = raw.trim();
    close();
    input.value = "";
    if (!name) {
      return;
    }
    if (chosen.some((c) => c.toLowerCase() === name.toLowerCase())) {
      status.textContent = `${name} is already chosen.`;
      return;
    }
    if (chosen.length >= MAX_TOPICS) {
      status.textContent = "A post carries at most 10 topics.";
      return;
    }
    chosen.push(name);
    drawChips();
    status.textContent = `Added ${name}.`;
  };
  const highlight = (/** @type {number} */ index) => {
    active = index;
    [...list.children].forEach((option, i) => option.setAttribute("aria-selected", String(i === index)));
    if (index >= 0) {
      input.setAttribute("aria-activedescendant", `${listId}-${index}`);
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  };
  const suggest = async () => {
    const q = input.value.trim();
    pending?.abort();
    if (!q || !/[\p{L}\p{M}\p{N}]/u.test(q)) {
      close();
      return;
    }
    const controller = new AbortController();
    pending = controller;
    try {
      const found = await communityApi.suggestTopics({ q, limit: 8 }, { signal: controller.signal });
      if (controller.signal.aborted) {
        return;
      }
      options = found.map((t) => t.name).filter((n) => !chosen.some((c) => c.toLowerCase() === n.toLowerCase()));
      active = -1;
      mount(
        list,
        options.map((name, i) => {
          const count = found.find((t) => t.name === name)?.postCount ?? 0;
          const option = h("li", { id: `${listId}-${i}`, role: "option", "aria-selected": "false" }, name, h("span", { class: "hint" }, ` · ${count} ${count === 1 ? "post" : "posts"}`));
          // mousedown, not click: the input keeps its focus.
          option.addEventListener("mousedown", (event) => {
            event.preventDefault();
            add(name);
            input.focus();
          });
          return option;
        }),
      );
      list.hidden = options.length === 0;
      input.setAttribute("aria-expanded", String(options.length > 0));
      status.textContent = options.length ? `${options.length} suggested ${options.length === 1 ? "topic" : "topics"}.` : "";
    } catch {
      // Suggestions are a help: without them the name typed is still added as it is.
      if (!controller.signal.aborted) {
        close();
      }
    }
  };
  input.addEventListener("input", () => {
    if (input.value.includes(",")) {
      const parts = input.value.split(",");
      const rest = parts.pop() ?? "";
      parts.forEach(add);
      input.value = rest;
    }
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void suggest(), SUGGEST_DELAY_MS);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" && options.length) {
      event.preventDefault();
      highlight((active + 1) % options.length);
    } else if (event.key === "ArrowUp" && options.length) {
      event.preventDefault();
      highlight(active <= 0 ? options.length - 1 : active - 1);
    } else if (event.key === "Enter") {
      // Enter picks a topic; it never submits the form from here.
      event.preventDefault();
      add(active >= 0 ? options[active] : input.value);
    } else if (event.key === "Escape" && !list.hidden) {
      event.preventDefault();
      close();
    } else if (event.key === "Backspace" && !input.value && chosen.length) {
      const removed = chosen.pop();
      drawChips();
      status.textContent = `Removed ${removed}.`;
    }
  });
  input.addEventListener("blur", () => window.setTimeout(close, 100));
  drawChips();
  const element = h(
    "div",
    { class: "field topic-picker", dataset: { field: "topics" } },
    h("label", { for: "field-topics" }, "Topics", h("span", { class: "optional" }, " (optional)")),
    h("p", { class: "hint", id: "field-topics-hint" }, "Up to 10. Type to see existing topics; Enter or a comma adds the name as typed (a new name starts a new topic)."),
    chips,
    h("div", { class: "combobox" }, input, list),
    status,
    h("p", { class: "field-error", id: "field-topics-error", hidden: true }),
  );
  /** The chosen topics, with a name still typed in the input. */
  const names = () => {
    const typed = input.value.trim();
    return typed && !chosen.some((c) => c.toLowerCase() === typed.toLowerCase()) ? [...chosen, typed] : [...chosen];
  };
  return { element, names };
}
