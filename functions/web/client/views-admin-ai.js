// Administration of the AI work (ADMIN): the community's failed post summaries (each retried
// with one click), the provider and model the summaries and other GenAI operations use, and
// digest generation jobs (started for a user and day, then followed to their final status).

import * as adminAiApi from "./api-admin-ai.gen.js";
import * as communityAdminApi from "./api-community-admin.gen.js";
import * as digestsApi from "./api-digests.gen.js";
import { announce, h, mount, plural, time } from "./dom.js";
import { navigate } from "./router.js";
import * as account from "./session.js";
import { busy, clearFormErrors, empty, errorAfter, errorBox, field, formError, loading, showFormError } from "./ui.js";
import { needsLogin, needsRole } from "./access.js";

/** @typedef {import("./api-types.gen.js").DigestGenerationJob} DigestGenerationJob */
/** @typedef {import("./api-types.gen.js").FailedSummary} FailedSummary */
/** @typedef {import("./api-types.gen.js").ProviderConfig} ProviderConfig */
/** @typedef {import("./api-types.gen.js").ProviderKind} ProviderKind */
/** @typedef {import("./http.js").RequestOptions} RequestOptions */

/** The administration's pages, as tabs on each. */
const ADMIN_PAGES = [
  ["/admin/users", "Accounts"],
  ["/admin/summaries", "Failed summaries"],
  ["/admin/provider", "AI provider"],
  ["/admin/digests", "Digest jobs"],
  ["/admin/moderation", "Moderation log"],
  ["/admin/reports", "Reports"],
];

/**
 * The tabs of the administration's pages, `path` current.
 * @param {string} path
 */
export function adminNav(path) {
  return h(
    "nav",
    { class: "list-tabs section-tabs", "aria-label": "Administration pages" },
    h("ul", null, ADMIN_PAGES.map(([href, label]) => h("li", null, h("a", { href, "aria-current": href === path ? "page" : null }, label)))),
  );
}

/**
 * Whether the session may see an admin page; if not, the page says what it needs.
 * @param {HTMLElement} main
 * @param {string} heading
 */
function forAdmins(main, heading) {
  if (!account.session.user) {
    needsLogin(main, heading, "This page is for administrators.");
    return false;
  }
  if (!account.isAdmin()) {
    needsRole(main, heading, "ADMIN", "The AI work is administered by administrators.");
    return false;
  }
  return true;
}

/**
 * @param {string} heading
 * @param {string} lede
 * @param {string} path
 */
function head(heading, lede, path) {
  return [h("div", { class: "page-head" }, h("h1", { tabindex: "-1" }, heading), h("p", { class: "lede" }, lede)), adminNav(path)];
}

/** Entries a page of an admin list holds. */
const ENTRIES_PER_PAGE = 20;

/**
 * `/admin/summaries`: the posts whose summary failed, most recently failed first, a page at a
 * time; "Retry" sends each again (its outcome shows on the post's page).
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export function failedSummariesPage(main, match, context) {
  return cursorListPage(main, match, context, {
    heading: "Failed summaries",
    lede: "Posts whose AI summary failed every try of the queue. A retry asks the model again.",
    kind: "summary",
    label: "Failed summaries",
    fetch: communityAdminApi.failedSummaries,
    card: failedCard,
    none: () => empty("No failed summaries", "Every post's summary was written, or is on its way."),
    count: (n) => plural(n, "failed summary", "failed summaries"),
    moreLabel: "More failed summaries",
  });
}

/**
 * An administration page of one cursor-paged list (`kind` names its classes): the heading and
 * tabs, then the list a page at a time, "More" adding the next.
 * @template T
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 * @param {{heading: string, lede: string, kind: string, label: string, fetch: (query: {cursor?: string, size?: number}, options: RequestOptions) => Promise<{content: T[], totalElements: number, nextCursor?: string}>, card: (item: T) => HTMLElement, none: () => HTMLElement, count: (n: number) => string, moreLabel: string}} list
 */
