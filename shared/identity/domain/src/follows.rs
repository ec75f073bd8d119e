//! Followed topics reach the community's topic follower counts through an outbox: a settings save
//! that changes `followedTopics` writes the change (`+1` per followed slug, `-1` per
//! unfollowed one) beside the settings in the same transaction, and [`crate::Identity::flush_follow_deltas`]
//! sends each pending change through the [`TopicFollowers`] port with the idempotency key
//! `{userId}:{version}`, deleting it once delivered. A failed send stays and is retried by the
//! next flush; the community service applies a key once, so a resend changes nothing.

use std::collections::BTreeMap;
use std::future::Future;

/// The community service's follower counts.
pub trait TopicFollowers: Send + Sync {
    /// Applies `deltas` (topic slug → change) once per `key`.
    fn apply(
        &self,
        key: &str,
        deltas: &BTreeMap<String, i64>,
    ) -> impl Future<Output = Result<(), FollowersError>> + Send;
}

/// The community service's side of an account deletion (the community's account-deletion
/// cleanup): once it answers, the user's community writes are refused and their items are
/// being undone.
pub trait CommunityAccounts: Send + Sync {
    /// Starts the cleanup of `user_id`'s community items; idempotent.
    fn forget(&self, user_id: &str) -> impl Future<Output = Result<(), FollowersError>> + Send;
}

/// The recipe service's side of an account deletion: once it answers, the user can create no
/// recipe and their recipes are being deleted.
pub trait RecipeAccounts: Send + Sync {
    /// Starts the cleanup of `user_id`'s recipes; idempotent.
    fn forget(&self, user_id: &str)
        -> impl Future<Output = Result<(), RecipesServiceError>> + Send;
}

/// The recipe service did not take an account deletion's cleanup.
#[derive(Debug, Clone, thiserror::Error)]
#[error("recipe service: {0}")]
pub struct RecipesServiceError(pub String);

/// The community service could not take the deltas (or the cleanup).
#[derive(Debug, Clone, thiserror::Error)]
#[error("community service: {0}")]
pub struct FollowersError(pub String);

/// The change from following `old` to following `new`: `+1` for each topic added, `-1` for
/// each one removed; empty when the set is the same.
pub fn follow_deltas(old: &[String], new: &[String]) -> BTreeMap<String, i64> {
    let mut deltas = BTreeMap::new();
    for topic in new.iter().filter(|t| !old.contains(t)) {
        deltas.insert(topic.clone(), 1);
    }
    for topic in old.iter().filter(|t| !new.contains(t)) {
        deltas.insert(topic.clone(), -1);
    }
    deltas
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_are_the_set_difference() {
        let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let d = follow_deltas(&v(&["space", "tech"]), &v(&["tech", "climate"]));
        assert_eq!(
            d,
            BTreeMap::from([("climate".to_string(), 1), ("space".to_string(), -1)])
        );
        assert!(follow_deltas(&v(&["a", "b"]), &v(&["b", "a"])).is_empty());
    }
}
