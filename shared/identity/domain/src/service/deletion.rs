//! Deleting an account across the platform: the content service's reading state and
//! subscriptions, the
//! community's and the recipe service's cleanups, then the account's records.

use crate::error::IdentityError;
use crate::follows::{CommunityAccounts, FollowersError, RecipeAccounts, TopicFollowers};
use crate::model::UserId;
use crate::subscriptions::{ContentError, SourceSubscriptions};

use super::{until_unchanged, Identity};

/// The most calls one account deletion makes to delete the reading state (1,000 items each);
/// a larger state is deleted over repeated deletions.
const FORGET_READER_CALLS: usize = 20;

impl Identity {
    /// Deletes the account: first every subscription at the content service (the
    /// last-subscriber rule applies), then the community's and the recipe service's cleanups,
    /// then everything the users table holds for it. Safe to repeat after a failure part-way.
    pub async fn delete_account(
        &self,
        content: &impl SourceSubscriptions,
        community: &(impl CommunityAccounts + TopicFollowers),
        recipes: &impl RecipeAccounts,
        user: &UserId,
    ) -> Result<(), IdentityError> {
        self.live_user(user).await?;
        // The reading state first: its marks are found through the subscriptions.
        let mut forgotten = false;
        for _ in 0..FORGET_READER_CALLS {
            if content.forget_reader(user).await? {
                forgotten = true;
                break;
            }
        }
        if !forgotten {
            return Err(ContentError::Busy(
                "the reading state is not deleted yet; delete the account again".into(),
            )
            .into());
        }
        for source in self.store.subscriptions(user).await? {
            match content.unsubscribe(user, &source).await {
                Ok(_) | Err(ContentError::SourceNotFound) => {}
                Err(e) => return Err(e.into()),
            }
        }
        // The community side before any record goes, so a failure leaves the account
        // deletable again: changes of followed topics still pending, the followed topics'
        // counts (once, by their key), then the cleanup of the user's posts and marks.
        self.flush_follow_deltas(community, user).await?;
        if !self.store.pending_follow_deltas(user).await?.is_empty() {
            return Err(IdentityError::Community(FollowersError(
                "followed topics could not be delivered".into(),
            )));
        }
        let followed = self.settings(user).await?.followed_topics;
        if !followed.is_empty() {
            let deltas: std::collections::BTreeMap<String, i64> =
                followed.into_iter().map(|topic| (topic, -1)).collect();
            community
                .apply(&format!("{user}:deleted"), &deltas)
                .await
                .map_err(IdentityError::Community)?;
        }
        community
            .forget(user.as_str())
            .await
            .map_err(IdentityError::Community)?;
        recipes
            .forget(user.as_str())
            .await
            .map_err(IdentityError::Recipes)?;
        // Every token of the account ends before its records go.
        self.sessions
            .close(user.as_str(), self.clock.now().timestamp())
            .await?;
        until_unchanged(|_| async {
            let account = self.user(user).await?;
            Ok(self.store.delete_account(&account).await?)
        })
        .await
    }
}
