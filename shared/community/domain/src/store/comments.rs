//! Comments and comment likes. A comment lives under its post (`POST#{p}`/`C#{at}#{c}`, so a
//! thread is one Query in order) with a pointer `COMMENT#{c}`/`META` for lookups by id; its
//! likes are `COMMENT#{c}`/`L#{u}`. Every write moves its counters in the same transaction.

use std::collections::{HashMap, HashSet};

use platform::dynamo::{
    n, retry_on_conflict, s, AttributeValue, Attributes, DynamoError, Item, RetryPolicy,
    Transaction, TransactionError,
};

use super::moderation::Remover;
use super::posts::{author_item, map_string};
use super::{string, Store};
use crate::input::PostStatus;
use crate::keys;
use crate::model::moderation::ModerationTarget;
use crate::model::Author;

/// The deepest a reply may nest: a top-level comment is depth 1.
pub const MAX_DEPTH: i64 = 16;

/// A comment as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredComment {
    pub id: String,
    pub post_id: String,
    pub parent_id: Option<String>,
    pub depth: i64,
    pub author: Author,
    pub text: String,
    pub like_count: i64,
    pub created_at: String,
    /// When its author last changed the text.
    pub edited_at: Option<String>,
    pub deleted: bool,
}

/// A comment's pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pointer {
    post_id: String,
    comment_sk: String,
    depth: i64,
    deleted: bool,
}

/// Why a comment write did not commit.
#[derive(Debug, thiserror::Error)]
pub enum CommentError {
    /// The post is missing, deleted or not published.
    #[error("the post cannot be commented on")]
    PostNotOpen,
    /// The post has as many comments as it may.
    #[error("the post has {0} comments, the most it may have")]
    Full(i64),
    /// The parent is missing, deleted or on another post.
    #[error("the parent is not a comment of this post")]
    BadParent,
    /// The reply would nest deeper than [`MAX_DEPTH`].
    #[error("replies nest at most {MAX_DEPTH} deep")]
    TooDeep,
    /// The comment to like is missing or deleted.
    #[error("no such comment")]
    CommentNotFound,
    /// Only the comment's author may change or delete it.
    #[error("not the comment's author")]
    NotAuthor,
    #[error("the account is deleted")]
    AccountGone,
    #[error("the thread is busy")]
    Busy,
    #[error(transparent)]
    Store(#[from] DynamoError),
}

impl From<TransactionError> for CommentError {
    fn from(e: TransactionError) -> Self {
        match e {
            TransactionError::Dynamo(d) => Self::Store(d),
            TransactionError::Conflict | TransactionError::Condition { .. } => Self::Busy,
        }
    }
}

/// Times a write is rebuilt when its reads went stale.
const REREADS: u32 = 5;

impl StoredComment {
    fn from_item(store: &Store, item: &Item) -> Result<Self, DynamoError> {
        let t = &store.table;
        let author = match item.get("author") {
            Some(AttributeValue::M(m)) => Author {
                id: map_string(m, "id"),
                username: map_string(m, "username"),
                display_name: map_string(m, "displayName"),
                role: map_string(m, "role"),
                organisation: None,
            },
            _ => return Err(t.corrupt("comment author is missing")),
        };
        Ok(Self {
            id: string(t, item, "id")?,
            post_id: string(t, item, "postId")?,
            parent_id: item.opt_string("parentId"),
            depth: item.counter(t.name(), "depth")?,
            author,
            text: item.opt_string("text").unwrap_or_default(),
            like_count: item.counter(t.name(), "likeCount")?.max(0),
            created_at: string(t, item, "createdAt")?,
            edited_at: item.opt_string("editedAt"),
            deleted: item.contains_key("deletedAt"),
        })
    }
}

impl Store {
    async fn pointer(&self, comment_id: &str) -> Result<Option<Pointer>, DynamoError> {
        let Some(item) = self.table.get(keys::comment_pointer(comment_id)).await? else {
            return Ok(None);
        };
        Ok(Some(Pointer {
            post_id: string(&self.table, &item, "postId")?,
            comment_sk: string(&self.table, &item, "commentSk")?,
            depth: item.counter(self.table.name(), "depth")?,
            deleted: item.contains_key("deletedAt"),
        }))
    }

