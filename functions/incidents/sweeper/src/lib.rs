//! The incidents sweeper, on its schedule:
//! - escalates the incidents whose escalation is due and that nobody acknowledged
//!   (`incidents::escalation`), publishing each `Incident Escalated` event;
//!   (an incident an active silence matches is not escalated: the silence holds it);
//! - releases the silences that ended (by time or expired by hand): each still-open
//!   incident one held notifies once (`Incident Unsilenced`, `incidents::silences`), however
//!   many runs see the silence;
//! - publishes to the incident event bus the outbox rows older than `OUTBOX_RESCUE_SECONDS`
//!   (their writer's own publication failed or never ran; `incidents::events`). An event
//!   published twice keeps its `eventId`, which consumers dedupe on.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use incidents::escalation::{Escalations, Outcome, SWEEP_LIMIT};
use incidents::events::Publisher;
use incidents::input::format_time;
use incidents::silences::{Released, Silences};
use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::{BoxError, Clock, ConfigError, Env, ScheduleHandler};

/// Seconds a run spends on escalation rounds (its timeout is 60): at 500 a round, enough
/// for thousands a minute.
pub const ESCALATION_SECONDS: u64 = 40;
/// Escalations whose events are published at once.
const CONCURRENT_FLUSHES: usize = 16;

/// Default age of an outbox row before the sweep publishes it: longer than a writer's own
/// publication takes, so the sweep rarely publishes an event twice.
pub const DEFAULT_RESCUE_SECONDS: i64 = 60;

#[derive(Clone)]
pub struct IncidentsSweeper {
    events: Publisher,
    escalations: Escalations,
    silences: Silences,
    clock: Clock,
    wait: chrono::Duration,
}

/// Builds the handler from its environment (`INCIDENTS_TABLE`, `INCIDENT_EVENT_BUS`,
/// `OUTBOX_RESCUE_SECONDS`): what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn ScheduleHandler>, BoxError> {
    Ok(Arc::new(
        IncidentsSweeper::from_env(&env, Clock::system()).await?,
    ))
}

/// `OUTBOX_RESCUE_SECONDS`: from 0 to 3600.
pub fn rescue_wait(env: &Env) -> Result<chrono::Duration, ConfigError> {
    let seconds: i64 = env.parse_or("OUTBOX_RESCUE_SECONDS", DEFAULT_RESCUE_SECONDS)?;
    if !(0..=3_600).contains(&seconds) {
        return Err(ConfigError::Invalid {
            name: "OUTBOX_RESCUE_SECONDS".into(),
            reason: "must be from 0 to 3600".into(),
        });
    }
    Ok(chrono::Duration::seconds(seconds))
}

impl IncidentsSweeper {
    /// The sweeper of `env` on `clock`.
    pub async fn from_env(env: &Env, clock: Clock) -> Result<Self, BoxError> {
        let aws = AwsClients::from_env(env).await;
        let table = Table::from_env(env, &aws, "INCIDENTS_TABLE")?;
        Ok(Self {
            events: Publisher::from_env(env, &aws, table.clone())?,
            escalations: Escalations::new(table.clone()),
            silences: Silences::new(table),
            clock,
            wait: rescue_wait(env)?,
        })
    }

    /// Escalates what is due and publishes the escalations, in rounds of
    /// [`SWEEP_LIMIT`] until fewer are due or [`ESCALATION_SECONDS`] have passed (the next run
    /// takes the rest); what it did.
    pub async fn escalate(&self) -> Result<Vec<Outcome>, BoxError> {
        let started = std::time::Instant::now();
        let mut done = Vec::new();
        loop {
            let outcomes = self.escalations.sweep(self.clock.now()).await?;
            let round = outcomes.len();
            futures::stream::iter(&outcomes)
                .for_each_concurrent(CONCURRENT_FLUSHES, |outcome| async move {
                    match outcome {
                        Outcome::Escalated {
                            incident_id,
                            channel_id,
                        } => {
                            tracing::info!(incident = %incident_id, channel = %channel_id, "incident escalated");
                            self.events.flush(incident_id).await;
                        }
                        Outcome::Dropped { incident_id } => {
                            tracing::debug!(incident = %incident_id, "escalation dropped: acknowledged, resolved or reopened");
                        }
                        Outcome::Silenced {
                            incident_id,
                            silences,
                        } => {
                            tracing::info!(incident = %incident_id, ?silences, "escalation held by a silence");
                        }
                    }
                })
                .await;
            done.extend(outcomes);
            if round < SWEEP_LIMIT || started.elapsed().as_secs() >= ESCALATION_SECONDS {
                return Ok(done);
            }
        }
    }

    /// Releases the silences that ended, in rounds until each is done or
    /// [`ESCALATION_SECONDS`] have passed (the next run takes the rest), and publishes the
    /// notifications of the incidents they held; what each did.
    pub async fn release_silences(&self) -> Result<Vec<(String, Released)>, BoxError> {
        let started = std::time::Instant::now();
        let now = self.clock.now();
        let ended = self.silences.ended(now).await?;
        if ended.is_empty() {
            return Ok(Vec::new());
        }
        let active: Vec<String> = self
            .silences
            .active(now)
            .await?
            .into_iter()
            .map(|s| s.id)
            .collect();
        let mut done = Vec::new();
        for silence in ended {
            let mut total = Released::default();
            loop {
                let round = self.silences.release(&silence, &active, now).await?;
                futures::stream::iter(&round.notified)
                    .for_each_concurrent(CONCURRENT_FLUSHES, |id| self.events.flush(id))
                    .await;
                total.notified.extend(round.notified);
                total.dropped += round.dropped;
                total.done = round.done;
                if round.done || started.elapsed().as_secs() >= ESCALATION_SECONDS {
                    break;
                }
            }
            tracing::info!(silence = %silence.id, notified = total.notified.len(), dropped = total.dropped, done = total.done, "silence released");
            done.push((silence.id, total));
        }
        Ok(done)
    }

    /// Publishes the outbox rows that waited longer than the rescue wait; how many.
    pub async fn run(&self) -> Result<usize, BoxError> {
        let before = format_time(self.clock.now() - self.wait);
        let published = self.events.sweep(&before).await?;
        if published > 0 {
            tracing::info!(published, "incident events published from the outbox");
        }
        Ok(published)
    }
}

impl ScheduleHandler for IncidentsSweeper {
    fn handle(
        &self,
        _event: EventBridgeEvent<serde_json::Value>,
    ) -> BoxFuture<'static, Result<(), BoxError>> {
        let this = self.clone();
        async move {
            // Each runs; the first failure is the run's.
            let escalated = this.escalate().await.map(|_| ());
            let released = this.release_silences().await.map(|_| ());
            let published = this.run().await.map(|_| ());
            escalated.and(released).and(published)
        }
        .boxed()
    }
}
