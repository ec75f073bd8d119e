//! Users' lists follow the posts they hold: when a post stops being public (unpublished,
//! deleted, removed), every like, dislike and bookmark of it leaves its user's list and that
//! list's count; when it is public again, they come back. So a list's `totalElements` counts
//! what the list shows.
//!
//! A post's marks are found through `gsi3` (KEYS_ONLY, sparse), sorted `{KIND}#{userId}` in
//! `MARKS#{p}#LISTED#{0..63}` while in their lists and `MARKS#{p}#HIDDEN#{0..63}` while taken
//! out (spread over 64 partitions by user, so a viral post's likes do not meet on one). Each
//! move is one small transaction: the row's list keys (`gsi1`) removed and kept in `hiddenSk`
//! (or put back), its `gsi3` partition switched, and the user's profile counter moved, all
//! conditioned on the row being in the state read, so a repeated or concurrent walk moves
//! nothing twice, and on the post still being on the side the walk read (a check on its
//! META), so a walk that read the post before a newer write cannot undo that write's walk. The walk runs in the search indexer after each post write (the post's
//! outbox row guarantees it runs), a bounded number of moves per message.

use futures::StreamExt;
use platform::dynamo::{
    n, s, AttributeValue, Attributes, DynamoError, Item, Transaction, TransactionError,
};

use super::posts::{StoredPost, MARKS_HIDDEN};
use super::Store;
use crate::input::PostStatus;
use crate::keys;
use crate::model::jobs::MarkBackfill;

/// Mark moves at once in one walk.
const CONCURRENT_MOVES: usize = 8;

/// A listed mark's kind: the list it is in and the profile counter that counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MarkKind {
    Like,
    Dislike,
    Bookmark,
}

impl MarkKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Like => "LIKE",
            Self::Dislike => "DISLIKE",
            Self::Bookmark => "BOOKMARK",
        }
    }

    fn parse(raw: &str) -> Option<Self> {
        match raw {
            "LIKE" => Some(Self::Like),
            "DISLIKE" => Some(Self::Dislike),
            "BOOKMARK" => Some(Self::Bookmark),
            _ => None,
        }
    }

    fn list(self) -> &'static str {
        match self {
            Self::Like => "LIKES",
            Self::Dislike => "DISLIKES",
            Self::Bookmark => "BOOKMARKS",
        }
    }

    fn counter(self) -> &'static str {
        match self {
            Self::Like => "likedCount",
            Self::Dislike => "dislikedCount",
            Self::Bookmark => "bookmarkCount",
        }
    }
}

/// The `gsi3` attributes of a listed mark: `user_id`'s mark of `kind` on `post_id`.
pub(crate) fn listed_mark(
    post_id: &str,
    user_id: &str,
    kind: MarkKind,
) -> [(String, AttributeValue); 2] {
    [
        (
            "gsi3pk".to_string(),
            s(keys::marks_pk(post_id, true, keys::mark_shard_of(user_id))),
        ),
        (
            "gsi3sk".to_string(),
            s(keys::mark_sk(kind.as_str(), user_id)),
        ),
    ]
}

/// Whether a mark row is out of its user's list (its post is not public).
pub(crate) fn is_hidden(row: &Item) -> bool {
    row.contains_key("hiddenSk")
}

/// What one walk of a post's marks did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MarkWalk {
    /// Marks moved into or out of their lists.
    pub moved: usize,
    /// Every mark is where the post's visibility wants it.
    pub finished: bool,
}

impl Store {
    /// Moves at most `budget` of `post`'s marks into their users' lists (a public post) or out
    /// of them (any other), as the post is now.
    pub async fn sync_mark_lists(
        &self,
        post: &StoredPost,
        budget: usize,
    ) -> Result<MarkWalk, TransactionError> {
        let listed = post.is_public();
        let mut walk = MarkWalk::default();
        // Nothing can be on the wrong side of a post never published (marks need a public
        // post) or of a public one nothing was hidden from: most writes read no shard.
        if post.first_published_at.is_none() || (listed && !post.marks_hidden) {
            walk.finished = true;
            return Ok(walk);
        }
        if !listed && !post.marks_hidden {
            // Marked before any mark moves, so the walk back is never skipped.
            self.set_marks_hidden(&post.id, true).await?;
        }
        for shard in 0..keys::MARK_SHARDS {
            let left = budget.saturating_sub(walk.moved);
            if left == 0 {
                return Ok(walk);
            }
            // The marks still on the wrong side.
            let query = self
                .table
                .query()
                .index_name(keys::GSI3)
                .key_condition_expression("gsi3pk = :pk")
                .expression_attribute_values(":pk", s(keys::marks_pk(&post.id, !listed, shard)))
                .limit(i32::try_from(left).unwrap_or(i32::MAX));
            let marks = self.table.query_all(query, Some(left)).await?;
            let more = marks.len() == left;
            let moves: Vec<Result<bool, TransactionError>> = futures::stream::iter(marks)
                .map(|mark| async move { self.move_mark(&post.id, &mark, listed, shard).await })
                .buffer_unordered(CONCURRENT_MOVES)
                .collect()
                .await;
            for result in moves {
                if !result? {
                    // The post changed sides since it was read: its newer write's walk goes
                    // on from here, and this one is not finished.
                    return Ok(walk);
                }
                walk.moved += 1;
            }
            if more {
                return Ok(walk);
            }
        }
        if listed {
            self.set_marks_hidden(&post.id, false).await?;
        }
        walk.finished = true;
        Ok(walk)
    }

