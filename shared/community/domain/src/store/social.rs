//! Reactions and bookmarks: one row per user and post.
//!
//! A bookmark (`B#{u}` under the post) moves the post's `saveCount` and the user's profile
//! counter in one transaction, so counts stay exact under any concurrency.
//!
//! A reaction lives in its own partition (`REACT#{p}#{u}`) so a viral post's likes spread:
//! the request writes the row and the user's profile counter only, and the reaction counter
//! ([`reactions`](super::reactions)) moves the post's counters a batch at a time. The row holds the
//! reaction shown (`reaction`), the one the post's counters hold (`counted`) and a `version`
//! every change bumps; the counter adds `reaction - counted` and sets `counted` in one
//! transaction conditioned on the version it read, so a redelivery counts nothing twice.

use platform::dynamo::{
    n, retry_on_conflict, s, Attributes, DynamoError, Item, RetryPolicy, Transaction,
    TransactionError,
};

use super::mark_lists::{is_hidden, listed_mark, MarkKind};
use super::posts::StoredPost;
use super::Store;
use crate::input::PostStatus;
use crate::keys;
use crate::model::social::ReactionKind;

impl ReactionKind {
    /// The reacting user's counter.
    fn profile_counter(self) -> &'static str {
        match self {
            Self::Like => "likedCount",
            Self::Dislike => "dislikedCount",
        }
    }

    /// The user's `gsi1` list this reaction is in.
    fn list(self) -> &'static str {
        match self {
            Self::Like => "LIKES",
            Self::Dislike => "DISLIKES",
        }
    }

    fn mark(self) -> MarkKind {
        match self {
            Self::Like => MarkKind::Like,
            Self::Dislike => MarkKind::Dislike,
        }
    }
}

/// What the caller has done to a post.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Marks {
    pub reaction: Option<ReactionKind>,
    pub bookmarked: bool,
    /// The caller's change the reaction counter has not counted yet (likes, dislikes): added
    /// to the counts the caller is shown, so their own reaction shows at once.
    pub pending: (i64, i64),
}

impl Marks {
    /// `(likes, dislikes)` as the caller sees them: the post's with their own change added.
    pub fn counts(&self, likes: i64, dislikes: i64) -> (i64, i64) {
        (
            (likes + self.pending.0).max(0),
            (dislikes + self.pending.1).max(0),
        )
    }
}

/// Why a reaction or bookmark did not commit.
#[derive(Debug, thiserror::Error)]
pub enum MarkError {
    /// The post is missing, deleted, or not published (the caller decides 404 or 409).
    #[error("the post cannot be reacted to")]
    PostNotOpen,
    /// The user's account is deleted.
    #[error("the account is deleted")]
    AccountGone,
    /// Conflicts outlasted the retries, or the same user kept changing the row.
    #[error("the post is busy")]
    Busy,
    /// The row changed since it was read (the same user raced): read it again.
    #[error("the row changed since it was read")]
    Raced,
    #[error(transparent)]
    Store(#[from] DynamoError),
}

/// Times the row is read again when the same user changed it between read and write.
const REREADS: u32 = 5;

/// A counter change on the post and (unless the mark is out of the user's list, already
/// counted down) on the user's profile.
struct Delta {
    counter: &'static str,
    profile: Option<&'static str>,
    by: i64,
}

/// How long an instance trusts that a post is open to reactions without reading it again.
/// Safe because a reaction to a post closed meanwhile only moves counters nobody reads: a
/// deleted or unpublished post is out of every list, and its rows go with the accounts.
const OPEN_POST_SECONDS: u64 = 5;
/// Posts remembered at once by one instance (the cache is emptied when full).
const OPEN_POSTS_KEPT: usize = 4096;

/// The stored marker of "no reaction" (a removal not yet counted).
const NONE: &str = "NONE";

/// A reaction row as read: the reaction shown, the one the post's counters hold, the row's
/// version (`None`: a legacy row, or no row).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ReactionRow {
    pub reaction: Option<ReactionKind>,
    pub counted: Option<ReactionKind>,
    pub version: Option<i64>,
    pub legacy: bool,
    /// Out of the user's list (and their count) while the post is not public.
    pub hidden: bool,
}

impl ReactionRow {
    pub(crate) fn from_item(item: &Item) -> Self {
        let kind = |name: &str| item.opt_string(name).and_then(|r| ReactionKind::parse(&r));
        Self {
            reaction: kind("reaction"),
            counted: kind("counted"),
            version: item
                .get("version")
                .and_then(|v| v.as_n().ok())
                .and_then(|v| v.parse().ok()),
            legacy: false,
            hidden: is_hidden(item),
        }
    }

