//! Notification channels: where incident events are sent (a webhook, or an e-mail address
//! subscribed to the stack's SNS topic: `crate::email`), which events
//! (routing by service and severity), and each channel's delivery log.
//!
//! | Item | pk | sk |
//! |---|---|---|
//! | channel | `CHANNELS` | `{channelId}` |
//! | channel count (the cap) | `CHANNELS` | `#COUNT` |
//! | delivery | `DELIVERY#{channelId}` | `{eventAt}#{eventId}` |
//!
//! A channel's secret is stored (the sender signs with it) and never returned. A delivery's
//! key is the event's, so a redelivered event finds the delivery it made and is not sent
//! twice.

use platform::dynamo::{
    key, n, s, AttributeValue, Attributes, DynamoError, Item, Table, Transaction, TransactionError,
};
use platform::{FieldErrors, Invalid};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::input::{escalation_delay, object, severity_list, text};
use crate::model::Severity;

/// The most channels kept (the sender reads them all for every event).
pub const MAX_CHANNELS: i64 = 20;
/// Services one channel may name.
pub const MAX_SERVICES: usize = 20;
pub const MAX_NAME_CHARS: usize = 100;
pub const MAX_URL_CHARS: usize = 2_048;
pub const MIN_SECRET_CHARS: usize = 16;
pub const MAX_SECRET_CHARS: usize = 256;
/// The longest e-mail address (RFC 5321's path limit).
pub const MAX_ADDRESS_CHARS: usize = 254;
/// The longest escalation delay a channel's `escalateAfterMinutes` may name (a day).
pub const MAX_ESCALATE_AFTER_MINUTES: i64 = 1_440;
/// Deliveries one page of a channel's log shows at most.
pub const MAX_DELIVERIES: usize = 100;

const CHANNELS_PK: &str = "CHANNELS";
const COUNT_SK: &str = "#COUNT";

/// A notification channel as the API shows it (never its secret).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Channel {
    pub id: String,
    pub name: String,
    /// `webhook`: a signed HTTPS POST of each event; `email`: a mail through SNS.
    #[schema(example = "webhook", pattern = "^(webhook|email)$")]
    pub kind: String,
    /// The webhook's URL (`webhook` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The address mailed (`email` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// `email` only: whether the address has yet to confirm its subscription (SNS mailed it
    /// a link; nothing reaches it before); absent when SNS did not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_confirmation: Option<bool>,
    /// The services whose events it gets; empty: every service.
    pub services: Vec<String>,
    /// The severities whose events it gets; empty: every severity (events without one, such
    /// as an acknowledgement, go to every channel of the service).
    pub severities: Vec<Severity>,
    /// Only escalations reach it (it is a rule's next step, not a first responder).
    pub escalation_only: bool,
    /// Minutes an incident it was told of may stay unacknowledged before it escalates to
    /// `escalateTo`; a rule's `escalateAfterMinutes` overrides it; neither: no escalation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub escalate_after_minutes: Option<i64>,
    /// The channel an escalation goes to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub escalate_to: Option<String>,
    pub created_at: String,
}

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
    let target = if email {
        for field in ["url", "secret"] {
            if !matches!(object.get(field), None | Some(Value::Null)) {
                errors.add(field, "is not allowed for an email channel");
            }
        }
        let address = text(&mut errors, object, "", "address", MAX_ADDRESS_CHARS, true);
        if address.as_deref().is_some_and(|a| !is_address(a)) {
            errors.add("address", "must be an e-mail address (name@domain.tld)");
        }
        address.map(|address| Target::Email { address })
    } else {
        if !matches!(object.get("address"), None | Some(Value::Null)) {
            errors.add("address", "is only for an email channel");
        }
        let url = text(&mut errors, object, "", "url", MAX_URL_CHARS, true);
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
    };
    let services = match object.get("services") {
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
    };
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

