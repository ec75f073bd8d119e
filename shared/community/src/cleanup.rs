//! Account-deletion cleanup: the internal route marks the account and queues an
//! [`AccountCleanup`]; the community sweeper undoes the user's items a bounded step per
//! message (`store::cleanup` documents each undo and why repeating one is harmless).

use platform::aws::Sqs;
use platform::{ConfigError, Env};

use crate::error::CommunityError;
use crate::input::UserId;
use crate::store::cleanup::{CleanupStep, CLEANUP_BATCH};
use crate::Community;

/// The cleanup queue's message: undo the next items of this deleted user.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountCleanup {
    pub user_id: String,
}

impl AccountCleanup {
    pub fn new(user_id: impl Into<String>) -> Self {
        Self {
            user_id: user_id.into(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::json!({ "userId": self.user_id }).to_string()
    }

    /// Reads a message body: a user id, which is a uuid.
    pub fn parse(body: &str) -> Result<Self, String> {
        let cleanup: Self = serde_json::from_str(body).map_err(|e| e.to_string())?;
        uuid::Uuid::parse_str(&cleanup.user_id)
            .map_err(|_| format!("userId {:?} is not a uuid", cleanup.user_id))?;
        Ok(Self::new(cleanup.user_id.to_ascii_lowercase()))
    }
}

/// Why a cleanup could not be queued.
#[derive(Debug, thiserror::Error)]
#[error("cleanup queue: {0}")]
pub struct CleanupQueueError(pub String);

/// The cleanup queue (`COMMUNITY_CLEANUP_QUEUE_URL`).
#[derive(Clone, Debug)]
pub struct CleanupQueue {
    sqs: Sqs,
    url: String,
}

impl CleanupQueue {
    pub fn new(sqs: Sqs, url: impl Into<String>) -> Self {
        Self {
            sqs,
            url: url.into(),
        }
    }

    pub fn from_env(env: &Env, sqs: Sqs) -> Result<Self, ConfigError> {
        Ok(Self::new(sqs, env.require("COMMUNITY_CLEANUP_QUEUE_URL")?))
    }

    /// Asks for (the next step of) the cleanup of `user_id`.
    pub async fn request(&self, user_id: &str) -> Result<(), CleanupQueueError> {
        self.sqs
            .send_message(&self.url, &AccountCleanup::new(user_id).to_json())
            .await
            .map(|_| ())
            .map_err(|e| CleanupQueueError(e.to_string()))
    }
}

impl Community {
    /// Starts the cleanup of a deleted account: refuses the user's writes from now on and
    /// queues the undoing of what they left. Idempotent: calling it again queues it again.
    pub async fn forget_account(
        &self,
        user: &UserId,
        queue: &CleanupQueue,
    ) -> Result<(), CommunityError> {
        let store = self.store();
        let marked_before = store.account_deleted(user.as_str()).await?;
        store.mark_account_deleted(user.as_str()).await?;
        if let Err(e) = queue.request(user.as_str()).await {
            // Not queued: take this call's mark back, so a failed deletion leaves the
            // account as it was (the caller will try again).
            if !marked_before {
                if let Err(undo) = store.unmark_account_deleted(user.as_str()).await {
                    tracing::error!(user = %user, error = %undo, "account mark left after a failed cleanup request");
                }
            }
            return Err(CommunityError::Queue(e.to_string()));
        }
        Ok(())
    }

    /// One bounded step of a deleted user's cleanup.
    pub async fn cleanup_step(&self, user_id: &str) -> Result<CleanupStep, CommunityError> {
        Ok(self.store().cleanup_step(user_id, CLEANUP_BATCH).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_refuse_junk() {
        let id = "5B0F3C1E-0000-4000-8000-000000000001";
        let parsed = AccountCleanup::parse(&AccountCleanup::new(id).to_json()).unwrap();
        assert_eq!(parsed.user_id, id.to_ascii_lowercase());
        assert!(AccountCleanup::parse("{}").is_err());
        assert!(AccountCleanup::parse(r#"{"userId":"USER#x"}"#).is_err());
        assert!(AccountCleanup::parse("junk").is_err());
    }
}
