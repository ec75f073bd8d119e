//! Deleting posts and comments: the author's own delete, and an admin's removal with a reason
//! kept in the moderation log (both soft: the target answers 404 after, its rows stay for
//! audit; see [`crate::store::moderation`]).

use crate::error::CommunityError;
use crate::input::{CommentId, PageRequest, PostId, RemovalReason, UserId};
use crate::model::moderation::{ModerationLogEntry, ModerationLogPage};
use crate::store::comments::CommentError;
use crate::store::moderation::{Moderation, ModerationEntry, RemoveError, Remover};

use super::comments::comment_error;
use super::notifications::excerpt;
use super::Community;
use crate::model::notifications::NotificationKind;
use crate::queues::NotificationEvent;

impl From<ModerationEntry> for ModerationLogEntry {
    fn from(e: ModerationEntry) -> Self {
        Self {
            id: e.id,
            moderator_id: e.moderator_id,
            target_kind: e.target_kind,
            target_id: e.target_id,
            post_id: e.post_id,
            author_id: e.author_id,
            reason: e.reason,
            removed_at: e.removed_at,
        }
    }
}

impl Community {
    /// Deletes the caller's own post (403 for anyone else's, 404 for one they cannot see or
    /// already deleted): out of every list, feed and count; then asks the indexer to catch up
    /// (the outbox row the same transaction wrote rescues a lost request).
    pub async fn delete_post(&self, id: &PostId, caller: &UserId) -> Result<(), CommunityError> {
        self.store()
            .remove_post(id.as_str(), Remover::Author(caller.as_str()))
            .await
            .map_err(remove_error)?;
        self.request_index(id.as_str()).await;
        Ok(())
    }

    /// An admin removes any live post, draft or published, as the author's delete does, and
    /// logs it with `reason` in the same transaction.
    pub async fn remove_post(
        &self,
        id: &PostId,
        moderator: &str,
        reason: &RemovalReason,
    ) -> Result<(), CommunityError> {
        let moderation = Moderation {
            moderator_id: moderator,
            reason: reason.as_str(),
        };
        let post = self
            .store()
            .remove_post(id.as_str(), Remover::Moderator(&moderation))
            .await
            .map_err(remove_error)?;
        self.request_index(id.as_str()).await;
        if post.author_id != moderator {
            self.notify(removed(
                vec![post.author_id.clone()],
                &post.id,
                None,
                &post.title,
                reason,
                self.clock().timestamp(),
            ))
            .await;
        }
        Ok(())
    }

    /// An admin removes any live comment, as its author's delete does, and logs it with
    /// `reason` in the same transaction.
    pub async fn remove_comment(
        &self,
        id: &CommentId,
        moderator: &str,
        reason: &RemovalReason,
    ) -> Result<(), CommunityError> {
        let moderation = Moderation {
            moderator_id: moderator,
            reason: reason.as_str(),
        };
        let comment = self
            .store()
            .remove_comment(id.as_str(), Remover::Moderator(&moderation))
            .await
            .map_err(|e| match e {
                // The author's account is being deleted: its cleanup removes the comment.
                CommentError::AccountGone => CommunityError::CommentNotFound,
                e => comment_error(e),
            })?;
        if comment.author.id != moderator {
            self.notify(removed(
                vec![comment.author.id.clone()],
                &comment.post_id,
                Some(&comment.id),
                &comment.text,
                reason,
                self.clock().timestamp(),
            ))
            .await;
        }
        Ok(())
    }

    /// A page of the moderation log, newest first.
    pub async fn moderation_log(
        &self,
        page: PageRequest,
    ) -> Result<ModerationLogPage, CommunityError> {
        let (entries, total, next_cursor) = self.store().moderation_log(&page).await?;
        Ok(ModerationLogPage {
            content: entries.into_iter().map(ModerationLogEntry::from).collect(),
            page: page.page,
            size: page.size,
            total_pages: total.div_ceil(u64::from(page.size)),
            total_elements: total,
            next_cursor,
        })
    }
}

/// The event telling an author an admin removed their post or comment.
fn removed(
    author: Vec<String>,
    post_id: &str,
    comment_id: Option<&str>,
    text: &str,
    reason: &RemovalReason,
    at: String,
) -> NotificationEvent {
    NotificationEvent::Direct {
        key: format!("removed:{}", comment_id.unwrap_or(post_id)),
        kind: NotificationKind::Removed.as_str().to_string(),
        recipients: author,
        post_id: post_id.to_string(),
        comment_id: comment_id.map(str::to_string),
        excerpt: excerpt(text),
        reason: Some(reason.as_str().to_string()),
        outcome: None,
        at,
    }
}

fn remove_error(e: RemoveError) -> CommunityError {
    match e {
        RemoveError::NotFound => CommunityError::PostNotFound,
        RemoveError::NotAuthor => CommunityError::NotAuthor,
        RemoveError::AccountGone => CommunityError::AccountGone,
        RemoveError::Transaction(e) => e.into(),
        RemoveError::Store(e) => e.into(),
    }
}
