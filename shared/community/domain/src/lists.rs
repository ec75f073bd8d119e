//! Per-user lists of posts: written (published, or drafts for the owner), bookmarked and liked,
//! newest first, with the users' `showBookmarks` and `showLikes` choices honoured.

use platform::dynamo::Attributes;

use crate::error::CommunityError;
use crate::identity::Identity;
use crate::input::{PageRequest, PostStatus, UserId};
use crate::keys;
use crate::model::PostPage;
use crate::store::{list_page, ListKeys};
use crate::Community;

/// Which of a user's lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserList {
    /// Posts written, in this status (drafts: the owner only).
    Posts(PostStatus),
    Bookmarks,
    Likes,
}

impl UserList {
    /// The list's `gsi1` partition and the `PROFILE` counter holding its total.
    fn index(self, user: &str) -> (String, &'static str) {
        match self {
            Self::Posts(PostStatus::Published) => (keys::author_list(user, true), "publishedCount"),
            Self::Posts(PostStatus::Draft) => (keys::author_list(user, false), "draftCount"),
            Self::Bookmarks => (keys::user_list("BOOKMARKS", user), "bookmarkCount"),
            Self::Likes => (keys::user_list("LIKES", user), "likedCount"),
        }
    }
}

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
        let table = store.table();
        let (pk, counter) = list.index(user.as_str());
        let keys_ = ListKeys {
            index: Some(keys::GSI1),
            pk_name: "gsi1pk",
            pk,
            sk_name: "gsi1sk",
        };
        let ((rows, next), profile) = futures::try_join!(
            list_page(table, keys_, &page),
            table.get(keys::profile(user.as_str()))
        )?;
        let ids: Vec<String> = rows
            .iter()
            .filter_map(|row| row.opt_string("gsi1sk"))
            .filter_map(|sk| keys::post_of_feed_sk(&sk).map(str::to_string))
            .collect();
        let total = match &profile {
            Some(p) => p.counter(table.name(), counter)?.max(0),
            None => 0,
        };
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
            .map(|((p, b), m)| crate::service::with_marks(crate::service::full(p, b), m))
            .collect();
        Ok(crate::service::page_of(posts, &page, total, next))
    }
}
