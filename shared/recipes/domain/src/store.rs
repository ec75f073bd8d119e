//! The recipes table.
//!
//! Keys `pk` (partition) and `sk` (sort). Items and the calls that serve each operation:
//!
//! | pk | sk | holds | access pattern |
//! |---|---|---|---|
//! | `USER#{userId}` | `ACCOUNT` | `deletedAt` once identity deleted the account, `cleanedAt` once its recipes are gone | create: a condition of its transaction (no recipe after the deletion); cleanup: [`RecipeStore::mark_account_deleted`], [`RecipeStore::cleanup_step`] |
//! | `USER#{userId}` | `RECIPE#{id, 19 digits}` | `id`, `data` (the RecipeInput as JSON), `createdAt`, `editedAt`, `openedAt`, `version` | list: Query `pk = USER#{userId} AND sk > RECIPE#{after}`, a page at a time, in id order ([`RecipeStore::list`]); create: a transaction, the put conditional on the id being new in the partition; get: GetItem, and an UpdateItem `SET openedAt` only when the last one is older than [`OPENED_AT_GRANULARITY_SECONDS`] ([`RecipeStore::open`]); update: PutItem conditional on the version read ([`RecipeStore::replace`]) |
//!
//! Creating a recipe is one transaction: the `ACCOUNT` item holds no `deletedAt`, and the
//! recipe is new. A recipe is only ever addressed under its owner's partition, so another user's recipe is
//! simply absent. No Scan.
//!
//! Every partition is one user's, so its rate is that user's own: no key grows with the
//! service. Ids need no counter ([`RecipeId`]s are the creation millisecond times 1,024 plus a
//! random number below 1,024, so one user's rise with time and stay under 2^53, exact in
//! JavaScript until the year 2248); the put's condition makes them unique in the owner's
//! partition, which is all that addresses a recipe (two users' recipes may share an id, as
//! their paths never meet). Ids of recipes made before this scheme (1, 2, ... from the
//! service-wide counter item `COUNTER`/`RECIPE_ID`, no longer written) stay valid and sort
//! first.
use std::collections::HashMap;

use futures::{StreamExt, TryStreamExt};
use platform::dynamo::{
    is_condition_failed, item_size, key, n, s, Attributes, DynamoError, Item, ReturnValue, Table,
    Transaction, TransactionError, MAX_ITEM_BYTES,
};
use platform::Clock;

use crate::model::{Recipe, RecipeId, RecipeImage, RecipeInput};
use crate::search::{self, SearchQuery};

/// A reading within this many seconds of the last recorded one leaves `openedAt` as it is,
/// so reading a recipe costs a write at most this often, not on every request.
pub const OPENED_AT_GRANULARITY_SECONDS: i64 = 600;

/// Random values per millisecond of a recipe id.
const ID_SPREAD: i64 = 1024;

/// Fresh ids a create tries before reporting a fault (a collision in one user's partition
/// within the same millisecond is 1 in 1,024 per pair of creates).
const CREATE_ATTEMPTS: usize = 4;

pub(crate) fn user_pk(user: &str) -> String {
    format!("USER#{user}")
}

fn account_key(user: &str) -> Item {
    key(user_pk(user), ACCOUNT_SK)
}

const ACCOUNT_SK: &str = "ACCOUNT";
const RECIPE_PREFIX: &str = "RECIPE#";

/// Items (recipes, search cards, plan days, the shopping list) deleted per cleanup step, and how many deletes run at once.
pub const CLEANUP_BATCH: usize = 25;
const CLEANUP_CONCURRENCY: usize = 5;

/// A page of a user's recipes.
#[derive(Debug, Clone, PartialEq)]
pub struct RecipePage {
    pub recipes: Vec<Recipe>,
    /// Recipes with larger ids follow this page.
    pub more: bool,
}

