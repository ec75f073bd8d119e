//! Posts: the one-transaction writes (create, replace, patch) with their lists and counters,
//! the counted read, lists by topic and cards.

use std::collections::HashMap;

use super::topics::{new_topic_item, ring_update, slug_item, ResolvedTopic};
use super::{list_page, string, ListKeys, Store};
use crate::input::{PageRequest, PostStatus};
use crate::keys;
use crate::model::{Author, TopicRef};
use crate::stats::{day_of, Ring};
use crate::summary::{content_hash, SummaryRequest, SummaryStatus};
use platform::dynamo::{
    item_size, n, s, AttributeValue, Attributes, DynamoError, Item, Transaction, TransactionError,
    MAX_ITEM_BYTES, MAX_TRANSACTION_BYTES, MAX_TRANSACTION_ITEMS,
};

/// The META attribute holding the newest version the search index holds.
pub(crate) const INDEXED_VERSION: &str = "indexedVersion";

/// A post's META item, read back.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredPost {
    pub id: String,
    pub author_id: String,
    pub author: Author,
    pub status: PostStatus,
    pub title: String,
    pub excerpt: String,
    pub excerpt_generated: bool,
    pub cover_image_url: Option<String>,
    pub topics: Vec<TopicRef>,
    pub read_time_minutes: i64,
    pub word_count: i64,
    pub like_count: i64,
    pub dislike_count: i64,
    pub comment_count: i64,
    pub view_count: i64,
    pub save_count: i64,
    pub created_at: String,
    pub updated_at: String,
    pub first_published_at: Option<String>,
    pub version: i64,
    /// The newest version the search index holds (`indexedVersion`, set by the indexer);
    /// `None` for a post not indexed since the attribute was introduced.
    pub indexed_version: Option<i64>,
    pub deleted: bool,
    /// The AI summary's state (`shared/community/domain/src/summary.rs`).
    pub summary: SummaryState,
    /// Reactions may still be under the post (`R#{u}`, written before they had their own
    /// partition): true until the reaction counter has moved them all out.
    pub legacy_reactions: bool,
    /// Some of its likes, dislikes or bookmarks may be out of their users' lists (it was not
    /// public since it had them): a walk brings them back when it is public again.
    pub marks_hidden: bool,
}

/// META's marker that every reaction to the post is in its own partition.
pub(crate) const REACTION_ROWS: &str = "reactionRows";
pub(crate) const REACTION_ROWS_OWN: &str = "OWN";

/// A post's AI summary as its META item holds it: absent (`status` `None`) until the post is
/// first published.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SummaryState {
    pub status: Option<SummaryStatus>,
    pub text: Option<String>,
    pub generated_at: Option<String>,
    pub model: Option<String>,
    /// Bumped by every request for a summary (new content, publication, re-trigger): the
    /// version the queue's messages carry, so an older message never overwrites a newer one.
    pub version: i64,
    /// SHA-256 (hex) of the content the wanted summary describes.
    pub content_hash: Option<String>,
    /// While FAILED: the sort key of the post's row in the failed-summary list.
    pub failed_sk: Option<String>,
}

impl SummaryState {
    pub(crate) fn from_item(item: &Item) -> Self {
        Self {
            status: item
                .opt_string("summaryStatus")
                .and_then(|s| SummaryStatus::parse(&s)),
            text: item.opt_string("summary"),
            generated_at: item.opt_string("summaryGeneratedAt"),
            model: item.opt_string("summaryModel"),
            version: match item.get("summaryVersion") {
                Some(AttributeValue::N(v)) => v.parse().unwrap_or(0),
                _ => 0,
            },
            content_hash: item.opt_string("summaryHash"),
            failed_sk: item.opt_string("summaryFailedSk"),
        }
    }
}

/// A post's BODY item.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PostBody {
    pub content: String,
    pub source_urls: Vec<String>,
}

/// Everything a write sets on a post (the full state after a create, replace or patch).
#[derive(Debug, Clone)]
pub struct PostState {
    pub title: String,
    pub excerpt: String,
    pub excerpt_generated: bool,
    pub cover_image_url: Option<String>,
    pub body: PostBody,
    pub read_time_minutes: i64,
    pub word_count: i64,
    pub status: PostStatus,
    pub topics: Vec<ResolvedTopic>,
}

