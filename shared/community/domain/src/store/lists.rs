//! A user's lists of posts in `gsi1`: written (published, drafts), bookmarked, liked; each
//! total is a counter on the user's `PROFILE`.

use platform::dynamo::{Attributes, DynamoError};

use super::{list_page, ListKeys, Store};
use crate::input::UserList;
use crate::input::{PageRequest, PostStatus};
use crate::keys;

/// The list's `gsi1` partition and the `PROFILE` counter holding its total.
fn index(list: UserList, user: &str) -> (String, &'static str) {
    match list {
        UserList::Posts(PostStatus::Published) => (keys::author_list(user, true), "publishedCount"),
        UserList::Posts(PostStatus::Draft) => (keys::author_list(user, false), "draftCount"),
        UserList::Bookmarks => (keys::user_list("BOOKMARKS", user), "bookmarkCount"),
        UserList::Likes => (keys::user_list("LIKES", user), "likedCount"),
    }
}

impl Store {
    /// A page of `user`'s `list`: its post ids newest first, its total and the `nextCursor`.
    pub async fn user_list_page(
        &self,
        user: &str,
        list: UserList,
        page: &PageRequest,
    ) -> Result<(Vec<String>, i64, Option<String>), DynamoError> {
        let table = &self.table;
        let (pk, counter) = index(list, user);
        let keys_ = ListKeys {
            index: Some(keys::GSI1),
            pk_name: "gsi1pk",
            pk,
            sk_name: "gsi1sk",
        };
        let ((rows, next), profile) = futures::try_join!(
            list_page(table, keys_, page),
            table.get(keys::profile(user))
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
        Ok((ids, total, next))
    }
}
