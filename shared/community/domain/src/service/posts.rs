//! Writing and reading posts: each write is one transaction (`crate::store`), then asks
//! the indexer to catch up and, when it wants one, the summarizer for a summary.

use crate::error::CommunityError;
use crate::identity::Identity;
use crate::input::{
    CardIds, ExcerptChange, PageRequest, PostId, PostInput, PostPatch, PostStatus, UserId,
};
use crate::model::{Post, PostCard, PostPage};
use crate::queues::SummaryRequest;
use crate::store::post_write::{PostState, WriteError};
use crate::store::posts::{PostBody, StoredPost};

use super::{author_of, full, page_of, rendered, with_marks, Community};

/// Attempts of a post write against concurrent writers (a version or topic race) before
/// answering 503.
const WRITE_ATTEMPTS: u32 = 4;

impl Community {
    /// Creates a post by `caller`, snapshotting their name from identity. Status defaults to
    /// PUBLISHED; the excerpt is generated when omitted; unknown topics are created.
    /// Then asks the indexer and, when the post wants a summary, the summarizer (their
    /// outbox rows are written with the post).
    pub async fn create_post(
        &self,
        identity: &impl Identity,
        caller: &UserId,
        input: PostInput,
    ) -> Result<Post, CommunityError> {
        let profile = identity
            .profile(caller)
            .await
            .map_err(CommunityError::from)?
            .ok_or(CommunityError::AccountGone)?;
        let author = author_of(&profile);
        let id = PostId::generate();
        for attempt in 1..=WRITE_ATTEMPTS {
            let state = self.state_of(&input).await?;
            match self
                .store
                .write_post(id.as_str(), &author, None, &state, true)
                .await
            {
                Ok((post, summary)) => {
                    let post = rendered(full(post, state.body));
                    self.after_write(&post, summary.as_ref()).await;
                    self.notify_post_mentions(identity, &post).await;
                    return Ok(post);
                }
                Err(e) => retry_or_fail(e, attempt).await?,
            }
        }
        Err(CommunityError::Busy)
    }

    /// A post for `caller`: drafts only for their author (else not found). Reading writes
    /// nothing: views come from the page's beacon ([`Community::view`]).
    pub async fn post(&self, id: &PostId, caller: Option<&UserId>) -> Result<Post, CommunityError> {
        let (post, body, marks) = futures::try_join!(
            async { Ok::<_, CommunityError>(self.store.post(id.as_str()).await?) },
            async { Ok::<_, CommunityError>(self.store.body(id.as_str()).await?) },
            self.marks_of(id.as_str(), caller)
        )?;
        let post = post
            .filter(|p| p.visible_to(caller.map(UserId::as_str)))
            .ok_or(CommunityError::PostNotFound)?;
        Ok(rendered(with_marks(full(post, body), marks)))
    }

    /// Replaces every field of the caller's post (status defaulting to PUBLISHED); then its
    /// requests, as [`Community::create_post`].
    pub async fn replace_post(
        &self,
        id: &PostId,
        caller: &UserId,
        input: PostInput,
    ) -> Result<Post, CommunityError> {
        self.edit(id, caller, || Edit::Replace(input.clone())).await
    }

    /// Changes the given fields of the caller's post; then its requests.
    pub async fn patch_post(
        &self,
        id: &PostId,
        caller: &UserId,
        patch: PostPatch,
    ) -> Result<Post, CommunityError> {
        self.edit(id, caller, || Edit::Patch(patch.clone())).await
    }

    async fn edit(
        &self,
        id: &PostId,
        caller: &UserId,
        edit: impl Fn() -> Edit,
    ) -> Result<Post, CommunityError> {
        for attempt in 1..=WRITE_ATTEMPTS {
            let (before, body) =
                futures::try_join!(self.store.post(id.as_str()), self.store.body(id.as_str()))?;
            let before = before
                .filter(|p| p.visible_to(Some(caller.as_str())))
                .ok_or(CommunityError::PostNotFound)?;
            if before.author_id != caller.as_str() {
                return Err(CommunityError::NotAuthor);
            }
            let input = edit().into_input(&before, &body);
            let body_changed = input.body != body;
            let names = input.topics.clone();
            let resolved = self.store.resolve_topics(&names).await?;
            let state = PostState {
                title: input.title,
                excerpt: input.excerpt,
                excerpt_generated: input.excerpt_generated,
                cover_image_url: input.cover_image_url,
                read_time_minutes: input.read_time_minutes,
                word_count: input.word_count,
                body: input.body,
                status: input.status,
                topics: resolved,
            };
            match self
                .store
                .write_post(
                    id.as_str(),
                    &before.author,
                    Some(&before),
                    &state,
                    body_changed,
                )
                .await
            {
                Ok((post, summary)) => {
                    let post = rendered(full(post, state.body));
                    self.after_write(&post, summary.as_ref()).await;
                    return Ok(post);
                }
                Err(e) => retry_or_fail(e, attempt).await?,
            }
        }
        Err(CommunityError::Busy)
    }

