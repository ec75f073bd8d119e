//! Removing retired sources: the sweep queue's message, the queue itself, and the sweeper
//! that takes one bounded step per message (see `store::sweep` for the steps' guarantees).
//!
//! A source is retired by its last subscriber leaving (the news function then enqueues
//! its sweep), or, when nobody subscribed within the grace period, by the sweeper itself on
//! a message from the scheduler. The scheduler also enqueues again the sweep of any source
//! retired for a while, in case an enqueue was lost: every step is safe to repeat.

use chrono::{DateTime, Duration, Utc};
use platform::queue::{Queue, QueueMessage};
use platform::{ConfigError, Env};

use crate::ingest::MessageError;
use crate::store::{BackfillStep, ContentStore, StoreError, SweepStep};

/// Default grace period of a source nobody subscribed to, in minutes.
pub const DEFAULT_GRACE_MINUTES: i64 = 60;
/// Articles deleted per sweep step (one message): a few transactions, well within a second.
pub const DEFAULT_SWEEP_BATCH: usize = 25;
/// How long after its retirement the scheduler enqueues a source's sweep again, in case its
/// enqueue was lost; a sweep still running only repeats harmless steps.
pub const RESCUE_AFTER_MINUTES: i64 = 15;

/// The sweep queue's message: sweep this source, or (with `backfill`) write the rows of each
/// topic its older articles lack (`store::backfill`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceSweep {
    pub source_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backfill: Option<Backfill>,
}

/// Where a backfill goes on: after this source row (from the first when absent).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Backfill {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

/// Source rows one backfill step goes through (a transaction per missing row of a topic).
pub const DEFAULT_BACKFILL_BATCH: usize = 25;

impl SourceSweep {
    pub fn new(source_id: impl Into<String>) -> Self {
        Self {
            source_id: source_id.into(),
            backfill: None,
        }
    }

    /// A step of the backfill of `source_id`, after the source row `after`.
    pub fn backfill(source_id: impl Into<String>, after: Option<String>) -> Self {
        Self {
            source_id: source_id.into(),
            backfill: Some(Backfill { after }),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_value(self)
            .unwrap_or_else(|_| serde_json::json!({ "sourceId": self.source_id }))
            .to_string()
    }

    /// Reads a message body; the source id must be present and not blank.
    pub fn read(body: &str) -> Result<Self, MessageError> {
        let sweep: Self = serde_json::from_str(body)?;
        if sweep.source_id.trim().is_empty() {
            return Err(MessageError::BlankSourceId);
        }
        Ok(sweep)
    }
}

impl QueueMessage for SourceSweep {
    const URL_VARIABLE: &'static str = "SWEEP_QUEUE_URL";

    fn parse(body: &str) -> Result<Self, String> {
        Self::read(body).map_err(|e| e.to_string())
    }

    fn to_body(&self) -> Result<String, serde_json::Error> {
        Ok(self.to_json())
    }
}

/// The grace period of a source nobody subscribed to: `SOURCE_GRACE_MINUTES` (default 60).
pub fn grace_from_env(env: &Env) -> Result<Duration, ConfigError> {
    let minutes: i64 = env.parse_or("SOURCE_GRACE_MINUTES", DEFAULT_GRACE_MINUTES)?;
    if !(1..=525_600).contains(&minutes) {
        return Err(ConfigError::Invalid {
            name: "SOURCE_GRACE_MINUTES".into(),
            reason: "must be from 1 to 525600 (a year)".into(),
        });
    }
    Ok(Duration::minutes(minutes))
}

/// The sweep queue (`SWEEP_QUEUE_URL`): `send(&SourceSweep::new(id))` asks for (another
/// step of) a source's sweep, `SourceSweep::backfill` for a step of its backfill.
pub type SweepQueue = Queue<SourceSweep>;

/// The longest a sweep step waits for a hub to take an unsubscription.
const UNSUBSCRIBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The sweeper's side: one bounded step per message.
#[derive(Clone, Debug)]
pub struct Sweeper {
    store: ContentStore,
    grace: Duration,
    batch: usize,
    /// Asks the hubs of retired sources to stop pushing (none: their leases run out).
    hub: Option<crate::websub::Hub>,
}

impl Sweeper {
    pub fn new(store: ContentStore, grace: Duration, batch: usize) -> Self {
        Self {
            store,
            grace,
            batch: batch.max(1),
            hub: None,
        }
    }

