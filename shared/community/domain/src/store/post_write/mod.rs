//! A post write: one transaction (create, replace, patch) with the post's lists, topic
//! counts and rings, the author's and the global counts, and the summary and search outboxes.

mod meta;
mod topics;

use super::posts::{PostBody, StoredPost, SummaryState};
use super::topics::ResolvedTopic;
use super::Store;
use crate::input::PostStatus;
use crate::keys;
use crate::model::stats::day_of;
use crate::model::summary::{content_hash, SummaryStatus};
use crate::model::{Author, TopicRef};
use crate::queues::SummaryRequest;
use platform::dynamo::{
    item_size, n, s, Item, Transaction, TransactionError, MAX_ITEM_BYTES, MAX_TRANSACTION_BYTES,
    MAX_TRANSACTION_ITEMS,
};

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
    Store(#[from] platform::dynamo::DynamoError),
}

/// What each item of a post transaction is, to read a failed condition.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Meta,
    Topic,
    Profile,
    Other,
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

/// An item's size, refused past DynamoDB's 400 KB.
fn checked_size(item: &Item) -> Result<usize, WriteError> {
    let size = item_size(item);
    if size > MAX_ITEM_BYTES {
        return Err(WriteError::TooLarge(format!("an item of {size} bytes")));
    }
    Ok(size)
}

/// What a write changes, worked out once before its transaction is built.
struct Plan<'a> {
    id: &'a str,
    author: &'a Author,
    before: Option<&'a StoredPost>,
    state: &'a PostState,
    body_changed: bool,
    now: String,
    today: i64,
    published: bool,
    was_published: bool,
    first_published_at: Option<String>,
    first_publish: bool,
    topic_refs: Vec<TopicRef>,
    topic_ids: Vec<String>,
    before_topic_ids: Vec<String>,
    /// The topics whose census counted the post before the write.
    counted_before: Vec<String>,
    gsi1pk: String,
    gsi1sk: String,
    hash: String,
    before_summary: SummaryState,
    summary_wanted: bool,
    summary_version: i64,
    /// The post's version after the write.
    version: i64,
}

impl<'a> Plan<'a> {
    fn new(
        store: &Store,
        id: &'a str,
        author: &'a Author,
        before: Option<&'a StoredPost>,
        state: &'a PostState,
        body_changed: bool,
    ) -> Self {
        let now_at = store.clock.now();
        let now = store.clock.timestamp();
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
        Self {
            id,
            author,
            before,
            state,
            body_changed,
            now,
            today,
            published,
            was_published,
            first_published_at,
            first_publish,
            topic_refs,
            topic_ids,
            before_topic_ids,
            counted_before,
            gsi1pk,
            gsi1sk,
            hash,
            before_summary,
            summary_wanted,
            summary_version,
            version: before.map_or(1, |b| b.version + 1),
        }
    }

    /// What to send to the summary queue once the write commits.
    fn summary_request(&self) -> Option<SummaryRequest> {
        self.summary_wanted.then(|| SummaryRequest {
            post_id: self.id.to_string(),
            version: self.summary_version,
            content_hash: self.hash.clone(),
        })
    }

    /// The post as the committed write left it.
    fn written(self) -> StoredPost {
        let Plan {
            id,
            author,
            before,
            state,
            now,
            first_published_at,
            topic_refs,
            hash,
            before_summary,
            summary_wanted,
            summary_version,
            version,
            ..
        } = self;
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
        StoredPost {
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
        }
    }
}

/// A post write's transaction as it is built: each item's [`Role`] and the bytes so far.
struct PostTx {
    tx: Transaction,
    roles: Vec<Role>,
    bytes: usize,
}

impl PostTx {
    /// The summary outbox (see `summaries`), and the failed list the post leaves.
    fn summary_outbox(&mut self, p: &Plan) -> Result<(), WriteError> {
        if !p.summary_wanted {
            return Ok(());
        }
        self.tx.put(
            super::summaries::pending_row(p.id, p.summary_version, &p.hash, &p.now),
            None,
        )?;
        self.roles.push(Role::Other);
        if let Some(sk) = &p.before_summary.failed_sk {
            self.tx.delete(keys::summary_failed(sk), None)?;
            self.roles.push(Role::Other);
        }
        self.bytes += 400;
        Ok(())
    }