    fn legacy(item: &Item) -> Self {
        let reaction = item
            .opt_string("reaction")
            .and_then(|r| ReactionKind::parse(&r));
        Self {
            reaction,
            counted: reaction,
            version: None,
            legacy: true,
            hidden: is_hidden(item),
        }
    }

    /// The post's counter moves that would bring it from `counted` to `reaction`.
    pub(crate) fn pending(&self) -> (i64, i64) {
        let weight = |k: Option<ReactionKind>| match k {
            Some(ReactionKind::Like) => (1, 0),
            Some(ReactionKind::Dislike) => (0, 1),
            None => (0, 0),
        };
        let (now, was) = (weight(self.reaction), weight(self.counted));
        (now.0 - was.0, now.1 - was.1)
    }
}

/// The caller's reaction from their row, or from the row written before rows had their own
/// partition.
fn reaction_of(row: Option<&Item>, legacy: Option<&Item>) -> ReactionRow {
    match row {
        Some(r) => ReactionRow::from_item(r),
        None => legacy.map(ReactionRow::legacy).unwrap_or_default(),
    }
}

/// The caller's marks from their reaction row (or legacy row) and whether they bookmarked.
pub(crate) fn marks(row: Option<&Item>, legacy: Option<&Item>, bookmarked: bool) -> Marks {
    let row = reaction_of(row, legacy);
    Marks {
        reaction: row.reaction,
        bookmarked,
        pending: row.pending(),
    }
}

fn kind_str(kind: Option<ReactionKind>) -> &'static str {
    kind.map_or(NONE, ReactionKind::as_str)
}

/// What a reaction did: the post as last seen (its counts as of the reaction counter's last
/// batch) and the caller's row after the change.
#[derive(Debug, Clone)]
pub struct Reacted {
    pub post: StoredPost,
    pub(crate) row: ReactionRow,
}

impl Reacted {
    /// The post's counts with the caller's change not yet counted added.
    pub fn counts(&self) -> (i64, i64) {
        let (likes, dislikes) = self.row.pending();
        (
            (self.post.like_count + likes).max(0),
            (self.post.dislike_count + dislikes).max(0),
        )
    }

    /// The reaction counter has a change of this row to count.
    pub fn to_count(&self) -> bool {
        self.row.pending() != (0, 0)
    }

    pub fn reaction(&self) -> Option<ReactionKind> {
        self.row.reaction
    }
}

impl Store {
    /// The caller's reaction and bookmark on a post, read consistently.
    pub async fn marks(&self, post_id: &str, user_id: &str) -> Result<Marks, DynamoError> {
        let (row, legacy, bookmark) = futures::try_join!(
            self.table.get(keys::reaction(post_id, user_id)),
            self.table.get(keys::legacy_reaction(post_id, user_id)),
            self.table.get(keys::bookmark(post_id, user_id))
        )?;
        Ok(marks(row.as_ref(), legacy.as_ref(), bookmark.is_some()))
    }

    /// `user_id`'s marks on each of `post_ids`, in order: one BatchGetItem per 33 posts
    /// (a reaction, a legacy reaction and a bookmark row each) instead of three reads a post.
    pub async fn marks_on(
        &self,
        post_ids: &[String],
        user_id: &str,
    ) -> Result<Vec<Marks>, DynamoError> {
        let keys_: Vec<Item> = post_ids
            .iter()
            .flat_map(|p| {
                [
                    keys::reaction(p, user_id),
                    keys::legacy_reaction(p, user_id),
                    keys::bookmark(p, user_id),
                ]
            })
            .collect();
        let rows = self.table.batch_get_all(keys_, None).await?;
        let find = |key: Item| {
            rows.iter()
                .find(|r| r.get("pk") == key.get("pk") && r.get("sk") == key.get("sk"))
        };
        Ok(post_ids
            .iter()
            .map(|p| {
                marks(
                    find(keys::reaction(p, user_id)),
                    find(keys::legacy_reaction(p, user_id)),
                    find(keys::bookmark(p, user_id)).is_some(),
                )
            })
            .collect())
    }

    /// The caller's reaction row read consistently, or their legacy row under the post while
    /// the post may hold some (`legacy`; never for a post made since, so a viral post's likes
    /// read nothing of its partition).
    pub(crate) async fn reaction_row(
        &self,
        post_id: &str,
        user_id: &str,
        legacy: bool,
    ) -> Result<ReactionRow, DynamoError> {
        if let Some(row) = self.table.get(keys::reaction(post_id, user_id)).await? {
            return Ok(ReactionRow::from_item(&row));
        }
        if !legacy {
            return Ok(ReactionRow::default());
        }
        Ok(self
            .table
            .get(keys::legacy_reaction(post_id, user_id))
            .await?
            .map(|l| ReactionRow::legacy(&l))
            .unwrap_or_default())
    }

