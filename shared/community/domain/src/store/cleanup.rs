//! Account-deletion cleanup: what a deleted user leaves in the community table, undone a
//! bounded step at a time.
//!
//! [`Store::mark_account_deleted`] sets `deletedAt` on the user's `PROFILE` at once, which
//! every write of the user is conditioned on: from then on nothing new appears. Each
//! [`Store::cleanup_step`] then reads a page of the owner index (`gsi2`, `OWNER#{u}`) and
//! undoes each item in its own small transaction:
//!
//! - a post (`POST#{p}`): soft-deleted (`deletedAt`, a new version and its search outbox row),
//!   out of the lists it was in, and out of its topics' and the global published counts;
//! - a comment (`COMMENT#{c}`): soft-deleted, its text erased, the post's `commentCount` moved
//!   (the thread shows `[deleted]` where it has replies);
//! - a reaction or bookmark (`REACTION#{p}`, `BOOKMARK#{p}`): deleted with the post's
//!   `likeCount`/`dislikeCount`/`saveCount`;
//! - a comment like (`CLIKE#{c}`): deleted with the comment's `likeCount`.
//!
//! Every undo leaves the owner index in the same transaction (the row is deleted, or its
//! `gsi2` attributes removed), and is conditioned on the item still being as it was, so a
//! step repeated (a redelivered message, the index's eventual consistency) changes nothing
//! twice: counters move exactly once. When the owner index is empty, `cleanedAt` is set.

use std::collections::HashMap;

use platform::dynamo::{n, s, Attributes, DynamoError, Item, Transaction, TransactionError};

use super::social::ReactionRow;
use super::{string, Store};
use crate::keys;
use crate::model::jobs::CleanupStep;
use crate::model::social::ReactionKind;

/// Owner-index items undone per step.
pub const CLEANUP_BATCH: usize = 25;

