//! Reactions and bookmarks: one row per user and post (`R#{u}`, `B#{u}` under the post),
//! moved together with the post's counter and the user's profile counter in one transaction,
//! so counts stay exact under any concurrency.

use platform::dynamo::{
    n, retry_on_conflict, s, Attributes, DynamoError, Item, RetryPolicy, Transaction,
    TransactionError,
};

use super::Store;
use crate::input::PostStatus;
use crate::keys;

/// A reaction to a post.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReactionKind {
    Like,
    Dislike,
}

impl ReactionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Like => "LIKE",
            Self::Dislike => "DISLIKE",
        }
    }

    pub(crate) fn parse(raw: &str) -> Option<Self> {
        match raw {
            "LIKE" => Some(Self::Like),
            "DISLIKE" => Some(Self::Dislike),
            _ => None,
        }
    }

    /// The post's counter of this reaction.
    fn post_counter(self) -> &'static str {
        match self {
            Self::Like => "likeCount",
            Self::Dislike => "dislikeCount",
        }
    }

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
}

/// What the caller has done to a post.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Marks {
    pub reaction: Option<ReactionKind>,
    pub bookmarked: bool,
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

/// A counter change on the post and the user's profile.
struct Delta {
    counter: &'static str,
    profile: &'static str,
    by: i64,
}

impl Store {
    /// The caller's reaction and bookmark on a post, read consistently.
    pub async fn marks(&self, post_id: &str, user_id: &str) -> Result<Marks, DynamoError> {
        let (reaction, bookmark) = futures::try_join!(
            self.table.get(keys::reaction(post_id, user_id)),
            self.table.get(keys::bookmark(post_id, user_id))
        )?;
        Ok(Marks {
            reaction: reaction
                .and_then(|r| r.opt_string("reaction"))
                .and_then(|r| ReactionKind::parse(&r)),
            bookmarked: bookmark.is_some(),
        })
    }

    /// `user_id`'s marks on each of `post_ids`, in order: one BatchGetItem per 50 posts
    /// (a reaction and a bookmark row each) instead of two reads a post.
    pub async fn marks_on(
        &self,
        post_ids: &[String],
        user_id: &str,
    ) -> Result<Vec<Marks>, DynamoError> {
        let keys_: Vec<Item> = post_ids
            .iter()
            .flat_map(|p| [keys::reaction(p, user_id), keys::bookmark(p, user_id)])
            .collect();
        let rows = self.table.batch_get_all(keys_, None).await?;
        let sk_reaction = format!("R#{user_id}");
        let sk_bookmark = format!("B#{user_id}");
        Ok(post_ids
            .iter()
            .map(|p| {
                let pk = format!("POST#{p}");
                let row = |sk: &str| {
                    rows.iter().find(|r| {
                        r.opt_string("pk").as_deref() == Some(pk.as_str())
                            && r.opt_string("sk").as_deref() == Some(sk)
                    })
                };
                Marks {
                    reaction: row(&sk_reaction)
                        .and_then(|r| r.opt_string("reaction"))
                        .and_then(|r| ReactionKind::parse(&r)),
                    bookmarked: row(&sk_bookmark).is_some(),
                }
            })
            .collect())
    }

    /// Sets `user`'s reaction to a published live post (`None`: removes it). Nothing is
    /// written when it is already so.
    pub async fn react(
        &self,
        post_id: &str,
        user_id: &str,
        reaction: Option<ReactionKind>,
    ) -> Result<(), MarkError> {
        let row = keys::reaction(post_id, user_id);
        for _ in 0..REREADS {
            let old = self
                .table
                .get(row.clone())
                .await?
                .and_then(|r| r.opt_string("reaction"))
                .and_then(|r| ReactionKind::parse(&r));
            if old == reaction {
                return self.require_open(post_id).await;
            }
            let now = self.clock.timestamp();
            let mut tx = Transaction::new(&self.table);
            let old_value =
                || Item::from([(":old".to_string(), s(old.map_or("", |o| o.as_str())))]);
            match reaction {
                Some(kind) => {
                    let mut item = row.clone();
                    item.extend([
                        ("reaction".to_string(), s(kind.as_str())),
                        ("reactedAt".to_string(), s(&now)),
                        (
                            "gsi1pk".to_string(),
                            s(keys::user_list(kind.list(), user_id)),
                        ),
                        ("gsi1sk".to_string(), s(format!("{now}#{post_id}"))),
                        ("gsi2pk".to_string(), s(keys::owner(user_id))),
                        ("gsi2sk".to_string(), s(format!("REACTION#{post_id}"))),
                    ]);
                    match old {
                        None => tx.put(item, Some("attribute_not_exists(pk)"))?,
                        Some(_) => tx.put_if(item, "reaction = :old", old_value())?,
                    };
                }
                None => {
                    tx.delete_if(row.clone(), "reaction = :old", old_value())?;
                }
            }
            let mut deltas = Vec::new();
            if let Some(o) = old {
                deltas.push(Delta {
                    counter: o.post_counter(),
                    profile: o.profile_counter(),
                    by: -1,
                });
            }
            if let Some(r) = reaction {
                deltas.push(Delta {
                    counter: r.post_counter(),
                    profile: r.profile_counter(),
                    by: 1,
                });
            }
            self.move_counters(&mut tx, post_id, user_id, &deltas, true)?;
            match self.commit(&tx, post_id).await {
                Err(MarkError::Raced) => continue,
                other => return other,
            }
        }
        Err(MarkError::Busy)
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
            let exists = self.table.get(row.clone()).await?.is_some();
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
                tx.put(item, Some("attribute_not_exists(pk)"))?;
            } else {
                tx.delete(row.clone(), Some("attribute_exists(pk)"))?;
            }
            let delta = Delta {
                counter: "saveCount",
                profile: "bookmarkCount",
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
            profile = profile.expression_attribute_values(format!(":d{i}"), n(d.by));
            profile_adds.push(format!("{} :d{i}", d.profile));
        }
        tx.update(meta)?;
        tx.update(profile.update_expression(format!("ADD {}", profile_adds.join(", "))))?;
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
