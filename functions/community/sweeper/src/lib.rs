//! The community sweeper: consumes [`AccountCleanup`] messages from the cleanup queue and
//! undoes a deleted user's posts, comments, reactions, bookmarks and comment likes, one
//! bounded step per message (the facade's `cleanup_step`).
//!
//! Outcomes per message: see [`platform::accounts::Sweeper`].
//!
//! Posts it soft-deletes are sent to the search indexer (their outbox rows are written in
//! the same transactions, so the index scheduler catches any send that fails).
//!
//! Its own function: only it deletes other users' marks in bulk (least privilege), and its
//! steps must not compete with the API for the community function's concurrency.

use community::{Community, QueueName};
use futures::future::BoxFuture;
use futures::FutureExt;
use platform::accounts::{CleanupSteps, Sweeper};
use platform::aws::AwsClients;
use platform::{BoxError, Env, SqsHandler};

/// One step of the community's cleanup of a user.
pub struct CommunityCleanup {
    community: Community,
}

/// Builds the handler from its environment (`COMMUNITY_TABLE`,
/// `COMMUNITY_CLEANUP_QUEUE_URL`, `SEARCH_INDEX_QUEUE_URL`): what a cold start does.
pub async fn handler(env: Env) -> Result<std::sync::Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let steps = CommunityCleanup {
        community: Community::from_env(&env, &aws, &[QueueName::Index])?,
    };
    let queue = community::queues::cleanup_queue(&env, aws.sqs())?;
    Ok(std::sync::Arc::new(Sweeper::new(steps, queue)))
}

impl CleanupSteps for CommunityCleanup {
    fn step<'a>(&'a self, user_id: &'a str) -> BoxFuture<'a, Result<bool, BoxError>> {
        async move {
            let step = self.community.cleanup_step(user_id).await?;
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
