//! Generation jobs: the admin route creates one (PENDING) and queues `{"jobId"}` on
//! `DIGEST_QUEUE_URL`; the digest worker claims it (RUNNING), runs the generation and records
//! the final status (`GENERATED`, `SKIPPED` or `FAILED`, with a message and `finishedAt`).
//! The daily schedule creates one job per user and day, with a name-based id
//! ([`scheduled_job_id`]), so running it twice creates nothing twice.
//!
//! Redelivery: a job is claimed with a conditional update (PENDING, or RUNNING for longer
//! than [`STALE_AFTER_MINUTES`], a run that died), so a message delivered twice runs the job
//! once; a finished job is never run again.

use platform::queue::{Queue, QueueMessage};

use crate::input::{DigestDate, DigestId, UserId};

/// A RUNNING job older than this is taken to have died with its worker (the worker's
/// timeout is 3 minutes).
pub const STALE_AFTER_MINUTES: i64 = 15;

/// The id of the scheduled job of `user` for `date`.
pub fn scheduled_job_id(user: &UserId, date: DigestDate) -> DigestId {
    DigestId::named(&format!("digest-job:{user}:{date}"))
}

/// The digest queue's message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobMessage {
    pub job_id: String,
}

impl JobMessage {
    /// The message asking for the run of job `id`.
    pub fn new(id: impl Into<String>) -> Self {
        Self { job_id: id.into() }
    }

    pub fn to_json(&self) -> String {
        serde_json::json!({ "jobId": self.job_id }).to_string()
    }
}

impl QueueMessage for JobMessage {
    const URL_VARIABLE: &'static str = "DIGEST_QUEUE_URL";

    /// Reads a message body: a job id, which is a uuid.
    fn parse(body: &str) -> Result<Self, String> {
        let message: Self = serde_json::from_str(body).map_err(|e| e.to_string())?;
        let id = DigestId::parse("jobId", &message.job_id).map_err(|e| e.to_string())?;
        Ok(Self {
            job_id: id.to_string(),
        })
    }
}

/// The digest queue (`DIGEST_QUEUE_URL`): `send(&JobMessage::new(id))` queues the run of
/// job `id`.
pub type DigestQueue = Queue<JobMessage>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_refuse_junk() {
        let id = "5B0F3C1E-0000-4000-8000-000000000001";
        let parsed = JobMessage::parse(&JobMessage::new(id).to_json()).unwrap();
        assert_eq!(
            JobMessage::new(id).to_body().unwrap(),
            JobMessage::new(id).to_json()
        );
        assert_eq!(parsed.job_id, id.to_ascii_lowercase());
        assert!(JobMessage::parse("{}").is_err());
        assert!(JobMessage::parse(r#"{"jobId":"JOB#x"}"#).is_err());
    }

    #[test]
    fn scheduled_ids_are_one_per_user_and_day() {
        let u = UserId::parse("u", "5b0f3c1e-0000-4000-8000-000000000001").unwrap();
        let d1 = DigestDate::parse("d", "2025-09-01").unwrap();
        let d2 = DigestDate::parse("d", "2025-09-02").unwrap();
        assert_eq!(scheduled_job_id(&u, d1), scheduled_job_id(&u, d1));
        assert_ne!(scheduled_job_id(&u, d1), scheduled_job_id(&u, d2));
    }
}