/// What the sender needs of a channel: the channel and its secret (a webhook's), or its
/// SNS subscription (an e-mail channel's).
#[derive(Clone, Debug)]
pub struct ChannelWithSecret {
    pub channel: Channel,
    /// Empty for an e-mail channel.
    pub secret: String,
    pub subscription_arn: Option<String>,
}

impl Channel {
    /// Whether an event of `service` and `severity` (when it has one) is routed here.
    pub fn routes(&self, service: Option<&str>, severity: Option<Severity>) -> bool {
        if self.escalation_only {
            return false;
        }
        let service_ok = self.services.is_empty()
            || service.is_some_and(|s| self.services.iter().any(|x| x == s));
        let severity_ok =
            self.severities.is_empty() || severity.is_none_or(|s| self.severities.contains(&s));
        service_ok && severity_ok
    }
}

/// One attempt log of a channel for one event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    pub event_id: String,
    pub event_type: String,
    pub incident_id: String,
    /// `DELIVERED` (a 2xx answer, or SNS took the mail) or `FAILED` (retried while SQS
    /// redelivers the event).
    #[schema(pattern = "^(DELIVERED|FAILED)$")]
    pub status: String,
    pub attempts: i64,
    /// The receiver's HTTP status of the last attempt, when it answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<i64>,
    /// Why the last attempt failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When the event happened.
    pub event_at: String,
    pub last_attempt_at: String,
}

/// The channels and their delivery logs, in the incidents table.
#[derive(Clone, Debug)]
pub struct Channels {
    table: Table,
}

#[derive(Debug, thiserror::Error)]
pub enum ChannelsError {
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
    #[error("at most {MAX_CHANNELS} notification channels")]
    Full,
    #[error("not found")]
    NotFound,
}

impl Channels {
    pub fn new(table: Table) -> Self {
        Self { table }
    }

