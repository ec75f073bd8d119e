//! The community indexer: consumes [`IndexRequest`] messages from the search index queue
//! and brings the search index up to date with each post as the posts table holds it now
//! (the facade's `PostSearch::index`), then clears the post's outbox row.
//!
//! Outcomes per message, reported with `ReportBatchItemFailures`:
//! - indexed, already up to date, or a post that never existed: done;
//! - the post needs more index writes than one message may spend (a long post): the request
//!   is sent again and this message is done; if that send fails, it is a batch item failure;
//! - the tables are unavailable or the index stayed contended, or the message is unreadable:
//!   a batch item failure, redelivered and, after `maxReceiveCount`, dead-lettered. The
//!   post's outbox row stays, so the index scheduler asks again later.
//!
//! A batch naming a post twice indexes it once; a batch's posts are indexed a few at once
//! ([`CONCURRENT_POSTS`]). Its own function (not the community function's): only it writes
//! the index, and its concurrency is capped so the index's shared counters rarely conflict.

use std::sync::Arc;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent, SqsMessage};
use community::model::jobs::IndexOutcome;
use community::queues::IndexRequest;
use community::{Community, CommunityError, PostSearch, QueueName};
use community_search::DynamoSearchIndex;
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use platform::aws::AwsClients;
use platform::batch::{Batch, Failures, Unreadable};
use platform::{BoxError, Env, SqsHandler};

/// Index transactions one message may spend: a 50,000-character post fits in about 45,
/// a few seconds of the function's timeout.
pub const MAX_TRANSACTIONS_PER_MESSAGE: usize = 60;

/// Posts of a batch indexed at once. One post takes about 100 ms (a read, then a few
/// transactions), so one invocation indexes about 40 posts a second, and the event source's
/// two invocations about 80: above the 58 a second of 5M posts a day.
pub const CONCURRENT_POSTS: usize = 4;

pub struct CommunityIndexer {
    search: Arc<PostSearch<DynamoSearchIndex>>,
    budget: usize,
}

/// Builds the handler from its environment (`COMMUNITY_TABLE`, `SEARCH_INDEX_TABLE`,
/// `SEARCH_INDEX_QUEUE_URL`): what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let community = Community::from_env(&env, &aws, &[QueueName::Index])?;
    Ok(Arc::new(CommunityIndexer::new(
        PostSearch::from_env(&env, &aws, community)?,
        MAX_TRANSACTIONS_PER_MESSAGE,
    )))
}

impl CommunityIndexer {
    pub fn new(search: PostSearch<DynamoSearchIndex>, budget: usize) -> Self {
        Self {
            search: Arc::new(search),
            budget: budget.max(1),
        }
    }
}

/// The batch's posts in first-seen order with their message ids, and the unreadable ones.
fn group_by_post(records: Vec<SqsMessage>) -> (Vec<(String, Vec<String>)>, Vec<String>) {
    let (posts, unreadable) =
        Batch::<IndexRequest>::read_records(records, "index request", Unreadable::Retry)
            .distinct_by(|request| request.post_id.clone());
    let posts = posts
        .into_iter()
        .map(|(request, ids)| (request.post_id, ids))
        .collect();
    (posts, unreadable.ids().to_vec())
}

/// Indexes one post (the facade continues a long one in a new message); false when it is to
/// come back.
async fn index_one(search: &PostSearch<DynamoSearchIndex>, post_id: &str, budget: usize) -> bool {
    match search.index(post_id, budget).await {
        Ok(IndexOutcome::Done) => {
            tracing::info!(%post_id, "post indexed");
            true
        }
        Ok(IndexOutcome::Paused) => {
            tracing::info!(%post_id, "long post: indexing continues");
            true
        }
        Err(CommunityError::Queue(error)) => {
            tracing::warn!(%post_id, %error, "could not continue indexing");
            false
        }
        Err(error) => {
            tracing::warn!(%post_id, %error, "indexing failed; will be retried");
            false
        }
    }
}

impl SqsHandler for CommunityIndexer {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let search = Arc::clone(&self.search);
        let budget = self.budget;
        async move {
            let (posts, unreadable) = group_by_post(event.records);
            let mut failures = Failures::default();
            failures.retry_all(unreadable);
            // A batch's posts at once, a few at a time: each post's index writes are its own
            // transactions, and posts meet only on shared counters, whose conflicts retry.
            let failed: Vec<Vec<String>> = futures::stream::iter(posts)
                .map(|(post_id, message_ids)| {
                    let search = Arc::clone(&search);
                    async move {
                        if index_one(&search, &post_id, budget).await {
                            Vec::new()
                        } else {
                            message_ids
                        }
                    }
                })
                .buffer_unordered(CONCURRENT_POSTS)
                .collect()
                .await;
            failures.retry_all(failed.into_iter().flatten());
            Ok(failures.into_response())
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: &str, body: &str) -> SqsMessage {
        let mut m = SqsMessage::default();
        m.message_id = Some(id.into());
        m.body = Some(body.into());
        m
    }

    #[test]
    fn repeated_posts_are_indexed_once_and_junk_is_set_aside() {
        let a = IndexRequest::new("5b0f3c1e-0000-4000-8000-00000000000a").to_json();
        let b = IndexRequest::new("5b0f3c1e-0000-4000-8000-00000000000b").to_json();
        let (posts, unreadable) = group_by_post(vec![
            message("1", &a),
            message("2", "junk"),
            message("3", &b),
            message("4", &a),
        ]);
        assert_eq!(
            posts,
            vec![
                (
                    "5b0f3c1e-0000-4000-8000-00000000000a".to_string(),
                    vec!["1".to_string(), "4".to_string()]
                ),
                (
                    "5b0f3c1e-0000-4000-8000-00000000000b".to_string(),
                    vec!["3".to_string()]
                ),
            ]
        );
        assert_eq!(unreadable, vec!["2".to_string()]);
    }
}