    /// Adds a comment by `author` to a published live post, as a reply when `parent_id` is
    /// given (a live comment of the same post, nesting at most [`MAX_DEPTH`]), while the post
    /// has fewer than `cap` comments.
    pub async fn add_comment(
        &self,
        post_id: &str,
        author: &Author,
        text: &str,
        parent_id: Option<&str>,
        cap: i64,
    ) -> Result<StoredComment, CommentError> {
        let depth = match parent_id {
            None => 1,
            Some(parent) => match self.pointer(parent).await? {
                Some(p) if p.post_id == post_id && !p.deleted => {
                    if p.depth >= MAX_DEPTH {
                        return Err(CommentError::TooDeep);
                    }
                    p.depth + 1
                }
                _ => return Err(CommentError::BadParent),
            },
        };
        let id = uuid::Uuid::new_v4().hyphenated().to_string();
        for _ in 0..REREADS {
            let now = self.clock.timestamp();
            let row = keys::comment(post_id, &now, &id);
            let comment_sk = row
                .get("sk")
                .and_then(|v| v.as_s().ok())
                .cloned()
                .unwrap_or_default();
            let mut item = row;
            item.extend([
                ("id".to_string(), s(&id)),
                ("postId".to_string(), s(post_id)),
                ("depth".to_string(), n(depth)),
                ("authorId".to_string(), s(&author.id)),
                ("author".to_string(), author_item(author)),
                ("text".to_string(), s(text)),
                ("likeCount".to_string(), n(0)),
                ("createdAt".to_string(), s(&now)),
                ("gsi2pk".to_string(), s(keys::owner(&author.id))),
                ("gsi2sk".to_string(), s(format!("COMMENT#{id}"))),
            ]);
            let mut pointer = keys::comment_pointer(&id);
            pointer.extend([
                ("postId".to_string(), s(post_id)),
                ("commentSk".to_string(), s(&comment_sk)),
                ("depth".to_string(), n(depth)),
            ]);
            if let Some(parent) = parent_id {
                item.insert("parentId".to_string(), s(parent));
                pointer.insert("parentId".to_string(), s(parent));
            }
            let mut tx = Transaction::new(&self.table);
            tx.put(item, Some("attribute_not_exists(pk)"))?;
            tx.put(pointer, Some("attribute_not_exists(pk)"))?;
            let meta = tx
                .update_builder(keys::post(post_id))
                .update_expression("ADD commentCount :one")
                .condition_expression(
                    "attribute_exists(pk) AND #status = :published AND attribute_not_exists(deletedAt) AND commentCount < :cap",
                )
                .expression_attribute_names("#status", "status")
                .expression_attribute_values(":one", n(1))
                .expression_attribute_values(":cap", n(cap))
                .expression_attribute_values(":published", s(PostStatus::Published.as_str()));
            tx.update(meta)?;
            tx.add(
                keys::profile(&author.id),
                "commentCount",
                1,
                Some("attribute_not_exists(deletedAt)"),
            )?;
            if let Some(parent) = parent_id {
                tx.check(
                    keys::comment_pointer(parent),
                    "attribute_exists(pk) AND attribute_not_exists(deletedAt)",
                )?;
            }
            match retry_on_conflict(
                RetryPolicy::HOT_COUNTER,
                TransactionError::is_conflict,
                |_| tx.commit(),
            )
            .await
            {
                Ok(()) => {
                    return Ok(StoredComment {
                        id,
                        post_id: post_id.to_string(),
                        parent_id: parent_id.map(str::to_string),
                        depth,
                        author: author.clone(),
                        text: text.to_string(),
                        like_count: 0,
                        created_at: now,
                        edited_at: None,
                        deleted: false,
                    })
                }
                Err(e) if e.failed_at(3) => return Err(CommentError::AccountGone),
                Err(e) if e.failed_at(4) => return Err(CommentError::BadParent),
                Err(e) if e.failed_at(2) => {
                    return Err(match self.post(post_id).await? {
                        Some(p) if p.is_public() && p.comment_count >= cap => {
                            CommentError::Full(cap)
                        }
                        Some(p) if p.is_public() => CommentError::Busy,
                        _ => CommentError::PostNotOpen,
                    })
                }
                // The same id and millisecond twice: a new timestamp makes a new row.
                Err(e) if e.failed_at(0) || e.failed_at(1) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(CommentError::Busy)
    }

    /// Every comment of a post in creation order, deleted ones included.
    pub async fn comments(&self, post_id: &str) -> Result<Vec<StoredComment>, DynamoError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :c)")
            .expression_attribute_values(":pk", s(format!("POST#{post_id}")))
            .expression_attribute_values(":c", s(keys::COMMENT_PREFIX))
            .consistent_read(true);
        self.table
            .query_all(query, None)
            .await?
            .iter()
            .map(|item| StoredComment::from_item(self, item))
            .collect()
    }