/// Why a post write did not commit.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The post changed (or appeared) since it was read: read again and retry.
    #[error("the post changed since it was read")]
    Stale,
    /// A topic changed since it was resolved, or the write lost a race: retry.
    #[error("a concurrent write won")]
    Race,
    /// The writer's account is deleted.
    #[error("the account is deleted")]
    AccountGone,
    /// Too large for one transaction (a bug: input bounds prevent it).
    #[error("the write exceeds DynamoDB's limits: {0}")]
    TooLarge(String),
    #[error(transparent)]
    Store(#[from] DynamoError),
}

/// What each item of a post transaction is, to read a failed condition.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Meta,
    Topic,
    Profile,
    Other,
}

pub(super) fn author_item(author: &Author) -> AttributeValue {
    AttributeValue::M(HashMap::from([
        ("id".to_string(), s(&author.id)),
        ("username".to_string(), s(&author.username)),
        ("displayName".to_string(), s(&author.display_name)),
        ("role".to_string(), s(&author.role)),
        ("organisation".to_string(), AttributeValue::Null(true)),
    ]))
}

fn topics_item(topics: &[TopicRef]) -> AttributeValue {
    AttributeValue::L(
        topics
            .iter()
            .map(|t| {
                AttributeValue::M(HashMap::from([
                    ("id".to_string(), s(&t.id)),
                    ("name".to_string(), s(&t.name)),
                ]))
            })
            .collect(),
    )
}

fn optional(value: Option<&str>) -> AttributeValue {
    value.map_or(AttributeValue::Null(true), s)
}

pub(super) fn map_string(map: &HashMap<String, AttributeValue>, name: &str) -> String {
    map.get(name)
        .and_then(|v| v.as_s().ok())
        .cloned()
        .unwrap_or_default()
}

impl StoredPost {
    pub(crate) fn from_item(store: &Store, item: &Item) -> Result<Self, DynamoError> {
        let t = &store.table;
        let table = t.name();
        let author = match item.get("author") {
            Some(AttributeValue::M(m)) => Author {
                id: map_string(m, "id"),
                username: map_string(m, "username"),
                display_name: map_string(m, "displayName"),
                role: map_string(m, "role"),
                organisation: None,
            },
            _ => return Err(t.corrupt("author is missing")),
        };
        let topics = match item.get("topics") {
            Some(AttributeValue::L(list)) => list
                .iter()
                .filter_map(|v| v.as_m().ok())
                .map(|m| TopicRef {
                    id: map_string(m, "id"),
                    name: map_string(m, "name"),
                })
                .collect(),
            _ => Vec::new(),
        };
        let status = match string(t, item, "status")?.as_str() {
            "DRAFT" => PostStatus::Draft,
            _ => PostStatus::Published,
        };
        Ok(Self {
            id: string(t, item, "id")?,
            author_id: string(t, item, "authorId")?,
            author,
            status,
            title: string(t, item, "title")?,
            excerpt: item.opt_string("excerpt").unwrap_or_default(),
            excerpt_generated: item.opt_bool("excerptGenerated").unwrap_or(false),
            cover_image_url: item.opt_string("coverImageUrl"),
            topics,
            read_time_minutes: item.counter(table, "readTimeMinutes")?,
            word_count: item.counter(table, "wordCount")?,
            like_count: item.counter(table, "likeCount")?.max(0),
            dislike_count: item.counter(table, "dislikeCount")?.max(0),
            comment_count: item.counter(table, "commentCount")?.max(0),
            view_count: item.counter(table, "viewCount")?.max(0),
            save_count: item.counter(table, "saveCount")?.max(0),
            created_at: string(t, item, "createdAt")?,
            updated_at: string(t, item, "updatedAt")?,
            first_published_at: item.opt_string("firstPublishedAt"),
            version: item.counter(table, "version")?,
            indexed_version: item
                .contains_key(INDEXED_VERSION)
                .then(|| item.counter(table, INDEXED_VERSION))
                .transpose()?,
            deleted: item.contains_key("deletedAt"),
            summary: SummaryState::from_item(item),
            legacy_reactions: item.opt_string(REACTION_ROWS).as_deref() != Some(REACTION_ROWS_OWN),
            marks_hidden: item.contains_key(super::mark_lists::MARKS_HIDDEN),
        })
    }