impl Store {
    /// Marks the user's community profile deleted (idempotent): every later write of theirs
    /// is refused.
    pub async fn mark_account_deleted(&self, user_id: &str) -> Result<(), DynamoError> {
        self.table
            .update_item()
            .set_key(Some(keys::profile(user_id)))
            .update_expression("SET deletedAt = if_not_exists(deletedAt, :now)")
            .expression_attribute_values(":now", s(self.clock.timestamp()))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("UpdateItem", &e))
    }

    /// Takes the deletion mark back (a cleanup that could not be queued).
    pub async fn unmark_account_deleted(&self, user_id: &str) -> Result<(), DynamoError> {
        self.table
            .update_item()
            .set_key(Some(keys::profile(user_id)))
            .update_expression("REMOVE deletedAt")
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("UpdateItem", &e))
    }

    /// True when the user's community profile is marked deleted.
    pub async fn account_deleted(&self, user_id: &str) -> Result<bool, DynamoError> {
        Ok(self
            .table
            .get(keys::profile(user_id))
            .await?
            .is_some_and(|p| p.contains_key("deletedAt")))
    }

    /// Undoes up to `batch` of the user's items (see the module docs).
    pub async fn cleanup_step(
        &self,
        user_id: &str,
        batch: usize,
    ) -> Result<CleanupStep, DynamoError> {
        let query = self
            .table
            .query()
            .index_name("gsi2")
            .key_condition_expression("gsi2pk = :owner")
            .expression_attribute_values(":owner", s(keys::owner(user_id)))
            .limit(i32::try_from(batch).unwrap_or(i32::MAX));
        let rows = self.table.query_all(query, Some(batch)).await?;
        let mut step = CleanupStep {
            handled: rows.len(),
            ..CleanupStep::default()
        };
        for row in &rows {
            let (Some(pk), Some(sk), Some(what)) = (
                row.opt_string("pk"),
                row.opt_string("sk"),
                row.opt_string("gsi2sk"),
            ) else {
                continue;
            };
            let key = platform::dynamo::key(pk, sk);
            let (kind, id) = what.split_once('#').unwrap_or((what.as_str(), ""));
            match kind {
                "POST" => {
                    if self.delete_post_of(id, user_id).await? {
                        step.deleted_posts.push(id.to_string());
                    }
                }
                "COMMENT" => self.delete_comment_of(key).await?,
                "REACTION" => self.delete_reaction_of(id, user_id).await?,
                "BOOKMARK" => self.delete_bookmark_of(id, user_id).await?,
                "CLIKE" => self.delete_comment_like_of(id, user_id).await?,
                other => {
                    // Nothing this version knows how to undo: out of the index, so the
                    // cleanup finishes.
                    tracing::warn!(kind = other, "unknown item in the owner index");
                    self.leave_owner_index(key).await?;
                }
            }
        }
        if rows.len() < batch {
            self.table
                .update_item()
                .set_key(Some(keys::profile(user_id)))
                .update_expression("SET cleanedAt = :now")
                .expression_attribute_values(":now", s(self.clock.timestamp()))
                .send()
                .await
                .map_err(|e| self.table.fail("UpdateItem", &e))?;
            step.finished = true;
        }
        Ok(step)
    }

    /// Removes an item from the owner index (it stays otherwise as it is).
    async fn leave_owner_index(&self, key: Item) -> Result<(), DynamoError> {
        let result = self
            .table
            .update_item()
            .set_key(Some(key))
            .update_expression("REMOVE gsi2pk, gsi2sk")
            .condition_expression("attribute_exists(pk)")
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table.fail("UpdateItem", &e)),
        }
    }

    /// Soft-deletes one of the user's posts; true when this call deleted it.
    async fn delete_post_of(&self, post_id: &str, user_id: &str) -> Result<bool, DynamoError> {
        for _ in 0..4 {
            let Some(post) = self.post(post_id).await? else {
                return Ok(false);
            };
            if post.deleted || post.author_id != user_id {
                self.leave_owner_index(keys::post(post_id)).await?;
                return Ok(false);
            }
            match self.soft_delete_post(&post, None).await {
                Ok(_) => return Ok(true),
                // The post changed since it was read (an edit that raced the mark): again.
                Err(TransactionError::Condition { .. } | TransactionError::Conflict) => continue,
                Err(TransactionError::Dynamo(e)) => return Err(e),
            }
        }
        Err(DynamoError::Conflict {
            table: self.table.name().to_string(),
            attempts: 4,
        })
    }

    /// Soft-deletes one of the user's comments (`key`: its row under the post).
    async fn delete_comment_of(&self, key: Item) -> Result<(), DynamoError> {
        let Some(comment) = self.table.get(key.clone()).await? else {
            return Ok(());
        };
        if comment.contains_key("deletedAt") {
            return self.leave_owner_index(key).await;
        }
        let comment_id = string(&self.table, &comment, "id")?;
        let post_id = string(&self.table, &comment, "postId")?;
        let now = self.clock.timestamp();
        let mut tx = Transaction::new(&self.table);
        super::comments::soft_delete_comment(&mut tx, key, &comment_id, &post_id, &now)?;
        self.commit_undo(&tx).await
    }

    /// Deletes the user's reaction to a post with what the post's counters hold of it: their
    /// own row (its `counted` reaction, conditioned on the version read, so the reaction
    /// counter and a repeat count nothing twice) and a legacy row under the post.
    async fn delete_reaction_of(&self, post_id: &str, user_id: &str) -> Result<(), DynamoError> {
        let row = keys::reaction(post_id, user_id);
        if let Some(item) = self.table.get(row.clone()).await? {
            let read = ReactionRow::from_item(&item);
            let mut tx = Transaction::new(&self.table);
            tx.delete_if(
                row,
                "version = :read",
                HashMap::from([(":read".to_string(), n(read.version.unwrap_or(0)))]),
            )?;
            if let Some(counter) = read.counted.map(counter_of) {
                tx.add(
                    keys::post(post_id),
                    counter,
                    -1,
                    Some("attribute_exists(pk)"),
                )?;
            }
            self.commit_undo(&tx).await?;
        }
        let row = keys::legacy_reaction(post_id, user_id);
        let Some(reaction) = self.table.get(row.clone()).await? else {
            return Ok(());
        };
        let kind = reaction.opt_string("reaction").unwrap_or_default();
        let Some(counter) = ReactionKind::parse(&kind).map(counter_of) else {
            return self.table_delete(row).await;
        };
        let mut tx = Transaction::new(&self.table);
        tx.delete_if(
            row,
            "reaction = :kind",
            HashMap::from([(":kind".to_string(), s(&kind))]),
        )?;
        tx.add(
            keys::post(post_id),
            counter,
            -1,
            Some("attribute_exists(pk)"),
        )?;
        self.commit_undo(&tx).await
    }

    /// Deletes the user's bookmark of a post with the post's `saveCount`.
    async fn delete_bookmark_of(&self, post_id: &str, user_id: &str) -> Result<(), DynamoError> {
        let mut tx = Transaction::new(&self.table);
        tx.delete(
            keys::bookmark(post_id, user_id),
            Some("attribute_exists(pk)"),
        )?;
        tx.add(
            keys::post(post_id),
            "saveCount",
            -1,
            Some("attribute_exists(pk)"),
        )?;
        self.commit_undo(&tx).await
    }

    /// Deletes the user's like of a comment with the comment's `likeCount`.
    async fn delete_comment_like_of(
        &self,
        comment_id: &str,
        user_id: &str,
    ) -> Result<(), DynamoError> {
        let row = keys::comment_like(comment_id, user_id);
        let Some(pointer) = self.table.get(keys::comment_pointer(comment_id)).await? else {
            return self.table_delete(row).await;
        };
        let post_id = string(&self.table, &pointer, "postId")?;
        let comment_sk = string(&self.table, &pointer, "commentSk")?;
        let mut tx = Transaction::new(&self.table);
        tx.delete(row, Some("attribute_exists(pk)"))?;
        tx.add(
            platform::dynamo::key(format!("POST#{post_id}"), comment_sk),
            "likeCount",
            -1,
            Some("attribute_exists(pk)"),
        )?;
        self.commit_undo(&tx).await
    }

    async fn table_delete(&self, key: Item) -> Result<(), DynamoError> {
        self.table
            .delete_item()
            .set_key(Some(key))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("DeleteItem", &e))
    }

    /// Commits an undo; a failed condition means it was already done (a repeated step).
    async fn commit_undo(&self, tx: &Transaction) -> Result<(), DynamoError> {
        match tx.commit_retrying().await {
            Ok(()) | Err(TransactionError::Condition { .. }) => Ok(()),
            Err(TransactionError::Conflict) => Err(DynamoError::Conflict {
                table: self.table.name().to_string(),
                attempts: platform::dynamo::RetryPolicy::CONFLICTS.attempts,
            }),
            Err(TransactionError::Dynamo(e)) => Err(e),
        }
    }
}

/// The post's counter of a reaction.
fn counter_of(kind: ReactionKind) -> &'static str {
    match kind {
        ReactionKind::Like => "likeCount",
        ReactionKind::Dislike => "dislikeCount",
    }
}
