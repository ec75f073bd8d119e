//! The incidents notifier: consumes the notification queue, where the incident event bus's
//! rule delivers every `incident-platform` event, and sends each event to the notification
//! channels it is routed to (service and severity; an escalation to the one channel it
//! names) as a signed webhook call:
//!
//! - `POST {url}`, body `{"id", "type", "source", "detail"}` (the event's id, detail-type and
//!   detail), headers `X-Timestamp` (Unix seconds), `X-Signature: sha256={hex}` (HMAC-SHA256
//!   with the channel's secret of `{timestamp}.{body}`) and `X-Event-Id`;
//! - a 2xx answer is a delivery; anything else (or no answer within 10 s) fails the message,
//!   which SQS delivers again after a backoff (30 s doubling per receive, at most 15 min),
//!   and after 8 receives dead-letters it. Each attempt is logged per channel
//!   (`incidents::channels`); a channel that has the event already is not called again;
//! - a URL whose host is or resolves to a private or reserved address is refused unless
//!   `WEBHOOK_ALLOW_PRIVATE_NETWORKS` is `true` (local stacks and tests), with the addresses
//!   checked pinned for the call (no DNS rebinding between check and connect);
//! - an e-mail channel's event is published to the stack's SNS topic (`EMAIL_TOPIC_ARN`) with
//!   the channel's id as the `channelId` message attribute, which only that channel's
//!   subscription admits; SNS accepting it is the delivery (SNS mails it on);
//! - a Slack, Teams or ntfy channel gets the event as a chat message in that service's format
//!   (`incidents::channels::chat`) with a link to the incident (`PUBLIC_BASE_URL`), under the
//!   same guard, timeout, retries and delivery log as a webhook; an ntfy channel's token goes
//!   as `Authorization: Bearer`;
//! - an event of an incident an active silence matches (`incidents::silences`) is sent to no
//!   channel: the silence holds the incident, which notifies once when the silence ends
//!   (`Incident Unsilenced`, sent like an opening);
//! - a channel with `escalateTo` told of an opening, a reopening or an escalation schedules
//!   the incident's escalation to it (`incidents::escalation`), even when its own call
//!   failed, after the opening rule's `escalateAfterMinutes` (carried by the event) or else
//!   the channel's own.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use futures::future::BoxFuture;
use futures::FutureExt;
use incidents::channels::chat::{incident_link, ntfy_message, slack_message, teams_message};
use incidents::channels::{check_url, ChannelWithSecret, Channels, Delivery};
use incidents::email::EmailTopic;
use incidents::escalation::Escalations;
use incidents::events::{EventDetail, EventKind, SOURCE};
use incidents::input::format_time;
use incidents::model::Severity;
use incidents::silences::{subject_of, Silences};
use platform::aws::{AwsClients, Sqs};
use platform::batch::{receive_count, Batch, Received, Unreadable};
use platform::dynamo::Table;
use platform::queue::QueueMessage;
use platform::{BoxError, Clock, Env, SqsHandler};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Value};

/// How long one webhook call may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// The first retry's wait; it doubles with each receive, up to [`MAX_BACKOFF_SECONDS`].
pub const FIRST_BACKOFF_SECONDS: i32 = 30;
pub const MAX_BACKOFF_SECONDS: i32 = 900;
/// The longest error text kept in a delivery.
const MAX_ERROR_CHARS: usize = 300;

#[derive(Clone)]
pub struct Notifier {
    channels: Channels,
    escalations: Escalations,
    silences: Silences,
    table: Table,
    email: EmailTopic,
    /// The web client's base URL: chat messages link to `{base}/incidents/{id}`.
    public_base_url: String,
    sqs: Sqs,
    queue_url: String,
    allow_private_networks: bool,
    clock: Clock,
}

/// Builds the handler from its environment (`INCIDENTS_TABLE`, `NOTIFICATION_QUEUE_URL`,
/// `EMAIL_TOPIC_ARN`, `WEBHOOK_ALLOW_PRIVATE_NETWORKS`, `PUBLIC_BASE_URL`): what a cold start
/// does.
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let table = Table::from_env(&env, &aws, "INCIDENTS_TABLE")?;
    Ok(Arc::new(Notifier {
        channels: Channels::new(table.clone()),
        escalations: Escalations::new(table.clone()),
        silences: Silences::new(table.clone()),
        table,
        email: EmailTopic::from_env(&env, &aws)?,
        public_base_url: env.get("PUBLIC_BASE_URL").unwrap_or_default().to_string(),
        sqs: aws.sqs(),
        queue_url: env.require(IncidentEvent::URL_VARIABLE)?.to_string(),
        allow_private_networks: env.parse_or("WEBHOOK_ALLOW_PRIVATE_NETWORKS", false)?,
        clock: Clock::system(),
    }))
}