/// What one cleanup step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CleanupStep {
    /// Recipes deleted in this step.
    pub deleted: usize,
    /// None of the user's recipes is left.
    pub finished: bool,
    /// The image keys of the recipes deleted (the caller deletes the objects).
    pub images: Vec<String>,
}

/// Why a recipe was not created.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// The account was deleted: its recipes are being removed and no new one may appear.
    #[error("the account was deleted")]
    AccountDeleted,
    #[error(transparent)]
    Store(#[from] DynamoError),
}

fn recipe_sk(id: RecipeId) -> String {
    format!("{RECIPE_PREFIX}{:019}", id.get())
}

pub(crate) fn recipe_key(user: &str, id: RecipeId) -> Item {
    key(user_pk(user), recipe_sk(id))
}

const CARD_PREFIX: &str = "CARD#";
/// The mark of a partition whose recipes all have search cards.
const SEARCH_SK: &str = "SEARCH";

/// Query pages of search cards one search reads at most (each up to 1 MB): a page that
/// found fewer recipes than asked still answers a cursor to go on from.
pub const SEARCH_PAGES: usize = 3;

fn card_sk(id: RecipeId) -> String {
    format!("{CARD_PREFIX}{:019}", id.get())
}

fn card_key(user: &str, id: RecipeId) -> Item {
    key(user_pk(user), card_sk(id))
}

/// A recipe's search card: its id, the words it is found by (space-separated) and its tags
/// (one a line), some hundred bytes, so one Query page holds thousands.
fn card_item(user: &str, id: RecipeId, input: &RecipeInput) -> Item {
    let mut item = card_key(user, id);
    item.insert("id".into(), n(id.get()));
    let words = search::recipe_words(input)
        .into_iter()
        .collect::<Vec<_>>()
        .join(" ");
    item.insert("words".into(), s(words));
    item.insert("tags".into(), s(input.tags.join("\n")));
    item
}

/// A page of search results.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPage {
    pub recipes: Vec<Recipe>,
    /// Where the next page starts (`cursor`): older recipes may match.
    pub next: Option<RecipeId>,
}

/// A stored recipe and the version an update is conditional on.
pub struct StoredRecipe {
    pub recipe: Recipe,
    pub version: i64,
}

#[derive(Clone)]
pub struct RecipeStore {
    pub(crate) table: Table,
    pub(crate) clock: Clock,
}

