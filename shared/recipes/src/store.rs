//! The recipes table.
//!
//! Keys `pk` (partition) and `sk` (sort). Items and the calls that serve each operation:
//!
//! | pk | sk | holds | access pattern |
//! |---|---|---|---|
//! | `COUNTER` | `RECIPE_ID` | `value`: the last recipe id handed out | create: UpdateItem `ADD value :one` returning the new value ([`RecipeStore::next_id`]); atomic, so concurrent creates never share an id |
//! | `USER#{userId}` | `ACCOUNT` | `deletedAt` once identity deleted the account, `cleanedAt` once its recipes are gone | create: a condition of its transaction (no recipe after the deletion); cleanup: [`RecipeStore::mark_account_deleted`], [`RecipeStore::cleanup_step`] |
//! | `USER#{userId}` | `RECIPE#{id, 19 digits}` | `id`, `data` (the RecipeInput as JSON), `createdAt`, `editedAt`, `openedAt`, `version` | list: Query `pk = USER#{userId} AND sk > RECIPE#{after}`, a page at a time, in id order ([`RecipeStore::list`]); create: PutItem if new; get: UpdateItem `SET openedAt` if it exists, returning the item ([`RecipeStore::open`]); update: PutItem conditional on the version read ([`RecipeStore::replace`]) |
//!
//! Creating a recipe is one transaction: the `ACCOUNT` item holds no `deletedAt`, and the
//! recipe is new. A recipe is only ever addressed under its owner's partition, so another user's recipe is
//! simply absent. Ids count up from 1 over the whole service; a create whose put fails leaves
//! a gap, never a duplicate. No Scan.

use std::collections::HashMap;

use futures::{StreamExt, TryStreamExt};
use platform::dynamo::{
    is_condition_failed, item_size, key, n, s, Attributes, DynamoError, Item, ReturnValue, Table,
    Transaction, TransactionError, MAX_ITEM_BYTES,
};
use platform::Clock;

use crate::model::{Recipe, RecipeId, RecipeInput};

const COUNTER_PK: &str = "COUNTER";
const COUNTER_SK: &str = "RECIPE_ID";

fn user_pk(user: &str) -> String {
    format!("USER#{user}")
}

fn account_key(user: &str) -> Item {
    key(user_pk(user), ACCOUNT_SK)
}

const ACCOUNT_SK: &str = "ACCOUNT";
const RECIPE_PREFIX: &str = "RECIPE#";

/// Recipes deleted per cleanup step, and how many deletes run at once.
pub const CLEANUP_BATCH: usize = 25;
const CLEANUP_CONCURRENCY: usize = 5;

/// What one cleanup step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CleanupStep {
    /// Recipes deleted in this step.
    pub deleted: usize,
    /// None of the user's recipes is left.
    pub finished: bool,
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
    format!("RECIPE#{:019}", id.get())
}

fn recipe_key(user: &str, id: RecipeId) -> Item {
    key(user_pk(user), recipe_sk(id))
}

/// A stored recipe and the version an update is conditional on.
pub struct StoredRecipe {
    pub recipe: Recipe,
    pub version: i64,
}

#[derive(Clone)]
pub struct RecipeStore {
    table: Table,
    clock: Clock,
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

    /// The next recipe id (1, 2, ...): one atomic counter for the whole service.
    pub async fn next_id(&self) -> Result<RecipeId, DynamoError> {
        let update = platform::dynamo::request::Update::default()
            .table_name(self.table.name())
            .set_key(Some(key(COUNTER_PK, COUNTER_SK)))
            .update_expression("ADD #value :one")
            .expression_attribute_names("#value", "value")
            .expression_attribute_values(":one", n(1));
        let item = self
            .update_returning(update, ReturnValue::UpdatedNew)
            .await?
            .ok_or_else(|| self.table.corrupt("the id counter returned nothing"))?;
        let value = item.int(self.table.name(), "value")?;
        RecipeId::new(value).ok_or_else(|| self.table.corrupt("the id counter is below 1"))
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
        if item_size(&item) > MAX_ITEM_BYTES {
            // The input bounds keep every recipe far below this; a fault if not.
            return Err(self
                .table
                .invalid("PutItem", "the recipe item exceeds 400 KB"));
        }
        Ok(item)
    }