    /// The same sweeper unsubscribing retired sources from their WebSub hubs.
    pub fn with_hub(mut self, hub: crate::websub::Hub) -> Self {
        self.hub = Some(hub);
        self
    }

    /// One step of the sweep of `source_id` at the store's clock's time.
    pub async fn step(&self, source_id: &str) -> Result<SweepStep, StoreError> {
        self.step_at(source_id, self.store.clock().now()).await
    }

    /// One step of the backfill of `source_id`'s topic rows, after the source row `after`.
    pub async fn backfill_step(
        &self,
        source_id: &str,
        after: Option<&str>,
    ) -> Result<BackfillStep, StoreError> {
        self.store
            .backfill_step(source_id, after, DEFAULT_BACKFILL_BATCH)
            .await
    }

    /// One step of the sweep of `source_id` at `now`; a retired source's WebSub hub is
    /// asked to stop first (once: the subscription is marked as ending).
    pub async fn step_at(
        &self,
        source_id: &str,
        now: DateTime<Utc>,
    ) -> Result<SweepStep, StoreError> {
        if let Some(hub) = &self.hub {
            self.end_push(hub, source_id).await?;
        }
        self.store
            .sweep_step(source_id, now, self.grace, self.batch)
            .await
    }

    /// Unsubscribes a retired source from its hub; a hub that does not answer keeps pushing
    /// until the lease ends, each delivery answered 410 (which tells it to stop).
    async fn end_push(&self, hub: &crate::websub::Hub, source_id: &str) -> Result<(), StoreError> {
        let Some(ending) = self.store.end_push(source_id).await? else {
            return Ok(());
        };
        let target = crate::websub::PushTarget {
            hub: ending.hub,
            topic: ending.topic,
        };
        match hub
            .unsubscribe(source_id, &target, UNSUBSCRIBE_TIMEOUT)
            .await
        {
            Ok(()) => {
                tracing::info!(source_id, hub = %target.hub, "WebSub unsubscription requested")
            }
            Err(error) => {
                tracing::warn!(source_id, hub = %target.hub, %error, "WebSub hub did not take the unsubscription; its lease will run out")
            }
        }
        Ok(())
    }
}

/// Retired sources one scheduler run looks at (the oldest first): sweeps are short, so more
/// than this many retired sources at once is a backlog the next runs take on.
pub const RETIRED_PER_RUN: usize = 100;

/// The scheduler's side: which of the oldest [`RETIRED_PER_RUN`] retired sources to sweep
/// again at `now`, those retired at least [`RESCUE_AFTER_MINUTES`] ago (their sweep may have
/// been lost). Sources nobody subscribed to come from the scheduler's walk.
pub async fn lost_sweeps(
    store: &ContentStore,
    now: DateTime<Utc>,
) -> Result<Vec<String>, StoreError> {
    let rescue = Duration::minutes(RESCUE_AFTER_MINUTES);
    Ok(store
        .retired_sources(RETIRED_PER_RUN)
        .await?
        .into_iter()
        .filter(|(_, retired_at)| {
            DateTime::parse_from_rfc3339(retired_at)
                .is_ok_and(|t| t.with_timezone(&Utc) + rescue <= now)
        })
        .map(|(id, _)| id)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_messages_round_trip_and_refuse_junk() {
        let body = SourceSweep::new("abc").to_json();
        assert_eq!(
            SourceSweep::parse(&body).ok(),
            Some(SourceSweep::new("abc"))
        );
        let step = SourceSweep::backfill("abc", Some("ART#2025#x".into()));
        assert_eq!(SourceSweep::parse(&step.to_json()).ok(), Some(step));
        let first = SourceSweep::backfill("abc", None);
        assert_eq!(SourceSweep::parse(&first.to_json()).ok(), Some(first));
        assert!(SourceSweep::parse("{}").is_err());
        assert!(SourceSweep::parse(r#"{"sourceId": ""}"#).is_err());
    }

    #[test]
    fn grace_is_configurable_and_bounded() {
        assert_eq!(
            grace_from_env(&Env::new()).ok(),
            Some(Duration::minutes(DEFAULT_GRACE_MINUTES))
        );
        let env = Env::new().with("SOURCE_GRACE_MINUTES", "5");
        assert_eq!(grace_from_env(&env).ok(), Some(Duration::minutes(5)));
        for bad in ["0", "-1", "soon", "999999"] {
            let env = Env::new().with("SOURCE_GRACE_MINUTES", bad);
            assert!(grace_from_env(&env).is_err(), "{bad}");
        }
    }
}