impl RecipeStore {
    pub fn new(table: Table, clock: Clock) -> Self {
        Self { table, clock }
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// An UpdateItem that returns attributes (`return_values`).
    async fn update_returning(
        &self,
        update: platform::dynamo::request::Update,
        return_values: ReturnValue,
    ) -> Result<Option<Item>, DynamoError> {
        match self
            .table
            .update_item_from(update)
            .return_values(return_values)
            .send()
            .await
        {
            Ok(out) => Ok(out.attributes),
            Err(e) if is_condition_failed(&e) => Ok(None),
            Err(e) => Err(self.table.fail("UpdateItem", &e)),
        }
    }

    /// A fresh id for a recipe created now: the millisecond times [`ID_SPREAD`] plus a
    /// random number below it.
    fn fresh_id(&self) -> Result<RecipeId, DynamoError> {
        recipe_id_at(
            self.clock.now().timestamp_millis(),
            rand::random_range(0..ID_SPREAD),
        )
        .ok_or_else(|| self.table.invalid("PutItem", "the clock is before 1970"))
    }

    fn item(&self, user: &str, recipe: &Recipe, version: i64) -> Result<Item, DynamoError> {
        let id = RecipeId::new(recipe.id).ok_or_else(|| self.table.corrupt("recipe id below 1"))?;
        let data =
            serde_json::to_string(&recipe.input()).map_err(|e| self.table.invalid("PutItem", e))?;
        let mut item = recipe_key(user, id);
        item.insert("id".into(), n(recipe.id));
        item.insert("data".into(), s(data));
        item.insert("createdAt".into(), s(&recipe.created_at));
        item.insert("version".into(), n(version));
        if let Some(at) = &recipe.edited_at {
            item.insert("editedAt".into(), s(at));
        }
        if let Some(at) = &recipe.opened_at {
            item.insert("openedAt".into(), s(at));
        }
        if let Some(image) = &recipe.image {
            item.insert("image".into(), s(&image.key));
        }
        if item_size(&item) > MAX_ITEM_BYTES {
            // The input bounds keep every recipe far below this; a fault if not.
            return Err(self
                .table
                .invalid("PutItem", "the recipe item exceeds 400 KB"));
        }
        Ok(item)
    }

    pub(crate) fn recipe(&self, item: &Item) -> Result<StoredRecipe, DynamoError> {
        let table = self.table.name();
        let data = item.string(table, "data")?;
        let input: RecipeInput = serde_json::from_str(&data)
            .map_err(|e| self.table.corrupt(format!("data is not a recipe: {e}")))?;
        Ok(StoredRecipe {
            recipe: Recipe {
                id: item.int(table, "id")?,
                title: input.title,
                ingredients: input.ingredients,
                instructions: input.instructions,
                portions: input.portions,
                nutrients: input.nutrients,
                source: input.source,
                times: input.times,
                tags: input.tags,
                created_at: item.string(table, "createdAt")?,
                edited_at: item.opt_string("editedAt"),
                opened_at: item.opt_string("openedAt"),
                // The URL is signed by the service when the recipe is answered.
                image: item.opt_string("image").map(|key| RecipeImage {
                    key,
                    url: String::new(),
                }),
                nutrients_per_portion: None,
                allergens: None,
                scaled_from: None,
                ingredient_lines: Vec::new(),
            },
            version: item.counter(table, "version")?,
        })
    }

    /// Stores a new recipe of `user` under a fresh id, unless the account was deleted.
    pub async fn create(&self, user: &str, input: RecipeInput) -> Result<RecipeId, CreateError> {
        let created_at = self.clock.timestamp();
        for _ in 0..CREATE_ATTEMPTS {
            let id = self.fresh_id()?;
            let recipe = Recipe {
                id: id.get(),
                title: input.title.clone(),
                ingredients: input.ingredients.clone(),
                instructions: input.instructions.clone(),
                portions: input.portions,
                nutrients: input.nutrients,
                source: input.source.clone(),
                times: input.times,
                tags: input.tags.clone(),
                created_at: created_at.clone(),
                edited_at: None,
                opened_at: None,
                image: None,
                nutrients_per_portion: None,
                allergens: None,
                scaled_from: None,
                ingredient_lines: Vec::new(),
            };
            let item = self.item(user, &recipe, 1)?;
            let mut transaction = Transaction::new(&self.table);
            transaction.check(account_key(user), "attribute_not_exists(deletedAt)")?;
            transaction.put(item, Some("attribute_not_exists(pk)"))?;
            transaction.put(card_item(user, id, &input), None)?;
            match transaction.commit().await {
                Ok(_) => return Ok(id),
                Err(e) if e.failed_at(0) => return Err(CreateError::AccountDeleted),
                // The user made another recipe in the same millisecond that drew this id.
                Err(e) if e.failed_at(1) => continue,
                Err(TransactionError::Dynamo(e)) => return Err(e.into()),
                Err(e) => return Err(self.table.invalid("TransactWriteItems", e).into()),
            }
        }
        Err(self
            .table
            .corrupt("every fresh recipe id drawn was taken")
            .into())
    }

    /// Marks the account deleted (idempotent); `Ok(true)` when it already was.
    pub async fn mark_account_deleted(&self, user: &str) -> Result<bool, DynamoError> {
        let before = self
            .update_returning(
                platform::dynamo::request::Update::default()
                    .table_name(self.table.name())
                    .set_key(Some(account_key(user)))
                    .update_expression("SET deletedAt = if_not_exists(deletedAt, :now)")
                    .expression_attribute_values(":now", s(self.clock.timestamp())),
                ReturnValue::AllOld,
            )
            .await?;
        Ok(before.is_some_and(|item| item.contains_key("deletedAt")))
    }

    /// Takes the deletion mark back (a cleanup that could not be queued).
    pub async fn unmark_account_deleted(&self, user: &str) -> Result<(), DynamoError> {
        self.table
            .delete_item()
            .set_key(Some(account_key(user)))
            .condition_expression("attribute_not_exists(cleanedAt)")
            .send()
            .await
            .map(|_| ())
            .or_else(|e| {
                if is_condition_failed(&e) {
                    Ok(())
                } else {
                    Err(self.table.fail("DeleteItem", &e))
                }
            })
    }

    /// Deletes up to [`CLEANUP_BATCH`] of a deleted user's recipes; when none is left, sets
    /// `cleanedAt`. Repeating a step is harmless: a recipe already gone deletes as nothing.
    pub async fn cleanup_step(&self, user: &str) -> Result<CleanupStep, DynamoError> {
        let query = self
            .table
            .query()
            // Everything of the user's but the mark: recipes, search cards, plan, shopping list.
            .key_condition_expression("pk = :pk AND sk > :account")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":account", s(ACCOUNT_SK))
            .projection_expression("pk, sk, image")
            .limit(i32::try_from(CLEANUP_BATCH).unwrap_or(i32::MAX))
            .consistent_read(true);
        let mut keys = self.table.query_all(query, Some(CLEANUP_BATCH)).await?;
        let deleted = keys.len().min(CLEANUP_BATCH);
        let images = keys
            .iter_mut()
            .filter_map(|item| item.remove("image"))
            .filter_map(|image| image.as_s().ok().cloned())
            .collect();
        futures::stream::iter(keys.into_iter().take(CLEANUP_BATCH))
            .map(|key| async move {
                self.table
                    .delete_item()
                    .set_key(Some(key))
                    .send()
                    .await
                    .map(|_| ())
                    .map_err(|e| self.table.fail("DeleteItem", &e))
            })
            .buffer_unordered(CLEANUP_CONCURRENCY)
            .try_collect::<Vec<()>>()
            .await?;
        let finished = deleted < CLEANUP_BATCH;
        if finished {
            self.table
                .update_item()
                .set_key(Some(account_key(user)))
                .update_expression("SET cleanedAt = :now")
                .expression_attribute_values(":now", s(self.clock.timestamp()))
                .send()
                .await
                .map_err(|e| self.table.fail("UpdateItem", &e))?;
        }
        Ok(CleanupStep {
            deleted,
            finished,
            images,
        })
    }

