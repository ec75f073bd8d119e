//! The community view counter: consumes [`ViewRequest`] messages from the view queue (one per
//! view beacon) and counts them, a batch at a time: per post, the views new for their reader
//! and hour (each claimed by a conditional put of its dedupe row) go into the post's
//! `viewCount` with one `ADD` (`community`'s view counting). A redelivered message finds its row and
//! counts nothing again.
//!
//! It is also the reaction counter, on the reaction queue: [`ReactionChange`] messages,
//! counted per post with one `ADD` and each member row's `counted` set in the same
//! transaction (the facade's `count_reactions`), so a redelivered message counts nothing twice.
//!
//! And it is the notification fan-out, on the notification queue: each [`NotificationEvent`]
//! (a comment, a post's mentions, a removal, a resolved report) goes to the facade's
//! `deliver`, which writes each recipient's inbox row only when absent, so a redelivered
//! event notifies nobody twice; a failure gives the message back.
//!
//! Outcomes per message, reported with `ReportBatchItemFailures`:
//! - counted, already counted, or on a post that is gone or not published: done;
//! - unreadable: logged and dropped (a view is not worth a dead letter);
//! - the table failed or stayed contended: every message of that post is a batch item
//!   failure, and comes back.

use std::sync::Arc;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent, SqsMessage};
use community::{Community, NotificationEvent, ReactionChange, ViewRequest};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use platform::aws::AwsClients;
use platform::batch::Failures;
use platform::{BoxError, Env, SqsHandler};

/// Posts counted at once: a batch's posts are independent items, and each post's counting
/// is a read, its views' puts and one update.
pub const CONCURRENT_POSTS: usize = 8;

pub struct ViewCounter {
    community: Arc<Community>,
}

/// Builds the handler from its environment (`COMMUNITY_TABLE`): what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    Ok(Arc::new(ViewCounter::new(Community::from_env(
        &env,
        &aws,
        &[],
    )?)))
}

impl ViewCounter {
    pub fn new(community: Community) -> Self {
        Self {
            community: Arc::new(community),
        }
    }
}

/// One post's views of a batch.
#[derive(Debug, PartialEq, Eq)]
struct PostViews {
    post_id: String,
    views: Vec<(String, i64)>,
    message_ids: Vec<String>,
}

/// One post's reaction changes of a batch.
#[derive(Debug, PartialEq, Eq)]
struct PostReactions {
    post_id: String,
    members: Vec<String>,
    message_ids: Vec<String>,
}

/// The batch's reaction changes grouped by post; the other messages are given back.
fn reactions_by_post(records: Vec<SqsMessage>) -> (Vec<PostReactions>, Vec<SqsMessage>) {
    let mut posts: Vec<PostReactions> = Vec::new();
    let mut others = Vec::new();
    for record in records {
        let Ok(change) = ReactionChange::parse(record.body.as_deref().unwrap_or("")) else {
            others.push(record);
            continue;
        };
        let id = record.message_id.unwrap_or_default();
        match posts.iter_mut().find(|p| p.post_id == change.post_id) {
            Some(post) => {
                post.members.push(change.member_id);
                post.message_ids.push(id);
            }
            None => posts.push(PostReactions {
                post_id: change.post_id,
                members: vec![change.member_id],
                message_ids: vec![id],
            }),
        }
    }
    (posts, others)
}

/// The batch's notification events (with their message ids); the other messages given back.
fn notification_events(
    records: Vec<SqsMessage>,
) -> (Vec<(String, NotificationEvent)>, Vec<SqsMessage>) {
    let mut events = Vec::new();
    let mut others = Vec::new();
    for record in records {
        match NotificationEvent::parse(record.body.as_deref().unwrap_or("")) {
            Ok(event) => events.push((record.message_id.unwrap_or_default(), event)),
            Err(_) => others.push(record),
        }
    }
    (events, others)
}

