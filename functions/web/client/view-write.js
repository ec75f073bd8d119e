// Writing and editing a post or draft: fields, topics by name, a cover uploaded when chosen.

import * as communityApi from "./api-community.gen.js";
import { announce, h, mount } from "./dom.js";
import { sendToStorage } from "./http.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { cover, markChanged, postHref } from "./community.js";
import { needsLogin } from "./access.js";
import { busy, clearFormErrors, describe, errorBox, field, formError, loading, showFormError, textArea } from "./ui.js";

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
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card write-form", novalidate: true, "aria-label": post ? "Edit the post" : "The new post" },
      formError(),
      field({ label: "Title", name: "title", value: post?.title ?? "", required: true, minlength: 5, maxlength: 100, hint: "5 to 100 characters." }),
      textArea({ label: "Content", name: "content", value: post?.content ?? "", required: true, maxlength: 50000, rows: 12, hint: "Plain text; a blank line starts a new paragraph." }),
      textArea({ label: "Excerpt", name: "excerpt", value: post?.excerpt ?? "", maxlength: 500, rows: 3, hint: "Shown in lists, at most 500 characters. Leave it empty to have it made from the content." }),
      field({ label: "Topics", name: "topics", value: post?.topics.map((t) => t.name).join(", ") ?? "", hint: "Topic names separated by commas, at most 10. A new name starts a new topic." }),
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
    const topics = text("topics")
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    const fields = { title: text("title"), content: text("content"), excerpt: text("excerpt") || null, topics, status };
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
