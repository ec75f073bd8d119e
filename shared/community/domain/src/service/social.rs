//! Reactions and bookmarks on posts: the facade's calls, and the reaction changes they send
//! to the reaction counter.

use crate::error::CommunityError;
use crate::input::{PostId, PostReaction, UserId};
use crate::model::social::{BookmarkResult, ReactionKind, ReactionResult};
use crate::model::{Post, PostCard};
use crate::queues::ReactionChange;
use crate::store::social::{MarkError, Marks};

use super::{unconfigured, with_marks, Community};

impl Community {
    /// Sets the caller's reaction to a published post, or takes it back from any post that
    /// exists (unpublished or removed since included). The counts answered are the post's as
    /// of the reaction counter's last batch with the caller's own change added. The change is
    /// sent to the reaction counter while it has it to count (also when a retry finds the
    /// reaction already so: a send that failed is sent again); a failed send is a 503 (the
    /// reaction is saved, and a retry sends it). When the write's outcome is unknown (busy,
    /// or the table failed), the change is sent anyway: the counter reads the row, so a change
    /// queued for a write that did not happen counts nothing.
    pub async fn react(
        &self,
        post: &PostId,
        caller: &UserId,
        reaction: PostReaction,
    ) -> Result<ReactionResult, CommunityError> {
        let change = ReactionChange::new(post.as_str(), caller.as_str());
        let reacted = match self
            .store()
            .react(post.as_str(), caller.as_str(), reaction.0)
            .await
        {
            Ok(reacted) => reacted,
            Err(e) => {
                let error = match self.mark_outcome(post, caller, Err(e)).await {
                    Err(error) => error,
                    Ok(()) => CommunityError::Busy,
                };
                if matches!(error, CommunityError::Busy | CommunityError::Store(_)) {
                    if let Err(e) = self.send_reaction(&change).await {
                        tracing::warn!(error = %e, "a reaction whose write is unknown was not queued");
                    }
                }
                return Err(error);
            }
        };
        let (like_count, dislike_count) = reacted.counts();
        if reacted.to_count() {
            // The reaction is saved; a retry finds it so and sends its change again.
            self.send_reaction(&change).await?;
        }
        Ok(ReactionResult {
            like_count,
            dislike_count,
            is_liked_by_me: reacted.reaction() == Some(ReactionKind::Like),
            is_disliked_by_me: reacted.reaction() == Some(ReactionKind::Dislike),
        })
    }

    /// Sends a reaction change to the reaction counter.
    async fn send_reaction(&self, change: &ReactionChange) -> Result<(), CommunityError> {
        let queue = self
            .queues
            .reactions
            .as_ref()
            .ok_or_else(|| unconfigured("reaction"))?;
        queue
            .send(change)
            .await
            .map_err(|e| CommunityError::NotQueued {
                queue: "reaction",
                what: "reaction change",
                reason: e.to_string(),
            })
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
        posts: Vec<Post>,
        caller: Option<&UserId>,
    ) -> Result<Vec<Post>, CommunityError> {
        let Some(caller) = caller else {
            return Ok(posts);
        };
        let ids: Vec<String> = posts.iter().map(|p| p.id.clone()).collect();
        let marks = self.store().marks_on(&ids, caller.as_str()).await?;
        Ok(posts
            .into_iter()
            .zip(marks)
            .map(|(p, m)| with_marks(p, m))
            .collect())
    }

    /// Sets the caller's `isLikedByMe` on cards (nothing to do without a caller).
    pub async fn mark_cards(
        &self,
        cards: Vec<PostCard>,
        caller: Option<&UserId>,
    ) -> Result<Vec<PostCard>, CommunityError> {
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