    /// Stores a new channel, counted against [`MAX_CHANNELS`] in the same transaction (the
    /// cap holds under concurrent creations).
    /// An e-mail channel's `subscription_arn` is its SNS subscription, made before.
    pub async fn create(
        &self,
        id: &str,
        input: &ChannelInput,
        subscription_arn: Option<&str>,
        now: &str,
    ) -> Result<Channel, ChannelsError> {
        let (kind, url, address) = match &input.target {
            Target::Webhook { url, .. } => ("webhook", Some(url.clone()), None),
            Target::Email { address } => ("email", None, Some(address.clone())),
        };
        let channel = Channel {
            id: id.to_string(),
            name: input.name.clone(),
            kind: kind.to_string(),
            url,
            address,
            pending_confirmation: subscription_arn.map(|_| true),
            services: input.services.clone(),
            severities: input.severities.clone(),
            escalation_only: input.escalation_only,
            escalate_after_minutes: input.escalate_after_minutes,
            escalate_to: input.escalate_to.clone(),
            created_at: now.to_string(),
        };
        let mut item = key(CHANNELS_PK, id);
        item.insert("id".into(), s(id));
        item.insert("name".into(), s(channel.name.as_str()));
        item.insert("kind".into(), s(kind));
        match &input.target {
            Target::Webhook { url, secret } => {
                item.insert("url".into(), s(url.as_str()));
                item.insert("secret".into(), s(secret.as_str()));
            }
            Target::Email { address } => {
                item.insert("address".into(), s(address.as_str()));
            }
        }
        if let Some(arn) = subscription_arn {
            item.insert("subscriptionArn".into(), s(arn));
        }
        item.insert(
            "services".into(),
            AttributeValue::L(channel.services.iter().map(|x| s(x.as_str())).collect()),
        );
        item.insert(
            "severities".into(),
            AttributeValue::L(channel.severities.iter().map(|x| s(x.as_str())).collect()),
        );
        item.insert(
            "escalationOnly".into(),
            AttributeValue::Bool(channel.escalation_only),
        );
        if let Some(after) = channel.escalate_after_minutes {
            item.insert("escalateAfterMinutes".into(), n(after));
        }
        if let Some(to) = &channel.escalate_to {
            item.insert("escalateTo".into(), s(to.as_str()));
        }
        item.insert("createdAt".into(), s(now));
        let mut tx = Transaction::new(&self.table);
        let count = tx
            .update_builder(key(CHANNELS_PK, COUNT_SK))
            .update_expression("ADD channels :one")
            .condition_expression("attribute_not_exists(channels) OR channels < :max")
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":max", n(MAX_CHANNELS));
        tx.update(count)?;
        tx.put(item, Some("attribute_not_exists(pk)"))?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(channel),
            Err(e) if e.failed_at(0) => Err(ChannelsError::Full),
            Err(TransactionError::Dynamo(e)) => Err(e.into()),
            Err(_) => Err(ChannelsError::Dynamo(DynamoError::Conflict {
                table: self.table.name().to_string(),
                attempts: platform::dynamo::RetryPolicy::CONFLICTS.attempts,
            })),
        }
    }

    /// Every channel with its secret, by id (at most [`MAX_CHANNELS`]).
    pub async fn all(&self) -> Result<Vec<ChannelWithSecret>, DynamoError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(CHANNELS_PK));
        let rows = self
            .table
            .query_all(query, Some(usize::try_from(MAX_CHANNELS).unwrap_or(20) + 1))
            .await?;
        rows.iter()
            .filter(|r| r.opt_string("sk").as_deref() != Some(COUNT_SK))
            .map(|r| self.channel_of(r))
            .collect()
    }

    pub async fn get(&self, id: &str) -> Result<Option<ChannelWithSecret>, DynamoError> {
        match self.table.get(key(CHANNELS_PK, id)).await? {
            Some(item) => Ok(Some(self.channel_of(&item)?)),
            None => Ok(None),
        }
    }

    fn channel_of(&self, item: &Item) -> Result<ChannelWithSecret, DynamoError> {
        let t = self.table.name();
        let list = |name: &str| -> Vec<String> {
            match item.get(name) {
                Some(AttributeValue::L(values)) => values
                    .iter()
                    .filter_map(|v| v.as_s().ok().cloned())
                    .collect(),
                _ => Vec::new(),
            }
        };
        Ok(ChannelWithSecret {
            channel: Channel {
                id: item.string(t, "id")?,
                name: item.string(t, "name")?,
                kind: item.string(t, "kind")?,
                url: item.opt_string("url"),
                address: item.opt_string("address"),
                pending_confirmation: None,
                services: list("services"),
                severities: list("severities")
                    .iter()
                    .filter_map(|x| Severity::parse(x))
                    .collect(),
                escalation_only: matches!(
                    item.get("escalationOnly"),
                    Some(AttributeValue::Bool(true))
                ),
                escalate_after_minutes: item
                    .get("escalateAfterMinutes")
                    .and_then(|v| v.as_n().ok())
                    .and_then(|v| v.parse().ok()),
                escalate_to: item.opt_string("escalateTo"),
                created_at: item.string(t, "createdAt")?,
            },
            secret: item.opt_string("secret").unwrap_or_default(),
            subscription_arn: item.opt_string("subscriptionArn"),
        })
    }

    /// Deletes channel `id` and gives its place back to the cap.
    pub async fn delete(&self, id: &str) -> Result<(), ChannelsError> {
        let mut tx = Transaction::new(&self.table);
        tx.delete(key(CHANNELS_PK, id), Some("attribute_exists(pk)"))?;
        let count = tx
            .update_builder(key(CHANNELS_PK, COUNT_SK))
            .update_expression("ADD channels :minus")
            .expression_attribute_values(":minus", n(-1));
        tx.update(count)?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(()),
            Err(e) if e.failed_at(0) => Err(ChannelsError::NotFound),
            Err(TransactionError::Dynamo(e)) => Err(e.into()),
            Err(_) => Err(ChannelsError::Dynamo(DynamoError::Conflict {
                table: self.table.name().to_string(),
                attempts: platform::dynamo::RetryPolicy::CONFLICTS.attempts,
            })),
        }
    }

    fn delivery_key(channel_id: &str, event_at: &str, event_id: &str) -> Item {
        key(
            format!("DELIVERY#{channel_id}"),
            format!("{event_at}#{event_id}"),
        )
    }

    /// Whether channel `channel_id` already received event `event_id`.
    pub async fn delivered(
        &self,
        channel_id: &str,
        event_at: &str,
        event_id: &str,
    ) -> Result<bool, DynamoError> {
        Ok(self
            .table
            .get(Self::delivery_key(channel_id, event_at, event_id))
            .await?
            .and_then(|i| i.opt_string("status"))
            .as_deref()
            == Some("DELIVERED"))
    }

    /// Records an attempt of `delivery` (its attempts counted here, not by the caller).
    pub async fn record(&self, channel_id: &str, delivery: &Delivery) -> Result<(), DynamoError> {
        let mut expression = "SET eventId = :id, eventType = :type, incidentId = :incident, \
             #status = :status, eventAt = :eventAt, lastAttemptAt = :last \
             ADD attempts :one"
            .to_string();
        let mut update = self
            .table
            .update_item()
            .set_key(Some(Self::delivery_key(
                channel_id,
                &delivery.event_at,
                &delivery.event_id,
            )))
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":id", s(delivery.event_id.as_str()))
            .expression_attribute_values(":type", s(delivery.event_type.as_str()))
            .expression_attribute_values(":incident", s(delivery.incident_id.as_str()))
            .expression_attribute_values(":status", s(delivery.status.as_str()))
            .expression_attribute_values(":eventAt", s(delivery.event_at.as_str()))
            .expression_attribute_values(":last", s(delivery.last_attempt_at.as_str()))
            .expression_attribute_values(":one", n(1));
        let mut removes = Vec::new();
        match delivery.http_status {
            Some(code) => {
                expression = expression.replacen(" ADD", ", httpStatus = :code ADD", 1);
                update = update.expression_attribute_values(":code", n(code));
            }
            None => removes.push("httpStatus"),
        }
        match &delivery.error {
            Some(error) => {
                expression = expression.replacen(" ADD", ", #error = :error ADD", 1);
                update = update
                    .expression_attribute_names("#error", "error")
                    .expression_attribute_values(":error", s(error.as_str()));
            }
            None => {
                update = update.expression_attribute_names("#error", "error");
                removes.push("#error");
            }
        }
        if !removes.is_empty() {
            expression.push_str(&format!(" REMOVE {}", removes.join(", ")));
        }
        update
            .update_expression(expression)
            .send()
            .await
            .map_err(|e| self.table.fail("UpdateItem", &e))?;
        Ok(())
    }

    /// Channel `id`'s latest deliveries, newest event first.
    pub async fn deliveries(&self, id: &str, limit: usize) -> Result<Vec<Delivery>, DynamoError> {
        let t = self.table.name();
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(format!("DELIVERY#{id}")))
            .scan_index_forward(false)
            .limit(i32::try_from(limit.min(MAX_DELIVERIES)).unwrap_or(100));
        let rows = self
            .table
            .query_all(query, Some(limit.min(MAX_DELIVERIES)))
            .await?;
        rows.iter()
            .map(|r| {
                Ok(Delivery {
                    event_id: r.string(t, "eventId")?,
                    event_type: r.string(t, "eventType")?,
                    incident_id: r.string(t, "incidentId")?,
                    status: r.string(t, "status")?,
                    attempts: r.counter(t, "attempts")?,
                    http_status: r
                        .get("httpStatus")
                        .and_then(|v| v.as_n().ok())
                        .and_then(|v| v.parse().ok()),
                    error: r.opt_string("error"),
                    event_at: r.string(t, "eventAt")?,
                    last_attempt_at: r.string(t, "lastAttemptAt")?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
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
