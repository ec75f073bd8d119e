// Notification channels (incident events sent as signed webhooks, Slack, Teams or ntfy
// messages, or mailed through SNS): the list with a form for a new channel, and a channel's
// page with its delivery log (each event's attempts and last outcome). A webhook's secret and
// an ntfy token are write-only: the API never returns them (nor a Slack or Teams URL's secret
// parts).

import * as incidentsApi from "./api-incidents.gen.js";
import { announce, h, mount, time } from "./dom.js";
import { SEVERITIES, sectionNav, textOrNull } from "./incidents.js";
import { fill, forOperators, loadItem, pageHead, submits } from "./incident-views.js";
import { navigate } from "./router.js";
import { empty, field, formError, loading } from "./ui.js";
import { deleteButton } from "./views-rules.js";

/** @typedef {import("./api-types.gen.js").Channel} Channel */
/** @typedef {import("./api-types.gen.js").ChannelRequest} ChannelRequest */
/** @typedef {import("./api-types.gen.js").Delivery} Delivery */
/** @typedef {import("./api-types.gen.js").Severity} Severity */

/** Each kind's name in the form and the list. */
const KIND_LABELS = /** @type {Record<string, string>} */ ({
  webhook: "Webhook (signed JSON)",
  slack: "Slack",
  teams: "Microsoft Teams",
  ntfy: "ntfy",
  email: "E-mail (through SNS)",
});

/** What the URL field asks for, by kind. */
const URL_HINTS = /** @type {Record<string, string>} */ ({
  webhook: 'Each event is POSTed here, signed: X-Signature: sha256=HMAC(secret, X-Timestamp + "." + body).',
  slack: "Slack: create an app with Incoming Webhooks on (api.slack.com/apps), add a webhook to the channel, copy its https://hooks.slack.com/services/… URL. It is the credential: shown masked afterwards.",
  teams:
    'Teams: in the channel, Workflows → "Post to a channel when a webhook request is received", then copy the workflow\'s URL (it carries its signature: shown masked afterwards).',
});

/** @param {string} id */
function channelHref(id) {
  return `/incidents/channels/${encodeURIComponent(id)}`;
}

/**
 * Where a channel sends, in words: its URL, or its address and whether it is confirmed.
 * @param {Channel} channel
 */
function destination(channel) {
  if (channel.kind === "email") {
    const pending = channel.pendingConfirmation ? " (awaiting confirmation: follow the link SNS mailed)" : "";
    return `E-mail to ${channel.address ?? ""}${pending}`;
  }
  if (channel.kind === "ntfy") {
    return `ntfy topic ${channel.topic ?? ""} on ${channel.server ?? ""}${channel.hasToken ? " (with an access token)" : ""}`;
  }
  const label = KIND_LABELS[channel.kind] ?? channel.kind;
  return channel.kind === "webhook" ? (channel.url ?? "") : `${label}: ${channel.url ?? ""}`;
}

/**
 * What a channel gets, in words.
 * @param {Channel} channel
 */
function routing(channel) {
  const parts = [];
  if (channel.escalationOnly) {
    parts.push("Escalations only");
  } else {
    parts.push(channel.services.length ? `Services: ${channel.services.join(", ")}` : "Every service");
    parts.push(channel.severities.length ? `severities: ${channel.severities.join(", ")}` : "every severity");
  }
  if (channel.escalateAfterMinutes && channel.escalateTo) {
    parts.push(`escalates after ${channel.escalateAfterMinutes} min unacknowledged`);
  } else if (channel.escalateTo) {
    parts.push("escalates when its rule names a delay");
  }
  return parts.join(" · ");
}

/**
 * The form for a new channel.
 * @param {Channel[]} channels The existing ones, to escalate to.
 */
