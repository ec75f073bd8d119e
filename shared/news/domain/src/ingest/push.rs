//! WebSub on the ingest's side: subscribing the feeds that name a hub after they are stored
//! and renewing their leases at their refreshes, the hub's verification of intent, and
//! deliveries, stored through the same idempotent path as a poll.
//!
//! Renewal rides each source's chain of refreshes: a pushed source is still polled (every
//! [`crate::websub::PUSHED_REFRESH_MINUTES`], the fallback), and a refresh whose lease ends within
//! [`crate::websub::RENEW_WITHIN_SECONDS`] asks the hub again with the same secret. A subscription the hub
//! did not verify within [`crate::websub::RETRY_PENDING_SECONDS`] is asked again the same way.

use chrono::{DateTime, Duration, Utc};
use platform::clock::rfc3339;

use super::{Ingest, IngestError, RefreshReport};
use crate::parse::parse_feed;
use crate::store::{PushState, PushSubscription, StoreError};
use crate::websub::{
    check_signature, new_secret, PushTarget, SignatureError, LEASE_SECONDS, RENEW_WITHIN_SECONDS,
    RETRY_PENDING_SECONDS,
};

/// What a refresh learnt of the feed's hub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Named {
    /// The feed names this hub and topic.
    Hub(PushTarget),
    /// The feed names no hub.
    NoHub,
    /// Not modified: as stored.
    Unchanged,
}

impl From<Option<PushTarget>> for Named {
    fn from(target: Option<PushTarget>) -> Self {
        target.map_or(Self::NoHub, Self::Hub)
    }
}

/// Whether a lease ending at `until` still runs at `now`.
pub(super) fn is_live(until: Option<&str>, now: DateTime<Utc>) -> bool {
    ends_after(until, now)
}

fn ends_after(until: Option<&str>, time: DateTime<Utc>) -> bool {
    until
        .and_then(|u| DateTime::parse_from_rfc3339(u).ok())
        .is_some_and(|u| u.with_timezone(&Utc) > time)
}

/// The mode of a hub's verification request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HubMode {
    Subscribe,
    Unsubscribe,
    /// The hub refused the subscription.
    Denied,
}

/// The answer to a hub's verification request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verification {
    /// Agreed: echo the challenge (for a denial, just acknowledge).
    Confirmed,
    /// Not asked for (unknown source, another topic): 404.
    Refused,
}

/// What became of a delivery.
#[derive(Debug, PartialEq, Eq)]
pub enum Delivery {
    /// Signed with the source's secret and stored (entries already there unchanged).
    Stored(RefreshReport),
    /// Not signed with the secret: nothing stored (answered 2xx all the same, as the spec
    /// lets subscribers do, so a forger learns nothing).
    Unsigned(SignatureError),
    /// Signed, but not a feed: nothing stored.
    Unreadable(String),
    /// No live subscription for it (the source is gone, retired or never pushed): 410, which
    /// tells the hub to drop it.
    Gone,
}

impl Ingest {
    /// Subscribes the source through its hub when it needs it: a hub named for the first
    /// time, another hub or topic, a lease ending within a day, a request the hub left
    /// unverified for an hour. Failures are logged: polling goes on, and the next refresh
    /// tries again.
    pub(super) async fn keep_push(
        &self,
        source_id: &str,
        named: Named,
        push_until: Option<&str>,
        timeout: std::time::Duration,
    ) {
        if !self.hub.enabled() || named == Named::NoHub {
            return;
        }
        let now = self.clock.now();
        // A lease running for more than a day needs nothing, and no read.
        if ends_after(push_until, now + Duration::seconds(RENEW_WITHIN_SECONDS)) {
            return;
        }
        if named == Named::Unchanged && push_until.is_none() {
            return;
        }
        if let Err(error) = self.ask_hub(source_id, named, now, timeout).await {
            tracing::warn!(source_id, %error, "WebSub subscription not kept; polling goes on");
        }
    }

    async fn ask_hub(
        &self,
        source_id: &str,
        named: Named,
        now: DateTime<Utc>,
        timeout: std::time::Duration,
    ) -> Result<(), IngestError> {
        let stored = self.store.push_subscription(source_id).await?;
        let renew_before = now + Duration::seconds(RENEW_WITHIN_SECONDS);
        let retry_before = now - Duration::seconds(RETRY_PENDING_SECONDS);
        // A renewal keeps the lease it has until the hub verifies the new one.
        let (target, secret, state, lease) = match (named, stored) {
            (Named::Hub(target), Some(stored))
                if stored.hub == target.hub
                    && stored.topic == target.topic
                    && stored.state != PushState::Unsubscribing =>
            {
                let due = match stored.state {
                    PushState::Subscribed => {
                        !ends_after(stored.expires_at.as_deref(), renew_before)
                    }
                    // Pending, or denied: asked again after a while.
                    _ => !ends_after(Some(&stored.requested_at), retry_before),
                };
                if !due {
                    return Ok(());
                }
                let lease = (stored.lease_seconds, stored.expires_at);
                (target, stored.secret, stored.state, lease)
            }
            (Named::Hub(target), _) => {
                let secret = new_secret().ok_or_else(|| {
                    IngestError::Fetch(crate::FetchError::Network("no random secret".into()))
                })?;
                (target, secret, PushState::Pending, (None, None))
            }
            (Named::Unchanged, Some(stored)) if stored.state == PushState::Subscribed => {
                if ends_after(stored.expires_at.as_deref(), renew_before) {
                    return Ok(());
                }
                let target = PushTarget {
                    hub: stored.hub,
                    topic: stored.topic,
                };
                let lease = (stored.lease_seconds, stored.expires_at);
                (target, stored.secret, PushState::Subscribed, lease)
            }
            _ => return Ok(()),
        };
        let subscribed = state == PushState::Subscribed;
        let request = PushSubscription {
            hub: target.hub.clone(),
            topic: target.topic.clone(),
            secret: secret.clone(),
            // A renewal stays subscribed (deliveries go on) until the hub verifies it again.
            state: if subscribed {
                PushState::Subscribed
            } else {
                PushState::Pending
            },
            requested_at: rfc3339(now),
            lease_seconds: lease.0.filter(|_| subscribed),
            expires_at: lease.1.filter(|_| subscribed),
        };
        self.store.request_push(source_id, &request).await?;
        match self
            .hub
            .subscribe(source_id, &target, &secret, timeout)
            .await
        {
            Ok(()) => {
                tracing::info!(source_id, hub = %target.hub, topic = %target.topic, "WebSub subscription requested");
            }
            Err(error) => {
                tracing::warn!(source_id, hub = %target.hub, %error, "WebSub hub did not take the subscription");
            }
        }
        Ok(())
    }

