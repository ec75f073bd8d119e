//! Removing a post: its author's delete and (with a moderation-log row) an admin's removal,
//! and the account cleanup's, all one soft delete: `deletedAt` on META (its rows stay for
//! audit), out of every feed and the owner index, the topic, global and author counts moved,
//! a new version in the search outbox, in one transaction conditioned on the version read,
//! so of two concurrent removals only one moves anything.

use platform::dynamo::{n, s, Attributes, DynamoError, Item, Transaction, TransactionError};

use super::posts::StoredPost;
use super::{list_page, ListKeys, Store};
use crate::input::{PageRequest, PostStatus};
use crate::keys;
use crate::model::moderation::ModerationTarget;
use crate::model::summary::FAILED_COUNT_CAP;

/// Why a post removal did not commit.
#[derive(Debug, thiserror::Error)]
pub enum RemoveError {
    /// No such post, or already deleted.
    #[error("no such post")]
    NotFound,
    /// Only the post's author may delete it.
    #[error("not the post's author")]
    NotAuthor,
    /// The author's own account is deleted (its cleanup removes the post).
    #[error("the account is deleted")]
    AccountGone,
    #[error(transparent)]
    Transaction(#[from] TransactionError),
    #[error(transparent)]
    Store(#[from] platform::dynamo::DynamoError),
}

/// Times a removal reads the post again after a concurrent edit changed its version.
const REREADS: u32 = 5;

/// The author's counts a removal moves, and what it writes with them.
pub(super) struct Removal {
    /// The condition on the author's profile (its `publishedCount`/`draftCount` move).
    profile_condition: &'static str,
    /// The moderation-log row, for an admin's removal.
    log: Option<Item>,
}

/// Who removes a post or comment: its author (it must be theirs), or an admin (any author's,
/// with a moderation-log entry written in the same transaction).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remover<'a> {
    Author(&'a str),
    Moderator(&'a Moderation<'a>),
}

/// An admin's removal: who removes, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moderation<'a> {
    pub moderator_id: &'a str,
    /// Trimmed, 1 to 500 characters (the caller parsed it).
    pub reason: &'a str,
}

/// One entry of the moderation log, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModerationEntry {
    pub id: String,
    pub moderator_id: String,
    pub target_kind: ModerationTarget,
    pub target_id: String,
    /// The post removed, or the post of the comment removed.
    pub post_id: String,
    /// The author of what was removed.
    pub author_id: String,
    pub reason: String,
    pub removed_at: String,
}

impl Moderation<'_> {
    /// The log entry of removing `target_id` (by `author_id`, on `post_id`) at `now`.
    pub(super) fn entry(
        &self,
        target_kind: ModerationTarget,
        target_id: &str,
        post_id: &str,
        author_id: &str,
        now: &str,
    ) -> ModerationEntry {
        ModerationEntry {
            id: uuid::Uuid::new_v4().hyphenated().to_string(),
            moderator_id: self.moderator_id.to_string(),
            target_kind,
            target_id: target_id.to_string(),
            post_id: post_id.to_string(),
            author_id: author_id.to_string(),
            reason: self.reason.to_string(),
            removed_at: now.to_string(),
        }
    }
}

impl ModerationEntry {
    pub(super) fn row(&self) -> Item {
        let mut row = keys::moderation_entry(&self.removed_at, &self.id);
        for (name, value) in [
            ("id", &self.id),
            ("moderatorId", &self.moderator_id),
            ("targetId", &self.target_id),
            ("postId", &self.post_id),
            ("authorId", &self.author_id),
            ("reason", &self.reason),
            ("removedAt", &self.removed_at),
        ] {
            row.insert(name.to_string(), s(value));
        }
        row.insert("targetKind".to_string(), s(self.target_kind.as_str()));
        row
    }

    fn from_row(row: &Item) -> Option<Self> {
        Some(Self {
            id: row.opt_string("id")?,
            moderator_id: row.opt_string("moderatorId")?,
            target_kind: ModerationTarget::parse(&row.opt_string("targetKind")?)?,
            target_id: row.opt_string("targetId")?,
            post_id: row.opt_string("postId")?,
            author_id: row.opt_string("authorId")?,
            reason: row.opt_string("reason")?,
            removed_at: row.opt_string("removedAt")?,
        })
    }
}