function channelForm(channels) {
  const kind = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "field-kind", name: "kind", "aria-describedby": "field-kind-error" },
      Object.entries(KIND_LABELS).map(([value, label]) => h("option", { value }, label)),
    )
  );
  const kindField = h("div", { class: "field", dataset: { field: "kind" } }, h("label", { for: "field-kind" }, "Kind"), kind, h("p", { class: "field-error", id: "field-kind-error", hidden: true }));
  const urlField = field({ label: "URL", name: "url", type: "url", required: true, maxlength: 2048, hint: URL_HINTS.webhook });
  const urlHint = urlField.querySelector(".hint");
  const urlFields = h("div", { class: "channel-url" }, urlField);
  const secretFields = h(
    "div",
    { class: "channel-webhook" },
    field({ label: "Secret", name: "secret", type: "password", required: true, minlength: 16, maxlength: 256, autocomplete: "new-password", hint: "16 to 256 characters. Stored, never shown again." }),
  );
  const ntfyFields = h(
    "div",
    { class: "channel-ntfy", hidden: true },
    field({ label: "Server", name: "server", type: "url", required: true, maxlength: 2048, value: "https://ntfy.sh", hint: "https://ntfy.sh or your own server's base URL." }),
    field({ label: "Topic", name: "topic", required: true, maxlength: 64, hint: "Letters, digits, - and _ (up to 64). Subscribe to it in the ntfy app; on ntfy.sh an unguessable name keeps it private." }),
    field({ label: "Access token", name: "token", type: "password", maxlength: 256, autocomplete: "new-password", hint: "For a protected topic: a token (tk_…) from the server's account page or `ntfy token add`. Sent as Authorization: Bearer; stored, never shown again." }),
  );
  const emailFields = h(
    "div",
    { class: "channel-email", hidden: true },
    field({ label: "Address", name: "address", type: "email", required: true, maxlength: 254, autocomplete: "email", hint: "SNS mails it a confirmation link; nothing is sent before it is followed." }),
  );
  kind.addEventListener("change", () => {
    const value = kind.value;
    urlFields.hidden = !["webhook", "slack", "teams"].includes(value);
    secretFields.hidden = value !== "webhook";
    ntfyFields.hidden = value !== "ntfy";
    emailFields.hidden = value !== "email";
    if (urlHint) {
      urlHint.textContent = URL_HINTS[value] ?? "";
    }
  });
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "button" }, "Add channel"));
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      { class: "card channel-form", "aria-labelledby": "channel-form-heading", novalidate: true },
      h("h2", { id: "channel-form-heading" }, "New channel"),
      formError(),
      field({ label: "Name", name: "name", required: true, maxlength: 100 }),
      kindField,
      urlFields,
      secretFields,
      ntfyFields,
      emailFields,
      field({ label: "Services", name: "services", hint: "Comma-separated. Empty: every service." }),
      h(
        "fieldset",
        { class: "field", dataset: { field: "severities" }, "aria-describedby": "field-severities-error" },
        h("legend", null, "Severities (none: every severity)"),
        h("div", { class: "checks" }, SEVERITIES.map((s) => h("label", { class: "check" }, h("input", { type: "checkbox", name: "severities", value: s }), s))),
        h("p", { class: "field-error", id: "field-severities-error", hidden: true }),
      ),
      h("label", { class: "check" }, h("input", { type: "checkbox", name: "escalationOnly" }), "Escalations only"),
      h(
        "div",
        { class: "filter-grid" },
        field({ label: "Escalate after (minutes)", name: "escalateAfterMinutes", type: "number", inputmode: "numeric", hint: "1 to 1440; unacknowledged incidents go to the channel below (a rule's delay overrides it)." }),
        h(
          "div",
          { class: "field", dataset: { field: "escalateTo" } },
          h("label", { for: "field-escalateTo" }, "Escalate to", h("span", { class: "optional" }, " (optional)")),
          h(
            "select",
            { id: "field-escalateTo", name: "escalateTo", "aria-describedby": "field-escalateTo-error" },
            h("option", { value: "" }, "Nobody"),
            channels.map((c) => h("option", { value: c.id }, c.name)),
          ),
          h("p", { class: "field-error", id: "field-escalateTo-error", hidden: true }),
        ),
      ),
      h("div", { class: "actions" }, button),
    )
  );
  submits(
    form,
    [button],
    "Saving…",
    (data) => {
      const services = String(data.get("services") ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const after = String(data.get("escalateAfterMinutes") ?? "").trim();
      const chosen = String(data.get("kind") ?? "webhook");
      const url = String(data.get("url") ?? "").trim();
      /** @type {Record<string, object>} */
      const targets = {
        email: { kind: "email", address: String(data.get("address") ?? "").trim() },
        webhook: { kind: "webhook", url, secret: String(data.get("secret") ?? "") },
        slack: { kind: "slack", url },
        teams: { kind: "teams", url },
        ntfy: {
          kind: "ntfy",
          server: String(data.get("server") ?? "").trim(),
          topic: String(data.get("topic") ?? "").trim(),
          token: textOrNull(data.get("token")),
        },
      };
      const target = targets[chosen] ?? targets.webhook;
      return /** @type {ChannelRequest} */ ({
        name: String(data.get("name") ?? "").trim(),
        ...target,
        services,
        severities: /** @type {Severity[]} */ (data.getAll("severities").map(String)),
        escalationOnly: data.get("escalationOnly") !== null,
        escalateAfterMinutes: after === "" ? null : Number(after),
        escalateTo: textOrNull(data.get("escalateTo")),
      });
    },
    async (body) => {
      const created = await incidentsApi.createNotificationChannel(body);
      announce(`Channel ${created.name} added`);
      navigate(channelHref(created.id));
    },
  );
  return form;
}