    /// Sets `user`'s reaction to a published live post, or removes it (`None`) from any post
    /// that exists, on the user's own row and profile only: the post's counters are the
    /// reaction counter's to move (when [`Reacted::to_count`], the caller sends a
    /// [`crate::queues::ReactionChange`]). Nothing is written when it is already so.
    pub async fn react(
        &self,
        post_id: &str,
        user_id: &str,
        reaction: Option<ReactionKind>,
    ) -> Result<Reacted, MarkError> {
        let post = match reaction {
            Some(_) => self.open_post(post_id).await?,
            // A reaction can always be taken back, whatever became of the post since.
            None => self.post(post_id).await?.ok_or(MarkError::PostNotOpen)?,
        };
        for _ in 0..REREADS {
            let old = self
                .reaction_row(post_id, user_id, post.legacy_reactions)
                .await?;
            if old.reaction == reaction {
                return Ok(self.counted_snapshot(post_id, user_id, post, old).await?);
            }
            let now = self.clock.timestamp();
            let version = old.version.unwrap_or(0) + 1;
            let new = ReactionRow {
                reaction,
                counted: old.counted,
                version: Some(version),
                legacy: false,
                hidden: false,
            };
            // The row as read, out of its list or in it: a mark walk moving it meanwhile
            // fails the write, which then reads again.
            let as_read = if old.hidden {
                "attribute_exists(hiddenSk)"
            } else {
                "attribute_not_exists(hiddenSk)"
            };
            let mut tx = Transaction::new(&self.table);
            if old.legacy {
                // Moved out from under the post on the user's first change since.
                tx.delete_if(
                    keys::legacy_reaction(post_id, user_id),
                    &format!("reaction = :old AND {as_read}"),
                    Item::from([(":old".to_string(), s(kind_str(old.reaction)))]),
                )?;
            }
            let row = keys::reaction(post_id, user_id);
            if new.pending() == (0, 0) && reaction.is_none() {
                // Back to what is counted, and that is nothing: no row.
                tx.delete_if(
                    row,
                    &format!("version = :read AND {as_read}"),
                    Item::from([(":read".to_string(), n(old.version.unwrap_or(0)))]),
                )?;
            } else {
                let mut item = row;
                item.extend([
                    ("reaction".to_string(), s(kind_str(reaction))),
                    ("counted".to_string(), s(kind_str(old.counted))),
                    ("version".to_string(), n(version)),
                    ("reactedAt".to_string(), s(&now)),
                    ("gsi2pk".to_string(), s(keys::owner(user_id))),
                    ("gsi2sk".to_string(), s(format!("REACTION#{post_id}"))),
                ]);
                if let Some(kind) = reaction {
                    item.extend([
                        (
                            "gsi1pk".to_string(),
                            s(keys::user_list(kind.list(), user_id)),
                        ),
                        ("gsi1sk".to_string(), s(format!("{now}#{post_id}"))),
                    ]);
                    item.extend(listed_mark(post_id, user_id, kind.mark()));
                }
                match old.version {
                    Some(read) if !old.legacy => tx.put_if(
                        item,
                        &format!("version = :read AND {as_read}"),
                        Item::from([(":read".to_string(), n(read))]),
                    )?,
                    _ => tx.put(item, Some("attribute_not_exists(pk)"))?,
                };
            }
            let mut deltas = Vec::new();
            if let Some(o) = old.reaction.filter(|_| !old.hidden) {
                deltas.push((o.profile_counter(), -1));
            }
            if let Some(r) = reaction {
                deltas.push((r.profile_counter(), 1));
            }
            let profile_at = tx.len();
            if deltas.is_empty() {
                // Withdrawn from a list it was already out of: no count moves.
                tx.check(keys::profile(user_id), "attribute_not_exists(deletedAt)")?;
            } else {
                let mut profile = tx
                    .update_builder(keys::profile(user_id))
                    .condition_expression("attribute_not_exists(deletedAt)");
                let mut adds = Vec::new();
                for (i, (counter, by)) in deltas.iter().enumerate() {
                    profile = profile.expression_attribute_values(format!(":d{i}"), n(*by));
                    adds.push(format!("{counter} :d{i}"));
                }
                tx.update(profile.update_expression(format!("ADD {}", adds.join(", "))))?;
            }
            match retry_on_conflict(
                RetryPolicy::HOT_COUNTER,
                TransactionError::is_conflict,
                |_| tx.commit(),
            )
            .await
            {
                Ok(()) => return Ok(self.counted_snapshot(post_id, user_id, post, new).await?),
                Err(e @ TransactionError::Condition { .. }) => {
                    if e.failed_at(profile_at) {
                        return Err(MarkError::AccountGone);
                    }
                    // The same user raced on their row: read it again.
                    continue;
                }
                Err(TransactionError::Conflict) => return Err(MarkError::Busy),
                Err(TransactionError::Dynamo(e)) => return Err(e.into()),
            }
        }
        Err(MarkError::Busy)
    }

