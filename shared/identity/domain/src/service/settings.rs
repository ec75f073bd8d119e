//! The reader's settings, and the outbox that carries followed-topic changes to the community
//! service ([`crate::follows`]).

use platform::{FieldError, Invalid};

use crate::error::IdentityError;
use crate::follows::TopicFollowers;
use crate::input::SettingsChange;
use crate::model::{Settings, UserId};

use super::{until_unchanged, Identity};

impl Identity {
    pub async fn settings(&self, id: &UserId) -> Result<Settings, IdentityError> {
        Ok(self.store.settings(id).await?.settings)
    }

    /// Applies `change` to the stored settings, retrying when another request saved first.
    /// `enabledSourceIds` may only name sources the user subscribes to.
    pub async fn update_settings(
        &self,
        id: &UserId,
        change: SettingsChange,
    ) -> Result<Settings, IdentityError> {
        until_unchanged(|_| self.try_update_settings(id, &change)).await
    }

    async fn try_update_settings(
        &self,
        id: &UserId,
        change: &SettingsChange,
    ) -> Result<Settings, IdentityError> {
        let read = self.store.settings(id).await?;
        let next = change.apply(read.settings.clone());
        if let Some(enabled) = change.enabled_source_ids() {
            let subscribed = self.store.subscriptions(id).await?;
            let unknown: Vec<FieldError> = enabled
                .iter()
                .filter(|id| !subscribed.iter().any(|s| s.as_str() == id.as_str()))
                .map(|id| {
                    FieldError::new("enabledSourceIds", format!("not subscribed to source {id}"))
                })
                .collect();
            if !unknown.is_empty() {
                return Err(Invalid(unknown).into());
            }
        }
        self.store.save_settings(id, &read, &next).await?;
        Ok(next)
    }

    /// Sends the user's pending followed-topic changes (oldest first) to the community
    /// service, each with the key `{userId}:{version}`, and forgets each once delivered. A
    /// failed send stops the flush and stays for the next one; answers how many were sent.
    pub async fn flush_follow_deltas(
        &self,
        followers: &impl TopicFollowers,
        id: &UserId,
    ) -> Result<usize, IdentityError> {
        let pending = self.store.pending_follow_deltas(id).await?;
        let mut sent = 0;
        for (version, deltas) in pending {
            if let Err(e) = followers.apply(&format!("{id}:{version}"), &deltas).await {
                tracing::warn!(user = %id, version, reason = %e, "followed topics not delivered; kept for the next flush");
                break;
            }
            self.store.delete_follow_delta(id, version).await?;
            sent += 1;
        }
        Ok(sent)
    }
}
