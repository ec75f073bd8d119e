//! Post reaction counts, moved off the post's key a batch at a time.
//!
//! A like, dislike or its removal writes the member's own row (`REACT#{post}#{member}`) and
//! puts a [`ReactionChange`](crate::queues::ReactionChange) on the reaction queue. The reaction counter (the view counter's
//! function, `community-views`, on its second queue) counts a batch per post: it reads each
//! member's row, adds `reaction - counted` of all of them to the post's counters with one
//! `ADD`, and sets each row's `counted` (or deletes a counted removal) in the same transaction,
//! each conditioned on the row's `version` it read. A redelivered message finds
//! `counted = reaction` and adds nothing; a row changed meanwhile fails the transaction, which
//! reads again.
//!
//! A post made before reactions had their own partition may still hold rows `R#{member}`
//! under its key; the counter moves up to [`LEGACY_ROWS_PER_BATCH`] of them out with each
//! batch of the post's reactions (each move conditioned on the row as read, so a member's
//! own change racing it wins), and marks the post (`reactionRows = OWN`) once none is left,
//! after which a like reads nothing under the post. New posts are made marked.
//!
//! Rates at target (a viral post liked 5,000 times a second): each `REACT#{post}#{member}` is
//! its own partition (one put by the member, one update by the counter); the post's `ADD` is
//! one transactional write (2 units) per batch of up to 99 members, at most 5000 / 99 ≈ 51 a
//! second × 2 = 101 write units (10% of a partition), fewer when batches carry many posts.

use futures::StreamExt;
use platform::dynamo::{
    n, retry_on_conflict, s, Attributes, DynamoError, Item, RetryPolicy, Transaction,
    TransactionError,
};

use super::social::ReactionRow;
use super::Store;
use crate::keys;

/// Member rows of one post moved in one transaction: 99 and the post's `ADD` are DynamoDB's
/// 100-item limit.
pub const ROWS_PER_TRANSACTION: usize = 99;
/// Rows read at once.
const CONCURRENT_READS: usize = 16;
/// Times a chunk is read again when a member changed their row meanwhile.
const REREADS: u32 = 5;

/// Rows under a legacy post moved out per batch of its reactions (a viral post made before
/// the move has its rows out within seconds of its likes; a quiet one never needs them out).
pub const LEGACY_ROWS_PER_BATCH: usize = 500;
/// Legacy rows moved in one transaction: a delete and a put each.
const LEGACY_ROWS_PER_TRANSACTION: usize = 50;

/// Why some of a post's reactions were not counted (the worker lets their messages come
/// back; what was counted stays counted, and its rows make the redelivery skip it).
#[derive(Debug, thiserror::Error)]
pub enum ReactionCountError {
    #[error(transparent)]
    Store(#[from] DynamoError),
    /// Members kept changing their rows, or the post stayed contended.
    #[error("the post's reactions are busy")]
    Busy,
}

impl Store {
    /// Counts the reaction changes of `members` on one post: the post's counters move by what
    /// their rows hold and the counters do not, once. Answers the (likes, dislikes) added.
    pub async fn count_reactions(
        &self,
        post_id: &str,
        members: &[String],
    ) -> Result<(i64, i64), ReactionCountError> {
        self.move_legacy_reactions(post_id).await?;
        let mut members: Vec<String> = members.to_vec();
        members.sort();
        members.dedup();
        let mut added = (0, 0);
        for chunk in members.chunks(ROWS_PER_TRANSACTION) {
            let (likes, dislikes) = self.count_chunk(post_id, chunk).await?;
            added = (added.0 + likes, added.1 + dislikes);
        }
        Ok(added)
    }

