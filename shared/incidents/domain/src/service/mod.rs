//! The facade: the incident platform's one entry point for the functions. Inputs arrive
//! parsed ([`crate::input`]); errors are [`IncidentsError`], with no HTTP in them.
//!
//! The facade's calls live by the data they serve: [`logs`] (ingestion, the timeline and
//! deletions), [`evaluation`] (grouping a batch into incidents and alerts), [`rules`],
//! [`incidents`], [`alerts`] and [`logbook`], each an `impl Incidents`.

mod actions;
mod alerts;
mod errors;
mod evaluation;
mod incidents;
mod logbook;
mod logs;
mod processing;
mod rules;

pub use actions::{action_target, Acted};
pub use errors::IncidentsError;
pub use evaluation::GROUP_CONCURRENCY;
pub use incidents::RESOLVE_ALERTS_IN_TRANSACTION;
pub use logs::{assign, PURGE_STEP};
pub use processing::{Delivery, RULES_TTL};
pub use rules::MAX_RULES;

use incidents_metrics::Metrics;
use platform::aws::AwsClients;
use platform::cursor::encode_cursor;
use platform::dynamo::Table;
use platform::{Clock, Env};

use crate::events::Publisher;
use crate::input::format_time;
use crate::objects::LogObjects;
use crate::queue::IngestQueue;
use crate::store::{Listed, Store};

/// Who makes a change.
#[derive(Clone, Debug)]
pub struct Actor {
    pub id: String,
    pub username: String,
    pub admin: bool,
}

pub struct Incidents {
    store: Store,
    objects: LogObjects,
    /// The ingest queue: where a deletion's steps go.
    queue: IngestQueue,
    clock: Clock,
    rules_cache: processing::RulesCache,
    /// Publishes the outbox rows a change wrote; `None`: left to the outbox sweep.
    events: Option<Publisher>,
}

impl Incidents {
    pub(crate) fn new(store: Store, objects: LogObjects, queue: IngestQueue, clock: Clock) -> Self {
        Self {
            store,
            objects,
            queue,
            clock,
            rules_cache: Default::default(),
            events: None,
        }
    }

    /// Publishes each change's events right after it commits.
    pub fn with_events(self, events: Publisher) -> Self {
        Self {
            events: Some(events),
            ..self
        }
    }

    /// Publishes incident `id`'s outbox rows, if this instance publishes.
    async fn publish(&self, id: &str) {
        if let Some(events) = &self.events {
            events.flush(id).await;
        }
    }

    /// Over `INCIDENTS_TABLE` (counting in `INCIDENT_METRICS_TABLE`, keeping grouped logs
    /// `LOG_RETENTION_DAYS`) and raw logs in `LOGS_BUCKET`, queueing deletion steps on
    /// `INGEST_QUEUE_URL`, on the system clock.
    /// With `INCIDENT_EVENT_BUS`, it publishes incident events after each change.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, platform::ConfigError> {
        let incidents = Self::new_from_env(env, aws)?;
        if env.get("INCIDENT_EVENT_BUS").is_none() {
            return Ok(incidents);
        }
        let events = Publisher::from_env(env, aws, incidents.store.table().clone())?;
        Ok(incidents.with_events(events))
    }

    fn new_from_env(env: &Env, aws: &AwsClients) -> Result<Self, platform::ConfigError> {
        Ok(Self::new(
            Store::new(
                Table::from_env(env, aws, "INCIDENTS_TABLE")?,
                Metrics::from_env(env, aws)?,
            )
            .with_log_retention_days(env.parse_or(
                "LOG_RETENTION_DAYS",
                crate::store::DEFAULT_LOG_RETENTION_DAYS,
            )?),
            LogObjects::from_env(env, aws)?,
            IngestQueue::from_env(env, aws.sqs())?,
            Clock::system(),
        ))
    }

    /// The incidents table, which the product's other parts (ingest keys, channels) share.
    pub fn table(&self) -> &Table {
        self.store.table()
    }

    fn now(&self) -> String {
        format_time(self.clock.now())
    }

    pub fn objects(&self) -> &LogObjects {
        &self.objects
    }
}

/// One page of `limit` from the pages of several status lists (each newest first by index
/// key, each up to `limit`), and the cursor of the next: the last row's key when more follow.
fn merge_pages<T>(pages: Vec<Listed<T>>, limit: usize) -> (Vec<T>, Option<String>) {
    let mut more = pages.iter().any(|p| p.more);
    let mut rows: Vec<(String, T)> = pages.into_iter().flat_map(|p| p.rows).collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0));
    more |= rows.len() > limit;
    rows.truncate(limit);
    let next = match rows.last() {
        Some((key, _)) if more => Some(encode_cursor(key)),
        _ => None,
    };
    (rows.into_iter().map(|(_, row)| row).collect(), next)
}
