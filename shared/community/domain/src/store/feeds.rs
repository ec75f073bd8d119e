//! What the feeds read: the newest post ids of a list, and an author's name.
//!
//! - the site's and a topic's newest: the first rows of `FEED#ALL` / `FEED#{t}` (keys only);
//! - an author's: the first rows of `gsi1` `AUTHOR#{u}#PUBLISHED`;
//! - `AUTHORNAME#{lowercase username}`/`META` holds `userId` and `username`: put when a post of
//!   theirs is published (one small unconditional put: the latest publisher under a name
//!   holds it; a renamed author's old name keeps naming them until someone else publishes
//!   under it).

use platform::dynamo::{s, Attributes, DynamoError};

use super::Store;
use crate::keys;

impl Store {
    /// The ids of the newest `limit` rows of a post list (`topic_id` `None`: every post; or
    /// `author` set: that author's published posts), newest first.
    pub async fn newest_ids(
        &self,
        topic_id: Option<&str>,
        author: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, DynamoError> {
        let (index, pk_name, pk, sk_name) = match author {
            Some(user) => (
                Some(keys::GSI1),
                "gsi1pk",
                keys::author_list(user, true),
                "gsi1sk",
            ),
            None => (None, "pk", keys::feed_pk(topic_id), "sk"),
        };
        let query = self
            .table
            .query()
            .set_index_name(index.map(str::to_string))
            .key_condition_expression("#pk = :pk")
            .expression_attribute_names("#pk", pk_name)
            .expression_attribute_values(":pk", s(pk))
            .scan_index_forward(false)
            .limit(i32::try_from(limit).unwrap_or(i32::MAX));
        let rows = self.table.query_all(query, Some(limit)).await?;
        Ok(rows
            .iter()
            .filter_map(|row| row.opt_string(sk_name))
            .filter_map(|sk| keys::post_of_feed_sk(&sk).map(str::to_string))
            .collect())
    }

    /// The user id an author's name points to.
    pub async fn author_by_name(&self, username: &str) -> Result<Option<String>, DynamoError> {
        Ok(self
            .table
            .get(keys::author_name(username))
            .await?
            .and_then(|item| item.opt_string("userId")))
    }

    /// Points `username` at `user_id`.
    pub async fn put_author_name(&self, username: &str, user_id: &str) -> Result<(), DynamoError> {
        let mut item = keys::author_name(username);
        item.insert("userId".into(), s(user_id));
        item.insert("username".into(), s(username));
        self.table
            .put_item()
            .set_item(Some(item))
            .send()
            .await
            .map_err(|e| self.table.fail("PutItem", &e))?;
        Ok(())
    }
}
