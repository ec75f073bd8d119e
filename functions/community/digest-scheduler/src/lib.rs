//! The digest scheduler: on its schedule (hourly), makes sure every user has a generation
//! job for yesterday (in `DIGEST_TIMEZONE`): it pages through identity's user directory
//! (`GET /api/users/internal/users`, 100 ids a page), creates each user's job of the day with
//! a name-based id (user and day: a second run creates nothing twice) and queues it on the
//! digest queue. A run reads at most `community_digests::service::SCHEDULE_PAGES_PER_RUN` pages and
//! saves its cursor; the next run goes on from there until the directory ends, then the day
//! is done and later runs that day cost one read. A job found still PENDING (its message
//! lost) is queued again; the worker's claim runs it once.

use std::sync::Arc;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use community_digests_edge::DigestEdge;
use futures::future::BoxFuture;
use futures::FutureExt;
use platform::{BoxError, Env, ScheduleHandler};

#[derive(Clone)]
pub struct DigestScheduler {
    edge: Arc<DigestEdge>,
}

/// Builds the handler from its environment: what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn ScheduleHandler>, BoxError> {
    Ok(Arc::new(DigestScheduler {
        edge: Arc::new(DigestEdge::from_env(&env).await?),
    }))
}

impl DigestScheduler {
    /// One run: the jobs it created.
    pub async fn run(&self) -> Result<usize, BoxError> {
        let date = self.edge.digests.yesterday();
        let api = self.edge.api(self.edge.internal_api_url.clone());
        let created = self
            .edge
            .digests
            .schedule(&api, &self.edge.queue, date)
            .await?;
        tracing::info!(%date, created, "digest jobs scheduled");
        Ok(created)
    }
}

impl ScheduleHandler for DigestScheduler {
    fn handle(
        &self,
        _event: EventBridgeEvent<serde_json::Value>,
    ) -> BoxFuture<'static, Result<(), BoxError>> {
        let this = self.clone();
        async move { this.run().await.map(|_| ()) }.boxed()
    }
}