    /// The BODY, when the post is new or its body changed.
    fn body(&mut self, p: &Plan) -> Result<(), WriteError> {
        if p.before.is_none() || p.body_changed {
            let body = p.state.body.item(p.id);
            self.bytes += checked_size(&body)?;
            self.tx.put(body, None)?;
            self.roles.push(Role::Other);
        }
        Ok(())
    }

    /// The lists the post is in: before and after.
    fn lists(&mut self, p: &Plan) -> Result<(), WriteError> {
        let id = p.id;
        let fpa = p
            .first_published_at
            .clone()
            .unwrap_or_else(|| p.now.clone());
        let feeds_before = feeds_of(p.was_published, &p.before_topic_ids);
        let feeds_after = feeds_of(p.published, &p.topic_ids);
        for feed in feeds_before.iter().filter(|f| !feeds_after.contains(f)) {
            self.tx
                .delete(keys::feed(feed.as_deref(), &fpa, id), None)?;
            self.roles.push(Role::Other);
        }
        for feed in feeds_after.iter().filter(|f| !feeds_before.contains(f)) {
            let mut row = keys::feed(feed.as_deref(), &fpa, id);
            row.insert("postId".to_string(), s(id));
            self.bytes += 200;
            self.tx.put(row, None)?;
            self.roles.push(Role::Other);
        }
        Ok(())
    }

    /// The author's counts; its condition refuses a deleted account's writes.
    fn author_counts(&mut self, p: &Plan) -> Result<(), WriteError> {
        let author = p.author;
        let published_delta = i64::from(p.published) - i64::from(p.was_published);
        let drafts_delta =
            i64::from(!p.published) - i64::from(p.before.is_some() && !p.was_published);
        if published_delta == 0 && drafts_delta == 0 {
            self.tx
                .check(keys::profile(&author.id), "attribute_not_exists(deletedAt)")?;
        } else {
            let update = self
                .tx
                .update_builder(keys::profile(&author.id))
                .update_expression("ADD publishedCount :p, draftCount :d")
                .condition_expression("attribute_not_exists(deletedAt)")
                .expression_attribute_values(":p", n(published_delta))
                .expression_attribute_values(":d", n(drafts_delta));
            self.tx.update(update)?;
        }
        self.roles.push(Role::Profile);
        if published_delta != 0 {
            self.tx.add(
                keys::stats_shard(keys::stats_shard_of(p.id)),
                "publishedCount",
                published_delta,
                None,
            )?;
            self.roles.push(Role::Other);
        }
        Ok(())
    }

    /// The search outbox: the index catches up with this version (see `index_queue`).
    fn search_outbox(&mut self, p: &Plan) -> Result<(), WriteError> {
        let pending = super::index_queue::pending_row(p.id, p.version, &p.now);
        self.bytes += 200;
        self.tx.put(pending, None)?;
        self.roles.push(Role::Other);
        Ok(())
    }

    /// Sends the transaction, within DynamoDB's limits; a failed condition is read by the
    /// role of the item that failed it.
    async fn commit(self) -> Result<(), WriteError> {
        let Self { tx, roles, bytes } = self;
        if tx.len() > MAX_TRANSACTION_ITEMS || bytes > MAX_TRANSACTION_BYTES {
            return Err(WriteError::TooLarge(format!(
                "{} items, about {bytes} bytes",
                tx.len()
            )));
        }
        match tx.commit().await {
            Ok(()) => Ok(()),
            Err(TransactionError::Condition { failed }) => {
                let role = |i: &usize| roles.get(*i).copied().unwrap_or(Role::Other);
                Err(if failed.iter().any(|i| role(i) == Role::Profile) {
                    WriteError::AccountGone
                } else if failed.iter().any(|i| role(i) == Role::Meta) {
                    WriteError::Stale
                } else {
                    WriteError::Race
                })
            }
            Err(TransactionError::Conflict) => Err(WriteError::Race),
            Err(TransactionError::Dynamo(e)) => Err(e.into()),
        }
    }
}

impl Store {
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
        let plan = Plan::new(self, id, author, before, state, body_changed);
        let summary_request = plan.summary_request();
        let mut tx = PostTx {
            tx: Transaction::new(&self.table),
            roles: Vec::new(),
            bytes: 0,
        };
        tx.meta(&plan)?;
        tx.summary_outbox(&plan)?;
        tx.body(&plan)?;
        tx.lists(&plan)?;
        tx.topics(&plan)?;
        tx.author_counts(&plan)?;
        tx.search_outbox(&plan)?;
        tx.commit().await?;
        Ok((plan.written(), summary_request))
    }
}
