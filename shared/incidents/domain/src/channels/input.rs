//! A channel as a client sends it (`POST /api/v1/notifications/channels`), parsed with each
//! bad field named.

use platform::{FieldErrors, Invalid};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::{
    MAX_ADDRESS_CHARS, MAX_NAME_CHARS, MAX_SECRET_CHARS, MAX_SERVICES, MAX_URL_CHARS,
    MIN_SECRET_CHARS,
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
    /// `webhook` (needs `url` and `secret`) or `email` (needs `address`; `url` and `secret`
    /// are refused).
    #[schema(pattern = "^(webhook|email)$")]
    pub kind: String,
    /// `webhook`: `https://` (or `http://`) URL with a host; refused when it names or
    /// resolves to a private or reserved address.
    #[schema(max_length = 2048)]
    pub url: Option<String>,
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
    Webhook { url: String, secret: String },
    Email { address: String },
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

/// Parses a channel; each bad field named.
pub fn parse_channel(body: &Value) -> Result<ChannelInput, Invalid> {
    let object = object(body, "body")?;
    let mut errors = FieldErrors::new();
    let name = text(&mut errors, object, "", "name", MAX_NAME_CHARS, true);
    let email = match text(&mut errors, object, "", "kind", 20, true).as_deref() {
        Some("webhook") | None => false,
        Some("email") => true,
        Some(_) => {
            errors.add("kind", "must be webhook or email");
            false
        }
    };
    let target = channel_target(&mut errors, object, email);
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

/// Where a channel sends: an e-mail channel's `address` (webhook fields refused), or a
/// webhook's `url` and `secret` (`address` refused).
fn channel_target(
    errors: &mut FieldErrors,
    object: &Map<String, Value>,
    email: bool,
) -> Option<Target> {
    if email {
        for field in ["url", "secret"] {
            if !matches!(object.get(field), None | Some(Value::Null)) {
                errors.add(field, "is not allowed for an email channel");
            }
        }
        let address = text(errors, object, "", "address", MAX_ADDRESS_CHARS, true);
        if address.as_deref().is_some_and(|a| !is_address(a)) {
            errors.add("address", "must be an e-mail address (name@domain.tld)");
        }
        address.map(|address| Target::Email { address })
    } else {
        if !matches!(object.get("address"), None | Some(Value::Null)) {
            errors.add("address", "is only for an email channel");
        }
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
}