    /// The post and the caller's row as one snapshot, when anything of `row` is counted: a
    /// post remembered (or read) apart from the row pairs counts from before the counter
    /// counted the row with a row that says they are counted ([`Reacted::counts`] adds only
    /// what is not), and the answer would show the caller's own change twice or not at all.
    /// The counter moves the post and the row in one transaction, so one `TransactGetItems`
    /// sees both or neither. A first reaction's row has nothing counted: a viral post's new
    /// likes still read nothing more.
    async fn counted_snapshot(
        &self,
        post_id: &str,
        user_id: &str,
        post: StoredPost,
        row: ReactionRow,
    ) -> Result<Reacted, DynamoError> {
        if row.counted.is_none() || row.legacy {
            // A legacy row is counted as it is and moves only on its user's next change.
            return Ok(Reacted { post, row });
        }
        let mut items = self
            .table
            .get_together(vec![keys::post(post_id), keys::reaction(post_id, user_id)])
            .await?
            .into_iter();
        let (fresh_post, fresh_row) = (items.next().flatten(), items.next().flatten());
        Ok(Reacted {
            post: match fresh_post {
                Some(item) => StoredPost::from_item(self, &item)?,
                None => post,
            },
            row: fresh_row.map(|r| ReactionRow::from_item(&r)).unwrap_or(row),
        })
    }

    /// The post when it is published and live, from this instance's memory when it found it
    /// so less than [`OPEN_POST_SECONDS`] ago: a viral post's likes do not read it each.
    async fn open_post(&self, post_id: &str) -> Result<StoredPost, MarkError> {
        if let Some(post) = self.remembered_open(post_id) {
            return Ok(post);
        }
        let _reading = self.open_post_reads.lock().await;
        if let Some(post) = self.remembered_open(post_id) {
            return Ok(post);
        }
        match self.post(post_id).await? {
            Some(p) if p.is_public() => {
                if let Ok(mut seen) = self.open_posts.lock() {
                    if seen.len() >= OPEN_POSTS_KEPT {
                        seen.clear();
                    }
                    seen.insert(post_id.to_string(), (std::time::Instant::now(), p.clone()));
                }
                Ok(p)
            }
            _ => Err(MarkError::PostNotOpen),
        }
    }

    /// The post if this instance found it open less than [`OPEN_POST_SECONDS`] ago.
    fn remembered_open(&self, post_id: &str) -> Option<StoredPost> {
        let fresh = std::time::Duration::from_secs(OPEN_POST_SECONDS);
        let seen = self.open_posts.lock().ok()?;
        seen.get(post_id)
            .filter(|(at, _)| at.elapsed() < fresh)
            .map(|(_, post)| post.clone())
    }

    /// Forgets that a post was open: this instance changed it.
    pub(crate) fn forget_open_post(&self, post_id: &str) {
        if let Ok(mut seen) = self.open_posts.lock() {
            seen.remove(post_id);
        }
    }