    /// The comments of a post after the comment sorted `after` (a `C#{createdAt}#{id}` sort
    /// key), in creation order, deleted ones included: at most the post's comment cap.
    pub async fn comments_after(
        &self,
        post_id: &str,
        after: &str,
    ) -> Result<Vec<StoredComment>, DynamoError> {
        // `$` follows `#`: the range ends with the post's last comment.
        let stop = format!("{}$", keys::COMMENT_PREFIX.trim_end_matches('#'));
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND sk BETWEEN :after AND :stop")
            .expression_attribute_values(":pk", s(format!("POST#{post_id}")))
            .expression_attribute_values(":after", s(after))
            .expression_attribute_values(":stop", s(stop))
            .consistent_read(true);
        self.table
            .query_all(query, None)
            .await?
            .iter()
            .filter(|item| item.opt_string("sk").as_deref() != Some(after))
            .map(|item| StoredComment::from_item(self, item))
            .collect()
    }

    /// The ids of the comments of a post's thread that `user_id` likes.
    pub async fn comment_likes_in(
        &self,
        post_id: &str,
        user_id: &str,
    ) -> Result<HashSet<String>, DynamoError> {
        let query = self
            .table
            .query()
            .index_name(keys::GSI1)
            .key_condition_expression("gsi1pk = :pk")
            .expression_attribute_values(":pk", s(keys::comment_likes_list(user_id, post_id)));
        Ok(self
            .table
            .query_all(query, None)
            .await?
            .iter()
            .filter_map(|item| item.opt_string("gsi1sk"))
            .collect())
    }

    /// The post a live comment is on (`None`: no such comment, or deleted).
    pub async fn comment_post(&self, comment_id: &str) -> Result<Option<String>, DynamoError> {
        Ok(self
            .pointer(comment_id)
            .await?
            .filter(|p| !p.deleted)
            .map(|p| p.post_id))
    }

