//! News source subscriptions: the content service's side through the [`SourceSubscriptions`]
//! port, identity's record and `enabledSourceIds` kept in step.

use crate::error::IdentityError;
use crate::model::{SourceId, Subscriptions, UserId};
use crate::subscriptions::{ContentError, SourceSubscriptions, SubscribedSource, Unsubscribed};

use super::{until_unchanged, Identity};

impl Identity {
    /// The sources the user subscribes to.
    pub async fn subscriptions(&self, id: &UserId) -> Result<Subscriptions, IdentityError> {
        let source_ids = self.store.subscriptions(id).await?;
        Ok(Subscriptions {
            source_ids: source_ids.iter().map(|s| s.as_str().to_string()).collect(),
        })
    }

    /// Subscribes the user to `source` at the content service, then records it and enables
    /// the source in the user's settings. Idempotent.
    pub async fn subscribe(
        &self,
        content: &impl SourceSubscriptions,
        user: &UserId,
        source: &SourceId,
    ) -> Result<SubscribedSource, IdentityError> {
        // A dead account's token must not add a subscriber at the content service.
        self.live_user(user).await?;
        let subscribed = match content.subscribe(user, source).await {
            Ok(subscribed) => subscribed,
            // It may have applied with its answer lost on the way.
            Err(e @ (ContentError::Failed(_) | ContentError::Busy(_))) => {
                self.settle(content, user, source).await;
                return Err(e.into());
            }
            Err(e) => return Err(e.into()),
        };
        if let Err(e) = self.record_subscription(user, source, true).await {
            // Not recorded (throttled past its retries, or the account deleted meanwhile):
            // take back the subscriber the content service counts.
            self.settle(content, user, source).await;
            return Err(e);
        }
        Ok(subscribed)
    }

    /// Unsubscribes the user from `source` at the content service (the last subscriber
    /// leaving deletes it), then forgets it here.
    pub async fn unsubscribe(
        &self,
        content: &impl SourceSubscriptions,
        user: &UserId,
        source: &SourceId,
    ) -> Result<Unsubscribed, IdentityError> {
        self.live_user(user).await?;
        let outcome = match content.unsubscribe(user, source).await {
            Ok(outcome) => outcome,
            // Already gone on the content side: finish our half if we still hold it.
            Err(ContentError::SourceNotFound) => {
                if !self.store.subscriptions(user).await?.contains(source) {
                    return Err(IdentityError::SourceNotFound);
                }
                Unsubscribed::SourceDeleted
            }
            Err(e @ (ContentError::Failed(_) | ContentError::Busy(_))) => {
                self.settle(content, user, source).await;
                return Err(e.into());
            }
        };
        if let Err(e) = self.record_subscription(user, source, false).await {
            self.settle(content, user, source).await;
            return Err(e);
        }
        Ok(outcome)
    }

    /// After a change failed halfway (the content service's answer lost, or identity's record
    /// not written), makes the content service's subscribers agree with identity's record,
    /// which is what the user sees and retries from; a source gone at the content service is
    /// forgotten here. Both sides are idempotent, so this is safe whatever did apply. Best
    /// effort: what fails here is logged, and the user's retry settles it.
    async fn settle(&self, content: &impl SourceSubscriptions, user: &UserId, source: &SourceId) {
        let held = match self.store.subscriptions(user).await {
            Ok(sources) => sources.contains(source),
            Err(error) => {
                tracing::warn!(%error, %source, "subscription left unsettled: its record cannot be read");
                return;
            }
        };
        let settled = if held {
            content.subscribe(user, source).await.map(|_| ())
        } else {
            content.take_back(user, source).await
        };
        let forget = match settled {
            Ok(()) => false,
            Err(ContentError::SourceNotFound) => held,
            Err(error) => {
                tracing::warn!(%error, %source, held, "subscription left unsettled at the content service");
                false
            }
        };
        if forget {
            if let Err(error) = self.record_subscription(user, source, false).await {
                tracing::warn!(%error, %source, "a retired source is still recorded");
            }
        }
    }

    /// Records a subscription (or its end) and keeps `enabledSourceIds` in step: a new
    /// subscription is enabled, an ended one disappears. Idempotent.
    async fn record_subscription(
        &self,
        user: &UserId,
        source: &SourceId,
        subscribed: bool,
    ) -> Result<(), IdentityError> {
        until_unchanged(|_| async move {
            let read = self.store.settings(user).await?;
            let mut next = read.settings.clone();
            let enabled = &mut next.enabled_source_ids;
            if subscribed {
                if !enabled.iter().any(|id| id == source.as_str()) {
                    enabled.push(source.as_str().to_string());
                }
            } else {
                enabled.retain(|id| id != source.as_str());
            }
            self.store
                .save_subscription(user, source, subscribed, &read, &next)
                .await?;
            Ok(())
        })
        .await
    }
}
