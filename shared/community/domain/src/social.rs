//! Reactions and bookmarks on posts: their inputs, answers, and the facade's calls.

use platform::Invalid;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::CommunityError;
use crate::input::{PostId, UserId};
use crate::store::social::{MarkError, Marks, ReactionKind};
use crate::{Community, ReactionChange};

/// A reaction asked for on a post: LIKE, DISLIKE, or NONE to take it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PostReaction(Option<ReactionKind>);

impl PostReaction {
    pub fn parse(raw: Option<&str>) -> Result<Self, Invalid> {
        match raw {
            Some("LIKE") => Ok(Self(Some(ReactionKind::Like))),
            Some("DISLIKE") => Ok(Self(Some(ReactionKind::Dislike))),
            Some("NONE") => Ok(Self(None)),
            Some(_) => Err(Invalid::field("type", "must be LIKE, DISLIKE or NONE")),
            None => Err(Invalid::field("type", "is required")),
        }
    }
}

/// A post's reaction counts and the caller's own reaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReactionResult {
    pub like_count: i64,
    pub dislike_count: i64,
    pub is_liked_by_me: bool,
    pub is_disliked_by_me: bool,
}

/// A post's bookmark count and whether the caller has bookmarked it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BookmarkResult {
    pub save_count: i64,
    pub is_bookmarked_by_me: bool,
}

impl Community {
    /// Sets the caller's reaction to a published post, or takes it back from any post that
    /// exists (unpublished or removed since included). The counts answered are the post's as
    /// of the reaction counter's last batch with the caller's own change added; the change to
    /// send to the reaction queue comes with them while the counter has it to count (also
    /// when a retry finds the reaction already so: a send that failed is sent again).
    pub async fn react(
        &self,
        post: &PostId,
        caller: &UserId,
        reaction: PostReaction,
    ) -> Result<(ReactionResult, Option<ReactionChange>), CommunityError> {
        let reacted = match self
            .store()
            .react(post.as_str(), caller.as_str(), reaction.0)
            .await
        {
            Ok(reacted) => reacted,
            Err(e) => {
                self.mark_outcome(post, caller, Err(e)).await?;
                return Err(CommunityError::Busy);
            }
        };
        let (like_count, dislike_count) = reacted.counts();
        let change = reacted
            .to_count()
            .then(|| ReactionChange::new(post.as_str(), caller.as_str()));
        Ok((
            ReactionResult {
                like_count,
                dislike_count,
                is_liked_by_me: reacted.reaction() == Some(ReactionKind::Like),
                is_disliked_by_me: reacted.reaction() == Some(ReactionKind::Dislike),
            },
            change,
        ))
    }

    /// Bookmarks a published post (`true`) or removes the caller's bookmark from any post
    /// that exists (`false`); idempotent.
    pub async fn bookmark(
        &self,
        post: &PostId,
        caller: &UserId,
        bookmarked: bool,
    ) -> Result<BookmarkResult, CommunityError> {
        let store = self.store();
        let outcome = store
            .bookmark(post.as_str(), caller.as_str(), bookmarked)
            .await;
        self.mark_outcome(post, caller, outcome).await?;
        let (meta, marks) = futures::try_join!(
            store.post(post.as_str()),
            store.marks(post.as_str(), caller.as_str())
        )?;
        let meta = meta
            .filter(|p| !bookmarked || p.visible_to(Some(caller.as_str())))
            .ok_or(CommunityError::PostNotFound)?;
        Ok(BookmarkResult {
            save_count: meta.save_count,
            is_bookmarked_by_me: marks.bookmarked,
        })
    }

    /// Sets the caller's flags on a list of posts (nothing to do without a caller).
    pub async fn mark_posts(
        &self,
        posts: Vec<crate::model::Post>,
        caller: Option<&UserId>,
    ) -> Result<Vec<crate::model::Post>, CommunityError> {
        let Some(caller) = caller else {
            return Ok(posts);
        };
        let ids: Vec<String> = posts.iter().map(|p| p.id.clone()).collect();
        let marks = self.store().marks_on(&ids, caller.as_str()).await?;
        Ok(posts
            .into_iter()
            .zip(marks)
            .map(|(p, m)| crate::service::with_marks(p, m))
            .collect())
    }

    /// Sets the caller's `isLikedByMe` on cards (nothing to do without a caller).
    pub async fn mark_cards(
        &self,
        cards: Vec<crate::model::PostCard>,
        caller: Option<&UserId>,
    ) -> Result<Vec<crate::model::PostCard>, CommunityError> {
        let Some(caller) = caller else {
            return Ok(cards);
        };
        let ids: Vec<String> = cards.iter().map(|c| c.id.clone()).collect();
        let marks = self.store().marks_on(&ids, caller.as_str()).await?;
        Ok(cards
            .into_iter()
            .zip(marks)
            .map(|(mut c, m)| {
                c.is_liked_by_me = m.reaction == Some(ReactionKind::Like);
                (c.like_count, _) = m.counts(c.like_count, 0);
                c
            })
            .collect())
    }

    /// The caller's marks on a post (none without a caller).
    pub(crate) async fn marks_of(
        &self,
        post: &str,
        caller: Option<&UserId>,
    ) -> Result<Marks, CommunityError> {
        match caller {
            Some(c) => Ok(self.store().marks(post, c.as_str()).await?),
            None => Ok(Marks::default()),
        }
    }

    /// A mark's failure as the service's error: a post that is not open is 404, or 409 when
    /// it is the caller's own draft.
    async fn mark_outcome(
        &self,
        post: &PostId,
        caller: &UserId,
        outcome: Result<(), MarkError>,
    ) -> Result<(), CommunityError> {
        match outcome {
            Ok(()) => Ok(()),
            Err(MarkError::PostNotOpen) => match self.store().post(post.as_str()).await? {
                Some(p) if !p.deleted && p.author_id == caller.as_str() => Err(
                    CommunityError::Conflict("A draft cannot be reacted to or bookmarked".into()),
                ),
                _ => Err(CommunityError::PostNotFound),
            },
            Err(MarkError::AccountGone) => Err(CommunityError::AccountGone),
            Err(MarkError::Busy | MarkError::Raced) => Err(CommunityError::Busy),
            Err(MarkError::Store(e)) => Err(CommunityError::Store(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reaction_types() {
        assert_eq!(
            PostReaction::parse(Some("LIKE")),
            Ok(PostReaction(Some(ReactionKind::Like)))
        );
        assert_eq!(PostReaction::parse(Some("NONE")), Ok(PostReaction(None)));
        for bad in [Some("like"), Some(""), None] {
            let e = PostReaction::parse(bad).unwrap_err();
            assert!(e.to_string().contains("type"), "{e}");
        }
    }
}