    /// Likes (`true`) or un-likes a live comment as `user_id`; nothing is written when it is
    /// already so. Answers the comment's like count and whether the user likes it.
    pub async fn like_comment(
        &self,
        comment_id: &str,
        user_id: &str,
        like: bool,
    ) -> Result<(i64, bool), CommentError> {
        let pointer = self
            .pointer(comment_id)
            .await?
            .filter(|p| !p.deleted)
            .ok_or(CommentError::CommentNotFound)?;
        let comment_key =
            platform::dynamo::key(format!("POST#{}", pointer.post_id), &pointer.comment_sk);
        let row = keys::comment_like(comment_id, user_id);
        for _ in 0..REREADS {
            let liked = self.table.get(row.clone()).await?.is_some();
            if liked != like {
                let mut tx = Transaction::new(&self.table);
                if like {
                    let mut item = row.clone();
                    item.extend([
                        ("likedAt".to_string(), s(self.clock.timestamp())),
                        (
                            "gsi1pk".to_string(),
                            s(keys::comment_likes_list(user_id, &pointer.post_id)),
                        ),
                        ("gsi1sk".to_string(), s(comment_id)),
                        ("gsi2pk".to_string(), s(keys::owner(user_id))),
                        ("gsi2sk".to_string(), s(format!("CLIKE#{comment_id}"))),
                    ]);
                    tx.put(item, Some("attribute_not_exists(pk)"))?;
                } else {
                    tx.delete(row.clone(), Some("attribute_exists(pk)"))?;
                }
                let mut condition =
                    String::from("attribute_exists(pk) AND attribute_not_exists(deletedAt)");
                let mut values = HashMap::from([(":d".to_string(), n(if like { 1 } else { -1 }))]);
                if !like {
                    condition.push_str(" AND likeCount >= :one");
                    values.insert(":one".to_string(), n(1));
                }
                let mut update = tx
                    .update_builder(comment_key.clone())
                    .update_expression("ADD likeCount :d")
                    .condition_expression(condition);
                for (k, v) in values {
                    update = update.expression_attribute_values(k, v);
                }
                tx.update(update)?;
                tx.add(
                    keys::profile(user_id),
                    "commentLikeCount",
                    if like { 1 } else { -1 },
                    Some("attribute_not_exists(deletedAt)"),
                )?;
                match retry_on_conflict(
                    RetryPolicy::HOT_COUNTER,
                    TransactionError::is_conflict,
                    |_| tx.commit(),
                )
                .await
                {
                    Ok(()) => {}
                    Err(e) if e.failed_at(2) => return Err(CommentError::AccountGone),
                    // The row changed under us (the same user raced): read it again.
                    Err(e) if e.failed_at(0) => continue,
                    Err(e) if e.failed_at(1) => match self.pointer(comment_id).await? {
                        Some(p) if !p.deleted => continue,
                        _ => return Err(CommentError::CommentNotFound),
                    },
                    Err(e) => return Err(e.into()),
                }
            }
            let comment = self
                .table
                .get(comment_key.clone())
                .await?
                .ok_or(CommentError::CommentNotFound)?;
            return Ok((
                comment.counter(self.table.name(), "likeCount")?.max(0),
                like,
            ));
        }
        Err(CommentError::Busy)
    }
}

impl Store {
    /// A live comment by id (`None`: missing or deleted), for reports and notifications.
    pub async fn live_comment_by_id(
        &self,
        comment_id: &str,
    ) -> Result<Option<StoredComment>, DynamoError> {
        match self.live_comment(comment_id).await {
            Ok((_, row)) => StoredComment::from_item(self, &row).map(Some),
            Err(CommentError::CommentNotFound) => Ok(None),
            Err(CommentError::Store(e)) => Err(e),
            Err(e) => Err(self.table.corrupt(e.to_string())),
        }
    }

    /// A live comment's row key and row, through its pointer.
    async fn live_comment(&self, comment_id: &str) -> Result<(Item, Item), CommentError> {
        let pointer = self
            .pointer(comment_id)
            .await?
            .filter(|p| !p.deleted)
            .ok_or(CommentError::CommentNotFound)?;
        let key = platform::dynamo::key(format!("POST#{}", pointer.post_id), &pointer.comment_sk);
        let row = self
            .table
            .get(key.clone())
            .await?
            .filter(|r| !r.contains_key("deletedAt"))
            .ok_or(CommentError::CommentNotFound)?;
        Ok((key, row))
    }