    /// A hub's verification of intent for the source's callback: a subscription is confirmed
    /// when it was asked for this topic (its lease recorded: `lease_seconds`, else the one
    /// asked), an unsubscription when the source has no live subscription to it any more.
    pub async fn verify_push(
        &self,
        source_id: &str,
        mode: HubMode,
        topic: &str,
        lease_seconds: Option<i64>,
    ) -> Result<Verification, IngestError> {
        let stored = self.store.push_subscription(source_id).await?;
        let same_topic = stored.as_ref().is_some_and(|s| s.topic == topic);
        match mode {
            HubMode::Subscribe => {
                let waiting = stored
                    .as_ref()
                    .is_some_and(|s| matches!(s.state, PushState::Pending | PushState::Subscribed));
                if !same_topic || !waiting || self.store.source(source_id).await?.is_none() {
                    return Ok(Verification::Refused);
                }
                let lease = lease_seconds
                    .filter(|l| *l > 0)
                    .unwrap_or(LEASE_SECONDS)
                    .min(i64::from(i32::MAX));
                let expires = rfc3339(self.clock.now() + Duration::seconds(lease));
                if self
                    .store
                    .confirm_push(source_id, topic, lease, &expires)
                    .await?
                {
                    tracing::info!(source_id, lease, "WebSub subscription verified");
                    Ok(Verification::Confirmed)
                } else {
                    Ok(Verification::Refused)
                }
            }
            HubMode::Unsubscribe => {
                let wanted = match &stored {
                    None => true,
                    Some(s) if s.topic != topic => false,
                    Some(s) if s.state == PushState::Unsubscribing => true,
                    Some(_) => self.store.source(source_id).await?.is_none(),
                };
                Ok(if wanted {
                    Verification::Confirmed
                } else {
                    Verification::Refused
                })
            }
            HubMode::Denied => {
                if same_topic && self.store.deny_push(source_id, topic).await? {
                    tracing::warn!(
                        source_id,
                        topic,
                        "WebSub hub denied the subscription; polling goes on"
                    );
                    Ok(Verification::Confirmed)
                } else {
                    Ok(Verification::Refused)
                }
            }
        }
    }

    /// A delivery to the source's callback: checked against the source's secret, then parsed
    /// and stored like a poll's entries (article ids from source and guid: a repeat is a
    /// no-op). The body is already bounded by the caller.
    pub async fn deliver(
        &self,
        source_id: &str,
        signature: Option<&str>,
        body: &[u8],
    ) -> Result<Delivery, IngestError> {
        let Some(stored) = self.store.push_subscription(source_id).await? else {
            return Ok(Delivery::Gone);
        };
        if !matches!(stored.state, PushState::Pending | PushState::Subscribed) {
            return Ok(Delivery::Gone);
        }
        if let Err(error) = check_signature(signature, &stored.secret, body) {
            tracing::warn!(source_id, %error, "WebSub delivery refused: bad signature; nothing stored");
            return Ok(Delivery::Unsigned(error));
        }
        let Some(source) = self.store.source(source_id).await? else {
            return Ok(Delivery::Gone);
        };
        let feed = match parse_feed(body, &stored.topic) {
            Ok(feed) => feed,
            Err(error) => {
                tracing::warn!(source_id, %error, "WebSub delivery is not a feed; nothing stored");
                return Ok(Delivery::Unreadable(error.to_string()));
            }
        };
        if source.subscriber_count <= 0 {
            return Ok(Delivery::Stored(RefreshReport {
                unsubscribed: true,
                ..Default::default()
            }));
        }
        match self.take_entries(&source, &feed).await {
            Ok(report) => {
                tracing::info!(
                    source_id,
                    inserted = report.inserted,
                    already_stored = report.already_stored,
                    "WebSub delivery stored"
                );
                Ok(Delivery::Stored(report))
            }
            Err(StoreError::SourceNotFound) => Ok(Delivery::Gone),
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_live_until_their_end() {
        let now = DateTime::parse_from_rfc3339("2026-01-01T12:00:00Z")
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default();
        assert!(is_live(Some("2026-01-01T12:00:01Z"), now));
        assert!(!is_live(Some("2026-01-01T12:00:00Z"), now));
        assert!(!is_live(None, now));
        assert!(!is_live(Some("garbage"), now));
    }
}