    /// Visible to `caller`: live, and published or theirs.
    pub fn visible_to(&self, caller: Option<&str>) -> bool {
        !self.deleted && (self.status == PostStatus::Published || caller == Some(&self.author_id))
    }

    /// Listed for everyone: live and published.
    pub fn is_public(&self) -> bool {
        !self.deleted && self.status == PostStatus::Published
    }

    /// The search index may not hold this version yet.
    pub fn index_lags(&self) -> bool {
        self.indexed_version.is_none_or(|v| v < self.version)
    }
}

impl PostBody {
    pub(crate) fn from_item(item: &Item) -> Self {
        Self {
            content: item.opt_string("content").unwrap_or_default(),
            source_urls: item.strings("", "sourceUrls").unwrap_or_default(),
        }
    }

    fn item(&self, post_id: &str) -> Item {
        let mut item = keys::post_body(post_id);
        item.insert("content".to_string(), s(&self.content));
        item.insert(
            "sourceUrls".to_string(),
            AttributeValue::L(self.source_urls.iter().map(s).collect()),
        );
        item
    }
}

/// The feeds (`None`: all) a post is listed in when it is published.
fn feeds_of(published: bool, topics: &[String]) -> Vec<Option<String>> {
    if !published {
        return Vec::new();
    }
    std::iter::once(None)
        .chain(topics.iter().cloned().map(Some))
        .collect()
}

impl Store {
    /// The post's META, read consistently (`None`: no such post).
    pub async fn post(&self, id: &str) -> Result<Option<StoredPost>, DynamoError> {
        match self.table.get(keys::post(id)).await? {
            Some(item) => StoredPost::from_item(self, &item).map(Some),
            None => Ok(None),
        }
    }

    /// The post's BODY, read consistently.
    pub async fn body(&self, id: &str) -> Result<PostBody, DynamoError> {
        Ok(self
            .table
            .get(keys::post_body(id))
            .await?
            .map(|item| PostBody::from_item(&item))
            .unwrap_or_default())
    }