export async function cursorListPage(main, match, context, list) {
  const { signal, title } = context;
  title(list.heading);
  if (!forAdmins(main, list.heading)) {
    return;
  }
  const items = h("ul", { class: `cards ${list.kind}-cards`, "aria-label": list.label });
  const status = h("div", { class: `${list.kind}-list` }, loading(`Loading ${list.label.toLowerCase()}`));
  const more = h("div", { class: `actions ${list.kind}-more` });
  const headingId = `${list.kind}-list-heading`;
  mount(main, ...head(list.heading, list.lede, match.path), h("section", { "aria-labelledby": headingId }, h("h2", { id: headingId, class: "visually-hidden" }, list.label), status, items, more));
  try {
    await cursorPages(
      {
        list: items,
        status,
        more,
        signal,
        fetch: (cursor) => list.fetch(cursor ? { cursor, size: ENTRIES_PER_PAGE } : { size: ENTRIES_PER_PAGE }, { signal, cache: "no-store" }),
        card: list.card,
        none: list.none,
        count: list.count,
        moreLabel: list.moreLabel,
      },
      undefined,
    );
  } catch (error) {
    if (!signal.aborted) {
      mount(status, errorBox(error, () => void cursorListPage(main, match, context, list)));
    }
  }
}

/**
 * Adds the page of a cursor-paged admin list at `cursor` (the first when undefined) to
 * `list`: `status` then says how many there are (or that there are none), and `more` holds a
 * "More" button while there is a next page.
 * @template T
 * @param {{list: HTMLElement, status: HTMLElement, more: HTMLElement, signal: AbortSignal, fetch: (cursor: string|undefined) => Promise<{content: T[], totalElements: number, nextCursor?: string}>, card: (item: T) => HTMLElement, none: () => HTMLElement, count: (n: number) => string, moreLabel: string}} how
 * @param {string|undefined} cursor
 * @returns {Promise<void>}
 */
async function cursorPages(how, cursor) {
  const page = await how.fetch(cursor);
  how.list.append(...page.content.map(how.card));
  mount(how.status, how.list.childElementCount ? h("p", { class: "pager-summary" }, how.count(page.totalElements)) : how.none());
  if (!page.nextCursor) {
    mount(how.more);
    return;
  }
  const next = page.nextCursor;
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button secondary" }, how.moreLabel));
  button.addEventListener("click", async () => {
    try {
      await busy(button, "Loading…", () => cursorPages(how, next));
    } catch (error) {
      if (!how.signal.aborted) {
        errorAfter(button, error);
      }
    }
  });
  mount(how.more, button);
}

/** @param {FailedSummary} failed */
function failedCard(failed) {
  const headingId = `failed-${failed.id}`;
  const retry = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "button small", "aria-describedby": headingId }, "Retry"));
  const state = h("p", { class: "meta summary-state", "aria-live": "polite" }, "Failed ", time(failed.updatedAt));
  retry.addEventListener("click", async () => {
    try {
      const summary = await busy(retry, "Retrying…", () => communityAdminApi.retryPostSummary(failed.id));
      mount(state, `Retried: ${summary.status ?? "PENDING"}`);
      retry.remove();
      announce(`Summary of “${failed.title}” retried`);
    } catch (error) {
      errorAfter(retry, error);
    }
  });
  return h(
    "li",
    { class: "card summary-card", dataset: { postId: failed.id } },
    h("h3", { class: "card-title", id: headingId }, h("a", { href: `/community/posts/${encodeURIComponent(failed.id)}` }, failed.title)),
    state,
    h("div", { class: "actions" }, retry),
  );
}

/**
 * `/admin/provider`: the provider and model the GenAI operations (summaries among them) use,
 * and the form that changes them for this deployment.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function providerPage(main, match, { signal, title }) {
  const heading = "AI provider";
  title(heading);
  if (!forAdmins(main, heading)) {
    return;
  }
  mount(main, ...head(heading, "The provider and model that write post summaries and answer the other AI operations.", match.path), loading("Loading the provider"));
  let config;
  try {
    config = await adminAiApi.getAiProviderConfig({ signal, cache: "no-store" });
  } catch (error) {
    if (!signal.aborted) {
      mount(main, ...head(heading, "The provider and model that write post summaries and answer the other AI operations.", match.path), errorBox(error));
    }
    return;
  }
  const now = h("p", { class: "provider-now", role: "status" });
  const showNow = (/** @type {ProviderConfig} */ c) => mount(now, "In use: ", h("strong", null, c.provider), ` with the model ${c.model} (temperature ${c.temperature}).`);
  showNow(config);
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Use this provider"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card", "aria-labelledby": "provider-form-heading", novalidate: true },
      h("h2", { id: "provider-form-heading" }, "Choose the provider"),
      formError(),
      h(
        "fieldset",
        { class: "field", dataset: { field: "provider" } },
        h("legend", null, "Provider"),
        config.availableProviders.map((p) =>
          h(
            "label",
            { class: "choice" },
            h("input", { type: "radio", name: "provider", value: p.name, checked: p.name === config.provider, disabled: !p.configured }),
            ` ${p.name}`,
            p.configured ? null : h("span", { class: "hint" }, " (not configured)"),
          ),
        ),
        h("p", { class: "field-error", id: "field-provider-error", hidden: true }),
      ),
      field({ label: "Model", name: "model", required: true, maxlength: 200, value: config.model }),
      h("div", { class: "actions" }, button),
    )
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    const update = { provider: /** @type {ProviderKind} */ (String(data.get("provider") ?? "")), model: String(data.get("model") ?? "").trim() };
    try {
      const saved = await busy(button, "Saving…", () => adminAiApi.setAiProviderConfig(update));
      showNow(saved);
      announce(`Provider set to ${saved.provider}`);
    } catch (error) {
      showFormError(form, error);
    }
  });
  mount(main, ...head(heading, "The provider and model that write post summaries and answer the other AI operations.", match.path), now, form);
}

