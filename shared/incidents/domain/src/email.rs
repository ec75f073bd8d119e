//! E-mail channels through the stack's SNS topic (`EMAIL_TOPIC_ARN`): each e-mail channel is
//! an `email` subscription of the topic whose filter policy admits only messages whose
//! `channelId` attribute is the channel's, so one publication reaches one channel's address.

use aws_sdk_sns::types::MessageAttributeValue;
use platform::aws::{AwsClients, LazyClient};
use platform::{ConfigError, Env};
use serde_json::json;

use crate::events::{EventDetail, EventKind};

/// The message attribute the subscriptions filter on.
pub const CHANNEL_ATTRIBUTE: &str = "channelId";
/// SNS refuses a subject of 100 characters or more.
const MAX_SUBJECT_CHARS: usize = 99;

/// The stack's e-mail topic.
#[derive(Clone, Debug)]
pub struct EmailTopic {
    /// Built on its first call: only channel changes and the notifier's sends need it.
    client: LazyClient<aws_sdk_sns::Client>,
    topic_arn: String,
}

/// The filter policy of channel `channel_id`'s subscription.
pub fn filter_policy(channel_id: &str) -> String {
    json!({ CHANNEL_ATTRIBUTE: [channel_id] }).to_string()
}

fn sns_error<E: std::error::Error + 'static>(e: &E) -> String {
    aws_sdk_sns::error::DisplayErrorContext(e).to_string()
}

impl EmailTopic {
    pub fn new(client: aws_sdk_sns::Client, topic_arn: String) -> Self {
        Self {
            client: LazyClient::ready(client),
            topic_arn,
        }
    }

    /// The topic `EMAIL_TOPIC_ARN`.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, ConfigError> {
        let config = aws.config().clone();
        Ok(Self {
            client: LazyClient::new(move || aws_sdk_sns::Client::new(&config)),
            topic_arn: env.require("EMAIL_TOPIC_ARN")?.to_string(),
        })
    }

    pub fn topic_arn(&self) -> &str {
        &self.topic_arn
    }

    /// Subscribes `address` for channel `channel_id`; the subscription's ARN (SNS sends the
    /// address a confirmation mail; nothing reaches it before it is confirmed).
    pub async fn subscribe(&self, channel_id: &str, address: &str) -> Result<String, String> {
        let out = self
            .client
            .get()
            .subscribe()
            .topic_arn(&self.topic_arn)
            .protocol("email")
            .endpoint(address)
            .attributes("FilterPolicy", filter_policy(channel_id))
            .attributes("FilterPolicyScope", "MessageAttributes")
            .return_subscription_arn(true)
            .send()
            .await
            .map_err(|e| sns_error(&e))?;
        out.subscription_arn
            .ok_or_else(|| "SNS returned no subscription ARN".to_string())
    }

    pub async fn unsubscribe(&self, subscription_arn: &str) -> Result<(), String> {
        self.client
            .get()
            .unsubscribe()
            .subscription_arn(subscription_arn)
            .send()
            .await
            .map(|_| ())
            .map_err(|e| sns_error(&e))
    }

    /// Whether the subscription still waits for its address to confirm it; `None` when SNS
    /// does not say (the subscription is gone, or SNS failed).
    pub async fn pending_confirmation(&self, subscription_arn: &str) -> Option<bool> {
        match self
            .client
            .get()
            .get_subscription_attributes()
            .subscription_arn(subscription_arn)
            .send()
            .await
        {
            Ok(out) => out
                .attributes
                .and_then(|a| a.get("PendingConfirmation").cloned())
                .map(|v| v == "true"),
            Err(e) => {
                tracing::warn!(subscription = subscription_arn, error = %sns_error(&e), "subscription attributes unavailable");
                None
            }
        }
    }

    /// Publishes one event's mail to channel `channel_id`'s subscription; the message id.
    pub async fn publish(
        &self,
        channel_id: &str,
        kind: EventKind,
        detail: &EventDetail,
    ) -> Result<String, String> {
        let (subject, body) = message(kind, detail);
        let attribute = MessageAttributeValue::builder()
            .data_type("String")
            .string_value(channel_id)
            .build()
            .map_err(|e| e.to_string())?;
        let out = self
            .client
            .get()
            .publish()
            .topic_arn(&self.topic_arn)
            .subject(subject)
            .message(body)
            .message_attributes(CHANNEL_ATTRIBUTE, attribute)
            .send()
            .await
            .map_err(|e| sns_error(&e))?;
        Ok(out.message_id.unwrap_or_default())
    }
}

/// The subject (printable ASCII, one line, under 100 characters, as SNS requires) and the
/// plain-text body of an event's mail.
pub fn message(kind: EventKind, detail: &EventDetail) -> (String, String) {
    let service = detail.service_name.as_deref().unwrap_or("unknown service");
    let title = detail.title.as_deref().unwrap_or("");
    let raw = match detail.severity.as_deref() {
        Some(severity) => format!("{}: {service} [{severity}] {title}", kind.detail_type()),
        None => format!("{}: {service} {title}", kind.detail_type()),
    };
    let subject: String = raw
        .trim()
        .chars()
        .map(|c| if c.is_ascii_graphic() { c } else { ' ' })
        .take(MAX_SUBJECT_CHARS)
        .collect();
    let mut lines = vec![
        format!("{} ({})", kind.detail_type(), detail.at),
        String::new(),
        format!("Incident: {}", detail.incident_id),
        format!("Service: {service}"),
    ];
    let optional = [
        ("Status", &detail.status),
        ("Severity", &detail.severity),
        ("Log type", &detail.log_type),
        ("Message", &detail.title),
        ("Alert", &detail.alert_id),
        ("Note", &detail.note),
    ];
    for (label, value) in optional {
        if let Some(value) = value {
            lines.push(format!("{label}: {value}"));
        }
    }
    lines.push(format!("By: {}", detail.by));
    lines.push(format!("Event id: {}", detail.event_id));
    (subject.trim_end().to_string(), lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detail() -> EventDetail {
        serde_json::from_value(json!({
            "eventId": "e1", "incidentId": "i1", "at": "2026-11-28T23:00:00Z", "by": "system",
            "serviceName": "checkout", "severity": "ERROR",
            "title": "Payment gateway timeout after # ms\n\u{e9}t\u{e9}",
        }))
        .unwrap()
    }

    #[test]
    fn the_subject_is_one_ascii_line_under_100_characters() {
        let (subject, body) = message(EventKind::Opened, &detail());
        assert!(
            subject.starts_with("Incident Opened: checkout [ERROR] Payment gateway timeout"),
            "{subject}"
        );
        assert!(subject.chars().all(|c| c.is_ascii_graphic() || c == ' '));
        let mut long = detail();
        long.title = Some("x".repeat(500));
        assert_eq!(message(EventKind::Opened, &long).0.chars().count(), 99);
        assert!(body.contains("Incident: i1\nService: checkout"), "{body}");
        assert!(body.contains("Event id: e1"));
    }

    #[test]
    fn the_filter_policy_admits_one_channel() {
        assert_eq!(filter_policy("c-1"), r#"{"channelId":["c-1"]}"#);
    }
}
