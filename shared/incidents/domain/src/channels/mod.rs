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
//!
//! - [`input`]: a channel as a client sends it, parsed and bounded;
//! - [`store`]: the channels' items, created and deleted under the cap;
//! - [`deliveries`]: each channel's delivery log.

pub mod chat;
mod deliveries;
mod input;
mod store;

pub use store::masked;

pub use deliveries::Delivery;
pub use input::{
    check_chat_url, check_url, is_address, is_topic, parse_channel, ChannelInput, ChannelRequest,
    Target, KINDS,
};

use platform::dynamo::{DynamoError, Table};
use serde::Serialize;
use utoipa::ToSchema;

use crate::model::Severity;

/// The most channels kept (the sender reads them all for every event).
pub const MAX_CHANNELS: i64 = 20;
/// Services one channel may name.
pub const MAX_SERVICES: usize = 20;
pub const MAX_NAME_CHARS: usize = 100;
pub const MAX_URL_CHARS: usize = 2_048;
pub const MIN_SECRET_CHARS: usize = 16;
pub const MAX_SECRET_CHARS: usize = 256;
/// The longest ntfy topic (ntfy's own limit).
pub const MAX_TOPIC_CHARS: usize = 64;
/// The longest e-mail address (RFC 5321's path limit).
pub const MAX_ADDRESS_CHARS: usize = 254;
pub use crate::input::MAX_ESCALATE_AFTER_MINUTES;
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
    /// `webhook`: a signed HTTPS POST of each event; `email`: a mail through SNS; `slack`,
    /// `teams`, `ntfy`: a chat message in each service's format.
    #[schema(example = "webhook", pattern = "^(webhook|email|slack|teams|ntfy)$")]
    pub kind: String,
    /// The webhook's URL (`webhook`); `slack` and `teams`: their URL with its secret parts
    /// masked (no query, the last path segment `****`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The ntfy server (`ntfy` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The ntfy topic (`ntfy` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// `ntfy` only: whether an access token is set (never returned).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_token: Option<bool>,
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

/// What the sender needs of a channel: the channel and its secret (a webhook's), or its
/// SNS subscription (an e-mail channel's).
#[derive(Clone, Debug)]
pub struct ChannelWithSecret {
    pub channel: Channel,
    /// A webhook's signing secret, an ntfy channel's access token; else empty.
    pub secret: String,
    /// The URL called, unmasked (`webhook`, `slack`, `teams`; an ntfy channel's server).
    pub target_url: Option<String>,
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

/// 400 when the channels are full, 404, else as the incidents table's failure.
impl From<ChannelsError> for platform::ApiError {
    fn from(error: ChannelsError) -> Self {
        match error {
            ChannelsError::Full => Self::field(
                "body",
                format!("at most {MAX_CHANNELS} notification channels"),
            ),
            ChannelsError::NotFound => Self::not_found("Notification channel not found"),
            ChannelsError::Dynamo(e) => crate::IncidentsError::Store(e).into(),
        }
    }
}

impl Channels {
    pub fn new(table: Table) -> Self {
        Self { table }
    }
}
