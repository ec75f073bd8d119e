//! [`Community`], the facade the community function's handlers call: one call per request,
//! inputs already parsed into [`crate::input`] types.

use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::{Clock, Env};

use crate::error::CommunityError;
use crate::identity::{Identity, Profile};
use crate::input::{
    CardIds, ExcerptChange, FollowerDeltas, IdempotencyKey, PageRequest, PostId, PostInput,
    PostPatch, PostStatus, TopicIds, UserId,
};
use crate::model::{Author, Post, PostCard, PostPage, Topic, TopicCategory, TopicRef};
use crate::stats::{day_of, CATEGORIES};
use crate::store::posts::{PostBody, PostState, StoredPost, WriteError};
use crate::store::topics::{ApplyError, StoredTopic};
use crate::store::Store;
use crate::summary::{summary_of, SummaryRequest};

/// Attempts of a post write against concurrent writers (a version or topic race) before
/// answering 503.
const WRITE_ATTEMPTS: u32 = 4;

/// The community service.
#[derive(Clone, Debug)]
pub struct Community {
    store: Store,
}

impl Community {
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The service on `COMMUNITY_TABLE`, with the system clock.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, platform::ConfigError> {
        let table = Table::from_env(env, aws, "COMMUNITY_TABLE")?;
        Ok(Self::new(Store::new(table, Clock::system())))
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Creates a post by `caller`, snapshotting their name from identity. Status defaults to
    /// PUBLISHED; the excerpt is generated when omitted; unknown topics are created.
    ///
    /// Answers the post and, when it wants a summary, the request to send to the summary
    /// queue (its outbox row is already written).
    pub async fn create_post(
        &self,
        identity: &impl Identity,
        caller: &UserId,
        input: PostInput,
    ) -> Result<(Post, Option<SummaryRequest>), CommunityError> {
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
                Ok((post, summary)) => return Ok((full(post, state.body), summary)),
                Err(e) => retry_or_fail(e, attempt).await?,
            }
        }
        Err(CommunityError::Busy)
    }

    /// A post for `caller`: drafts only for their author (else not found). Reading writes
    /// nothing: views come from the page's beacon ([`crate::views`]).
    pub async fn post(&self, id: &PostId, caller: Option<&UserId>) -> Result<Post, CommunityError> {
        let (post, body, marks) = futures::try_join!(
            async { Ok::<_, CommunityError>(self.store.post(id.as_str()).await?) },
            async { Ok::<_, CommunityError>(self.store.body(id.as_str()).await?) },
            self.marks_of(id.as_str(), caller)
        )?;
        let post = post
            .filter(|p| p.visible_to(caller.map(UserId::as_str)))
            .ok_or(CommunityError::PostNotFound)?;
        Ok(with_marks(full(post, body), marks))
    }

    /// Replaces every field of the caller's post (status defaulting to PUBLISHED); with the
    /// summary request to send, as [`Community::create_post`].
    pub async fn replace_post(
        &self,
        id: &PostId,
        caller: &UserId,
        input: PostInput,
    ) -> Result<(Post, Option<SummaryRequest>), CommunityError> {
        self.edit(id, caller, || Edit::Replace(input.clone())).await
    }

    /// Changes the given fields of the caller's post; with the summary request to send.
    pub async fn patch_post(
        &self,
        id: &PostId,
        caller: &UserId,
        patch: PostPatch,
    ) -> Result<(Post, Option<SummaryRequest>), CommunityError> {
        self.edit(id, caller, || Edit::Patch(patch.clone())).await
    }

    async fn edit(
        &self,
        id: &PostId,
        caller: &UserId,
        edit: impl Fn() -> Edit,
    ) -> Result<(Post, Option<SummaryRequest>), CommunityError> {
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
                Ok((post, summary)) => return Ok((full(post, state.body), summary)),
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

    /// The catalog: every category (in order) with its public topics and their statistics.
    pub async fn catalog(&self) -> Result<Vec<TopicCategory>, CommunityError> {
        let topics = self.topic_stats().await?;
        Ok(CATEGORIES
            .iter()
            .map(|c| TopicCategory {
                id: c.id.to_string(),
                label: c.label.to_string(),
                sort_order: c.sort_order,
                topics: topics
                    .iter()
                    .filter(|t| t.category_id == c.id)
                    .cloned()
                    .collect(),
            })
            .collect())
    }

    /// Every public topic with its statistics, in catalog order: category, sort order, slug.
    pub async fn topic_stats(&self) -> Result<Vec<Topic>, CommunityError> {
        let today = day_of(self.store.clock().now());
        let mut topics: Vec<Topic> = self
            .store
            .all_topics()
            .await?
            .into_iter()
            .map(|t| topic(t, today))
            .collect();
        let category_rank = |id: &str| {
            CATEGORIES
                .iter()
                .position(|c| c.id == id)
                .unwrap_or(CATEGORIES.len())
        };
        topics.sort_by(|a, b| {
            (category_rank(&a.category_id), a.sort_order, &a.slug).cmp(&(
                category_rank(&b.category_id),
                b.sort_order,
                &b.slug,
            ))
        });
        Ok(topics)
    }

    /// The names of these topics, in the order asked; unknown and not yet public ids left out.
    pub async fn topic_names(&self, ids: &TopicIds) -> Result<Vec<TopicRef>, CommunityError> {
        Ok(self
            .store
            .topics_by_ids(ids.ids())
            .await?
            .into_iter()
            .map(|t| TopicRef {
                id: t.id,
                name: t.name,
            })
            .collect())
    }

    /// Applies follower deltas (matched by slug, clamped at zero); with a key, exactly once.
    /// Answers how many topics were named.
    pub async fn follower_deltas(
        &self,
        deltas: &FollowerDeltas,
        key: Option<&IdempotencyKey>,
    ) -> Result<usize, CommunityError> {
        self.store
            .apply_follower_deltas(deltas.deltas(), key)
            .await
            .map_err(|e| match e {
                ApplyError::Busy => CommunityError::Busy,
                ApplyError::Store(e) => CommunityError::Store(e),
            })?;
        Ok(deltas.deltas().len())
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

/// A post with the caller's reaction and bookmark.
pub(crate) fn with_marks(mut post: Post, marks: crate::store::social::Marks) -> Post {
    use crate::store::social::ReactionKind;
    post.is_liked_by_me = marks.reaction == Some(ReactionKind::Like);
    post.is_disliked_by_me = marks.reaction == Some(ReactionKind::Dislike);
    post.is_bookmarked_by_me = marks.bookmarked;
    (post.like_count, post.dislike_count) = marks.counts(post.like_count, post.dislike_count);
    post
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

fn topic(t: StoredTopic, today: i64) -> Topic {
    let activity = t.ring.activity(today);
    Topic {
        id: t.id,
        name: t.name,
        display_name: t.display_name,
        slug: t.slug,
        category_id: t.category_id,
        sort_order: t.sort_order,
        total_post_count: t.total_post_count,
        posts_this_week: activity.posts_this_week,
        posts_prev_week: activity.posts_prev_week,
        activity_score: activity.activity_score,
        is_hot: activity.is_hot,
        follower_count: t.follower_count,
    }
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