    /// Marks the post's META as having marks out of their lists, or (`false`, once they are
    /// all back) clears it while the post is still public; a newer write's walk then
    /// decides.
    async fn set_marks_hidden(&self, post_id: &str, hidden: bool) -> Result<(), DynamoError> {
        let update = self.table.update_item().set_key(Some(keys::post(post_id)));
        let update = if hidden {
            update
                .update_expression("SET #hidden = :yes")
                .condition_expression("attribute_exists(pk)")
                .expression_attribute_values(":yes", AttributeValue::Bool(true))
        } else {
            update
                .update_expression("REMOVE #hidden")
                .condition_expression("#status = :published AND attribute_not_exists(deletedAt)")
                .expression_attribute_names("#status", "status")
                .expression_attribute_values(":published", s(PostStatus::Published.as_str()))
        };
        match update
            .expression_attribute_names("#hidden", MARKS_HIDDEN)
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table.fail("UpdateItem", &e)),
        }
    }

    /// Moves one mark (its `gsi3` keys) into its list (`listed`) or out of it, with its user's
    /// counter, while the post is still public (`listed`) or not; a mark already moved,
    /// changed or gone is left as it is. `false` when the post changed sides meanwhile (a
    /// stale walk must not undo a newer one's moves).
    async fn move_mark(
        &self,
        post_id: &str,
        mark: &Item,
        listed: bool,
        shard: u32,
    ) -> Result<bool, TransactionError> {
        let (Some(pk), Some(sk), Some(mark_sk)) = (
            mark.opt_string("pk"),
            mark.opt_string("sk"),
            mark.opt_string("gsi3sk"),
        ) else {
            return Err(self.table.corrupt("a mark without its keys in gsi3").into());
        };
        let Some((kind, user_id)) = mark_sk
            .split_once('#')
            .and_then(|(k, u)| Some((MarkKind::parse(k)?, u)))
        else {
            return Err(self
                .table
                .corrupt(format!("a mark sorted {mark_sk:?} in gsi3"))
                .into());
        };
        let from = keys::marks_pk(post_id, !listed, shard);
        let to = keys::marks_pk(post_id, listed, shard);
        let row_key = platform::dynamo::key(pk, sk);
        let row = |tx: &Transaction| {
            let update = tx
                .update_builder(row_key.clone())
                .condition_expression("gsi3pk = :from AND gsi3sk = :mark")
                .expression_attribute_values(":from", s(&from))
                .expression_attribute_values(":to", s(&to))
                .expression_attribute_values(":mark", s(&mark_sk));
            if listed {
                update
                    .update_expression(
                        "SET gsi3pk = :to, gsi1pk = :list, gsi1sk = hiddenSk REMOVE hiddenSk",
                    )
                    .expression_attribute_values(":list", s(keys::user_list(kind.list(), user_id)))
            } else {
                update
                    .update_expression("SET gsi3pk = :to, hiddenSk = gsi1sk REMOVE gsi1pk, gsi1sk")
            }
        };
        let public = if listed {
            "#status = :published AND attribute_not_exists(deletedAt)"
        } else {
            "#status <> :published OR attribute_exists(deletedAt)"
        };
        let post_side = |tx: &mut Transaction| {
            tx.check_if(
                keys::post(post_id),
                public,
                &[("#status", "status")],
                Item::from([(":published".to_string(), s(PostStatus::Published.as_str()))]),
            )
            .map(|_| ())
        };
        let mut tx = Transaction::new(&self.table);
        tx.update(row(&tx))?;
        post_side(&mut tx)?;
        let profile = tx
            .update_builder(keys::profile(user_id))
            .update_expression(format!("ADD {} :by", kind.counter()))
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_values(":by", n(if listed { 1 } else { -1 }));
        tx.update(profile)?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(true),
            Err(e) if e.failed_at(1) => Ok(false),
            // Moved by another walk, changed or withdrawn by its user since it was read.
            Err(e) if e.failed_at(0) => Ok(true),
            // No profile to count it (a user who never had one): the row moves alone.
            Err(e) if e.failed_at(2) => {
                let mut alone = Transaction::new(&self.table);
                alone.update(row(&alone))?;
                post_side(&mut alone)?;
                match alone.commit_retrying().await {
                    Ok(()) => Ok(true),
                    Err(e) if e.failed_at(1) => Ok(false),
                    Err(TransactionError::Condition { .. }) => Ok(true),
                    Err(e) => Err(e),
                }
            }
            Err(e) => Err(e),
        }
    }
}

