//! Account-deletion cleanup: the internal route marks the account and queues an
//! [`AccountCleanup`]; the community sweeper undoes the user's items a bounded step per
//! message (`store::cleanup` documents each undo and why repeating one is harmless).

pub use platform::accounts::{AccountCleanup, CleanupQueue};
use platform::{ConfigError, Env};

use crate::error::CommunityError;
use crate::input::UserId;
use crate::store::cleanup::{CleanupStep, CLEANUP_BATCH};
use crate::Community;

/// The community's cleanup queue (`COMMUNITY_CLEANUP_QUEUE_URL`).
pub fn cleanup_queue(env: &Env, sqs: platform::aws::Sqs) -> Result<CleanupQueue, ConfigError> {
    CleanupQueue::from_env_variable(env, sqs, "COMMUNITY_CLEANUP_QUEUE_URL")
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