/// `sha256={hex}`: HMAC-SHA256 with `secret` of `{timestamp}.{body}`.
pub fn signature(secret: &str, timestamp: i64, body: &str) -> String {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret.as_bytes());
    let tag = ring::hmac::sign(&key, format!("{timestamp}.{body}").as_bytes());
    let hex: String = tag.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256={hex}")
}

/// The wait before the `receives`-th delivery's retry.
pub fn backoff_seconds(receives: u32) -> i32 {
    let doublings = receives.saturating_sub(1).min(10);
    FIRST_BACKOFF_SECONDS
        .saturating_mul(1 << doublings)
        .min(MAX_BACKOFF_SECONDS)
}

impl Notifier {
    /// Sends one event to its channels; `Ok(false)` when a call failed (deliver it again).
    async fn notify(&self, kind: EventKind, detail: &EventDetail) -> Result<bool, BoxError> {
        let severity = detail.severity.as_deref().and_then(Severity::parse);
        if self.silenced(detail, severity).await? {
            return Ok(true);
        }
        let targets: Vec<ChannelWithSecret> = self
            .channels
            .all()
            .await?
            .into_iter()
            .filter(|c| match kind {
                EventKind::Escalated => detail.channel_id.as_deref() == Some(c.channel.id.as_str()),
                _ => c.channel.routes(detail.service_name.as_deref(), severity),
            })
            .collect();
        let mut all_sent = true;
        for target in targets {
            let channel = &target.channel;
            if matches!(
                kind,
                EventKind::Opened
                    | EventKind::Reopened
                    | EventKind::Escalated
                    | EventKind::Unsilenced
            ) {
                // The opening rule's delay wins over the channel's own.
                let after = match kind {
                    EventKind::Escalated => channel.escalate_after_minutes,
                    _ => detail
                        .escalate_after_minutes
                        .or(channel.escalate_after_minutes),
                };
                if let (Some(after), Some(to)) = (after, &channel.escalate_to) {
                    self.escalations
                        .schedule(
                            &detail.incident_id,
                            &detail.event_id,
                            &detail.at,
                            &channel.id,
                            to,
                            after,
                            self.clock.now(),
                        )
                        .await?;
                }
            }
            if self
                .channels
                .delivered(&channel.id, &detail.at, &detail.event_id)
                .await?
            {
                continue;
            }
            let outcome = if channel.kind == "email" {
                self.email
                    .publish(&channel.id, kind, detail)
                    .await
                    .map(|_| None)
            } else {
                self.call(&target, kind, detail).await.map(Some)
            };
            let (http_status, error) = match outcome {
                Ok(None) => (None, None),
                Ok(Some((code, _))) if (200..300).contains(&code) => (Some(i64::from(code)), None),
                // What the receiver said (Slack's `invalid_payload`, ntfy's JSON error).
                Ok(Some((code, said))) => (
                    Some(i64::from(code)),
                    Some(
                        format!("answered {code}{said}")
                            .chars()
                            .take(MAX_ERROR_CHARS)
                            .collect(),
                    ),
                ),
                Err(e) => (None, Some(e.chars().take(MAX_ERROR_CHARS).collect())),
            };
            let delivered = error.is_none();
            if !delivered {
                all_sent = false;
                tracing::warn!(channel = %channel.id, kind = %channel.kind, event = %detail.event_id, ?error, "notification failed");
            }
            self.channels
                .record(
                    &channel.id,
                    &Delivery {
                        event_id: detail.event_id.clone(),
                        event_type: kind.detail_type().to_string(),
                        incident_id: detail.incident_id.clone(),
                        status: if delivered { "DELIVERED" } else { "FAILED" }.to_string(),
                        attempts: 1,
                        http_status,
                        error,
                        event_at: detail.at.clone(),
                        last_attempt_at: format_time(self.clock.now()),
                    },
                )
                .await?;
        }
        Ok(all_sent)
    }

