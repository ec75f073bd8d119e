//! Comments on posts: threaded replies returned as a tree, and comment likes.

use std::collections::{HashMap, HashSet};

use platform::Invalid;

use crate::error::CommunityError;
use crate::identity::Identity;
use crate::input::{CommentId, CommentLike, CommentText, PostId, UserId};
use crate::model::comments::{Comment, LikeResult};
use crate::model::Author;
use crate::store::comments::{CommentError, StoredComment};
use crate::store::moderation::Remover;

use super::notifications::excerpt;
use super::{author_of, Community};
use crate::queues::NotificationEvent;

/// The most comments a post may have (409 beyond).
pub const MAX_COMMENTS_PER_POST: i64 = 1_000;

impl Community {
    /// Adds the caller's comment to a published post, as a reply when `parent` is given.
    pub async fn add_comment(
        &self,
        identity: &impl Identity,
        caller: &UserId,
        post: &PostId,
        text: &CommentText,
        parent: Option<&CommentId>,
    ) -> Result<Comment, CommunityError> {
        self.add_comment_capped(identity, caller, post, text, parent, MAX_COMMENTS_PER_POST)
            .await
    }

    /// [`Community::add_comment`] with another cap (tests reach it without 1,000 writes).
    pub async fn add_comment_capped(
        &self,
        identity: &impl Identity,
        caller: &UserId,
        post: &PostId,
        text: &CommentText,
        parent: Option<&CommentId>,
        cap: i64,
    ) -> Result<Comment, CommunityError> {
        // The post first: a comment on an invisible post is 404 whatever its parent; on the
        // caller's own draft, 409 (as a reaction or a bookmark is: the post exists for them).
        match self.store().post(post.as_str()).await? {
            Some(p) if p.is_public() => {}
            Some(p) if !p.deleted && p.author_id == caller.as_str() => {
                return Err(CommunityError::Conflict(
                    "A draft cannot be commented on; publish it first".into(),
                ))
            }
            _ => return Err(CommunityError::PostNotFound),
        }
        let profile = identity
            .profile(caller)
            .await
            .map_err(CommunityError::from)?
            .ok_or(CommunityError::AccountGone)?;
        let author = author_of(&profile);
        let stored = self
            .store()
            .add_comment(
                post.as_str(),
                &author,
                text.as_str(),
                parent.map(CommentId::as_str),
                cap,
            )
            .await
            .map_err(comment_error)?;
        let mentions = self.mentioned(identity, text.as_str(), &author.id).await;
        self.notify(NotificationEvent::Comment {
            comment_id: stored.id.clone(),
            post_id: stored.post_id.clone(),
            parent_id: stored.parent_id.clone(),
            actor_id: author.id.clone(),
            actor_username: author.username.clone(),
            excerpt: excerpt(&stored.text),
            at: stored.created_at.clone(),
            mentions,
        })
        .await;
        Ok(Comment {
            id: stored.id,
            author: stored.author,
            text: stored.text,
            like_count: 0,
            is_liked_by_me: false,
            created_at: stored.created_at,
            edited_at: None,
            deleted: false,
            replies: Vec::new(),
        })
    }

    /// A post's comments as a tree, oldest first at each level, with the caller's likes.
    pub async fn comments(
        &self,
        post: &PostId,
        caller: Option<&UserId>,
    ) -> Result<Vec<Comment>, CommunityError> {
        let store = self.store();
        let meta = store
            .post(post.as_str())
            .await?
            .filter(|p| p.visible_to(caller.map(UserId::as_str)))
            .ok_or(CommunityError::PostNotFound)?;
        let (comments, liked) = futures::try_join!(store.comments(&meta.id), async {
            match caller {
                Some(c) => store.comment_likes_in(&meta.id, c.as_str()).await,
                None => Ok(HashSet::new()),
            }
        })?;
        Ok(tree(comments, &liked))
    }