/// The batch's views grouped by post, in first-seen order; unreadable messages dropped.
fn group_by_post(records: Vec<SqsMessage>) -> Vec<PostViews> {
    let mut posts: Vec<PostViews> = Vec::new();
    for record in records {
        let id = record.message_id.unwrap_or_default();
        match ViewRequest::parse(record.body.as_deref().unwrap_or("")) {
            Ok(view) => {
                let at = match posts.iter().position(|p| p.post_id == view.post_id) {
                    Some(at) => at,
                    None => {
                        posts.push(PostViews {
                            post_id: view.post_id.clone(),
                            views: Vec::new(),
                            message_ids: Vec::new(),
                        });
                        posts.len() - 1
                    }
                };
                if let Some(post) = posts.get_mut(at) {
                    post.views.push((view.reader, view.hour));
                    post.message_ids.push(id);
                }
            }
            Err(error) => tracing::warn!(message_id = %id, %error, "unreadable view; dropped"),
        }
    }
    posts
}

impl SqsHandler for ViewCounter {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let community = Arc::clone(&self.community);
        async move {
            let (events, records) = notification_events(event.records);
            let notifications_failed: Vec<Vec<String>> = futures::stream::iter(events)
                .map(|(message_id, event)| {
                    let community = Arc::clone(&community);
                    async move {
                        match community.deliver(&event).await {
                            Ok(written) => {
                                tracing::info!(%message_id, written, "notifications delivered");
                                Vec::new()
                            }
                            Err(error) => {
                                tracing::warn!(%message_id, %error, "notifications not delivered; will be retried");
                                vec![message_id]
                            }
                        }
                    }
                })
                .buffer_unordered(CONCURRENT_POSTS)
                .collect()
                .await;
            let (reactions, views) = reactions_by_post(records);
            let posts = group_by_post(views);
            let reactions_failed: Vec<Vec<String>> = futures::stream::iter(reactions)
                .map(|post| {
                    let community = Arc::clone(&community);
                    async move {
                        match community.count_reactions(&post.post_id, &post.members).await {
                            Ok((likes, dislikes)) => {
                                tracing::info!(post_id = %post.post_id, likes, dislikes, "reactions counted");
                                Vec::new()
                            }
                            Err(error) => {
                                tracing::warn!(post_id = %post.post_id, %error, "reactions not counted; will be retried");
                                post.message_ids
                            }
                        }
                    }
                })
                .buffer_unordered(CONCURRENT_POSTS)
                .collect()
                .await;
            let failed: Vec<Vec<String>> = futures::stream::iter(posts)
                .map(|post| {
                    let community = Arc::clone(&community);
                    async move {
                        match community.count_views(&post.post_id, &post.views).await {
                            Ok(counted) => {
                                tracing::info!(post_id = %post.post_id, counted, "views counted");
                                Vec::new()
                            }
                            Err(error) => {
                                tracing::warn!(post_id = %post.post_id, %error, "views not counted; will be retried");
                                post.message_ids
                            }
                        }
                    }
                })
                .buffer_unordered(CONCURRENT_POSTS)
                .collect()
                .await;
            let mut failures = Failures::default();
            failures.retry_all(
                failed
                    .into_iter()
                    .chain(reactions_failed)
                    .chain(notifications_failed)
                    .flatten(),
            );
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
    fn views_are_grouped_by_post_and_junk_is_dropped() {
        let a = "5b0f3c1e-0000-4000-8000-00000000000a";
        let b = "5b0f3c1e-0000-4000-8000-00000000000b";
        let view = |post: &str, user: &str| {
            ViewRequest::new(post, &community::queues::Reader::member(user), 7).to_json()
        };
        let posts = group_by_post(vec![
            message("1", &view(a, "x")),
            message("2", "junk"),
            message("3", &view(b, "x")),
            message("4", &view(a, "y")),
        ]);
        let ids = |ids: &[&str]| ids.iter().map(|i| i.to_string()).collect::<Vec<_>>();
        assert_eq!(
            posts,
            vec![
                PostViews {
                    post_id: a.to_string(),
                    views: vec![("u.x".to_string(), 7), ("u.y".to_string(), 7)],
                    message_ids: ids(&["1", "4"]),
                },
                PostViews {
                    post_id: b.to_string(),
                    views: vec![("u.x".to_string(), 7)],
                    message_ids: ids(&["3"]),
                },
            ]
        );
    }
}
