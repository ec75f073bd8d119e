//! Deleting posts: the author's own delete (soft: the post answers 404 after, its rows stay
//! for audit; see [`crate::store::moderation`]).

use crate::error::CommunityError;
use crate::input::{PostId, UserId};
use crate::store::comments::Remover;
use crate::store::moderation::RemoveError;
use crate::Community;

impl Community {
    /// Deletes the caller's own post (403 for anyone else's, 404 for one they cannot see or
    /// already deleted): out of every list, feed and count; the search index follows through
    /// the outbox row the same transaction wrote.
    pub async fn delete_post(&self, id: &PostId, caller: &UserId) -> Result<(), CommunityError> {
        self.store()
            .remove_post(id.as_str(), Remover::Author(caller.as_str()), None)
            .await
            .map_err(remove_error)?;
        Ok(())
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