    /// Whether an active silence holds the incident of this event: the live silences are one
    /// Query; only when one is active is the incident read and matched. A silence that holds
    /// it records so (`silencedBy`, and the incident notifies when the silence ends).
    async fn silenced(
        &self,
        detail: &EventDetail,
        severity: Option<Severity>,
    ) -> Result<bool, BoxError> {
        let now = self.clock.now();
        let active = self.silences.active(now).await?;
        if active.is_empty() {
            return Ok(false);
        }
        let meta = self
            .table
            .get(platform::dynamo::key(
                format!("INC#{}", detail.incident_id),
                "META",
            ))
            .await?
            .unwrap_or_default();
        let subject = subject_of(&meta, severity);
        let matching: Vec<_> = active
            .into_iter()
            .filter(|s| s.matchers.matches(&subject))
            .collect();
        if matching.is_empty() {
            return Ok(false);
        }
        let held = self
            .silences
            .hold(&matching, &detail.incident_id, now)
            .await?;
        if !held.is_empty() {
            tracing::info!(event = %detail.event_id, incident = %detail.incident_id, silences = ?held, "notification held by a silence");
        }
        Ok(!held.is_empty())
    }

    /// One call to a channel in its kind's format (a signed webhook, a Slack, Teams or ntfy
    /// message); the answer's status and, when it is not a 2xx, what the receiver said; or
    /// why there was no answer.
    async fn call(
        &self,
        target: &ChannelWithSecret,
        kind: EventKind,
        detail: &EventDetail,
    ) -> Result<(u16, String), String> {
        let url = check_url(target.target_url.as_deref().unwrap_or_default())?;
        let port = url.port_or_known_default().unwrap_or(443);
        let (host, addrs): (String, Vec<SocketAddr>) = match url.host() {
            Some(url::Host::Domain(name)) => {
                let addrs = tokio::net::lookup_host((name, port))
                    .await
                    .map_err(|e| format!("{name} does not resolve: {e}"))?
                    .collect();
                (name.to_string(), addrs)
            }
            Some(url::Host::Ipv4(ip)) => {
                (ip.to_string(), vec![SocketAddr::new(IpAddr::V4(ip), port)])
            }
            Some(url::Host::Ipv6(ip)) => {
                (ip.to_string(), vec![SocketAddr::new(IpAddr::V6(ip), port)])
            }
            None => return Err("the URL names no host".into()),
        };
        if addrs.is_empty() {
            return Err(format!("{host} has no address"));
        }
        if !self.allow_private_networks {
            if let Some(bad) = addrs.iter().find(|a| news::fetch::is_blocked_ip(a.ip())) {
                return Err(format!(
                    "{host} is on a private or reserved network ({})",
                    bad.ip()
                ));
            }
        }
        let client = platform::tls::http_client()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(CALL_TIMEOUT)
            .resolve_to_addrs(&host, &addrs)
            .build()
            .map_err(|e| e.to_string())?;
        let link = incident_link(&self.public_base_url, &detail.incident_id);
        let channel = &target.channel;
        let request = match channel.kind.as_str() {
            "slack" => client.post(url).json(&slack_message(kind, detail, link)),
            "teams" => client.post(url).json(&teams_message(kind, detail, link)),
            "ntfy" => {
                let topic = channel.topic.as_deref().unwrap_or_default();
                let request = client
                    .post(url)
                    .json(&ntfy_message(topic, kind, detail, link));
                if target.secret.is_empty() {
                    request
                } else {
                    request.bearer_auth(&target.secret)
                }
            }
            _ => {
                let body = json!({
                    "id": detail.event_id,
                    "type": kind.detail_type(),
                    "source": SOURCE,
                    "detail": detail,
                })
                .to_string();
                let timestamp = self.clock.now().timestamp();
                client
                    .post(url)
                    .header("content-type", "application/json")
                    .header("x-timestamp", timestamp.to_string())
                    .header("x-signature", signature(&target.secret, timestamp, &body))
                    .header("x-event-id", detail.event_id.as_str())
                    .body(body)
            }
        };
        let response = request
            .send()
            .await
            .map_err(|e| format!("no answer: {e}"))?;
        let status = response.status().as_u16();
        let said = if response.status().is_success() {
            String::new()
        } else {
            answer_text(response).await
        };
        Ok((status, said))
    }

    /// Delays the next delivery of a failed message by its backoff.
    async fn back_off(&self, receipt: &str, receives: u32) {
        if let Err(error) = self
            .sqs
            .client()
            .change_message_visibility()
            .queue_url(&self.queue_url)
            .receipt_handle(receipt)
            .visibility_timeout(backoff_seconds(receives))
            .send()
            .await
        {
            tracing::warn!(error = %aws_sdk_error(&error), "backoff not set; the queue's visibility timeout applies");
        }
    }
}