    async fn state_of(&self, input: &PostInput) -> Result<PostState, CommunityError> {
        let topics = self.store.resolve_topics(input.topics.names()).await?;
        let (excerpt, generated) = match &input.excerpt {
            Some(e) => (e.as_str().to_string(), false),
            None => (input.content.generated_excerpt(), true),
        };
        Ok(PostState {
            title: input.title.as_str().to_string(),
            excerpt,
            excerpt_generated: generated,
            cover_image_url: input
                .cover_image_url
                .as_ref()
                .map(|u| u.as_str().to_string()),
            body: PostBody {
                content: input.content.as_str().to_string(),
                source_urls: input
                    .source_urls
                    .urls()
                    .iter()
                    .map(|u| u.as_str().to_string())
                    .collect(),
            },
            read_time_minutes: i64::try_from(input.content.read_time_minutes()).unwrap_or(i64::MAX),
            word_count: i64::try_from(input.content.word_count()).unwrap_or(i64::MAX),
            status: input.status,
            topics,
        })
    }

    /// Published posts, newest first: of one topic (matched by slug; unknown is an empty
    /// page) or of all.
    pub async fn posts(
        &self,
        topic: Option<&str>,
        page: PageRequest,
    ) -> Result<PostPage, CommunityError> {
        let (topic_id, total) = match topic {
            Some(name) => {
                let slug = crate::input::slug(name);
                let found = if slug.is_empty() {
                    None
                } else {
                    self.store.topic_by_slug(&slug).await?
                };
                match found {
                    Some(t) => (Some(t.id), t.total_post_count),
                    None => return Ok(page_of(Vec::new(), &page, 0, None)),
                }
            }
            None => (None, self.store.published_count().await?),
        };
        let (rows, next) = self.store.feed_page(topic_id.as_deref(), &page).await?;
        let posts = rows
            .into_iter()
            .filter(|(p, _)| p.is_public())
            .map(|(p, b)| full(p, b))
            .collect();
        Ok(page_of(posts, &page, total, next))
    }

    /// Cards of these posts in the order asked; unknown, deleted and draft posts left out.
    pub async fn cards(&self, ids: &CardIds) -> Result<Vec<PostCard>, CommunityError> {
        let ids: Vec<String> = ids.ids().iter().map(|i| i.as_str().to_string()).collect();
        Ok(self
            .store
            .posts(&ids)
            .await?
            .into_iter()
            .filter(StoredPost::is_public)
            .map(card)
            .collect())
    }

    /// What follows a post write: the index request, then the summary request if one is
    /// wanted (each only logged when it fails: the outboxes send them again).
    async fn after_write(&self, post: &Post, summary: Option<&SummaryRequest>) {
        self.request_index(&post.id).await;
        self.request_summary(summary).await;
        if post.status == PostStatus::Published.as_str() {
            self.name_author(&post.author).await;
        }
    }
}

/// A replace or a patch, turned into the post's whole next state.
enum Edit {
    Replace(PostInput),
    Patch(PostPatch),
}

/// A post's next state before its topics are resolved.
struct NextState {
    title: String,
    excerpt: String,
    excerpt_generated: bool,
    cover_image_url: Option<String>,
    body: PostBody,
    read_time_minutes: i64,
    word_count: i64,
    status: PostStatus,
    topics: Vec<crate::input::TopicName>,
}