    /// Writes a post in one transaction: created (`before` is `None`) by `author`, or
    /// replaced over `before` (read at its version) by its author. Lists, topic counts and
    /// rings, the author's and the global counts follow the status and topic changes.
    ///
    /// A published post whose content has no summary yet (created published, published
    /// from a draft, content changed while published) gets one wanted in the same
    /// transaction: `summaryStatus` PENDING at a new summary version, and the post's row in
    /// the summary outbox; the [`SummaryRequest`] answered is what to send to the queue.
    pub async fn write_post(
        &self,
        id: &str,
        author: &Author,
        before: Option<&StoredPost>,
        state: &PostState,
        body_changed: bool,
    ) -> Result<(StoredPost, Option<SummaryRequest>), WriteError> {
        // Reactions trust this instance's memory of the post only while it did not change it.
        self.forget_open_post(id);
        let now_at = self.clock.now();
        let now = self.clock.timestamp();
        let today = day_of(now_at);
        let published = state.status == PostStatus::Published;
        let was_published = before.is_some_and(|b| b.status == PostStatus::Published);
        let first_published_at = before
            .and_then(|b| b.first_published_at.clone())
            .or_else(|| published.then(|| now.clone()));
        let first_publish =
            published && before.and_then(|b| b.first_published_at.as_ref()).is_none();
        let topic_refs: Vec<TopicRef> = state
            .topics
            .iter()
            .map(|t| TopicRef {
                id: t.id.clone(),
                name: t.name.clone(),
            })
            .collect();
        let topic_ids: Vec<String> = topic_refs.iter().map(|t| t.id.clone()).collect();
        let before_topic_ids: Vec<String> = before
            .map(|b| b.topics.iter().map(|t| t.id.clone()).collect())
            .unwrap_or_default();
        let counted_before: Vec<String> = if was_published {
            before_topic_ids.clone()
        } else {
            Vec::new()
        };
        let (gsi1pk, gsi1sk) = if published {
            (
                keys::author_list(&author.id, true),
                format!("{}#{id}", first_published_at.as_deref().unwrap_or(&now)),
            )
        } else {
            (keys::author_list(&author.id, false), format!("{now}#{id}"))
        };

        // The summary: wanted when a published post's content differs from the content
        // its summary (wanted, generated or failed) describes.
        let hash = content_hash(&state.body.content);
        let before_summary = before.map(|b| b.summary.clone()).unwrap_or_default();
        let summary_wanted =
            published && before_summary.content_hash.as_deref() != Some(hash.as_str());
        let summary_version = before_summary.version + 1;
        let summary_request = summary_wanted.then(|| SummaryRequest {
            post_id: id.to_string(),
            version: summary_version,
            content_hash: hash.clone(),
        });

        let mut tx = Transaction::new(&self.table);
        let mut roles: Vec<Role> = Vec::new();
        let mut bytes = 0usize;

        // 0: META.
        match before {
            None => {
                let mut meta = keys::post(id);
                meta.extend([
                    ("id".to_string(), s(id)),
                    ("authorId".to_string(), s(&author.id)),
                    ("author".to_string(), author_item(author)),
                    ("status".to_string(), s(state.status.as_str())),
                    ("title".to_string(), s(&state.title)),
                    ("excerpt".to_string(), s(&state.excerpt)),
                    (
                        "excerptGenerated".to_string(),
                        AttributeValue::Bool(state.excerpt_generated),
                    ),
                    (
                        "coverImageUrl".to_string(),
                        optional(state.cover_image_url.as_deref()),
                    ),
                    ("topics".to_string(), topics_item(&topic_refs)),
                    ("readTimeMinutes".to_string(), n(state.read_time_minutes)),
                    ("wordCount".to_string(), n(state.word_count)),
                    ("likeCount".to_string(), n(0)),
                    ("dislikeCount".to_string(), n(0)),
                    ("commentCount".to_string(), n(0)),
                    ("viewCount".to_string(), n(0)),
                    ("saveCount".to_string(), n(0)),
                    ("createdAt".to_string(), s(&now)),
                    ("updatedAt".to_string(), s(&now)),
                    ("version".to_string(), n(1)),
                    (REACTION_ROWS.to_string(), s(REACTION_ROWS_OWN)),
                    ("gsi1pk".to_string(), s(&gsi1pk)),
                    ("gsi1sk".to_string(), s(&gsi1sk)),
                    ("gsi2pk".to_string(), s(keys::owner(&author.id))),
                    ("gsi2sk".to_string(), s(format!("POST#{id}"))),
                ]);
                if let Some(at) = &first_published_at {
                    meta.insert("firstPublishedAt".to_string(), s(at));
                }
                if summary_wanted {
                    meta.extend([
                        (
                            "summaryStatus".to_string(),
                            s(SummaryStatus::Pending.as_str()),
                        ),
                        ("summaryVersion".to_string(), n(summary_version)),
                        ("summaryHash".to_string(), s(&hash)),
                    ]);
                }
                bytes += checked_size(&meta)?;
                tx.put(meta, Some("attribute_not_exists(pk)"))?;
            }
            Some(b) => {
                let mut set = String::from(
                    "SET title = :title, excerpt = :excerpt, excerptGenerated = :eg, coverImageUrl = :cover, topics = :topics, readTimeMinutes = :rt, wordCount = :wc, #status = :status, updatedAt = :now, gsi1pk = :g1pk, gsi1sk = :g1sk, version = version + :one",
                );
                if first_publish {
                    set.push_str(", firstPublishedAt = :fpa");
                }
                let mut condition = String::from(
                    "version = :read AND authorId = :caller AND attribute_not_exists(deletedAt)",
                );
                if summary_wanted {
                    // A re-trigger in between moved the summary version: read again.
                    set.push_str(
                        ", summaryStatus = :sst, summaryVersion = :sv, summaryHash = :sh REMOVE summaryFailedSk",
                    );
                    condition.push_str(if before_summary.version == 0 {
                        " AND attribute_not_exists(summaryVersion)"
                    } else {
                        " AND summaryVersion = :svread"
                    });
                }
                let mut update = tx
                    .update_builder(keys::post(id))
                    .update_expression(set)
                    .condition_expression(condition)
                    .expression_attribute_names("#status", "status")
                    .expression_attribute_values(":title", s(&state.title))
                    .expression_attribute_values(":excerpt", s(&state.excerpt))
                    .expression_attribute_values(
                        ":eg",
                        AttributeValue::Bool(state.excerpt_generated),
                    )
                    .expression_attribute_values(
                        ":cover",
                        optional(state.cover_image_url.as_deref()),
                    )
                    .expression_attribute_values(":topics", topics_item(&topic_refs))
                    .expression_attribute_values(":rt", n(state.read_time_minutes))
                    .expression_attribute_values(":wc", n(state.word_count))
                    .expression_attribute_values(":status", s(state.status.as_str()))
                    .expression_attribute_values(":now", s(&now))
                    .expression_attribute_values(":g1pk", s(&gsi1pk))
                    .expression_attribute_values(":g1sk", s(&gsi1sk))
                    .expression_attribute_values(":one", n(1))
                    .expression_attribute_values(":read", n(b.version))
                    .expression_attribute_values(":caller", s(&author.id));
                if first_publish {
                    update = update.expression_attribute_values(":fpa", s(now.clone()));
                }
                if summary_wanted {
                    update = update
                        .expression_attribute_values(":sst", s(SummaryStatus::Pending.as_str()))
                        .expression_attribute_values(":sv", n(summary_version))
                        .expression_attribute_values(":sh", s(&hash));
                    if before_summary.version != 0 {
                        update = update
                            .expression_attribute_values(":svread", n(before_summary.version));
                    }
                }
                bytes += 2048;
                tx.update(update)?;
            }
        }
        roles.push(Role::Meta);

        // The summary outbox (see `summaries`), and the failed list the post leaves.
        if summary_wanted {
            tx.put(
                super::summaries::pending_row(id, summary_version, &hash, &now),
                None,
            )?;
            roles.push(Role::Other);
            if let Some(sk) = &before_summary.failed_sk {
                tx.delete(keys::summary_failed(sk), None)?;
                roles.push(Role::Other);
            }
            bytes += 400;
        }

        if before.is_none() || body_changed {
            let body = state.body.item(id);
            bytes += checked_size(&body)?;
            tx.put(body, None)?;
            roles.push(Role::Other);
        }

        // The lists the post is in: before and after.
        let fpa = first_published_at.clone().unwrap_or_else(|| now.clone());
        let feeds_before = feeds_of(was_published, &before_topic_ids);
        let feeds_after = feeds_of(published, &topic_ids);
        for feed in feeds_before.iter().filter(|f| !feeds_after.contains(f)) {
            tx.delete(keys::feed(feed.as_deref(), &fpa, id), None)?;
            roles.push(Role::Other);
        }
        for feed in feeds_after.iter().filter(|f| !feeds_before.contains(f)) {
            let mut row = keys::feed(feed.as_deref(), &fpa, id);
            row.insert("postId".to_string(), s(id));
            bytes += 200;
            tx.put(row, None)?;
            roles.push(Role::Other);
        }

        // Topics: the census (totalPostCount), on first publication the day ring, and the
        // catalog keys that make a topic public once a published post carries it.
        for topic in &state.topics {
            let newly_counted = published && !counted_before.contains(&topic.id);
            let ring_day = (published && first_publish).then_some(today);
            match &topic.existing {
                None => {
                    let mut ring = Ring::default();
                    if let Some(day) = ring_day {
                        ring.record(day);
                    }
                    tx.put(
                        slug_item(&topic.slug, &topic.id),
                        Some("attribute_not_exists(pk)"),
                    )?;
                    roles.push(Role::Topic);
                    let item = new_topic_item(
                        &topic.id,
                        &topic.name,
                        &topic.slug,
                        &now,
                        i64::from(newly_counted),
                        &ring,
                        0,
                        published,
                    );
                    bytes += checked_size(&item)?;
                    tx.put(item, Some("attribute_not_exists(pk)"))?;
                    roles.push(Role::Topic);
                }
                Some(stored) => {
                    // Idempotent and never undone, so a stale "not public" read only re-sets it.
                    let goes_public = published && !stored.public;
                    if !newly_counted && ring_day.is_none() && !goes_public {
                        continue;
                    }
                    let mut sets: Vec<String> = Vec::new();
                    let mut condition = String::from("attribute_exists(pk)");
                    let mut values: Vec<(String, AttributeValue)> = Vec::new();
                    if let Some(day) = ring_day {
                        let (set, cond, vals) = ring_update(&stored.ring, day);
                        sets.push(set);
                        condition.push_str(" AND ");
                        condition.push_str(&cond);
                        values.extend(vals);
                    }
                    if goes_public {
                        let (gsi1pk, gsi1sk) = stored.catalog_keys();
                        sets.push("gsi1pk = :tg1pk, gsi1sk = :tg1sk".into());
                        values.push((":tg1pk".into(), s(gsi1pk)));
                        values.push((":tg1sk".into(), s(gsi1sk)));
                    }
                    let mut expression = if sets.is_empty() {
                        String::new()
                    } else {
                        format!("SET {}", sets.join(", "))
                    };
                    if newly_counted {
                        expression.push_str(" ADD totalPostCount :delta");
                        values.push((":delta".into(), n(1)));
                    }
                    let mut update = tx
                        .update_builder(keys::topic(&topic.id))
                        .update_expression(expression.trim())
                        .condition_expression(condition);
                    for (k, v) in values {
                        update = update.expression_attribute_values(k, v);
                    }
                    bytes += 300;
                    tx.update(update)?;
                    roles.push(Role::Topic);
                }
            }
        }
        let still_counted: &[String] = if published { &topic_ids } else { &[] };
        for gone in counted_before.iter().filter(|t| !still_counted.contains(t)) {
            tx.add(
                keys::topic(gone),
                "totalPostCount",
                -1,
                Some("attribute_exists(pk)"),
            )?;
            roles.push(Role::Topic);
        }

        // The author's counts; its condition refuses a deleted account's writes.
        let published_delta = i64::from(published) - i64::from(was_published);
        let drafts_delta = i64::from(!published) - i64::from(before.is_some() && !was_published);
        if published_delta == 0 && drafts_delta == 0 {
            tx.check(keys::profile(&author.id), "attribute_not_exists(deletedAt)")?;
        } else {
            let update = tx
                .update_builder(keys::profile(&author.id))
                .update_expression("ADD publishedCount :p, draftCount :d")
                .condition_expression("attribute_not_exists(deletedAt)")
                .expression_attribute_values(":p", n(published_delta))
                .expression_attribute_values(":d", n(drafts_delta));
            tx.update(update)?;
        }
        roles.push(Role::Profile);
        if published_delta != 0 {
            tx.add(
                keys::stats_shard(keys::stats_shard_of(id)),
                "publishedCount",
                published_delta,
                None,
            )?;
            roles.push(Role::Other);
        }

        // The search outbox: the index catches up with this version (see `index_queue`).
        let version = before.map_or(1, |b| b.version + 1);
        let pending = super::index_queue::pending_row(id, version, &now);
        bytes += 200;
        tx.put(pending, None)?;
        roles.push(Role::Other);

        if tx.len() > MAX_TRANSACTION_ITEMS || bytes > MAX_TRANSACTION_BYTES {
            return Err(WriteError::TooLarge(format!(
                "{} items, about {bytes} bytes",
                tx.len()
            )));
        }
        match tx.commit().await {
            Ok(()) => {}
            Err(TransactionError::Condition { failed }) => {
                let role = |i: &usize| roles.get(*i).copied().unwrap_or(Role::Other);
                return Err(if failed.iter().any(|i| role(i) == Role::Profile) {
                    WriteError::AccountGone
                } else if failed.iter().any(|i| role(i) == Role::Meta) {
                    WriteError::Stale
                } else {
                    WriteError::Race
                });
            }
            Err(TransactionError::Conflict) => return Err(WriteError::Race),
            Err(TransactionError::Dynamo(e)) => return Err(e.into()),
        }
        let summary = if summary_wanted {
            SummaryState {
                status: Some(SummaryStatus::Pending),
                version: summary_version,
                content_hash: Some(hash),
                failed_sk: None,
                ..before_summary
            }
        } else {
            before_summary
        };
        let post = StoredPost {
            id: id.to_string(),
            author_id: author.id.clone(),
            author: before.map_or_else(|| author.clone(), |b| b.author.clone()),
            status: state.status,
            title: state.title.clone(),
            excerpt: state.excerpt.clone(),
            excerpt_generated: state.excerpt_generated,
            cover_image_url: state.cover_image_url.clone(),
            topics: topic_refs,
            read_time_minutes: state.read_time_minutes,
            word_count: state.word_count,
            like_count: before.map_or(0, |b| b.like_count),
            dislike_count: before.map_or(0, |b| b.dislike_count),
            comment_count: before.map_or(0, |b| b.comment_count),
            view_count: before.map_or(0, |b| b.view_count),
            save_count: before.map_or(0, |b| b.save_count),
            created_at: before.map_or_else(|| now.clone(), |b| b.created_at.clone()),
            updated_at: now,
            first_published_at,
            version,
            indexed_version: before.and_then(|b| b.indexed_version),
            deleted: false,
            summary,
            legacy_reactions: before.is_some_and(|b| b.legacy_reactions),
            marks_hidden: before.is_some_and(|b| b.marks_hidden),
        };
        Ok((post, summary_request))
    }

