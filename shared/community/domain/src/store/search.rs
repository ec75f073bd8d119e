//! The rows a search page reads for its hits: each hit's META and BODY and, for a caller,
//! their reaction (and a legacy one) and bookmark, in one BatchGet.

use std::collections::HashMap;

use platform::dynamo::{Attributes, DynamoError, Item};

use super::posts::{PostBody, StoredPost};
use super::social::{marks, Marks};
use super::Store;
use crate::keys;

/// The items read for a page of hits, decoded on demand (a hit past the page is never
/// decoded).
pub struct SearchRows<'a> {
    store: &'a Store,
    items: Vec<Item>,
    found: HashMap<(String, String), usize>,
}

impl SearchRows<'_> {
    fn get(&self, key: Item) -> Option<&Item> {
        let pk = key.get("pk").and_then(|v| v.as_s().ok()).cloned()?;
        let sk = key.get("sk").and_then(|v| v.as_s().ok()).cloned()?;
        self.found.get(&(pk, sk)).and_then(|i| self.items.get(*i))
    }

    /// The post `id`, if it exists.
    pub fn post(&self, id: &str) -> Result<Option<StoredPost>, DynamoError> {
        self.get(keys::post(id))
            .map(|meta| StoredPost::from_item(self.store, meta))
            .transpose()
    }

    /// The body of `id` (empty when missing).
    pub fn body(&self, id: &str) -> PostBody {
        self.get(keys::post_body(id))
            .map(PostBody::from_item)
            .unwrap_or_default()
    }

    /// The caller's marks on `id` (none without a caller).
    pub fn marks(&self, id: &str, caller: Option<&str>) -> Marks {
        match caller {
            Some(user) => marks(
                self.get(keys::reaction(id, user)),
                self.get(keys::legacy_reaction(id, user)),
                self.get(keys::bookmark(id, user)).is_some(),
            ),
            None => Marks::default(),
        }
    }
}

impl Store {
    /// The rows of the posts `ids` (and the caller's marks on them), in one BatchGet.
    pub async fn search_rows(
        &self,
        ids: &[String],
        caller: Option<&str>,
    ) -> Result<SearchRows<'_>, DynamoError> {
        let mut keys_: Vec<Item> = Vec::with_capacity(ids.len() * 5);
        for id in ids {
            keys_.extend([keys::post(id), keys::post_body(id)]);
            if let Some(user) = caller {
                keys_.extend([
                    keys::reaction(id, user),
                    keys::legacy_reaction(id, user),
                    keys::bookmark(id, user),
                ]);
            }
        }
        let items = self.table.batch_get_all(keys_, None).await?;
        let found = items
            .iter()
            .enumerate()
            .filter_map(|(n, i)| Some(((i.opt_string("pk")?, i.opt_string("sk")?), n)))
            .collect();
        Ok(SearchRows {
            store: self,
            items,
            found,
        })
    }
}
