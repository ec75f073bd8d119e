//! The chat messages of an incident event: Slack (incoming webhook: `text` and Block Kit
//! `blocks`), Microsoft Teams (a Workflows webhook: an Adaptive Card 1.4 in a `message`'s
//! attachments) and ntfy (JSON publishing: `topic`, `title`, `message`, `priority`, `tags`,
//! `click`, a view action). Each carries the title, service, severity, status and the
//! incident's link; the severity picks the emoji, colour and ntfy priority.

use serde_json::{json, Value};

use crate::events::{EventDetail, EventKind};

/// Slack's limits: a header's text, a section's text, a field's text.
const SLACK_HEADER_CHARS: usize = 150;
const SLACK_SECTION_CHARS: usize = 3_000;
const SLACK_FIELD_CHARS: usize = 2_000;
/// ntfy truncates messages over 4,096 bytes into attachments; kept under.
const NTFY_MESSAGE_CHARS: usize = 3_500;
const NTFY_TITLE_CHARS: usize = 250;

/// What a message shows of an event.
struct Facts<'a> {
    kind: EventKind,
    detail: &'a EventDetail,
    link: Option<String>,
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// The incident's page in the web client: `{base}/incidents/{id}`.
pub fn incident_link(base: &str, incident_id: &str) -> Option<String> {
    let base = base.trim().trim_end_matches('/');
    (!base.is_empty()).then(|| format!("{base}/incidents/{incident_id}"))
}

impl Facts<'_> {
    fn severity(&self) -> &str {
        self.detail.severity.as_deref().unwrap_or("")
    }

    fn title(&self) -> String {
        self.detail
            .title
            .clone()
            .unwrap_or_else(|| format!("incident {}", self.detail.incident_id))
    }

    fn service(&self) -> &str {
        self.detail.service_name.as_deref().unwrap_or("-")
    }

    fn status(&self) -> &str {
        self.detail.status.as_deref().unwrap_or("-")
    }

    /// The emoji a reader expects: a resolution is green, an acknowledgement seen, an
    /// escalation loud, else by severity.
    fn emoji(&self) -> &'static str {
        match self.kind {
            EventKind::Resolved => "✅",
            EventKind::Acknowledged => "👀",
            EventKind::Escalated => "🚨",
            _ => match self.severity() {
                "FATAL" => "💥",
                "ERROR" => "🔴",
                "WARN" => "🟠",
                "INFO" => "🔵",
                "DEBUG" | "TRACE" => "⚪",
                _ => "🔔",
            },
        }
    }

    /// The headline: `🔴 Incident Opened: checkout [ERROR]`.
    fn headline(&self) -> String {
        let severity = match self.severity() {
            "" => String::new(),
            s => format!(" [{s}]"),
        };
        format!(
            "{} {}: {}{severity}",
            self.emoji(),
            self.kind.detail_type(),
            self.service()
        )
    }

    /// ntfy's priority: 5 (max) for FATAL and escalations, 4 ERROR, 3 WARN (the default), 2
    /// INFO, acknowledgements and resolutions, 1 DEBUG and TRACE.
    fn priority(&self) -> u8 {
        match self.kind {
            EventKind::Escalated => 5,
            EventKind::Resolved | EventKind::Acknowledged => 2,
            _ => match self.severity() {
                "FATAL" => 5,
                "ERROR" => 4,
                "INFO" => 2,
                "DEBUG" | "TRACE" => 1,
                _ => 3,
            },
        }
    }

    /// An ntfy tag ntfy shows as an emoji (its shortcode).
    fn ntfy_emoji(&self) -> &'static str {
        match self.kind {
            EventKind::Resolved => "white_check_mark",
            EventKind::Acknowledged => "eyes",
            EventKind::Escalated => "rotating_light",
            _ => match self.severity() {
                "FATAL" => "boom",
                "ERROR" => "red_circle",
                "WARN" => "warning",
                "INFO" => "information_source",
                _ => "bell",
            },
        }
    }

    /// An Adaptive Card text colour: red for errors and escalations, amber for warnings,
    /// green for a resolution.
    fn card_colour(&self) -> &'static str {
        match self.kind {
            EventKind::Resolved => "Good",
            EventKind::Escalated => "Attention",
            EventKind::Acknowledged => "Accent",
            _ => match self.severity() {
                "FATAL" | "ERROR" => "Attention",
                "WARN" => "Warning",
                "INFO" => "Accent",
                _ => "Default",
            },
        }
    }

    /// The lines below the headline: what and why.
    fn extra(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(t) = &self.detail.log_type {
            out.push(("Type", t.clone()));
        }
        if let Some(note) = &self.detail.note {
            out.push(("Note", note.clone()));
        }
        out.push(("By", self.detail.by.clone()));
        out
    }
}

