//! The community sweeper: consumes [`AccountCleanup`] messages from the cleanup queue and
//! undoes a deleted user's posts, comments, reactions, bookmarks and comment likes, one
//! bounded step per message (`community::store::cleanup`).
//!
//! Outcomes per message: see [`platform::accounts::Sweeper`].
//!
//! Posts it soft-deletes are sent to the search indexer (their outbox rows are written in
//! the same transactions, so the index scheduler catches any send that fails).
//!
//! Its own function: only it deletes other users' marks in bulk (least privilege), and its
//! steps must not compete with the API for the community function's concurrency.

use community::{Community, IndexQueue};
use futures::future::BoxFuture;
use futures::FutureExt;
use platform::accounts::{CleanupSteps, Sweeper};
use platform::aws::AwsClients;
use platform::{BoxError, Env, SqsHandler};

/// One step of the community's cleanup of a user.
pub struct CommunityCleanup {
    community: Community,
    index: IndexQueue,
}

/// Builds the handler from its environment (`COMMUNITY_TABLE`,
/// `COMMUNITY_CLEANUP_QUEUE_URL`, `SEARCH_INDEX_QUEUE_URL`): what a cold start does.
pub async fn handler(env: Env) -> Result<std::sync::Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let steps = CommunityCleanup {
        community: Community::from_env(&env, &aws)?,
        index: IndexQueue::from_env(&env, aws.sqs())?,
    };
    let queue = community::cleanup::cleanup_queue(&env, aws.sqs())?;
    Ok(std::sync::Arc::new(Sweeper::new(steps, queue)))
}

impl CleanupSteps for CommunityCleanup {
    fn step<'a>(&'a self, user_id: &'a str) -> BoxFuture<'a, Result<bool, BoxError>> {
        async move {
            let step = self.community.cleanup_step(user_id).await?;
            if !step.deleted_posts.is_empty() {
                if let Err(error) = self.index.request_all(&step.deleted_posts).await {
                    tracing::warn!(%error, "index requests not sent; the index scheduler will");
                }
            }
            tracing::info!(
                user_id,
                handled = step.handled,
                posts = step.deleted_posts.len(),
                finished = step.finished,
                "account cleanup step"
            );
            Ok(step.finished)
        }
        .boxed()
    }
}