    /// Up to `limit` of `user`'s recipes with ids above `after`, in id order, and whether more
    /// follow (one recipe more is read to know).
    pub async fn list(
        &self,
        user: &str,
        after: Option<RecipeId>,
        limit: usize,
    ) -> Result<RecipePage, DynamoError> {
        let after = after.map_or_else(
            || RECIPE_PREFIX.to_string(),
            |id| format!("{}~", recipe_sk(id)),
        );
        let wanted = limit.saturating_add(1);
        let query = self
            .table
            .query()
            // Bounded above: the plan, the shopping list and the search mark share the
            // partition (`SEARCH`, `SHOPPING` sort after every recipe). `~` after the last id
            // read sorts past it and before the next one.
            .key_condition_expression("pk = :pk AND sk BETWEEN :after AND :last")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":after", s(after))
            .expression_attribute_values(":last", s(format!("{RECIPE_PREFIX}~")))
            .limit(i32::try_from(wanted).unwrap_or(i32::MAX))
            .consistent_read(true);
        let items = self.table.query_all(query, Some(wanted)).await?;
        let more = items.len() > limit;
        let recipes = items
            .iter()
            .take(limit)
            .map(|item| self.recipe(item).map(|r| r.recipe))
            .collect::<Result<_, _>>()?;
        Ok(RecipePage { recipes, more })
    }

    /// `user`'s recipe `id`, marked opened now unless it was within
    /// [`OPENED_AT_GRANULARITY_SECONDS`]; `None` when the user has no such recipe.
    pub async fn open(&self, user: &str, id: RecipeId) -> Result<Option<Recipe>, DynamoError> {
        let Some(stored) = self.get(user, id).await? else {
            return Ok(None);
        };
        let now = self.clock.now();
        if !needs_opening(stored.recipe.opened_at.as_deref(), now) {
            return Ok(Some(stored.recipe));
        }
        let opened_at = platform::clock::rfc3339(now);
        let update = platform::dynamo::request::Update::default()
            .table_name(self.table.name())
            .set_key(Some(recipe_key(user, id)))
            .update_expression("SET openedAt = :now")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_values(":now", s(&opened_at));
        // `None`: the update's condition failed, the recipe went meanwhile.
        let updated = self
            .update_returning(update, ReturnValue::UpdatedNew)
            .await?;
        Ok(updated.map(|_| Recipe {
            opened_at: Some(opened_at),
            ..stored.recipe
        }))
    }

    /// `user`'s recipe `id` as stored (consistent), without touching it.
    pub async fn get(&self, user: &str, id: RecipeId) -> Result<Option<StoredRecipe>, DynamoError> {
        match self.table.get(recipe_key(user, id)).await? {
            Some(item) => Ok(Some(self.recipe(&item)?)),
            None => Ok(None),
        }
    }

    /// Writes `recipe` over the one read at `read_version`, and its search card; `Ok(false)`
    /// when it changed (or went) meanwhile.
    pub async fn replace(
        &self,
        user: &str,
        recipe: &Recipe,
        read_version: i64,
    ) -> Result<bool, DynamoError> {
        let id = RecipeId::new(recipe.id).ok_or_else(|| self.table.corrupt("recipe id below 1"))?;
        let item = self.item(user, recipe, read_version.saturating_add(1))?;
        let mut transaction = Transaction::new(&self.table);
        transaction.put_if(
            item,
            "version = :read",
            HashMap::from([(":read".to_string(), n(read_version))]),
        )?;
        transaction.put(card_item(user, id, &recipe.input()), None)?;
        match transaction.commit().await {
            Ok(_) => Ok(true),
            Err(e) if e.failed_at(0) || e.is_conflict() => Ok(false),
            Err(TransactionError::Dynamo(e)) => Err(e),
            Err(e) => Err(self.table.invalid("TransactWriteItems", e)),
        }
    }

    /// Deletes `user`'s recipe `id` as read at `read_version` and its search card in one
    /// transaction; `Ok(false)` when it changed or went meanwhile.
    pub async fn delete(
        &self,
        user: &str,
        id: RecipeId,
        read_version: i64,
    ) -> Result<bool, DynamoError> {
        let mut transaction = Transaction::new(&self.table);
        transaction.delete_if(
            recipe_key(user, id),
            "version = :read",
            HashMap::from([(":read".to_string(), n(read_version))]),
        )?;
        transaction.delete(card_key(user, id), None)?;
        match transaction.commit().await {
            Ok(_) => Ok(true),
            Err(e) if e.failed_at(0) || e.is_conflict() => Ok(false),
            Err(TransactionError::Dynamo(e)) => Err(e),
            Err(e) => Err(self.table.invalid("TransactWriteItems", e)),
        }
    }

    /// Writes the search cards of `user`'s recipes stored before cards existed, once: the
    /// first search reads the user's recipes (a Query page at a time) and puts each missing
    /// card (conditional on its absence, so a card an update wrote meanwhile stays), then
    /// marks the partition indexed (`USER#{id}`/`SEARCH`). Later searches read only the mark.
    pub async fn ensure_indexed(&self, user: &str) -> Result<(), DynamoError> {
        let mark = key(user_pk(user), SEARCH_SK);
        if self.table.get_eventual(mark.clone()).await?.is_some() {
            return Ok(());
        }
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :recipe)")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":recipe", s(RECIPE_PREFIX));
        let items = self.table.query_all(query, None).await?;
        let cards = items
            .iter()
            .map(|item| {
                let stored = self.recipe(item)?;
                let id = RecipeId::new(stored.recipe.id)
                    .ok_or_else(|| self.table.corrupt("recipe id below 1"))?;
                Ok(card_item(user, id, &stored.recipe.input()))
            })
            .collect::<Result<Vec<_>, DynamoError>>()?;
        futures::stream::iter(cards)
            .map(|card| async move {
                match self
                    .table
                    .put_item()
                    .set_item(Some(card))
                    .condition_expression("attribute_not_exists(pk)")
                    .send()
                    .await
                {
                    Ok(_) => Ok(()),
                    Err(e) if is_condition_failed(&e) => Ok(()),
                    Err(e) => Err(self.table.fail("PutItem", &e)),
                }
            })
            .buffer_unordered(CLEANUP_CONCURRENCY)
            .try_collect::<Vec<()>>()
            .await?;
        let mut item = mark;
        item.insert("indexedAt".into(), s(self.clock.timestamp()));
        self.table
            .put_item()
            .set_item(Some(item))
            .send()
            .await
            .map_err(|e| self.table.fail("PutItem", &e))?;
        Ok(())
    }

    /// Up to `limit` of `user`'s recipes that `query` finds, newest first, with ids below
    /// `before`; reads the user's search cards a Query page (1 MB, some 2,000 cards) at a
    /// time, at most [`SEARCH_PAGES`] pages, then the recipes found (one BatchGetItem).
    pub async fn search(
        &self,
        user: &str,
        query: &SearchQuery,
        before: Option<RecipeId>,
        limit: usize,
    ) -> Result<SearchPage, DynamoError> {
        let table = self.table.name();
        let high = before.map_or_else(|| format!("{CARD_PREFIX}~"), card_sk);
        let base = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND sk BETWEEN :low AND :high")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":low", s(CARD_PREFIX))
            .expression_attribute_values(":high", s(high))
            .scan_index_forward(false);
        let mut found: Vec<i64> = Vec::new();
        let mut start: Option<Item> = None;
        let mut last_read: Option<i64> = None;
        let mut exhausted = false;
        'pages: for _ in 0..SEARCH_PAGES {
            let out = base
                .clone()
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| self.table.fail("Query", &e))?;
            for card in out.items.unwrap_or_default() {
                let id = card.int(table, "id")?;
                // `before` itself is the upper bound of BETWEEN: skip it.
                if before.is_some_and(|b| b.get() == id) {
                    continue;
                }
                last_read = Some(id);
                let words = card.opt_string("words").unwrap_or_default();
                let tags = card.opt_string("tags").unwrap_or_default();
                let words: Vec<&str> = words.split(' ').collect();
                let tags: Vec<&str> = tags.split('\n').filter(|t| !t.is_empty()).collect();
                if query.matches(&words, &tags) {
                    found.push(id);
                    if found.len() == limit {
                        break 'pages;
                    }
                }
            }
            match out.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => {
                    exhausted = true;
                    break;
                }
            }
        }
        let next = if exhausted && found.len() < limit {
            None
        } else {
            last_read.and_then(RecipeId::new)
        };
        let keys = found
            .iter()
            .filter_map(|id| RecipeId::new(*id))
            .map(|id| recipe_key(user, id))
            .collect::<Vec<_>>();
        let items = if keys.is_empty() {
            Vec::new()
        } else {
            self.table.batch_get_all(keys, None).await?
        };
        let mut recipes = items
            .iter()
            .map(|item| self.recipe(item).map(|r| r.recipe))
            .collect::<Result<Vec<_>, _>>()?;
        recipes.sort_by_key(|r| std::cmp::Reverse(r.id));
        Ok(SearchPage { recipes, next })
    }

    /// Points `user`'s recipe `id` at the image `key` (`None`: no image); the key it pointed
    /// at before; `Ok(None)` when there is no such recipe.
    pub async fn set_image(
        &self,
        user: &str,
        id: RecipeId,
        key: Option<&str>,
    ) -> Result<Option<Option<String>>, DynamoError> {
        let update = platform::dynamo::request::Update::default()
            .table_name(self.table.name())
            .set_key(Some(recipe_key(user, id)))
            .condition_expression("attribute_exists(pk)");
        let update = match key {
            Some(key) => update
                .update_expression("SET image = :key ADD version :one")
                .expression_attribute_values(":key", s(key))
                .expression_attribute_values(":one", n(1)),
            None => update
                .update_expression("REMOVE image ADD version :one")
                .expression_attribute_values(":one", n(1)),
        };
        let before = self.update_returning(update, ReturnValue::AllOld).await?;
        Ok(before.map(|item| item.opt_string("image")))
    }

    /// Reads one small item: proves the table answers.
    pub async fn ping(&self) -> Result<(), DynamoError> {
        self.table.ping().await
    }
}