/// `&`, `<` and `>` escaped, as Slack's mrkdwn requires of text that is not markup.
fn slack_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A Slack incoming webhook's body: `text` (the notification's and a fallback's) and
/// `blocks` (header, title linked to the incident, service/severity/status/type fields,
/// context, an "Open incident" button).
pub fn slack_message(kind: EventKind, detail: &EventDetail, link: Option<String>) -> Value {
    let facts = Facts { kind, detail, link };
    let title = slack_escape(&facts.title());
    let title_line = match &facts.link {
        Some(link) => format!("*<{link}|{}>*", clip(&title, SLACK_SECTION_CHARS - 200)),
        None => format!("*{}*", clip(&title, SLACK_SECTION_CHARS - 10)),
    };
    let field = |name: &str, value: &str| json!({"type": "mrkdwn", "text": clip(&format!("*{name}*\n{}", slack_escape(value)), SLACK_FIELD_CHARS)});
    let mut fields = vec![
        field("Service", facts.service()),
        field(
            "Severity",
            if facts.severity().is_empty() {
                "-"
            } else {
                facts.severity()
            },
        ),
        field("Status", facts.status()),
    ];
    if let Some(t) = &detail.log_type {
        fields.push(field("Type", t));
    }
    let mut context = Vec::new();
    if let Some(note) = &detail.note {
        context.push(slack_escape(note));
    }
    context.push(format!("by {} at {}", slack_escape(&detail.by), detail.at));
    let mut blocks = vec![
        json!({"type": "header", "text": {"type": "plain_text", "emoji": true,
               "text": clip(&format!("{} {}", facts.emoji(), kind.detail_type()), SLACK_HEADER_CHARS)}}),
        json!({"type": "section", "text": {"type": "mrkdwn", "text": title_line}}),
        json!({"type": "section", "fields": fields}),
        json!({"type": "context", "elements": [{"type": "mrkdwn",
               "text": clip(&context.join(" · "), SLACK_SECTION_CHARS)}]}),
    ];
    if let Some(link) = &facts.link {
        blocks.push(json!({"type": "actions", "elements": [{"type": "button",
            "text": {"type": "plain_text", "text": "Open incident"}, "url": link,
            "action_id": "open_incident"}]}));
    }
    json!({
        "text": clip(&format!("{}: {}", facts.headline(), slack_escape(&facts.title())), SLACK_SECTION_CHARS),
        "blocks": blocks,
    })
}

/// A Teams Workflows webhook's body: a `message` whose one attachment is an Adaptive Card
/// (1.4: what Teams renders) with the headline in the severity's colour, the title, a fact
/// set and an "Open incident" action.
pub fn teams_message(kind: EventKind, detail: &EventDetail, link: Option<String>) -> Value {
    let facts = Facts { kind, detail, link };
    let mut fact_set = vec![
        json!({"title": "Service", "value": facts.service()}),
        json!({"title": "Severity", "value": if facts.severity().is_empty() { "-" } else { facts.severity() }}),
        json!({"title": "Status", "value": facts.status()}),
    ];
    for (name, value) in facts.extra() {
        fact_set.push(json!({"title": name, "value": value}));
    }
    let mut card = json!({
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": [
            {"type": "TextBlock", "text": facts.headline(), "weight": "Bolder", "size": "Medium",
             "color": facts.card_colour(), "wrap": true},
            {"type": "TextBlock", "text": facts.title(), "wrap": true},
            {"type": "FactSet", "facts": fact_set},
        ],
        "msteams": {"width": "Full"},
    });
    if let (Some(link), Some(card)) = (&facts.link, card.as_object_mut()) {
        card.insert(
            "actions".into(),
            json!([{"type": "Action.OpenUrl", "title": "Open incident", "url": link}]),
        );
    }
    json!({
        "type": "message",
        "attachments": [{
            "contentType": "application/vnd.microsoft.card.adaptive",
            "contentUrl": null,
            "content": card,
        }],
    })
}

