//! A channel as a client sends it (`POST /api/v1/notifications/channels`), parsed with each
//! bad field named.

use platform::{FieldErrors, Invalid};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::{
    MAX_ADDRESS_CHARS, MAX_NAME_CHARS, MAX_SECRET_CHARS, MAX_SERVICES, MAX_TOPIC_CHARS,
    MAX_URL_CHARS, MIN_SECRET_CHARS,
};
use crate::input::{escalation_delay, object, severity_list, text};
use crate::model::Severity;

/// The body of `POST /api/v1/notifications/channels` (documentation; parsed by [`parse_channel`]).
#[derive(Debug, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ChannelRequest {
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    /// `webhook` (needs `url` and `secret`), `email` (needs `address`), `slack` or `teams`
    /// (need `url`), `ntfy` (needs `server` and `topic`, takes `token`); another kind's
    /// fields are refused.
    #[schema(pattern = "^(webhook|email|slack|teams|ntfy)$")]
    pub kind: String,
    /// `webhook`: `https://` (or `http://`) URL with a host; `slack`: the incoming webhook's
    /// URL (`https://hooks.slack.com/services/...`); `teams`: the Workflows trigger's URL
    /// (https; http only to localhost for chat kinds). Refused when it names or resolves to
    /// a private or reserved address.
    #[schema(max_length = 2048)]
    pub url: Option<String>,
    /// `ntfy`: the server's base URL (`https://ntfy.sh`, or a self-hosted one; https, http
    /// only to localhost; no query).
    #[schema(max_length = 2048)]
    pub server: Option<String>,
    /// `ntfy`: the topic published to.
    #[schema(pattern = "^[-_A-Za-z0-9]{1,64}$")]
    pub topic: Option<String>,
    /// `ntfy`: an access token (`tk_...`) sent as `Authorization: Bearer`; stored, never
    /// returned.
    #[schema(min_length = 1, max_length = 256, pattern = "^[!-~]+$")]
    pub token: Option<String>,
    /// `webhook`: signs each call (`X-Signature`); stored, never returned.
    #[schema(min_length = 16, max_length = 256)]
    pub secret: Option<String>,
    /// `email`: the address SNS mails (it must confirm the subscription first).
    #[schema(
        max_length = 254,
        pattern = "^[^@\\s\\x00-\\x1f\\x7f]+@[^@\\s\\x00-\\x1f\\x7f]+\\.[^@\\s\\x00-\\x1f\\x7f]+$"
    )]
    pub address: Option<String>,
    #[schema(max_items = 20)]
    pub services: Option<Vec<String>>,
    #[schema(max_items = 6)]
    pub severities: Option<Vec<Severity>>,
    pub escalation_only: Option<bool>,
    /// The default escalation delay; needs `escalateTo`. A rule's delay overrides it.
    #[schema(minimum = 1, maximum = 1440)]
    pub escalate_after_minutes: Option<i64>,
    /// The channel an escalation goes to (a channel id); alone, only rules that name a
    /// delay escalate.
    #[schema(max_length = 36)]
    pub escalate_to: Option<String>,
}

/// Where a channel sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Webhook {
        url: String,
        secret: String,
    },
    Email {
        address: String,
    },
    /// A Slack incoming webhook (its URL is its credential).
    Slack {
        url: String,
    },
    /// A Microsoft Teams Workflows webhook (its URL carries its signature).
    Teams {
        url: String,
    },
    /// An ntfy server and topic, with an access token when the topic is protected.
    Ntfy {
        server: String,
        topic: String,
        token: Option<String>,
    },
}

/// A channel to create, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelInput {
    pub name: String,
    pub target: Target,
    pub services: Vec<String>,
    pub severities: Vec<Severity>,
    pub escalation_only: bool,
    pub escalate_after_minutes: Option<i64>,
    pub escalate_to: Option<String>,
}

/// The kinds of channel.
pub const KINDS: [&str; 5] = ["webhook", "email", "slack", "teams", "ntfy"];