/// The start of a refusal's body, as `: {text}` (Slack answers `invalid_payload`, ntfy a
/// JSON error); empty when there is none.
async fn answer_text(response: reqwest::Response) -> String {
    let mut response = response;
    let mut bytes = Vec::new();
    // A bounded read: a receiver's error page is not kept whole.
    while let Ok(Some(chunk)) = response.chunk().await {
        bytes.extend_from_slice(&chunk);
        if bytes.len() >= 512 {
            break;
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        String::new()
    } else {
        format!(": {}", text.chars().take(200).collect::<String>())
    }
}

fn aws_sdk_error<E: std::error::Error + 'static>(e: &E) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// The detail-type and detail of an EventBridge event as SQS carries it.
pub fn parse_event(body: &str) -> Result<(EventKind, EventDetail), String> {
    let event: Value = serde_json::from_str(body).map_err(|e| format!("not JSON: {e}"))?;
    let kind = event
        .get("detail-type")
        .and_then(Value::as_str)
        .and_then(EventKind::parse)
        .ok_or("not an incident event (detail-type)")?;
    let detail: EventDetail =
        serde_json::from_value(event.get("detail").cloned().unwrap_or(Value::Null))
            .map_err(|e| format!("detail: {e}"))?;
    Ok((kind, detail))
}

/// An incident event as the notification queue carries it: EventBridge's envelope of its
/// detail-type, source and detail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncidentEvent {
    pub kind: EventKind,
    pub detail: EventDetail,
}

impl Serialize for IncidentEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("detail-type", self.kind.detail_type())?;
        map.serialize_entry("source", SOURCE)?;
        map.serialize_entry("detail", &self.detail)?;
        map.end()
    }
}

impl QueueMessage for IncidentEvent {
    const URL_VARIABLE: &'static str = "NOTIFICATION_QUEUE_URL";

    fn parse(body: &str) -> Result<Self, String> {
        parse_event(body).map(|(kind, detail)| Self { kind, detail })
    }
}

impl SqsHandler for Notifier {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let this = self.clone();
        async move {
            // An unreadable event has nothing to send: dropped, not retried.
            let Batch {
                messages,
                mut failures,
            } = Batch::<IncidentEvent>::read_with(
                event.records,
                "incident event",
                Unreadable::Drop,
                |record| (receive_count(record), record.receipt_handle.clone()),
            );
            for Received {
                message_id,
                message: (event, (receives, receipt)),
            } in messages
            {
                let sent = match this.notify(event.kind, &event.detail).await {
                    Ok(sent) => sent,
                    Err(error) => {
                        tracing::warn!(event = %event.detail.event_id, %error, "notification failed");
                        false
                    }
                };
                if !sent {
                    if let Some(receipt) = &receipt {
                        this.back_off(receipt, receives).await;
                    }
                    failures.retry(message_id);
                }
            }
            Ok(failures.into_response())
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_an_hmac_of_timestamp_and_body() {
        // Computed independently (Python's hmac over b"1.{}" with b"key").
        let sig = signature("key", 1, "{}");
        assert_eq!(
            sig,
            "sha256=1ba6b8171186efc613e8bcc0cbdab2748f24984d7c5a84faa2637afa0e40d224"
        );
        assert_ne!(sig, signature("key", 2, "{}"));
        assert_ne!(sig, signature("other", 1, "{}"));
    }

    #[test]
    fn backoff_doubles_up_to_fifteen_minutes() {
        assert_eq!(backoff_seconds(1), 30);
        assert_eq!(backoff_seconds(2), 60);
        assert_eq!(backoff_seconds(3), 120);
        assert_eq!(backoff_seconds(50), 900);
    }

    #[test]
    fn events_parse_from_the_queue_body() {
        let body = r#"{"detail-type":"Incident Opened","source":"incident-platform",
            "detail":{"eventId":"e","incidentId":"i","at":"t","by":"system"}}"#;
        let (kind, detail) = parse_event(body).unwrap();
        assert_eq!(kind, EventKind::Opened);
        assert_eq!(detail.incident_id, "i");
        assert!(parse_event(r#"{"detail-type":"Other","detail":{}}"#).is_err());
        let event = IncidentEvent { kind, detail };
        let body = event.to_body().unwrap();
        assert_eq!(IncidentEvent::parse(&body), Ok(event));
    }
}