    /// The page of a list (`topic_id` `None`: every published post), newest first, with
    /// bodies, and the next page's cursor: a Query of the feed (keys only) and one BatchGet.
    pub async fn feed_page(
        &self,
        topic_id: Option<&str>,
        page: &PageRequest,
    ) -> Result<(Vec<(StoredPost, PostBody)>, Option<String>), DynamoError> {
        let list = ListKeys {
            index: None,
            pk_name: "pk",
            pk: keys::feed_pk(topic_id),
            sk_name: "sk",
        };
        let (rows, next) = list_page(&self.table, list, page).await?;
        let ids: Vec<String> = rows
            .iter()
            .filter_map(|row| row.opt_string("sk"))
            .filter_map(|sk| keys::post_of_feed_sk(&sk).map(str::to_string))
            .collect();
        Ok((self.posts_with_bodies(&ids).await?, next))
    }

    /// These posts with their bodies, in the order of `ids`; missing ones left out.
    pub async fn posts_with_bodies(
        &self,
        ids: &[String],
    ) -> Result<Vec<(StoredPost, PostBody)>, DynamoError> {
        let keys_: Vec<Item> = ids
            .iter()
            .flat_map(|id| [keys::post(id), keys::post_body(id)])
            .collect();
        let items = self.table.batch_get_all(keys_, None).await?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let pk = format!("POST#{id}");
            let find = |sk: &str| {
                items.iter().find(|i| {
                    i.opt_string("pk").as_deref() == Some(pk.as_str())
                        && i.opt_string("sk").as_deref() == Some(sk)
                })
            };
            if let Some(meta) = find(keys::META) {
                let body = find(keys::BODY)
                    .map(PostBody::from_item)
                    .unwrap_or_default();
                out.push((StoredPost::from_item(self, meta)?, body));
            }
        }
        Ok(out)
    }

    /// These posts' META items (no bodies), in the order of `ids`; missing ones left out.
    pub async fn posts(&self, ids: &[String]) -> Result<Vec<StoredPost>, DynamoError> {
        let items = self
            .table
            .batch_get_all(ids.iter().map(|id| keys::post(id)).collect(), None)
            .await?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(item) = items
                .iter()
                .find(|i| i.opt_string("id").as_deref() == Some(id.as_str()))
            {
                out.push(StoredPost::from_item(self, item)?);
            }
        }
        Ok(out)
    }

    /// Published live posts in all: the sum of the `STATS` shards.
    pub async fn published_count(&self) -> Result<i64, DynamoError> {
        let shards = self
            .table
            .batch_get_all(
                (0..keys::STATS_SHARDS).map(keys::stats_shard).collect(),
                None,
            )
            .await?;
        let mut total = 0;
        for shard in &shards {
            total += shard.counter(self.table.name(), "publishedCount")?;
        }
        Ok(total.max(0))
    }
}

/// An item's size, refused past DynamoDB's 400 KB.
fn checked_size(item: &Item) -> Result<usize, WriteError> {
    let size = item_size(item);
    if size > MAX_ITEM_BYTES {
        return Err(WriteError::TooLarge(format!("an item of {size} bytes")));
    }
    Ok(size)
}