/// Parses a channel; each bad field named.
pub fn parse_channel(body: &Value) -> Result<ChannelInput, Invalid> {
    let object = object(body, "body")?;
    let mut errors = FieldErrors::new();
    let name = text(&mut errors, object, "", "name", MAX_NAME_CHARS, true);
    let kind = match text(&mut errors, object, "", "kind", 20, true).as_deref() {
        None => None,
        Some(k) if KINDS.contains(&k) => KINDS.iter().find(|x| **x == k).copied(),
        Some(_) => {
            errors.add("kind", "must be webhook, email, slack, teams or ntfy");
            // The other fields are still checked, as a webhook's.
            Some("webhook")
        }
    };
    let target = kind.and_then(|kind| channel_target(&mut errors, object, kind));
    let services = service_list(&mut errors, object);
    let severities = match object.get("severities") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) if items.len() <= Severity::ALL.len() => {
            severity_list(&mut errors, items)
        }
        Some(_) => {
            errors.add("severities", "must be an array of at most 6 severities");
            Vec::new()
        }
    };
    let escalation_only = match object.get("escalationOnly") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            errors.add("escalationOnly", "must be a boolean");
            false
        }
    };
    let escalate_after_minutes = escalation_delay(&mut errors, object);
    let escalate_to = text(&mut errors, object, "", "escalateTo", 36, false);
    if escalate_to
        .as_deref()
        .is_some_and(|id| uuid::Uuid::parse_str(id).is_err())
    {
        errors.add("escalateTo", "must be a channel id");
    }
    // escalateTo alone is allowed: a rule's escalateAfterMinutes sets the delay.
    if escalate_after_minutes.is_some() && escalate_to.is_none() {
        errors.add("escalateAfterMinutes", "needs escalateTo");
    }
    errors.finish()?;
    match (name, target) {
        (Some(name), Some(target)) => Ok(ChannelInput {
            name,
            target,
            services,
            severities,
            escalation_only,
            escalate_after_minutes,
            escalate_to,
        }),
        _ => Err(Invalid::field("body", "is incomplete")),
    }
}

/// The fields each kind takes besides the common ones.
fn own_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "webhook" => &["url", "secret"],
        "email" => &["address"],
        "slack" | "teams" => &["url"],
        _ => &["server", "topic", "token"],
    }
}

/// Where a channel sends: each kind's own fields (a field of another kind is refused).
fn channel_target(
    errors: &mut FieldErrors,
    object: &Map<String, Value>,
    kind: &str,
) -> Option<Target> {
    for field in ["url", "secret", "address", "server", "topic", "token"] {
        if !own_fields(kind).contains(&field)
            && !matches!(object.get(field), None | Some(Value::Null))
        {
            errors.add(field, format!("is not allowed for a {kind} channel"));
        }
    }
    match kind {
        "email" => {
            let address = text(errors, object, "", "address", MAX_ADDRESS_CHARS, true);
            if address.as_deref().is_some_and(|a| !is_address(a)) {
                errors.add("address", "must be an e-mail address (name@domain.tld)");
            }
            address.map(|address| Target::Email { address })
        }
        "webhook" => {
            let url = text(errors, object, "", "url", MAX_URL_CHARS, true);
            if let Some(raw) = &url {
                if let Err(reason) = check_url(raw) {
                    errors.add("url", reason);
                }
            }
            let secret = match object.get("secret") {
                Some(Value::String(s))
                    if (MIN_SECRET_CHARS..=MAX_SECRET_CHARS).contains(&s.chars().count()) =>
                {
                    Some(s.clone())
                }
                None | Some(Value::Null) => {
                    errors.add("secret", "is required");
                    None
                }
                Some(_) => {
                    errors.add(
                        "secret",
                        format!(
                            "must be a string of {MIN_SECRET_CHARS} to {MAX_SECRET_CHARS} characters"
                        ),
                    );
                    None
                }
            };
            url.zip(secret)
                .map(|(url, secret)| Target::Webhook { url, secret })
        }
        "slack" | "teams" => {
            let url = text(errors, object, "", "url", MAX_URL_CHARS, true);
            if let Some(raw) = &url {
                if let Err(reason) = check_chat_url(raw) {
                    errors.add("url", reason);
                }
            }
            url.map(|url| {
                if kind == "slack" {
                    Target::Slack { url }
                } else {
                    Target::Teams { url }
                }
            })
        }
        _ => {
            let server = text(errors, object, "", "server", MAX_URL_CHARS, true);
            if let Some(raw) = &server {
                match check_chat_url(raw) {
                    Ok(url) if url.query().is_some() || url.fragment().is_some() => {
                        errors.add("server", "must be the server's base URL (no query)");
                    }
                    Ok(_) => {}
                    Err(reason) => errors.add("server", reason),
                }
            }
            let topic = text(errors, object, "", "topic", MAX_TOPIC_CHARS, true);
            if topic.as_deref().is_some_and(|t| !is_topic(t)) {
                errors.add(
                    "topic",
                    format!("must be 1 to {MAX_TOPIC_CHARS} letters, digits, - or _"),
                );
            }
            let token = match object.get("token") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if is_token(s) => Some(s.clone()),
                Some(_) => {
                    errors.add(
                        "token",
                        format!(
                            "must be an access token of 1 to {MAX_SECRET_CHARS} printable ASCII characters without spaces"
                        ),
                    );
                    None
                }
            };
            server.zip(topic).map(|(server, topic)| Target::Ntfy {
                server: server.trim_end_matches('/').to_string(),
                topic,
                token,
            })
        }
    }
}