    /// A page of a post's threads: at most `limit` top-level comments (oldest first) after
    /// `cursor` (a `nextCursor` this answered), each with all its replies, and the cursor of
    /// the next page when more top-level comments follow. A page reads the post's comments
    /// from the cursor on (at most its comment cap), since a thread's replies may come at any
    /// time after it.
    pub async fn comment_page(
        &self,
        post: &PostId,
        caller: Option<&UserId>,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<(Vec<Comment>, Option<String>), CommunityError> {
        let after = match cursor {
            None => crate::keys::COMMENT_PREFIX.to_string(),
            Some(text) => platform::cursor::decode_cursor(text)
                .filter(|sk| sk.starts_with(crate::keys::COMMENT_PREFIX))
                .ok_or_else(|| Invalid::field("cursor", "is not a cursor this service gave out"))?,
        };
        let store = self.store();
        let meta = store
            .post(post.as_str())
            .await?
            .filter(|p| p.visible_to(caller.map(UserId::as_str)))
            .ok_or(CommunityError::PostNotFound)?;
        let (comments, liked) =
            futures::try_join!(store.comments_after(&meta.id, &after), async {
                match caller {
                    Some(c) => store.comment_likes_in(&meta.id, c.as_str()).await,
                    None => Ok(HashSet::new()),
                }
            })?;
        let (page, next) = threads_page(comments, limit);
        Ok((
            tree(page, &liked),
            next.map(|sk| platform::cursor::encode_cursor(&sk)),
        ))
    }

    /// Likes (`LIKE`) or un-likes (`NONE`) a comment as the caller.
    pub async fn like_comment(
        &self,
        comment: &CommentId,
        caller: &UserId,
        like: CommentLike,
    ) -> Result<LikeResult, CommunityError> {
        self.visible_comment_post(comment, caller).await?;
        let (like_count, is_liked_by_me) = self
            .store()
            .like_comment(comment.as_str(), caller.as_str(), like.0)
            .await
            .map_err(comment_error)?;
        Ok(LikeResult {
            like_count,
            is_liked_by_me,
        })
    }
}

impl Community {
    /// The post a live comment is on, when the caller can see that post.
    async fn visible_comment_post(
        &self,
        comment: &CommentId,
        caller: &UserId,
    ) -> Result<String, CommunityError> {
        let store = self.store();
        let post_id = store
            .comment_post(comment.as_str())
            .await?
            .ok_or(CommunityError::CommentNotFound)?;
        let visible = store
            .post(&post_id)
            .await?
            .is_some_and(|p| p.visible_to(Some(caller.as_str())));
        if !visible {
            return Err(CommunityError::CommentNotFound);
        }
        Ok(post_id)
    }

    /// Changes the text of the caller's own comment (403 for anyone else's).
    pub async fn edit_comment(
        &self,
        comment: &CommentId,
        caller: &UserId,
        text: &CommentText,
    ) -> Result<Comment, CommunityError> {
        self.visible_comment_post(comment, caller).await?;
        let stored = self
            .store()
            .edit_comment(comment.as_str(), caller.as_str(), text.as_str())
            .await
            .map_err(comment_error)?;
        let liked = self
            .store()
            .comment_likes_in(&stored.post_id, caller.as_str())
            .await?;
        Ok(Comment {
            is_liked_by_me: liked.contains(&stored.id),
            id: stored.id,
            author: stored.author,
            text: stored.text,
            like_count: stored.like_count,
            created_at: stored.created_at,
            edited_at: stored.edited_at,
            deleted: false,
            replies: Vec::new(),
        })
    }

