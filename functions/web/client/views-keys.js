// Ingest keys (incident platform, ADMIN): issue one (its secret shown once, with Copy), the
// keys with when each was last used, and revoke after a confirmation.

import * as incidentsApi from "./api-incidents.gen.js";
import { announce, h, mount, plural } from "./dom.js";
import { parseTags, preciseTime, sectionNav } from "./incidents.js";
import { fill, forOperators, pageHead, submits } from "./incident-views.js";
import { needsRole } from "./access.js";
import * as account from "./session.js";
import { confirmFirst, empty, errorBox, field, formError, headed, loading } from "./ui.js";

/** @typedef {import("./api-types.gen.js").IngestKey} IngestKey */
/** @typedef {import("./api-types.gen.js").IngestKeyRequest} IngestKeyRequest */

/**
 * The new key, shown once, with Copy and the lines a shipper needs.
 * @param {import("./api-types.gen.js").IssuedIngestKey} issued
 */
function issuedCard(issued) {
  const copy = h("button", { type: "button", class: "button secondary small", "aria-label": "Copy the key" }, "Copy");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(issued.key);
      announce("Key copied");
    } catch {
      // No clipboard (an insecure origin): the key is selected for copying by hand.
      /** @type {HTMLInputElement|null} */ (document.getElementById("issued-key"))?.select();
    }
  });
  return h(
    "section",
    { class: "card callout issued-key", "aria-labelledby": "issued-heading", tabindex: "-1" },
    h("h2", { id: "issued-heading" }, `Key “${issued.name}” issued`),
    h("p", null, h("strong", null, "Copy it now: it is shown only once."), " Senders pass it as `Authorization: Bearer …` (or `X-Api-Key`, or as a Loki basic-auth password)."),
    h("div", { class: "copyable" }, h("label", { for: "issued-key" }, "Ingest key"), h("div", { class: "copy-row" }, h("input", { type: "text", id: "issued-key", value: issued.key, readonly: true, class: "mono", spellcheck: "false" }), copy)),
  );
}

/**
 * One key with its use and a revoke that asks first.
 * @param {IngestKey} key
 * @param {() => void} revoked
 */
function keyRow(key, revoked) {
  const slot = h("div", { class: "actions" });
  const row = h(
    "li",
    { class: "card key-card", dataset: { keyId: key.id } },
    h("h3", { class: "card-title" }, key.name),
    h(
      "dl",
      { class: "facts key-facts" },
      h("dt", null, "Key"),
      h("dd", null, h("code", null, `ik_${key.id}_…`)),
      h("dt", null, "Last used"),
      h("dd", { class: "last-used" }, key.lastUsed ? preciseTime(key.lastUsed) : "Never"),
      h("dt", null, "Services"),
      h("dd", null, key.services.length ? key.services.join(", ") : "any"),
      h("dt", null, "Rate limit"),
      h("dd", null, `${plural(key.rateLimit.requests, "request")} in ${key.rateLimit.windowSeconds} s`),
      h("dt", null, "Issued"),
      h("dd", null, preciseTime(key.createdAt), ` by ${key.createdBy}`),
    ),
    slot,
  );
  const start = h("button", { type: "button", class: "button secondary danger-outline" }, "Revoke…");
  confirmFirst(slot, start, {
    warning: h("p", { class: "warning" }, `Senders using “${key.name}” are refused from now on.`),
    confirmLabel: "Yes, revoke the key",
    busyLabel: "Revoking…",
    act: () => incidentsApi.revokeIngestKey(key.id),
    done: () => {
      announce(`Key ${key.name} revoked`);
      revoked();
    },
    failed: (error, cancel) => {
      slot.append(errorBox(error));
      /** @type {HTMLElement} */ (cancel).focus();
    },
  });
  return row;
}

/**
 * `/incidents/keys`: the ingest keys (ADMIN).
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function keysPage(main, match, { signal, title }) {
  if (!forOperators(main, "Ingest keys", title)) {
    return;
  }
  if (!account.isAdmin()) {
    needsRole(main, "Ingest keys", "ADMIN", "Ingest keys are issued and revoked by administrators.");
    return;
  }
  const list = h("div", { class: "key-list" }, loading("Loading ingest keys"));
  const issued = h("div", { class: "issued-slot" });
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Issue key"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card key-form", "aria-labelledby": "key-form-heading", novalidate: true },
      h("h2", { id: "key-form-heading" }, "Issue a key"),
      formError(),
      field({ label: "Name", name: "name", required: true, hint: "Who sends with it: a shipper, a cluster, a deployment." }),
      field({ label: "Services", name: "services", hint: "Comma-separated; empty: any service." }),
      h("div", { class: "actions" }, button),
    )
  );
  const reload = () =>
    fill(
      list,
      signal,
      () => incidentsApi.listIngestKeys({ signal, cache: "no-store" }),
      (keys) => (keys.length ? h("ul", { class: "cards key-cards" }, keys.map((k) => keyRow(k, reload))) : empty("No ingest keys yet.", "Issue one for each sender.")),
    );
  submits(
    form,
    [button],
    "Issuing…",
    (data) => {
      const services = parseTags(String(data.get("services") ?? ""));
      /** @type {IngestKeyRequest} */
      const body = { name: String(data.get("name") ?? "").trim() };
      if (services.length) {
        body.services = services;
      }
      return body;
    },
    async (body) => {
      const made = await incidentsApi.issueIngestKey(body);
      form.reset();
      mount(issued, issuedCard(made));
      /** @type {HTMLElement|null} */ (issued.firstElementChild)?.focus();
      announce("Key issued: copy it now");
      await reload();
    },
  );
  mount(main, pageHead("Ingest keys", "Keys that senders (shippers, Alertmanager, OpenTelemetry) use to send logs."), sectionNav(match.path), issued, form, headed("Keys", list));
  await reload();
}