/// An ntfy JSON publication (POSTed to the server's root): `topic`, `title`, `message`,
/// `priority` (1-5 by severity), `tags` (an emoji shortcode, the service, the severity),
/// `click` and a view action to the incident.
pub fn ntfy_message(
    topic: &str,
    kind: EventKind,
    detail: &EventDetail,
    link: Option<String>,
) -> Value {
    let facts = Facts { kind, detail, link };
    let mut lines = vec![
        facts.title(),
        String::new(),
        format!("Service: {}", facts.service()),
        format!(
            "Severity: {}",
            if facts.severity().is_empty() {
                "-"
            } else {
                facts.severity()
            }
        ),
        format!("Status: {}", facts.status()),
    ];
    for (name, value) in facts.extra() {
        lines.push(format!("{name}: {value}"));
    }
    let mut tags = vec![facts.ntfy_emoji().to_string(), facts.service().to_string()];
    if !facts.severity().is_empty() {
        tags.push(facts.severity().to_lowercase());
    }
    let mut message = json!({
        "topic": topic,
        "title": clip(&format!("{}: {}", kind.detail_type(), facts.service()), NTFY_TITLE_CHARS),
        "message": clip(&lines.join("\n"), NTFY_MESSAGE_CHARS),
        "priority": facts.priority(),
        "tags": tags,
    });
    if let (Some(link), Some(fields)) = (&facts.link, message.as_object_mut()) {
        fields.insert("click".into(), json!(link));
        fields.insert(
            "actions".into(),
            json!([{"action": "view", "label": "Open incident", "url": link, "clear": false}]),
        );
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detail() -> EventDetail {
        EventDetail {
            event_id: "e1".into(),
            incident_id: "i1".into(),
            at: "2026-12-03T22:00:00.000Z".into(),
            by: "system".into(),
            status: Some("ACTIVE".into()),
            service_name: Some("checkout".into()),
            log_type: Some("payment".into()),
            title: Some("Timeout <after> # ms & more".into()),
            severity: Some("ERROR".into()),
            alert_id: None,
            note: Some("opened by rule errors".into()),
            channel_id: None,
            escalate_after_minutes: None,
        }
    }

    #[test]
    fn slack_has_a_fallback_text_and_escaped_blocks_with_the_link() {
        let link = incident_link("https://app.example.com/", "i1");
        assert_eq!(
            link.as_deref(),
            Some("https://app.example.com/incidents/i1")
        );
        let m = slack_message(EventKind::Opened, &detail(), link);
        assert_eq!(
            m["text"],
            "🔴 Incident Opened: checkout [ERROR]: Timeout &lt;after&gt; # ms &amp; more"
        );
        assert_eq!(m["blocks"][0]["type"], "header");
        assert_eq!(
            m["blocks"][1]["text"]["text"],
            "*<https://app.example.com/incidents/i1|Timeout &lt;after&gt; # ms &amp; more>*"
        );
        assert_eq!(m["blocks"][2]["fields"][0]["text"], "*Service*\ncheckout");
        assert_eq!(m["blocks"][2]["fields"][1]["text"], "*Severity*\nERROR");
        assert_eq!(m["blocks"][2]["fields"][2]["text"], "*Status*\nACTIVE");
        assert_eq!(
            m["blocks"][4]["elements"][0]["url"],
            "https://app.example.com/incidents/i1"
        );
        assert!(incident_link(" ", "i1").is_none());
    }

    #[test]
    fn teams_gets_an_adaptive_card_in_a_message() {
        let m = teams_message(
            EventKind::Escalated,
            &detail(),
            Some("https://x/incidents/i1".into()),
        );
        assert_eq!(m["type"], "message");
        let a = &m["attachments"][0];
        assert_eq!(a["contentType"], "application/vnd.microsoft.card.adaptive");
        assert_eq!(a["content"]["type"], "AdaptiveCard");
        assert_eq!(a["content"]["version"], "1.4");
        assert_eq!(a["content"]["body"][0]["color"], "Attention");
        assert_eq!(a["content"]["actions"][0]["type"], "Action.OpenUrl");
        let resolved = teams_message(EventKind::Resolved, &detail(), None);
        assert_eq!(
            resolved["attachments"][0]["content"]["body"][0]["color"],
            "Good"
        );
        assert!(resolved["attachments"][0]["content"]
            .get("actions")
            .is_none());
    }

    #[test]
    fn ntfy_priority_follows_the_severity() {
        let m = ntfy_message(
            "ops",
            EventKind::Opened,
            &detail(),
            Some("https://x/incidents/i1".into()),
        );
        assert_eq!(m["topic"], "ops");
        assert_eq!(m["priority"], 4);
        assert_eq!(m["title"], "Incident Opened: checkout");
        assert_eq!(m["tags"], json!(["red_circle", "checkout", "error"]));
        assert_eq!(m["click"], "https://x/incidents/i1");
        let mut fatal = detail();
        fatal.severity = Some("FATAL".into());
        assert_eq!(
            ntfy_message("ops", EventKind::Opened, &fatal, None)["priority"],
            5
        );
        assert_eq!(
            ntfy_message("ops", EventKind::Resolved, &detail(), None)["priority"],
            2
        );
        let mut warn = detail();
        warn.severity = None;
        assert_eq!(
            ntfy_message("ops", EventKind::Acknowledged, &warn, None)["priority"],
            2
        );
        assert_eq!(
            ntfy_message("ops", EventKind::Unsilenced, &warn, None)["priority"],
            3
        );
    }
}