/// The id of a recipe created at Unix millisecond `millis` that drew `random` (below
/// [`ID_SPREAD`]).
fn recipe_id_at(millis: i64, random: i64) -> Option<RecipeId> {
    millis
        .checked_mul(ID_SPREAD)
        .and_then(|id| id.checked_add(random))
        .and_then(RecipeId::new)
}

/// Whether a reading at `now` records itself: never opened, or last recorded at least
/// [`OPENED_AT_GRANULARITY_SECONDS`] ago (an unreadable instant records anew).
fn needs_opening(opened_at: Option<&str>, now: chrono::DateTime<chrono::Utc>) -> bool {
    opened_at
        .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
        .is_none_or(|at| {
            now.signed_duration_since(at).num_seconds() >= OPENED_AT_GRANULARITY_SECONDS
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone, Utc};

    #[test]
    fn a_reading_records_itself_once_per_granule() {
        let now = Utc
            .with_ymd_and_hms(2026, 11, 28, 12, 0, 0)
            .single()
            .unwrap_or_default();
        let at = |ago: i64| platform::clock::rfc3339(now - Duration::seconds(ago));
        assert!(needs_opening(None, now));
        assert!(needs_opening(Some("not a time"), now));
        assert!(!needs_opening(Some(&at(0)), now));
        assert!(!needs_opening(
            Some(&at(OPENED_AT_GRANULARITY_SECONDS - 1)),
            now
        ));
        assert!(needs_opening(Some(&at(OPENED_AT_GRANULARITY_SECONDS)), now));
        assert!(needs_opening(Some(&at(86_400)), now));
    }

    #[test]
    fn fresh_ids_rise_with_the_millisecond_and_stay_exact_in_javascript() {
        let now = Utc
            .with_ymd_and_hms(2026, 11, 28, 12, 0, 0)
            .single()
            .unwrap_or_default()
            .timestamp_millis();
        let id = |millis: i64, random: i64| recipe_id_at(millis, random).map(RecipeId::get);
        // Any id of one millisecond is below every id of the next.
        assert!(id(now, ID_SPREAD - 1) < id(now + 1, 0));
        assert_eq!(id(now, 5), Some(now * 1024 + 5));
        // Above every id the service-wide counter handed out.
        assert!(id(now, 0).is_some_and(|id| id > 1_000_000_000_000));
        // Exact as a JavaScript number until 2248.
        let year_2248 = Utc
            .with_ymd_and_hms(2248, 1, 1, 0, 0, 0)
            .single()
            .unwrap_or_default()
            .timestamp_millis();
        assert!(id(year_2248, ID_SPREAD - 1).is_some_and(|id| id < 1 << 53));
        assert_eq!(id(0, 0), None);
        assert_eq!(id(-1, 3), None);
        assert_eq!(id(i64::MAX, 0), None);
    }
}
