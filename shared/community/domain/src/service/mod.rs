//! [`Community`], the facade of the community product: the only door to its table, for the
//! community function's handlers and its workers alike. One call per request or message,
//! inputs already parsed into [`crate::input`] types; each call commits, then sends its own
//! follow-up messages ([`crate::queues`]). One file per area:
//!
//! - [`posts`]: writing and reading posts (with their index and summary requests);
//! - [`topics`]: the catalog, topic statistics and follower deltas;
//! - [`social`]: reactions and bookmarks; [`comments`]: comments and their likes;
//! - [`lists`]: a user's lists; [`moderation`]: deletes, removals and the log;
//! - [`summary`]: summaries (their design), the admin's calls and the summarizer's;
//! - [`search`]: [`PostSearch`], search and the index's upkeep;
//! - [`counters`]: the view and reaction counters' calls;
//! - [`cleanup`]: account deletion and its sweeper;
//! - [`upkeep`]: the index scheduler's rescues and migrations;
//! - [`notifications`]: the inbox and the fan-out's delivery; [`reports`]: members' reports
//!   and the admins' queue.

mod cleanup;
mod comments;
mod counters;
mod feeds;
mod lists;
mod moderation;
mod notifications;
mod posts;
mod reports;
mod search;
mod social;
mod summary;
mod topics;
mod upkeep;

pub use comments::MAX_COMMENTS_PER_POST;
pub use feeds::{FeedAnswer, FeedScope};
pub use search::PostSearch;
pub use summary::SummaryJob;

use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::{Clock, ConfigError, Env};

use crate::error::CommunityError;
use crate::identity::Profile;
use crate::input::PageRequest;
use crate::model::social::ReactionKind;
use crate::model::{Author, Post, PostPage};
use crate::queues::{index_requests, IndexRequest, QueueName, Queues, SummaryRequest};
use crate::store::posts::{PostBody, StoredPost};
use crate::store::social::Marks;
use crate::store::Store;
use summary::summary_of;

/// The community service: its table, its clock and the queues of its follow-ups.
#[derive(Clone, Debug)]
pub struct Community {
    store: Store,
    queues: Queues,
}

impl Community {
    /// The service on `table`, its writes stamped by `clock`, sending no follow-ups (a test's:
    /// the outboxes catch up with what it leaves unsent).
    pub fn new(table: Table, clock: Clock) -> Self {
        Self {
            store: Store::new(table, clock),
            queues: Queues::default(),
        }
    }

    /// The service sending its follow-ups to `queues`.
    pub fn sending_to(mut self, queues: Queues) -> Self {
        self.queues = queues;
        self
    }

    /// The service on `COMMUNITY_TABLE`, with the system clock, sending to the queues `sends`
    /// (each from its environment variable).
    pub fn from_env(env: &Env, aws: &AwsClients, sends: &[QueueName]) -> Result<Self, ConfigError> {
        let table = Table::from_env(env, aws, "COMMUNITY_TABLE")?;
        Ok(Self::new(table, Clock::system()).sending_to(Queues::from_env(env, &aws.sqs(), sends)?))
    }

    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// The service's clock.
    pub fn clock(&self) -> &Clock {
        self.store.clock()
    }

    /// Asks the indexer to catch up with a post just written. A failure is only logged: the
    /// post's outbox row makes the index scheduler send it again.
    pub(crate) async fn request_index(&self, post_id: &str) {
        let Some(queue) = &self.queues.index else {
            return;
        };
        if let Err(error) = queue.send(&IndexRequest::new(post_id)).await {
            tracing::warn!(post_id, %error, "index request not sent; the index scheduler will");
        }
    }

    /// Asks for several posts at once; a failure only logged, as [`Self::request_index`].
    pub(crate) async fn request_index_all(&self, post_ids: &[String]) {
        let Some(queue) = &self.queues.index else {
            return;
        };
        if post_ids.is_empty() {
            return;
        }
        if let Err(error) = queue.send_all(&index_requests(post_ids)).await {
            tracing::warn!(%error, "index requests not sent; the index scheduler will");
        }
    }

    /// Asks the summarizer for the summary a post write wants. A failure is only logged: the
    /// post's outbox row makes the index scheduler send it again.
    pub(crate) async fn request_summary(&self, request: Option<&SummaryRequest>) {
        let (Some(request), Some(queue)) = (request, &self.queues.summary) else {
            return;
        };
        if let Err(error) = queue.send(request).await {
            tracing::warn!(post_id = %request.post_id, %error,
                "summary request not sent; the index scheduler will");
        }
    }
}

/// A queue this facade was built without, for a call that cannot answer without sending.
fn unconfigured(queue: &str) -> CommunityError {
    CommunityError::Queue(format!("the {queue} queue is not configured"))
}

pub(crate) fn author_of(profile: &Profile) -> Author {
    Author {
        id: profile.id.clone(),
        username: profile.username.clone(),
        display_name: if profile.display_name.trim().is_empty() {
            profile.username.clone()
        } else {
            profile.display_name.clone()
        },
        role: profile.role().to_string(),
        organisation: None,
    }
}

pub(crate) fn full(post: StoredPost, body: PostBody) -> Post {
    let summary = summary_of(&post.summary);
    Post {
        id: post.id,
        author: post.author,
        status: post.status.as_str().to_string(),
        title: post.title,
        excerpt: post.excerpt,
        summary: summary.summary,
        summary_status: summary.status,
        summary_generated_at: summary.generated_at,
        summary_model: summary.model,
        content: body.content,
        content_html: None,
        cover_image_url: post.cover_image_url,
        source_url: body.source_urls,
        topics: post.topics,
        read_time_minutes: post.read_time_minutes,
        like_count: post.like_count,
        dislike_count: post.dislike_count,
        comment_count: post.comment_count,
        view_count: post.view_count,
        save_count: post.save_count,
        // Reactions and bookmarks come with the social part; until then nobody has any.
        is_liked_by_me: false,
        is_disliked_by_me: false,
        is_bookmarked_by_me: false,
        created_at: post.created_at,
        updated_at: post.updated_at,
    }
}

/// A post as a single post's answer carries it: with its content rendered.
pub(crate) fn rendered(mut post: Post) -> Post {
    post.content_html = Some(crate::markdown::to_html(&post.content));
    post
}

/// A post with the caller's reaction and bookmark.
pub(crate) fn with_marks(mut post: Post, marks: Marks) -> Post {
    post.is_liked_by_me = marks.reaction == Some(ReactionKind::Like);
    post.is_disliked_by_me = marks.reaction == Some(ReactionKind::Dislike);
    post.is_bookmarked_by_me = marks.bookmarked;
    (post.like_count, post.dislike_count) = marks.counts(post.like_count, post.dislike_count);
    post
}

pub(crate) fn page_of(
    content: Vec<Post>,
    page: &PageRequest,
    total: i64,
    next_cursor: Option<String>,
) -> PostPage {
    let total = u64::try_from(total).unwrap_or(0);
    PostPage {
        content,
        page: page.page,
        size: page.size,
        total_pages: total.div_ceil(u64::from(page.size)),
        total_elements: total,
        next_cursor,
    }
}