/// An ntfy topic: what ntfy allows in a topic name (`[-_A-Za-z0-9]{1,64}`).
pub fn is_topic(raw: &str) -> bool {
    (1..=MAX_TOPIC_CHARS).contains(&raw.len())
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// An ntfy access token as it goes in `Authorization: Bearer`.
fn is_token(raw: &str) -> bool {
    (1..=MAX_SECRET_CHARS).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_graphic())
}

/// A chat service's URL: `https` with a host and no credentials; `http` only to this host
/// (`localhost`, a loopback address), for a local relay or a test double. Private
/// addresses are refused when it is called, as for webhooks.
pub fn check_chat_url(raw: &str) -> Result<url::Url, String> {
    let parsed = check_url(raw)?;
    let loopback = match parsed.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if parsed.scheme() != "https" && !loopback {
        return Err("must be an https URL (http only to localhost)".into());
    }
    Ok(parsed)
}

/// The distinct services a channel names (at most [`MAX_SERVICES`]); none: every service.
fn service_list(errors: &mut FieldErrors, object: &Map<String, Value>) -> Vec<String> {
    match object.get("services") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) if items.len() <= MAX_SERVICES => {
            let mut out: Vec<String> = Vec::new();
            for item in items {
                match item.as_str().map(str::trim) {
                    Some(s) if !s.is_empty() && s.chars().count() <= MAX_NAME_CHARS => {
                        if !out.iter().any(|o| o == s) {
                            out.push(s.to_string());
                        }
                    }
                    _ => {
                        errors.add(
                            "services",
                            format!(
                                "each must be a service name of 1 to {MAX_NAME_CHARS} characters"
                            ),
                        );
                        break;
                    }
                }
            }
            out
        }
        Some(_) => {
            errors.add(
                "services",
                format!("must be an array of at most {MAX_SERVICES} service names"),
            );
            Vec::new()
        }
    }
}

/// `name@domain.tld`, no spaces or controls: the schema's pattern (SNS checks deliverability
/// by mailing it).
pub fn is_address(raw: &str) -> bool {
    let Some((local, domain)) = raw.split_once('@') else {
        return false;
    };
    let plain = |part: &str| {
        !part.is_empty()
            && !part
                .chars()
                .any(|c| c == '@' || c.is_whitespace() || c.is_control())
    };
    plain(local)
        && plain(domain)
        && domain
            .char_indices()
            .any(|(i, c)| c == '.' && i > 0 && i + 1 < domain.len())
}