    /// Moves up to [`LEGACY_ROWS_PER_BATCH`] of the rows still under a post made before
    /// reactions had their own partition, and marks the post once none is left. Answers
    /// whether the post is marked.
    pub async fn move_legacy_reactions(&self, post_id: &str) -> Result<bool, DynamoError> {
        let Some(post) = self.post(post_id).await? else {
            return Ok(false);
        };
        if !post.legacy_reactions {
            return Ok(true);
        }
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :r)")
            .expression_attribute_values(":pk", s(format!("POST#{post_id}")))
            .expression_attribute_values(":r", s("R#"))
            .consistent_read(true);
        let rows = self
            .table
            .query_all(query, Some(LEGACY_ROWS_PER_BATCH + 1))
            .await?;
        let more = rows.len() > LEGACY_ROWS_PER_BATCH;
        let mut moved_all = true;
        for chunk in rows
            .iter()
            .take(LEGACY_ROWS_PER_BATCH)
            .collect::<Vec<_>>()
            .chunks(LEGACY_ROWS_PER_TRANSACTION)
        {
            let mut tx = Transaction::new(&self.table);
            for row in chunk {
                move_legacy_row(&mut tx, post_id, row)?;
            }
            match tx.commit().await {
                Ok(()) => {}
                // A member changed their reaction meanwhile (which moves their row itself):
                // the rows go one at a time, and those moved already are skipped.
                Err(TransactionError::Condition { .. } | TransactionError::Conflict) => {
                    for row in chunk {
                        let mut one = Transaction::new(&self.table);
                        move_legacy_row(&mut one, post_id, row)?;
                        match one.commit().await {
                            Ok(()) | Err(TransactionError::Condition { .. }) => {}
                            Err(TransactionError::Conflict) => moved_all = false,
                            Err(TransactionError::Dynamo(e)) => return Err(e),
                        }
                    }
                }
                Err(TransactionError::Dynamo(e)) => return Err(e),
            }
        }
        if more || !moved_all {
            return Ok(false);
        }
        let marked = self
            .table
            .update_item()
            .set_key(Some(keys::post(post_id)))
            .update_expression("SET #rows = :own")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_names("#rows", crate::store::posts::REACTION_ROWS)
            .expression_attribute_values(":own", s(crate::store::posts::REACTION_ROWS_OWN))
            .send()
            .await;
        match marked {
            Ok(_) => Ok(true),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("UpdateItem", &e)),
        }
    }

    async fn member_row(
        &self,
        post_id: &str,
        member: String,
    ) -> Result<(String, Option<ReactionRow>), DynamoError> {
        let row = self.table.get(keys::reaction(post_id, &member)).await?;
        Ok((member, row.as_ref().map(ReactionRow::from_item)))
    }

    async fn count_chunk(
        &self,
        post_id: &str,
        members: &[String],
    ) -> Result<(i64, i64), ReactionCountError> {
        for _ in 0..REREADS {
            let reads: Vec<_> = members
                .iter()
                .cloned()
                .map(|m| self.member_row(post_id, m))
                .collect();
            let rows: Vec<Result<(String, Option<ReactionRow>), DynamoError>> =
                futures::stream::iter(reads)
                    .buffered(CONCURRENT_READS)
                    .collect()
                    .await;
            let mut tx = Transaction::new(&self.table);
            let mut added = (0, 0);
            for row in rows {
                // No row: removed and counted, or taken by the account's cleanup.
                let (member, Some(row)) = row? else { continue };
                let (likes, dislikes) = row.pending();
                let Some(version) = row.version else { continue };
                if (likes, dislikes) == (0, 0) && row.reaction.is_some() {
                    continue;
                }
                added = (added.0 + likes, added.1 + dislikes);
                let read = Item::from([(":read".to_string(), n(version))]);
                let key = keys::reaction(post_id, &member);
                if row.reaction.is_none() {
                    tx.delete_if(key, "version = :read", read)?;
                } else {
                    tx.update(
                        tx.update_builder(key)
                            // A new version: a cleanup or a change that read the old one
                            // must read again.
                            .update_expression("SET #counted = :reaction ADD version :one")
                            .condition_expression("version = :read")
                            .expression_attribute_names("#counted", "counted")
                            .expression_attribute_values(
                                ":reaction",
                                s(row.reaction.map_or("NONE", |r| r.as_str())),
                            )
                            .expression_attribute_values(":read", n(version))
                            .expression_attribute_values(":one", n(1)),
                    )?;
                }
            }
            if tx.is_empty() {
                return Ok((0, 0));
            }
            let post_at = tx.len();
            if added != (0, 0) {
                tx.update(
                    tx.update_builder(keys::post(post_id))
                        .update_expression("ADD likeCount :likes, dislikeCount :dislikes")
                        .condition_expression("attribute_exists(pk)")
                        .expression_attribute_values(":likes", n(added.0))
                        .expression_attribute_values(":dislikes", n(added.1)),
                )?;
            }
            match retry_on_conflict(
                RetryPolicy::HOT_COUNTER,
                TransactionError::is_conflict,
                |_| tx.commit(),
            )
            .await
            {
                Ok(()) => return Ok(added),
                Err(e @ TransactionError::Condition { .. }) => {
                    if e.failed_at(post_at) {
                        // No such post: nothing to count on (its rows go with the accounts).
                        tracing::warn!(post_id, "reactions on a post that does not exist");
                        return Ok((0, 0));
                    }
                    // A member changed their row since it was read: read the chunk again.
                    continue;
                }
                Err(TransactionError::Conflict) => return Err(ReactionCountError::Busy),
                Err(TransactionError::Dynamo(e)) => return Err(e.into()),
            }
        }
        Err(ReactionCountError::Busy)
    }
}

/// Adds to `tx` the move of one legacy row (`POST#{p}`/`R#{u}`) to `REACT#{p}#{u}`, counted
/// as it is (the post's counters already hold it), if it is still as read.
fn move_legacy_row(tx: &mut Transaction, post_id: &str, row: &Item) -> Result<(), DynamoError> {
    let (Some(sk), Some(reaction)) = (row.opt_string("sk"), row.opt_string("reaction")) else {
        return Ok(());
    };
    let Some(member) = sk.strip_prefix("R#") else {
        return Ok(());
    };
    tx.delete_if(
        keys::legacy_reaction(post_id, member),
        "reaction = :r",
        Item::from([(":r".to_string(), s(&reaction))]),
    )?;
    let mut item = keys::reaction(post_id, member);
    item.extend([
        ("reaction".to_string(), s(&reaction)),
        ("counted".to_string(), s(&reaction)),
        ("version".to_string(), n(1)),
        ("gsi2pk".to_string(), s(keys::owner(member))),
        ("gsi2sk".to_string(), s(format!("REACTION#{post_id}"))),
    ]);
    for copied in ["reactedAt", "gsi1pk", "gsi1sk"] {
        if let Some(value) = row.get(copied) {
            item.insert(copied.to_string(), value.clone());
        }
    }
    tx.put(item, Some("attribute_not_exists(pk)"))?;
    Ok(())
}
