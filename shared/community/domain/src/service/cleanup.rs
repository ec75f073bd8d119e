//! Account-deletion cleanup: the internal route marks the account and queues an
//! [`AccountCleanup`](crate::queues::AccountCleanup); the community sweeper undoes the user's items a bounded step per
//! message (`store::cleanup` documents each undo and why repeating one is harmless).

use crate::error::CommunityError;
use crate::input::UserId;
use crate::model::jobs::CleanupStep;
use crate::store::cleanup::CLEANUP_BATCH;

use super::{unconfigured, Community};

impl Community {
    /// Starts the cleanup of a deleted account: refuses the user's writes from now on and
    /// queues the undoing of what they left. Idempotent: calling it again queues it again.
    pub async fn forget_account(&self, user: &UserId) -> Result<(), CommunityError> {
        let queue = self
            .queues
            .cleanup
            .as_ref()
            .ok_or_else(|| unconfigured("cleanup"))?;
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

    /// One bounded step of a deleted user's cleanup; the posts it soft-deleted are then sent
    /// to the indexer (a failed send only logged: their outbox rows were written with them).
    pub async fn cleanup_step(&self, user_id: &str) -> Result<CleanupStep, CommunityError> {
        let step = self.cleanup_step_of(user_id, CLEANUP_BATCH).await?;
        self.request_index_all(&step.deleted_posts).await;
        Ok(step)
    }

    /// One step of at most `batch` items of the user's cleanup, sending nothing (a test
    /// drives the steps by hand).
    pub async fn cleanup_step_of(
        &self,
        user_id: &str,
        batch: usize,
    ) -> Result<CleanupStep, CommunityError> {
        Ok(self.store().cleanup_step(user_id, batch).await?)
    }

    /// Marks the user's community profile deleted (idempotent): every later write of theirs
    /// is refused.
    pub async fn mark_account_deleted(&self, user_id: &str) -> Result<(), CommunityError> {
        Ok(self.store().mark_account_deleted(user_id).await?)
    }
}