/// An absolute `http`/`https` URL with a host and no credentials; a literal private or
/// reserved address is refused here, a name resolving to one when it is called.
pub fn check_url(raw: &str) -> Result<url::Url, String> {
    let parsed = url::Url::parse(raw).map_err(|_| "must be an absolute URL".to_string())?;
    if !matches!(parsed.scheme(), "https" | "http") {
        return Err("must be an http or https URL".into());
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err("must name a host".into());
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err("must not carry credentials".into());
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::super::Channel;
    use super::*;
    use serde_json::json;

    fn valid() -> Value {
        json!({"name": "on-call", "kind": "webhook", "url": "https://hooks.example.com/x",
               "secret": "0123456789abcdef", "services": ["checkout"], "severities": ["ERROR"]})
    }

    #[test]
    fn a_channel_parses_and_routes_by_service_and_severity() {
        let input = parse_channel(&valid()).unwrap();
        assert_eq!(input.services, vec!["checkout"]);
        let channel = Channel {
            id: "c".into(),
            name: input.name,
            kind: "webhook".into(),
            url: None,
            server: None,
            topic: None,
            has_token: None,
            address: None,
            pending_confirmation: None,
            services: input.services,
            severities: input.severities,
            escalation_only: false,
            escalate_after_minutes: None,
            escalate_to: None,
            created_at: "t".into(),
        };
        assert!(channel.routes(Some("checkout"), Some(Severity::Error)));
        assert!(channel.routes(Some("checkout"), None));
        assert!(!channel.routes(Some("billing"), Some(Severity::Error)));
        assert!(!channel.routes(Some("checkout"), Some(Severity::Warn)));
    }

    #[test]
    fn bad_fields_are_named() {
        let mut body = valid();
        body["url"] = json!("ftp://x");
        body["secret"] = json!("short");
        body["kind"] = json!("sms");
        body["escalateAfterMinutes"] = json!(5000);
        let err = parse_channel(&body).unwrap_err().to_string();
        for field in ["url", "secret", "kind", "escalateAfterMinutes"] {
            assert!(err.contains(field), "{field} in {err}");
        }
        let mut alone = valid();
        alone["escalateAfterMinutes"] = json!(5);
        let err = parse_channel(&alone).unwrap_err().to_string();
        assert!(err.contains("needs escalateTo"), "{err}");
        let mut to_only = valid();
        to_only["escalateTo"] = json!(uuid::Uuid::new_v4().to_string());
        assert!(parse_channel(&to_only).is_ok());
        assert!(check_url("http://user:pw@host/").is_err());
        assert!(check_url("https://hooks.example.com/a").is_ok());
    }

    #[test]
    fn an_email_channel_needs_an_address_and_refuses_webhook_fields() {
        let body = json!({"name": "mail", "kind": "email", "address": "oncall@example.com",
                          "services": ["checkout"]});
        let input = parse_channel(&body).unwrap();
        assert_eq!(
            input.target,
            Target::Email {
                address: "oncall@example.com".into()
            }
        );
        let err = parse_channel(
            &json!({"name": "m", "kind": "email", "url": "https://x.example",
                                         "secret": "0123456789abcdef"}),
        )
        .unwrap_err()
        .to_string();
        for field in ["url", "secret", "address"] {
            assert!(err.contains(field), "{field} in {err}");
        }
        for bad in [
            "oncall",
            "a@b",
            "a b@example.com",
            "@example.com",
            "a@@example.com",
        ] {
            let err = parse_channel(&json!({"name": "m", "kind": "email", "address": bad}))
                .unwrap_err()
                .to_string();
            assert!(err.contains("address"), "{bad}: {err}");
        }
        let long = format!("{}@example.com", "a".repeat(250));
        assert!(parse_channel(&json!({"name": "m", "kind": "email", "address": long})).is_err());
        let mut webhook = valid();
        webhook["address"] = json!("oncall@example.com");
        assert!(parse_channel(&webhook)
            .unwrap_err()
            .to_string()
            .contains("address"));
    }

    #[test]
    fn chat_channels_take_their_own_fields() {
        let slack = parse_channel(&json!({"name": "ops", "kind": "slack",
            "url": "https://hooks.slack.com/services/T0/B0/abc"}))
        .unwrap();
        assert_eq!(
            slack.target,
            Target::Slack {
                url: "https://hooks.slack.com/services/T0/B0/abc".into()
            }
        );
        assert_eq!(
            super::super::masked("https://hooks.slack.com/services/T0/B0/abc"),
            "https://hooks.slack.com/services/T0/B0/****"
        );
        assert_eq!(
            super::super::masked("https://x.logic.azure.com:443/workflows/w1/triggers/manual/paths/invoke?sig=s3cret"),
            "https://x.logic.azure.com/workflows/w1/triggers/manual/paths/****"
        );
        assert!(parse_channel(
            &json!({"name": "t", "kind": "teams", "url": "http://127.0.0.1:9/hook"})
        )
        .is_ok());
        let err = parse_channel(
            &json!({"name": "t", "kind": "teams", "url": "http://teams.example.com/hook",
                                         "secret": "0123456789abcdef"}),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("url") && err.contains("secret"), "{err}");
        let ntfy = parse_channel(
            &json!({"name": "n", "kind": "ntfy", "server": "https://ntfy.sh/",
                                          "topic": "ops-alerts_1", "token": "tk_abc"}),
        )
        .unwrap();
        assert_eq!(
            ntfy.target,
            Target::Ntfy {
                server: "https://ntfy.sh".into(),
                topic: "ops-alerts_1".into(),
                token: Some("tk_abc".into())
            }
        );
        for (body, field) in [
            (
                json!({"name": "n", "kind": "ntfy", "server": "https://ntfy.sh", "topic": "a b"}),
                "topic",
            ),
            (
                json!({"name": "n", "kind": "ntfy", "server": "https://ntfy.sh"}),
                "topic",
            ),
            (
                json!({"name": "n", "kind": "ntfy", "server": "https://ntfy.sh?x=1", "topic": "a"}),
                "server",
            ),
            (
                json!({"name": "n", "kind": "ntfy", "server": "https://ntfy.sh", "topic": "a", "token": "a b"}),
                "token",
            ),
            (
                json!({"name": "n", "kind": "ntfy", "server": "https://ntfy.sh", "topic": "a", "url": "https://x.example"}),
                "url",
            ),
            (json!({"name": "n", "kind": "slack"}), "url"),
            (json!({"name": "n", "kind": "pager"}), "kind"),
        ] {
            let err = parse_channel(&body).unwrap_err();
            assert!(err.0.iter().any(|e| e.field == field), "{body}: {err}");
        }
    }
}
