//! Per-user lists of posts: written (published, or drafts for the owner), bookmarked and liked,
//! newest first, with the users' `showBookmarks` and `showLikes` choices honoured.

use crate::error::CommunityError;
use crate::identity::Identity;
use crate::input::{PageRequest, PostStatus, UserId, UserList};
use crate::model::PostPage;

use super::{full, page_of, with_marks, Community};

impl Community {
    /// A page of `user`'s list for `caller`. Drafts are the owner's only, and bookmarks and
    /// likes others see only when the user shows them (403 otherwise). Posts that became
    /// invisible are skipped, so a page may be short.
    pub async fn user_list(
        &self,
        identity: &impl Identity,
        user: &UserId,
        list: UserList,
        caller: Option<&UserId>,
        page: PageRequest,
    ) -> Result<PostPage, CommunityError> {
        let owner = caller == Some(user);
        if !owner {
            let private = match list {
                UserList::Posts(PostStatus::Published) => false,
                UserList::Posts(PostStatus::Draft) => true,
                UserList::Bookmarks | UserList::Likes => {
                    let profile = identity
                        .profile(user)
                        .await
                        .map_err(CommunityError::from)?
                        .ok_or(CommunityError::UserNotFound)?;
                    match list {
                        UserList::Bookmarks => !profile.show_bookmarks,
                        _ => !profile.show_likes,
                    }
                }
            };
            if private {
                return Err(CommunityError::PrivateList);
            }
        }
        let store = self.store();
        let (ids, total, next) = store.user_list_page(user.as_str(), list, &page).await?;
        let caller_id = caller.map(UserId::as_str);
        let visible: Vec<_> = store
            .posts_with_bodies(&ids)
            .await?
            .into_iter()
            .filter(|(p, _)| p.visible_to(caller_id))
            .collect();
        let marks = futures::future::try_join_all(
            visible.iter().map(|(p, _)| self.marks_of(&p.id, caller)),
        )
        .await?;
        let posts = visible
            .into_iter()
            .zip(marks)
            .map(|((p, b), m)| with_marks(full(p, b), m))
            .collect();
        Ok(page_of(posts, &page, total, next))
    }
}