    /// Deletes the caller's own comment (403 for anyone else's): with replies it stays in the
    /// thread as `[deleted]`, without it leaves it; the post's comment count moves.
    pub async fn delete_comment(
        &self,
        comment: &CommentId,
        caller: &UserId,
    ) -> Result<(), CommunityError> {
        self.visible_comment_post(comment, caller).await?;
        self.store()
            .remove_comment(comment.as_str(), Remover::Author(caller.as_str()))
            .await
            .map_err(comment_error)?;
        Ok(())
    }
}

pub(crate) fn comment_error(e: CommentError) -> CommunityError {
    match e {
        CommentError::PostNotOpen => CommunityError::PostNotFound,
        CommentError::Full(cap) => {
            CommunityError::Conflict(format!("The post has {cap} comments, the most it may have"))
        }
        CommentError::BadParent => CommunityError::ParentNotFound,
        CommentError::TooDeep => Invalid::field(
            "parentId",
            format!(
                "replies nest at most {} deep",
                crate::store::comments::MAX_DEPTH
            ),
        )
        .into(),
        CommentError::CommentNotFound => CommunityError::CommentNotFound,
        CommentError::NotAuthor => CommunityError::NotCommentAuthor,
        CommentError::AccountGone => CommunityError::AccountGone,
        CommentError::Busy => CommunityError::Busy,
        CommentError::Store(e) => CommunityError::Store(e),
    }
}

/// The author shown for a deleted comment kept for its replies.
fn deleted_author() -> Author {
    Author {
        id: "00000000-0000-0000-0000-000000000000".into(),
        username: "[deleted]".into(),
        display_name: "[deleted]".into(),
        role: "USER".into(),
        organisation: None,
    }
}

/// Builds the tree from comments in creation order. A deleted comment with live replies
/// shows as `[deleted]`; one without is left out.
/// The first `limit` top-level comments of `comments` (in creation order) with every reply
/// beneath them, and the sort key of the last one taken when more top-level comments follow.
/// Replies to threads before the page (their parent is not among `comments`) are left out.
fn threads_page(
    comments: Vec<StoredComment>,
    limit: usize,
) -> (Vec<StoredComment>, Option<String>) {
    let mut roots = 0;
    let mut last = None;
    let mut more = false;
    let mut members: HashSet<String> = HashSet::new();
    let mut page = Vec::new();
    // A parent is older than its replies, so it is decided before them.
    for c in comments {
        let member = match &c.parent_id {
            None if roots < limit => {
                roots += 1;
                last = Some(format!(
                    "{}{}#{}",
                    crate::keys::COMMENT_PREFIX,
                    c.created_at,
                    c.id
                ));
                true
            }
            None => {
                more = true;
                false
            }
            Some(parent) => members.contains(parent),
        };
        if member {
            members.insert(c.id.clone());
            page.push(c);
        }
    }
    (page, last.filter(|_| more))
}

fn tree(comments: Vec<StoredComment>, liked: &HashSet<String>) -> Vec<Comment> {
    let mut children: HashMap<Option<String>, Vec<StoredComment>> = HashMap::new();
    for c in comments {
        children.entry(c.parent_id.clone()).or_default().push(c);
    }
    fn build(
        parent: Option<String>,
        children: &mut HashMap<Option<String>, Vec<StoredComment>>,
        liked: &HashSet<String>,
    ) -> Vec<Comment> {
        let Some(level) = children.remove(&parent) else {
            return Vec::new();
        };
        level
            .into_iter()
            .filter_map(|c| {
                let replies = build(Some(c.id.clone()), children, liked);
                if c.deleted && replies.is_empty() {
                    return None;
                }
                Some(Comment {
                    is_liked_by_me: !c.deleted && liked.contains(&c.id),
                    text: if c.deleted {
                        "[deleted]".into()
                    } else {
                        c.text
                    },
                    author: if c.deleted {
                        deleted_author()
                    } else {
                        c.author
                    },
                    like_count: c.like_count,
                    created_at: c.created_at,
                    edited_at: if c.deleted { None } else { c.edited_at },
                    deleted: c.deleted,
                    id: c.id,
                    replies,
                })
            })
            .collect()
    }
    build(None, &mut children, liked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(id: &str, parent: Option<&str>, deleted: bool) -> StoredComment {
        StoredComment {
            id: id.into(),
            post_id: "p".into(),
            parent_id: parent.map(str::to_string),
            depth: 1,
            author: Author {
                id: "a".into(),
                username: "ann".into(),
                display_name: "Ann".into(),
                role: "USER".into(),
                organisation: None,
            },
            text: format!("text {id}"),
            like_count: 0,
            created_at: "2026-01-01T00:00:00.000Z".into(),
            edited_at: None,
            deleted,
        }
    }

    #[test]
    fn a_threads_page_takes_whole_threads_and_says_where_the_next_starts() {
        let comments = || {
            vec![
                stored("x", Some("earlier"), false),
                stored("a", None, false),
                stored("b", None, false),
                stored("c", Some("a"), false),
                stored("d", Some("c"), false),
                stored("e", None, false),
                stored("f", Some("b"), false),
                stored("g", Some("e"), false),
            ]
        };
        let ids = |page: &[StoredComment]| page.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
        let (page, next) = threads_page(comments(), 2);
        assert_eq!(ids(&page), ["a", "b", "c", "d", "f"]);
        assert_eq!(next.as_deref(), Some("C#2026-01-01T00:00:00.000Z#b"));
        let (page, next) = threads_page(comments(), 3);
        assert_eq!(ids(&page), ["a", "b", "c", "d", "e", "f", "g"]);
        assert_eq!(next, None, "no top-level comment follows");
    }

    #[test]
    fn tree_nests_keeps_order_and_hides_dead_leaves() {
        let comments = vec![
            stored("a", None, false),
            stored("b", None, true),
            stored("c", Some("a"), false),
            stored("d", Some("b"), false),
            stored("e", None, true),
            stored("f", Some("a"), false),
        ];
        let liked = HashSet::from(["c".to_string()]);
        let t = tree(comments, &liked);
        let ids: Vec<&str> = t.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            ["a", "b"],
            "a deleted comment without replies is left out"
        );
        let replies: Vec<(&str, bool)> = t[0]
            .replies
            .iter()
            .map(|c| (c.id.as_str(), c.is_liked_by_me))
            .collect();
        assert_eq!(replies, [("c", true), ("f", false)]);
        assert_eq!(t[1].text, "[deleted]");
        assert_eq!(t[1].author.username, "[deleted]");
        assert_eq!(t[1].replies[0].id, "d");
    }
}
