//! Generation jobs: started one at a time or by the daily schedule, and run by the worker.

use super::{Digests, Sources, FAILED, PENDING, SCHEDULE_PAGE, SCHEDULE_PAGES_PER_RUN};
use crate::error::DigestError;
use crate::input::{DigestDate, DigestId, UserId};
use crate::jobs::{scheduled_job_id, DigestQueue, JobMessage, STALE_AFTER_MINUTES};
use crate::model::DigestGenerationJob;
use crate::ports::{CommunityTopics, NewsArticles, Users};

impl Digests {
    /// Creates a PENDING job for `user` and `date` and queues it. When the queue refuses it,
    /// the job is recorded FAILED and the error returned.
    pub async fn start_job(
        &self,
        queue: &DigestQueue,
        user: &UserId,
        date: DigestDate,
        force: bool,
    ) -> Result<DigestGenerationJob, DigestError> {
        let date = self.dated("date", date)?;
        let job = self.new_job(DigestId::generate(), user, date, force);
        self.store.create_job(&job).await?;
        if let Err(reason) = queue.send(&JobMessage::new(&job.id)).await {
            if let Err(e) = self
                .store
                .finish_job(&job.id, FAILED, "The job could not be queued", None)
                .await
            {
                tracing::error!(job = %job.id, error = %e, "job left PENDING after a failed send");
            }
            return Err(DigestError::Queue(reason));
        }
        Ok(job)
    }

    fn new_job(
        &self,
        id: DigestId,
        user: &UserId,
        date: DigestDate,
        force: bool,
    ) -> DigestGenerationJob {
        DigestGenerationJob {
            id: id.to_string(),
            target_user_id: user.to_string(),
            digest_date: date.to_string(),
            status: PENDING.into(),
            message: None,
            force,
            digest_id: None,
            created_at: self.store.clock().timestamp(),
            finished_at: None,
        }
    }

    pub async fn job(&self, id: &DigestId) -> Result<DigestGenerationJob, DigestError> {
        self.store
            .job(id.as_str())
            .await?
            .ok_or(DigestError::JobNotFound)
    }

    /// Runs job `id` to its final status. `Ok(false)`: nothing to do (finished, running
    /// elsewhere, or unknown). `Err` only when the outcome could not be recorded (the table):
    /// the message is to be delivered again.
    pub async fn run_job<N: NewsArticles, U: Users, C: CommunityTopics>(
        &self,
        sources: &Sources<'_, N, U, C>,
        id: &str,
    ) -> Result<bool, DigestError> {
        let stale = platform::clock::rfc3339(
            self.store.clock().now() - chrono::Duration::minutes(STALE_AFTER_MINUTES),
        );
        if !self.store.claim_job(id, &stale).await? {
            return Ok(false);
        }
        let Some(job) = self.store.job(id).await? else {
            return Ok(false);
        };
        let parsed = (
            UserId::parse("targetUserId", &job.target_user_id),
            DigestDate::parse("digestDate", &job.digest_date),
        );
        let result = match parsed {
            (Ok(user), Ok(date)) => self.generate(sources, &user, date, job.force).await,
            _ => Err(DigestError::UserNotFound),
        };
        let (status, message, digest) = match result {
            Ok(outcome) => (
                outcome.status,
                outcome.message,
                outcome.digest.map(|d| d.summary.id),
            ),
            Err(DigestError::Store(e)) if e.is_unavailable() => {
                // Not the job's fault: leave it RUNNING; the redelivered message reclaims it
                // once stale.
                return Err(DigestError::Store(e));
            }
            Err(e) => {
                tracing::warn!(job = id, error = %e, "digest generation failed");
                (FAILED.to_string(), failure_message(&e), None)
            }
        };
        self.store
            .finish_job(id, &status, &message, digest.as_deref())
            .await?;
        Ok(true)
    }

    /// One run of the daily schedule for `date`: goes on through identity's users from the
    /// saved cursor, at most [`SCHEDULE_PAGES_PER_RUN`] pages of [`SCHEDULE_PAGE`], creating
    /// each user's job of the day (name-based id: once) and queueing it. Returns the jobs
    /// created by this run. A job found PENDING (its send may have been lost) is queued again;
    /// the worker's claim runs it once.
    pub async fn schedule<U: Users>(
        &self,
        users: &U,
        queue: &DigestQueue,
        date: DigestDate,
    ) -> Result<usize, DigestError> {
        let mut run = self.store.schedule_run(date).await?;
        if run.done {
            return Ok(0);
        }
        let mut created = 0;
        for _ in 0..SCHEDULE_PAGES_PER_RUN {
            let (ids, next) = users.page(run.cursor.as_deref(), SCHEDULE_PAGE).await?;
            for raw in ids {
                let Ok(user) = UserId::parse("id", &raw) else {
                    tracing::warn!(user = %raw, "identity listed a user id that is not a uuid");
                    continue;
                };
                let job = self.new_job(scheduled_job_id(&user, date), &user, date, false);
                let fresh = self.store.create_job(&job).await?;
                let pending = fresh
                    || self
                        .store
                        .job(&job.id)
                        .await?
                        .is_some_and(|j| j.status == PENDING);
                if pending {
                    queue.send(&JobMessage::new(&job.id)).await?;
                }
                if fresh {
                    created += 1;
                    run.jobs += 1;
                }
            }
            run.done = next.is_none();
            run.cursor = next;
            self.store.save_schedule_run(date, &run).await?;
            if run.done {
                break;
            }
        }
        Ok(created)
    }
}

/// What a FAILED job says (no internals beyond the failing service).
fn failure_message(e: &DigestError) -> String {
    match e {
        DigestError::UserNotFound => "No such user".into(),
        DigestError::Port(p) => format!("The {} could not be reached", p.service),
        DigestError::Llm(l) => format!("The model failed: {l}"),
        DigestError::Busy => "Another generation for this user and day was under way".into(),
        other => format!("Generation failed: {other}"),
    }
}