    /// Changes the text of `author_id`'s live comment and stamps `editedAt`.
    pub async fn edit_comment(
        &self,
        comment_id: &str,
        author_id: &str,
        text: &str,
    ) -> Result<StoredComment, CommentError> {
        let (key, row) = self.live_comment(comment_id).await?;
        if row.opt_string("authorId").as_deref() != Some(author_id) {
            return Err(CommentError::NotAuthor);
        }
        let now = self.clock.timestamp();
        let mut tx = Transaction::new(&self.table);
        let update = tx
            .update_builder(key.clone())
            .update_expression("SET #text = :text, editedAt = :now")
            .condition_expression(
                "attribute_exists(pk) AND attribute_not_exists(deletedAt) AND authorId = :author",
            )
            .expression_attribute_names("#text", "text")
            .expression_attribute_values(":text", s(text))
            .expression_attribute_values(":now", s(&now))
            .expression_attribute_values(":author", s(author_id));
        tx.update(update)?;
        tx.check(keys::profile(author_id), "attribute_not_exists(deletedAt)")?;
        match tx.commit_retrying().await {
            Ok(()) => {}
            Err(e) if e.failed_at(1) => return Err(CommentError::AccountGone),
            // Deleted since it was read.
            Err(e) if e.failed_at(0) => return Err(CommentError::CommentNotFound),
            Err(e) => return Err(e.into()),
        }
        let mut comment = StoredComment::from_item(self, &row)?;
        comment.text = text.to_string();
        comment.edited_at = Some(now);
        Ok(comment)
    }

    /// Soft-deletes a live comment: its text erased, out of its author's owner index, its
    /// pointer marked, the post's and the author's `commentCount` moved, and an admin's
    /// moderation-log entry put, all in one transaction conditioned on the comment being live,
    /// so a repeated removal moves nothing twice. Answers the comment as it was.
    pub async fn remove_comment(
        &self,
        comment_id: &str,
        by: Remover<'_>,
    ) -> Result<StoredComment, CommentError> {
        let (key, row) = self.live_comment(comment_id).await?;
        let comment = StoredComment::from_item(self, &row)?;
        if let Remover::Author(author) = by {
            if comment.author.id != author {
                return Err(CommentError::NotAuthor);
            }
        }
        let now = self.clock.timestamp();
        let mut tx = Transaction::new(&self.table);
        soft_delete_comment(&mut tx, key, &comment.id, &comment.post_id, &now)?;
        tx.add(
            keys::profile(&comment.author.id),
            "commentCount",
            -1,
            Some("attribute_exists(pk)"),
        )?;
        if let Remover::Moderator(moderation) = by {
            let entry = moderation.entry(
                ModerationTarget::Comment,
                &comment.id,
                &comment.post_id,
                &comment.author.id,
                &now,
            );
            tx.put(entry.row(), Some("attribute_not_exists(pk)"))?;
        }
        match tx.commit_retrying().await {
            Ok(()) => Ok(comment),
            // Removed since it was read: nothing more to do.
            Err(e) if e.failed_at(0) => Err(CommentError::CommentNotFound),
            // The author's profile is gone: the account's cleanup removes the comment itself.
            Err(e) if e.failed_at(3) => Err(CommentError::AccountGone),
            Err(e) => Err(e.into()),
        }
    }
}

/// Puts a comment's soft delete in `tx` (3 items, the row first): the row's text erased and
/// out of the owner index, its pointer marked, the post's `commentCount` moved; conditioned on
/// the row being live, so a repeat counts nothing twice.
pub(super) fn soft_delete_comment(
    tx: &mut Transaction,
    key: Item,
    comment_id: &str,
    post_id: &str,
    now: &str,
) -> Result<(), DynamoError> {
    let row = tx
        .update_builder(key)
        .update_expression("SET deletedAt = :now, #text = :empty REMOVE gsi2pk, gsi2sk")
        .condition_expression("attribute_exists(pk) AND attribute_not_exists(deletedAt)")
        .expression_attribute_names("#text", "text")
        .expression_attribute_values(":now", s(now))
        .expression_attribute_values(":empty", s(""));
    tx.update(row)?;
    let pointer = tx
        .update_builder(keys::comment_pointer(comment_id))
        .update_expression("SET deletedAt = :now")
        .condition_expression("attribute_exists(pk)")
        .expression_attribute_values(":now", s(now));
    tx.update(pointer)?;
    tx.add(
        keys::post(post_id),
        "commentCount",
        -1,
        Some("attribute_exists(pk)"),
    )?;
    Ok(())
}
