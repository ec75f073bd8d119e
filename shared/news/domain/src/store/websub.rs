//! A source's WebSub subscription: `SOURCE#{id}` / `WEBSUB` (hub, topic, secret, state, lease),
//! and the lease's end copied onto its fetch bookkeeping (`pushUntil` on `FETCH`), where every
//! refresh reads it without another read.

use platform::dynamo::{is_condition_failed, key, n, s, Attributes, Item, Transaction};

use super::items::{counts_key, fetch_key, source_pk};
use super::sources::LIVE_COUNTS_NAMED;
use super::{ContentStore, StoreError};

/// Where a push subscription stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushState {
    /// Asked of the hub, not verified yet.
    Pending,
    /// Verified by the hub: deliveries are taken.
    Subscribed,
    /// The hub refused it (`hub.mode=denied`).
    Denied,
    /// The source retired: its hub asked to stop.
    Unsubscribing,
}

impl PushState {
    fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Subscribed => "subscribed",
            Self::Denied => "denied",
            Self::Unsubscribing => "unsubscribing",
        }
    }

    fn parse(raw: &str) -> Self {
        match raw {
            "subscribed" => Self::Subscribed,
            "denied" => Self::Denied,
            "unsubscribing" => Self::Unsubscribing,
            _ => Self::Pending,
        }
    }
}

/// A source's push subscription as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushSubscription {
    pub hub: String,
    pub topic: String,
    pub secret: String,
    pub state: PushState,
    /// When it was last asked of the hub.
    pub requested_at: String,
    /// The lease the hub granted, and when it ends (once verified).
    pub lease_seconds: Option<i64>,
    pub expires_at: Option<String>,
}

pub(super) fn websub_key(id: &str) -> Item {
    key(source_pk(id), "WEBSUB")
}

impl ContentStore {
    /// The source's push subscription, if any (consistent read).
    pub async fn push_subscription(
        &self,
        source_id: &str,
    ) -> Result<Option<PushSubscription>, StoreError> {
        let table = self.table.name();
        let Some(item) = self.table.get(websub_key(source_id)).await? else {
            return Ok(None);
        };
        Ok(Some(PushSubscription {
            hub: item.string(table, "hub")?,
            topic: item.string(table, "topic")?,
            secret: item.string(table, "secret")?,
            state: PushState::parse(&item.opt_string("state").unwrap_or_default()),
            requested_at: item.opt_string("requestedAt").unwrap_or_default(),
            lease_seconds: item.opt_int(table, "leaseSeconds")?,
            expires_at: item.opt_string("expiresAt"),
        }))
    }

    /// Records that `subscription` is being asked of its hub (before the hub is asked, so a
    /// hub verifying at once finds it), while the source is live.
    pub async fn request_push(
        &self,
        source_id: &str,
        subscription: &PushSubscription,
    ) -> Result<(), StoreError> {
        let mut item = websub_key(source_id);
        item.insert("hub".into(), s(&subscription.hub));
        item.insert("topic".into(), s(&subscription.topic));
        item.insert("secret".into(), s(&subscription.secret));
        item.insert("state".into(), s(subscription.state.as_str()));
        item.insert("requestedAt".into(), s(&subscription.requested_at));
        if let Some(lease) = subscription.lease_seconds {
            item.insert("leaseSeconds".into(), n(lease));
        }
        if let Some(expires) = &subscription.expires_at {
            item.insert("expiresAt".into(), s(expires));
        }
        let mut tx = Transaction::new(&self.table);
        tx.check(counts_key(source_id), LIVE_COUNTS_NAMED)?
            .put(item, None)?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(()),
            Err(e) if e.failed_at(0) => Err(StoreError::SourceNotFound),
            Err(e) => Err(e.into()),
        }
    }

    /// The hub verified the subscription to `topic`: subscribed, with its lease, and the
    /// lease's end on the fetch bookkeeping. `false` when there is no such subscription
    /// waiting (another topic, or unsubscribing).
    pub async fn confirm_push(
        &self,
        source_id: &str,
        topic: &str,
        lease_seconds: i64,
        expires_at: &str,
    ) -> Result<bool, StoreError> {
        let confirmed = self
            .table
            .update_item()
            .set_key(Some(websub_key(source_id)))
            .update_expression(
                "SET #state = :subscribed, leaseSeconds = :lease, expiresAt = :expires, verifiedAt = :now",
            )
            .condition_expression("topic = :topic AND (#state = :pending OR #state = :subscribed)")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":subscribed", s(PushState::Subscribed.as_str()))
            .expression_attribute_values(":pending", s(PushState::Pending.as_str()))
            .expression_attribute_values(":lease", n(lease_seconds))
            .expression_attribute_values(":expires", s(expires_at))
            .expression_attribute_values(":now", s(self.clock.timestamp()))
            .expression_attribute_values(":topic", s(topic))
            .send()
            .await;
        match confirmed {
            Ok(_) => {}
            Err(e) if is_condition_failed(&e) => return Ok(false),
            Err(e) => return Err(self.table.fail("UpdateItem", &e).into()),
        }
        // A source fetched before its bookkeeping was split off has no FETCH item: its
        // refreshes renew by the WEBSUB item's lease when they next read it.
        let copied = self
            .table
            .update_item()
            .set_key(Some(fetch_key(source_id)))
            .update_expression("SET pushUntil = :expires")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_values(":expires", s(expires_at))
            .send()
            .await;
        match copied {
            Ok(_) => Ok(true),
            Err(e) if is_condition_failed(&e) => Ok(true),
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }

    /// The hub refused the subscription to `topic`; `false` when there is none.
    pub async fn deny_push(&self, source_id: &str, topic: &str) -> Result<bool, StoreError> {
        let denied = self
            .table
            .update_item()
            .set_key(Some(websub_key(source_id)))
            .update_expression("SET #state = :denied REMOVE expiresAt")
            .condition_expression("topic = :topic AND #state <> :unsubscribing")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":denied", s(PushState::Denied.as_str()))
            .expression_attribute_values(":unsubscribing", s(PushState::Unsubscribing.as_str()))
            .expression_attribute_values(":topic", s(topic))
            .send()
            .await;
        match denied {
            Ok(_) => Ok(true),
            Err(e) if is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }

    /// Marks a retired source's subscription as ending, once: the subscription to ask its
    /// hub to end, or `None` when there is none, it is already ending, or the source is not
    /// retired.
    pub async fn end_push(&self, source_id: &str) -> Result<Option<PushSubscription>, StoreError> {
        let Some(subscription) = self.push_subscription(source_id).await? else {
            return Ok(None);
        };
        if subscription.state == PushState::Unsubscribing {
            return Ok(None);
        }
        let mut tx = Transaction::new(&self.table);
        tx.check(
            counts_key(source_id),
            "attribute_exists(pk) AND attribute_exists(retiredAt)",
        )?;
        let update = tx
            .update_builder(websub_key(source_id))
            .update_expression("SET #state = :ending")
            .condition_expression("attribute_exists(pk) AND #state <> :ending")
            .expression_attribute_names("#state", "state")
            .expression_attribute_values(":ending", s(PushState::Unsubscribing.as_str()));
        tx.update(update)?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(Some(subscription)),
            Err(e) if e.failed_at(0) || e.failed_at(1) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}
