//! Deleting posts and comments: the author's own delete, and an admin's removal with a reason
//! kept in the moderation log (both soft: the target answers 404 after, its rows stay for
//! audit; see [`crate::store::moderation`]).

use platform::Invalid;
use serde::Serialize;
use utoipa::ToSchema;

use crate::comments::comment_error;
use crate::error::CommunityError;
use crate::input::{CommentId, PageRequest, PostId, UserId};
use crate::store::comments::{CommentError, Remover};
use crate::store::moderation::{Moderation, ModerationEntry, RemoveError};
use crate::Community;

/// The most characters a removal's reason may have.
pub const MAX_REASON_CHARS: usize = 500;

/// Why an admin removed something: 1 to 500 characters, trimmed, no control characters (one
/// line, as the log shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemovalReason(String);

impl RemovalReason {
    pub fn parse(raw: Option<&str>) -> Result<Self, Invalid> {
        let raw = raw.ok_or_else(|| Invalid::field("reason", "is required"))?;
        // The raw length is bounded, so the schema's `maxLength` states the rule exactly.
        if raw.chars().count() > MAX_REASON_CHARS {
            return Err(Invalid::field(
                "reason",
                format!("must be at most {MAX_REASON_CHARS} characters"),
            ));
        }
        if raw.chars().any(char::is_control) {
            return Err(Invalid::field(
                "reason",
                "must not contain control characters",
            ));
        }
        let reason = raw.trim();
        if reason.is_empty() {
            return Err(Invalid::field("reason", "must not be blank"));
        }
        Ok(Self(reason.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One admin removal, as the moderation log shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModerationLogEntry {
    #[schema(format = "uuid")]
    pub id: String,
    /// The admin who removed it.
    #[schema(format = "uuid")]
    pub moderator_id: String,
    #[schema(example = "POST")]
    pub target_kind: ModerationTarget,
    /// The post's or the comment's id.
    #[schema(format = "uuid")]
    pub target_id: String,
    /// The post removed, or the post of the comment removed.
    #[schema(format = "uuid")]
    pub post_id: String,
    /// The author of what was removed.
    #[schema(format = "uuid")]
    pub author_id: String,
    pub reason: String,
    #[schema(format = "date-time")]
    pub removed_at: String,
}

/// What an admin removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum ModerationTarget {
    Post,
    Comment,
}

/// A page of the moderation log, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModerationLogPage {
    pub content: Vec<ModerationLogEntry>,
    pub page: u32,
    pub size: u32,
    /// Pages of `totalElements`.
    pub total_pages: u64,
    /// The entries, counted up to 1,000: a longer log says 1,000 (page on with `nextCursor`).
    #[schema(maximum = 1000)]
    pub total_elements: u64,
    /// The `cursor` of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub next_cursor: Option<String>,
}

impl ModerationTarget {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Post => "POST",
            Self::Comment => "COMMENT",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "POST" => Some(Self::Post),
            "COMMENT" => Some(Self::Comment),
            _ => None,
        }
    }
}

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
    /// already deleted): out of every list, feed and count; the search index follows through
    /// the outbox row the same transaction wrote.
    pub async fn delete_post(&self, id: &PostId, caller: &UserId) -> Result<(), CommunityError> {
        self.store()
            .remove_post(id.as_str(), Remover::Author(caller.as_str()))
            .await
            .map_err(remove_error)?;
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
        self.store()
            .remove_post(id.as_str(), Remover::Moderator(&moderation))
            .await
            .map_err(remove_error)?;
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
        self.store()
            .remove_comment(id.as_str(), Remover::Moderator(&moderation))
            .await
            .map_err(|e| match e {
                // The author's account is being deleted: its cleanup removes the comment.
                CommentError::AccountGone => CommunityError::CommentNotFound,
                e => comment_error(e),
            })?;
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

fn remove_error(e: RemoveError) -> CommunityError {
    match e {
        RemoveError::NotFound => CommunityError::PostNotFound,
        RemoveError::NotAuthor => CommunityError::NotAuthor,
        RemoveError::AccountGone => CommunityError::AccountGone,
        RemoveError::Transaction(e) => e.into(),
        RemoveError::Store(e) => e.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_one_trimmed_line_of_1_to_500_characters() {
        assert_eq!(
            RemovalReason::parse(Some("  spam  ")).unwrap().as_str(),
            "spam"
        );
        assert!(RemovalReason::parse(Some(&"é".repeat(500))).is_ok());
        for bad in [
            None,
            Some(""),
            Some("   "),
            Some("two\nlines"),
            Some("bell\u{7}"),
        ] {
            let e = RemovalReason::parse(bad).unwrap_err();
            assert!(e.to_string().contains("reason"), "{bad:?}: {e}");
        }
        assert!(RemovalReason::parse(Some(&"x".repeat(501))).is_err());
    }
}