impl Edit {
    fn into_input(self, before: &StoredPost, body: &PostBody) -> NextState {
        match self {
            Edit::Replace(input) => {
                let (excerpt, generated) = match &input.excerpt {
                    Some(e) => (e.as_str().to_string(), false),
                    None => (input.content.generated_excerpt(), true),
                };
                NextState {
                    title: input.title.as_str().to_string(),
                    excerpt,
                    excerpt_generated: generated,
                    cover_image_url: input.cover_image_url.map(|u| u.as_str().to_string()),
                    read_time_minutes: i64::try_from(input.content.read_time_minutes())
                        .unwrap_or(i64::MAX),
                    word_count: i64::try_from(input.content.word_count()).unwrap_or(i64::MAX),
                    body: PostBody {
                        content: input.content.as_str().to_string(),
                        source_urls: input
                            .source_urls
                            .urls()
                            .iter()
                            .map(|u| u.as_str().to_string())
                            .collect(),
                    },
                    status: input.status,
                    topics: input.topics.names().to_vec(),
                }
            }
            Edit::Patch(patch) => {
                let content = patch
                    .content
                    .as_ref()
                    .map_or_else(|| body.content.clone(), |c| c.as_str().to_string());
                let (read_time, words) = match &patch.content {
                    Some(c) => (
                        i64::try_from(c.read_time_minutes()).unwrap_or(i64::MAX),
                        i64::try_from(c.word_count()).unwrap_or(i64::MAX),
                    ),
                    None => (before.read_time_minutes, before.word_count),
                };
                let generate = |text: &str| {
                    crate::input::Content::parse(text)
                        .map(|c| c.generated_excerpt())
                        .unwrap_or_default()
                };
                // A generated excerpt follows the content; a written one stays until changed.
                let (excerpt, generated) = match patch.excerpt {
                    Some(ExcerptChange::Given(e)) => (e.as_str().to_string(), false),
                    Some(ExcerptChange::Generate) => (generate(&content), true),
                    None if before.excerpt_generated && patch.content.is_some() => {
                        (generate(&content), true)
                    }
                    None => (before.excerpt.clone(), before.excerpt_generated),
                };
                let topics = match patch.topics {
                    Some(t) => t.names().to_vec(),
                    None => before
                        .topics
                        .iter()
                        .filter_map(|t| crate::input::TopicName::parse("topics", &t.name).ok())
                        .collect(),
                };
                NextState {
                    title: patch
                        .title
                        .map_or_else(|| before.title.clone(), |t| t.as_str().to_string()),
                    excerpt,
                    excerpt_generated: generated,
                    cover_image_url: match patch.cover_image_url {
                        Some(c) => c.map(|u| u.as_str().to_string()),
                        None => before.cover_image_url.clone(),
                    },
                    read_time_minutes: read_time,
                    word_count: words,
                    body: PostBody {
                        content,
                        source_urls: patch.source_urls.map_or_else(
                            || body.source_urls.clone(),
                            |s| s.urls().iter().map(|u| u.as_str().to_string()).collect(),
                        ),
                    },
                    status: patch.status.unwrap_or(before.status),
                    topics,
                }
            }
        }
    }
}

/// Waits a moment and lets the caller try again on a race, or maps the failure.
async fn retry_or_fail(e: WriteError, attempt: u32) -> Result<(), CommunityError> {
    match e {
        WriteError::Stale | WriteError::Race => {
            tracing::debug!(attempt, reason = %e, "post write raced; again");
            tokio::time::sleep(platform::dynamo::RetryPolicy::CONFLICTS.backoff(attempt)).await;
            Ok(())
        }
        WriteError::AccountGone => Err(CommunityError::AccountGone),
        WriteError::TooLarge(reason) => Err(CommunityError::Store(
            platform::dynamo::DynamoError::Build {
                operation: "TransactWriteItems",
                table: "community".into(),
                message: reason,
            },
        )),
        WriteError::Store(e) => Err(CommunityError::Store(e)),
    }
}

fn card(post: StoredPost) -> PostCard {
    PostCard {
        id: post.id,
        author: post.author,
        title: post.title,
        excerpt: post.excerpt,
        topics: post.topics,
        read_time_minutes: post.read_time_minutes,
        like_count: post.like_count,
        comment_count: post.comment_count,
        view_count: post.view_count,
        is_liked_by_me: false,
        created_at: post.created_at,
    }
}