impl Store {
    /// Soft-deletes a live post (a draft too) as `by`, putting an admin's moderation-log
    /// entry in the same transaction; answers the post as it was. A removal that lost the race to
    /// another one answers [`RemoveError::NotFound`], so counters move once.
    pub async fn remove_post(
        &self,
        post_id: &str,
        by: Remover<'_>,
    ) -> Result<StoredPost, RemoveError> {
        for _ in 0..REREADS {
            let post = self
                .post(post_id)
                .await?
                .filter(|p| match by {
                    Remover::Author(caller) => p.visible_to(Some(caller)),
                    Remover::Moderator(_) => !p.deleted,
                })
                .ok_or(RemoveError::NotFound)?;
            let profile_condition = match by {
                Remover::Author(author) if author != post.author_id => {
                    return Err(RemoveError::NotAuthor)
                }
                Remover::Author(_) => "attribute_not_exists(deletedAt)",
                // A moderator removes a deleted account's post too (its cleanup skips it then).
                Remover::Moderator(_) => "attribute_exists(pk)",
            };
            let log = match by {
                Remover::Moderator(moderation) => {
                    let now = self.clock.timestamp();
                    let entry = moderation.entry(
                        ModerationTarget::Post,
                        &post.id,
                        &post.id,
                        &post.author_id,
                        &now,
                    );
                    Some(entry.row())
                }
                Remover::Author(_) => None,
            };
            let removal = Removal {
                profile_condition,
                log,
            };
            self.forget_open_post(post_id);
            match self.soft_delete_post(&post, Some(removal)).await {
                Ok(()) => return Ok(post),
                Err(e) if e.failed_at(1) => return Err(RemoveError::AccountGone),
                // Changed or deleted since it was read: read again.
                Err(TransactionError::Condition { .. } | TransactionError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(TransactionError::Conflict.into())
    }

    /// Puts and commits a post's soft delete (META first, then the author's profile and the
    /// log row when `removal` is given); the cleanup of a deleted account gives none.
    pub(super) async fn soft_delete_post(
        &self,
        post: &StoredPost,
        removal: Option<Removal>,
    ) -> Result<(), TransactionError> {
        let now = self.clock.timestamp();
        let version = post.version + 1;
        let published = post.status == PostStatus::Published;
        let mut tx = Transaction::new(&self.table);
        let meta = tx
            .update_builder(keys::post(&post.id))
            .update_expression(
                "SET deletedAt = :now, updatedAt = :now, version = :next REMOVE gsi1pk, gsi1sk, gsi2pk, gsi2sk",
            )
            .condition_expression("version = :read AND attribute_not_exists(deletedAt)")
            .expression_attribute_values(":now", s(&now))
            .expression_attribute_values(":next", n(version))
            .expression_attribute_values(":read", n(post.version));
        tx.update(meta)?;
        if let Some(removal) = removal {
            let profile = tx
                .update_builder(keys::profile(&post.author_id))
                .update_expression("ADD publishedCount :p, draftCount :d")
                .condition_expression(removal.profile_condition)
                .expression_attribute_values(":p", n(-i64::from(published)))
                .expression_attribute_values(":d", n(-i64::from(!published)));
            tx.update(profile)?;
            if let Some(log) = removal.log {
                tx.put(log, Some("attribute_not_exists(pk)"))?;
            }
        }
        tx.put(
            super::index_queue::pending_row(&post.id, version, &now),
            None,
        )?;
        // A failed summary leaves the admin's failed list with its post.
        if let Some(sk) = &post.summary.failed_sk {
            tx.delete(keys::summary_failed(sk), None)?;
        }
        if published {
            let at = post
                .first_published_at
                .clone()
                .unwrap_or_else(|| post.created_at.clone());
            tx.delete(keys::feed(None, &at, &post.id), None)?;
            for topic in &post.topics {
                tx.delete(keys::feed(Some(&topic.id), &at, &post.id), None)?;
                tx.add(
                    keys::topic(&topic.id),
                    "totalPostCount",
                    -1,
                    Some("attribute_exists(pk)"),
                )?;
            }
            tx.add(
                keys::stats_shard(keys::stats_shard_of(&post.id)),
                "publishedCount",
                -1,
                None,
            )?;
        }
        tx.commit_retrying().await
    }
}

impl Store {
    /// A page of the moderation log, newest first, the log's length counted up to
    /// [`FAILED_COUNT_CAP`] (keys only), and the next page's cursor.
    pub async fn moderation_log(
        &self,
        page: &PageRequest,
    ) -> Result<(Vec<ModerationEntry>, u64, Option<String>), DynamoError> {
        let list = ListKeys {
            index: None,
            pk_name: "pk",
            pk: keys::MODERATION_LOG_PK.to_string(),
            sk_name: "sk",
        };
        let count = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(keys::MODERATION_LOG_PK))
            .projection_expression("sk")
            .limit(i32::try_from(FAILED_COUNT_CAP).unwrap_or(i32::MAX));
        let ((rows, next), counted) = futures::try_join!(
            list_page(&self.table, list, page),
            self.table.query_all(count, Some(FAILED_COUNT_CAP))
        )?;
        let entries = rows.iter().filter_map(ModerationEntry::from_row).collect();
        Ok((
            entries,
            u64::try_from(counted.len()).unwrap_or(u64::MAX),
            next,
        ))
    }
}