impl Store {
    /// One run of the backfill that gives marks written before `gsi3` existed their keys:
    /// reads at most `max_items` items of the table from where the last run stopped (kept in
    /// the migration's marker), and indexes the listed likes, dislikes and bookmarks among
    /// them, each conditioned on still being listed and unindexed, so a repeated run changes
    /// nothing twice.
    pub async fn backfill_mark_index(&self, max_items: usize) -> Result<MarkBackfill, DynamoError> {
        let mut run = MarkBackfill::default();
        let marker = self.table.get(keys::mark_index_migration()).await?;
        if marker
            .as_ref()
            .is_some_and(|m| m.contains_key("finishedAt"))
        {
            run.finished = true;
            return Ok(run);
        }
        let resume = marker.as_ref().and_then(|m| {
            let (pk, sk) = (m.opt_string("resumePk")?, m.opt_string("resumeSk")?);
            Some(platform::dynamo::key(pk, sk))
        });
        let out = self
            .table
            .client()
            .scan()
            .table_name(self.table.name())
            .set_exclusive_start_key(resume)
            .limit(i32::try_from(max_items).unwrap_or(i32::MAX))
            .filter_expression(
                "attribute_exists(gsi1pk) AND attribute_not_exists(gsi3pk) AND \
                 (begins_with(pk, :react) OR begins_with(sk, :bookmark) OR begins_with(sk, :legacy))",
            )
            .projection_expression("pk, sk, reaction")
            .expression_attribute_values(":react", s("REACT#"))
            .expression_attribute_values(":bookmark", s("B#"))
            .expression_attribute_values(":legacy", s("R#"))
            .send()
            .await
            .map_err(|e| self.table.fail("Scan", &e))?;
        for item in out.items.unwrap_or_default() {
            let Some((post_id, user_id, kind)) = unindexed_mark(&item) else {
                continue;
            };
            let mut update = self
                .table
                .update_item()
                .set_key(Some(platform::dynamo::key(
                    item.opt_string("pk").unwrap_or_default(),
                    item.opt_string("sk").unwrap_or_default(),
                )))
                .update_expression("SET gsi3pk = :pk, gsi3sk = :sk")
                .condition_expression("attribute_exists(gsi1pk) AND attribute_not_exists(gsi3pk)");
            for (name, value) in listed_mark(&post_id, &user_id, kind) {
                update = update.expression_attribute_values(
                    if name == "gsi3pk" { ":pk" } else { ":sk" },
                    value,
                );
            }
            match update.send().await {
                Ok(_) => {
                    run.indexed += 1;
                    if !run.posts.contains(&post_id) {
                        run.posts.push(post_id);
                    }
                }
                // Changed since the scan read it: its own write gave it the keys.
                Err(e)
                    if e.as_service_error()
                        .is_some_and(|s| s.is_conditional_check_failed_exception()) => {}
                Err(e) => return Err(self.table.fail("UpdateItem", &e)),
            }
        }
        let mut marker = keys::mark_index_migration();
        match out.last_evaluated_key.filter(|k| !k.is_empty()) {
            Some(next) => {
                marker.insert(
                    "resumePk".to_string(),
                    s(next.opt_string("pk").unwrap_or_default()),
                );
                marker.insert(
                    "resumeSk".to_string(),
                    s(next.opt_string("sk").unwrap_or_default()),
                );
            }
            None => {
                marker.insert("finishedAt".to_string(), s(self.clock.timestamp()));
                run.finished = true;
            }
        }
        self.table
            .put_item()
            .set_item(Some(marker))
            .send()
            .await
            .map_err(|e| self.table.fail("PutItem", &e))?;
        Ok(run)
    }
}

/// The post, user and kind of a listed mark the backfill read (`None` for anything else).
fn unindexed_mark(item: &Item) -> Option<(String, String, MarkKind)> {
    let (pk, sk) = (item.opt_string("pk")?, item.opt_string("sk")?);
    if let Some(rest) = pk.strip_prefix("REACT#") {
        let (post, user) = rest.split_once('#')?;
        let kind = MarkKind::parse(&item.opt_string("reaction")?)?;
        return Some((post.to_string(), user.to_string(), kind));
    }
    let post = pk.strip_prefix("POST#")?;
    if let Some(user) = sk.strip_prefix("B#") {
        return Some((post.to_string(), user.to_string(), MarkKind::Bookmark));
    }
    let user = sk.strip_prefix("R#")?;
    let kind = MarkKind::parse(&item.opt_string("reaction")?)?;
    Some((post.to_string(), user.to_string(), kind))
}