    /// Bookmarks a published live post (`true`) or removes the bookmark of any post
    /// (`false`); nothing is written when it is already so.
    pub async fn bookmark(
        &self,
        post_id: &str,
        user_id: &str,
        bookmarked: bool,
    ) -> Result<(), MarkError> {
        let row = keys::bookmark(post_id, user_id);
        for _ in 0..REREADS {
            let existing = self.table.get(row.clone()).await?;
            let exists = existing.is_some();
            let hidden = existing.as_ref().is_some_and(is_hidden);
            if exists == bookmarked {
                return if bookmarked {
                    self.require_open(post_id).await
                } else {
                    Ok(())
                };
            }
            let now = self.clock.timestamp();
            let mut tx = Transaction::new(&self.table);
            if bookmarked {
                let mut item = row.clone();
                item.extend([
                    ("bookmarkedAt".to_string(), s(&now)),
                    (
                        "gsi1pk".to_string(),
                        s(keys::user_list("BOOKMARKS", user_id)),
                    ),
                    ("gsi1sk".to_string(), s(format!("{now}#{post_id}"))),
                    ("gsi2pk".to_string(), s(keys::owner(user_id))),
                    ("gsi2sk".to_string(), s(format!("BOOKMARK#{post_id}"))),
                ]);
                item.extend(listed_mark(post_id, user_id, MarkKind::Bookmark));
                tx.put(item, Some("attribute_not_exists(pk)"))?;
            } else if hidden {
                tx.delete(row.clone(), Some("attribute_exists(hiddenSk)"))?;
            } else {
                tx.delete(
                    row.clone(),
                    Some("attribute_exists(pk) AND attribute_not_exists(hiddenSk)"),
                )?;
            }
            let delta = Delta {
                counter: "saveCount",
                // Out of the user's list already: counted down when it was taken out.
                profile: (!hidden).then_some("bookmarkCount"),
                by: if bookmarked { 1 } else { -1 },
            };
            // Removing a bookmark is allowed whatever became of the post.
            self.move_counters(&mut tx, post_id, user_id, &[delta], bookmarked)?;
            match self.commit(&tx, post_id).await {
                Err(MarkError::Raced) => continue,
                other => return other,
            }
        }
        Err(MarkError::Busy)
    }

    /// Items 1 and 2 of a mark's transaction: the post's counters (never below zero; on a
    /// published live post when `open`) and the user's profile (refused for a deleted account).
    fn move_counters(
        &self,
        tx: &mut Transaction,
        post_id: &str,
        user_id: &str,
        deltas: &[Delta],
        open: bool,
    ) -> Result<(), DynamoError> {
        let adds: Vec<String> = deltas
            .iter()
            .enumerate()
            .map(|(i, d)| format!("{} :d{i}", d.counter))
            .collect();
        let mut condition = String::from("attribute_exists(pk)");
        if open {
            condition.push_str(" AND #status = :published AND attribute_not_exists(deletedAt)");
        }
        for d in deltas.iter().filter(|d| d.by < 0) {
            condition.push_str(&format!(" AND {} >= :one", d.counter));
        }
        let mut meta = tx
            .update_builder(keys::post(post_id))
            .update_expression(format!("ADD {}", adds.join(", ")))
            .condition_expression(condition);
        if open {
            meta = meta
                .expression_attribute_names("#status", "status")
                .expression_attribute_values(":published", s(PostStatus::Published.as_str()));
        }
        if deltas.iter().any(|d| d.by < 0) {
            meta = meta.expression_attribute_values(":one", n(1));
        }
        let mut profile = tx
            .update_builder(keys::profile(user_id))
            .condition_expression("attribute_not_exists(deletedAt)");
        let mut profile_adds = Vec::new();
        for (i, d) in deltas.iter().enumerate() {
            meta = meta.expression_attribute_values(format!(":d{i}"), n(d.by));
            if let Some(counter) = d.profile {
                profile = profile.expression_attribute_values(format!(":d{i}"), n(d.by));
                profile_adds.push(format!("{counter} :d{i}"));
            }
        }
        tx.update(meta)?;
        if profile_adds.is_empty() {
            tx.check(keys::profile(user_id), "attribute_not_exists(deletedAt)")?;
        } else {
            tx.update(profile.update_expression(format!("ADD {}", profile_adds.join(", "))))?;
        }
        Ok(())
    }

    /// Commits a mark's transaction, retrying conflicts on the hot counter; a failed row
    /// condition (item 0: the same user raced) is `Raced`, for the caller to read again.
    async fn commit(&self, tx: &Transaction, post_id: &str) -> Result<(), MarkError> {
        match retry_on_conflict(
            RetryPolicy::HOT_COUNTER,
            TransactionError::is_conflict,
            |_| tx.commit(),
        )
        .await
        {
            Ok(()) => Ok(()),
            Err(e @ TransactionError::Condition { .. }) => {
                if e.failed_at(2) {
                    Err(MarkError::AccountGone)
                } else if e.failed_at(0) {
                    Err(MarkError::Raced)
                } else {
                    // The counter guard fails too when the same user raced (a count the
                    // other write already moved): only a post that is not open is final.
                    match self.require_open(post_id).await {
                        Ok(()) => Err(MarkError::Raced),
                        Err(e) => Err(e),
                    }
                }
            }
            Err(TransactionError::Conflict) => Err(MarkError::Busy),
            Err(TransactionError::Dynamo(e)) => Err(e.into()),
        }
    }

    /// Ok when the post is published and live.
    async fn require_open(&self, post_id: &str) -> Result<(), MarkError> {
        match self.post(post_id).await? {
            Some(p) if p.is_public() => Ok(()),
            _ => Err(MarkError::PostNotOpen),
        }
    }
}