    fn recipe(&self, item: &Item) -> Result<StoredRecipe, DynamoError> {
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
                created_at: item.string(table, "createdAt")?,
                edited_at: item.opt_string("editedAt"),
                opened_at: item.opt_string("openedAt"),
            },
            version: item.counter(table, "version")?,
        })
    }

    /// Stores a new recipe of `user` under a fresh id, unless the account was deleted.
    pub async fn create(&self, user: &str, input: RecipeInput) -> Result<RecipeId, CreateError> {
        let id = self.next_id().await?;
        let recipe = Recipe {
            id: id.get(),
            title: input.title,
            ingredients: input.ingredients,
            instructions: input.instructions,
            portions: input.portions,
            nutrients: input.nutrients,
            created_at: self.clock.timestamp(),
            edited_at: None,
            opened_at: None,
        };
        let item = self.item(user, &recipe, 1)?;
        let mut transaction = Transaction::new(&self.table);
        transaction.check(account_key(user), "attribute_not_exists(deletedAt)")?;
        transaction.put(item, Some("attribute_not_exists(pk)"))?;
        match transaction.commit().await {
            Ok(_) => Ok(id),
            Err(e) if e.failed_at(0) => Err(CreateError::AccountDeleted),
            // A fresh id is never taken: a failed put condition is a fault.
            Err(TransactionError::Dynamo(e)) => Err(e.into()),
            Err(e) => Err(self.table.invalid("TransactWriteItems", e).into()),
        }
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
            .key_condition_expression("pk = :pk AND begins_with(sk, :recipe)")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":recipe", s(RECIPE_PREFIX))
            .projection_expression("pk, sk")
            .limit(i32::try_from(CLEANUP_BATCH).unwrap_or(i32::MAX))
            .consistent_read(true);
        let keys = self.table.query_all(query, Some(CLEANUP_BATCH)).await?;
        let deleted = keys.len().min(CLEANUP_BATCH);
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
        Ok(CleanupStep { deleted, finished })
    }

    /// Up to `limit` of `user`'s recipes with ids above `after`, in id order.
    pub async fn list(
        &self,
        user: &str,
        after: Option<RecipeId>,
        limit: usize,
    ) -> Result<Vec<Recipe>, DynamoError> {
        let after = after.map_or_else(|| "RECIPE#".to_string(), recipe_sk);
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND sk > :after")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":after", s(after))
            .limit(i32::try_from(limit).unwrap_or(i32::MAX))
            .consistent_read(true);
        self.table
            .query_all(query, Some(limit))
            .await?
            .iter()
            .take(limit)
            .map(|item| self.recipe(item).map(|r| r.recipe))
            .collect()
    }

    /// `user`'s recipe `id`, marked opened now; `None` when the user has no such recipe.
    pub async fn open(&self, user: &str, id: RecipeId) -> Result<Option<Recipe>, DynamoError> {
        let update = platform::dynamo::request::Update::default()
            .table_name(self.table.name())
            .set_key(Some(recipe_key(user, id)))
            .update_expression("SET openedAt = :now")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_values(":now", s(self.clock.timestamp()));
        match self.update_returning(update, ReturnValue::AllNew).await? {
            Some(item) => Ok(Some(self.recipe(&item)?.recipe)),
            None => Ok(None),
        }
    }

    /// `user`'s recipe `id` as stored (consistent), without touching it.
    pub async fn get(&self, user: &str, id: RecipeId) -> Result<Option<StoredRecipe>, DynamoError> {
        match self.table.get(recipe_key(user, id)).await? {
            Some(item) => Ok(Some(self.recipe(&item)?)),
            None => Ok(None),
        }
    }

    /// Writes `recipe` over the one read at `read_version`; `Ok(false)` when it changed (or
    /// went) meanwhile.
    pub async fn replace(
        &self,
        user: &str,
        recipe: &Recipe,
        read_version: i64,
    ) -> Result<bool, DynamoError> {
        let item = self.item(user, recipe, read_version.saturating_add(1))?;
        let result = self
            .table
            .put_item()
            .set_item(Some(item))
            .condition_expression("version = :read")
            .set_expression_attribute_values(Some(HashMap::from([(
                ":read".to_string(),
                n(read_version),
            )])))
            .send()
            .await;
        match result {
            Ok(_) => Ok(true),
            Err(e) if is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("PutItem", &e)),
        }
    }

    /// Reads one small item: proves the table answers.
    pub async fn ping(&self) -> Result<(), DynamoError> {
        self.table.ping().await
    }
}