/** Statuses after which a job does not change. */
const FINAL = new Set(["GENERATED", "SKIPPED", "FAILED"]);
/** Between two reads of a running job. */
const JOB_POLL_MS = 1000;
/** Reads of one job before the page stops following it (the worker's timeout is 3 minutes). */
const JOB_POLLS = 200;

/**
 * `/admin/digests`: starts a digest generation for a user and day (a background job) and
 * follows a job (`?job=`) to its final status.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function digestJobsPage(main, match, { signal, title }) {
  const heading = "Digest jobs";
  title(heading);
  if (!forAdmins(main, heading)) {
    return;
  }
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Start the job"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card", "aria-labelledby": "job-form-heading", novalidate: true },
      h("h2", { id: "job-form-heading" }, "Generate a digest"),
      formError(),
      field({ label: "User id", name: "userId", required: true, maxlength: 36, hint: "The account's id (a UUID), from the accounts page." }),
      field({ label: "Day", name: "date", type: "date", hint: "Not after tomorrow; yesterday when left empty." }),
      h("div", { class: "field" }, h("label", { class: "choice" }, h("input", { type: "checkbox", name: "force" }), " Generate again even when the user has a digest for that day")),
      h("div", { class: "actions" }, button),
    )
  );
  const jobSlot = h("section", { class: "job-slot", "aria-labelledby": "job-heading" }, h("h2", { id: "job-heading" }, "Job"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearFormErrors(form);
    const data = new FormData(form);
    const date = String(data.get("date") ?? "");
    const query = { ...(date ? { date } : {}), ...(data.get("force") ? { force: true } : {}) };
    try {
      const job = await busy(button, "Starting…", () => digestsApi.adminGenerateDigest(String(data.get("userId") ?? "").trim(), query));
      announce("Digest job started");
      navigate(`/admin/digests?job=${encodeURIComponent(job.id)}`);
    } catch (error) {
      showFormError(form, error);
    }
  });
  const jobId = match.query.get("job");
  mount(main, ...head(heading, "A digest job generates one user's digest of one day in the background.", match.path), form, jobId ? jobSlot : null);
  if (!jobId) {
    return;
  }
  const body = h("div", { class: "job", "aria-live": "polite" }, loading("Loading the job"));
  jobSlot.append(body);
  for (let read = 0; read < JOB_POLLS && !signal.aborted; read += 1) {
    let job;
    try {
      job = await digestsApi.digestJobStatus(jobId, { signal, cache: "no-store" });
    } catch (error) {
      if (!signal.aborted) {
        mount(body, errorBox(error));
      }
      return;
    }
    mount(body, jobCard(job));
    if (FINAL.has(job.status)) {
      announce(`Digest job ${job.status.toLowerCase()}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, JOB_POLL_MS));
  }
}

/** @param {DigestGenerationJob} job */
function jobCard(job) {
  return h(
    "dl",
    { class: "job-facts" },
    h("dt", null, "Status"),
    h("dd", { class: "job-status" }, h("span", { class: `badge status status-${job.status.toLowerCase()}` }, job.status)),
    job.message ? [h("dt", null, "Outcome"), h("dd", { class: "job-message" }, job.message)] : null,
    h("dt", null, "User"),
    h("dd", null, job.targetUserId),
    h("dt", null, "Day"),
    h("dd", null, job.digestDate),
    h("dt", null, "Started"),
    h("dd", null, time(job.createdAt)),
    job.finishedAt ? [h("dt", null, "Finished"), h("dd", null, time(job.finishedAt))] : null,
    // A PERSONAL digest is its reader's only: the id, not a link the admin could not open.
    job.digestId ? [h("dt", null, "Digest"), h("dd", { class: "job-digest" }, job.digestId)] : null,
  );
}
