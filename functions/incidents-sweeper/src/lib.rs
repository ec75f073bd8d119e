//! The incidents sweeper, on its schedule: publishes to the incident event bus the outbox
//! rows older than `OUTBOX_RESCUE_SECONDS` (their writer's own publication failed or never
//! ran; `incidents::events`). An event published twice keeps its `eventId`, which consumers
//! dedupe on.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use futures::future::BoxFuture;
use futures::FutureExt;
use incidents::events::Publisher;
use incidents::input::format_time;
use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::{BoxError, Clock, ConfigError, Env, ScheduleHandler};

/// Default age of an outbox row before the sweep publishes it: longer than a writer's own
/// publication takes, so the sweep rarely publishes an event twice.
pub const DEFAULT_RESCUE_SECONDS: i64 = 60;

#[derive(Clone)]
pub struct IncidentsSweeper {
    events: Publisher,
    clock: Clock,
    wait: chrono::Duration,
}

/// Builds the handler from its environment (`INCIDENTS_TABLE`, `INCIDENT_EVENT_BUS`,
/// `OUTBOX_RESCUE_SECONDS`): what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn ScheduleHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let table = Table::from_env(&env, &aws, "INCIDENTS_TABLE")?;
    Ok(Arc::new(IncidentsSweeper {
        events: Publisher::from_env(&env, &aws, table)?,
        clock: Clock::system(),
        wait: rescue_wait(&env)?,
    }))
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
        async move { this.run().await.map(|_| ()) }.boxed()
    }
}