/**
 * One channel in the list.
 * @param {Channel} channel
 */
function channelCard(channel) {
  const card = h("li", { class: "card channel-card", dataset: { channelId: channel.id } });
  mount(
    card,
    h("h3", { class: "card-title" }, h("a", { href: channelHref(channel.id) }, channel.name)),
    h("p", { class: "meta channel-destination" }, destination(channel)),
    h("p", { class: "meta channel-routing" }, routing(channel)),
    h(
      "div",
      { class: "actions" },
      h("a", { class: "button small secondary", href: channelHref(channel.id) }, "Deliveries"),
      deleteButton("Delete", async () => {
        await incidentsApi.deleteNotificationChannel(channel.id);
        card.remove();
        announce(`Channel ${channel.name} deleted`);
      }),
    ),
  );
  return card;
}

/**
 * `/incidents/channels`: every notification channel, and a form for a new one.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function channelsPage(main, match, { signal, title }) {
  if (!forOperators(main, "Notification channels", title)) {
    return;
  }
  const list = h("div", { class: "channel-list" }, loading("Loading notification channels"));
  const formSlot = h("div", null);
  mount(
    main,
    pageHead(
      "Notification channels",
      "Incident events (opened, reopened, alert raised, escalated, acknowledged, resolved, unsilenced) are POSTed to the webhook channels routed to (signed with each channel's secret), posted to Slack, Teams and ntfy in their own formats with a link to the incident, or mailed to the e-mail channels' addresses. Silenced incidents notify nobody until their silence ends.",
    ),
    sectionNav(match.path),
    list,
    formSlot,
  );
  await fill(
    list,
    signal,
    () => incidentsApi.listNotificationChannels({ signal, cache: "no-store" }),
    (channels) => {
      mount(formSlot, channelForm(channels));
      return channels.length ? h("ul", { class: "cards channel-cards" }, channels.map(channelCard)) : empty("No channels: nobody is notified of incidents.");
    },
  );
}

/**
 * One delivery of the log.
 * @param {Delivery} d
 */
function deliveryRow(d) {
  return h(
    "tr",
    { dataset: { eventId: d.eventId } },
    h("td", null, time(d.eventAt)),
    h("td", null, d.eventType),
    h("td", null, h("a", { href: `/incidents/${encodeURIComponent(d.incidentId)}` }, "incident")),
    h("td", null, h("span", { class: `badge ${d.status === "DELIVERED" ? "ok" : "danger"}` }, d.status)),
    h("td", null, String(d.attempts)),
    h("td", null, d.error ?? (d.httpStatus ? String(d.httpStatus) : d.status === "DELIVERED" ? "accepted by SNS" : "")),
    h("td", null, time(d.lastAttemptAt)),
  );
}

/**
 * `/incidents/channels/{id}`: one channel and its delivery log.
 * @param {HTMLElement} main
 * @param {import("./router.js").Match} match
 * @param {import("./views-browse.js").ViewContext} context
 */
export async function channelPage(main, match, { signal, title }) {
  if (!forOperators(main, "Notification channel", title)) {
    return;
  }
  const channel = await loadItem(main, match, signal, "Notification channel", () => incidentsApi.getNotificationChannel(match.params.id, { signal, cache: "no-store" }));
  if (!channel) {
    return;
  }
  title(channel.name);
  const log = h("div", { class: "delivery-log" }, loading("Loading deliveries"));
  mount(main, pageHead(channel.name, `${destination(channel)} · ${routing(channel)}`), sectionNav(match.path), h("h2", null, "Deliveries"), log);
  await fill(
    log,
    signal,
    () => incidentsApi.listNotificationDeliveries(channel.id, { limit: 100 }, { signal, cache: "no-store" }),
    (deliveries) =>
      deliveries.length
        ? h(
            "table",
            { class: "deliveries" },
            h("thead", null, h("tr", null, ["Event time", "Event", "Incident", "Status", "Attempts", "Answer", "Last attempt"].map((c) => h("th", { scope: "col" }, c)))),
            h("tbody", null, deliveries.map(deliveryRow)),
          )
        : empty("Nothing sent to this channel yet."),
  );
}
