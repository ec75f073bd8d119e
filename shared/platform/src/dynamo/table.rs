use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::request::{Call, Delete, DeleteItem, Put, PutItem, Query, Update, UpdateItem};
use super::{DynamoError, Item, RetryPolicy};
use crate::aws::{AwsError, JsonClient};

/// DynamoDB's limit on the keys of one BatchGetItem.
const BATCH_GET_KEYS: usize = 100;
/// Rounds of retrying unprocessed keys before a batch read gives up (as unavailable).
const BATCH_GET_ROUNDS: u32 = 8;

/// One table: the client and the table's name. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Table {
    client: JsonClient,
    name: Arc<str>,
}

impl Table {
    pub fn new(client: JsonClient, name: impl Into<String>) -> Self {
        Self {
            client,
            name: Arc::from(name.into()),
        }
    }

    /// The table named by the environment variable `variable` (a template `!Ref`).
    pub fn from_env(
        env: &crate::Env,
        aws: &crate::aws::AwsClients,
        variable: &str,
    ) -> Result<Self, crate::ConfigError> {
        Ok(Self::new(aws.dynamodb.clone(), env.require(variable)?))
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn client(&self) -> &JsonClient {
        &self.client
    }

    /// The error of a failed call on this table, classified (see [`DynamoError::is_unavailable`]).
    pub fn fail(&self, operation: &'static str, err: &AwsError) -> DynamoError {
        DynamoError::call(operation, &self.name, err)
    }

    /// A request that could not be built.
    pub fn invalid(&self, operation: &'static str, err: impl std::fmt::Display) -> DynamoError {
        DynamoError::build(operation, &self.name, err)
    }

    /// An item that cannot be read back.
    pub fn corrupt(&self, reason: impl Into<String>) -> DynamoError {
        DynamoError::Corrupt {
            table: self.name.to_string(),
            reason: reason.into(),
        }
    }

    /// A Query on this table, for [`Table::query_all`].
    pub fn query(&self) -> Query {
        Query::new(self.client.clone(), self.name())
    }

    /// A PutItem on this table.
    pub fn put_item(&self) -> PutItem {
        Call::new(
            self.client.clone(),
            "PutItem",
            Put::default().table_name(self.name()),
        )
    }

    /// An UpdateItem on this table.
    pub fn update_item(&self) -> UpdateItem {
        Call::new(
            self.client.clone(),
            "UpdateItem",
            Update::default().table_name(self.name()),
        )
    }

    /// A DeleteItem on this table.
    pub fn delete_item(&self) -> DeleteItem {
        Call::new(
            self.client.clone(),
            "DeleteItem",
            Delete::default().table_name(self.name()),
        )
    }

    /// The item with `key`, read consistently (sees every write acknowledged before it).
    pub async fn get(&self, key: Item) -> Result<Option<Item>, DynamoError> {
        self.get_item(key, true, None).await
    }

    /// The item with `key`, read eventually consistently: half the read cost, for reads where
    /// an answer a moment old is fine (published articles, counters shown in lists, caches).
    pub async fn get_eventual(&self, key: Item) -> Result<Option<Item>, DynamoError> {
        self.get_item(key, false, None).await
    }

    async fn get_item(
        &self,
        key: Item,
        consistent: bool,
        projection: Option<&str>,
    ) -> Result<Option<Item>, DynamoError> {
        #[derive(Serialize)]
        #[serde(rename_all = "PascalCase")]
        struct Input<'a> {
            table_name: &'a str,
            key: Item,
            consistent_read: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            projection_expression: Option<&'a str>,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "PascalCase")]
        struct Output {
            #[serde(default)]
            item: Option<Item>,
        }
        let input = Input {
            table_name: self.name(),
            key,
            consistent_read: consistent,
            projection_expression: projection,
        };
        self.client
            .call::<_, Output>("GetItem", &input)
            .await
            .map(|out| out.item)
            .map_err(|e| self.fail("GetItem", &e))
    }

    /// Runs `query` (built on [`Table::client`] for this table) and follows its pages until
    /// `limit` items are read or the results end. The caller bounds `limit`; `None` reads all.
    pub async fn query_all(
        &self,
        query: Query,
        limit: Option<usize>,
    ) -> Result<Vec<Item>, DynamoError> {
        let mut items = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let out = query
                .clone()
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| self.fail("Query", &e))?;
            items.extend(out.items.unwrap_or_default());
            if let Some(limit) = limit {
                if items.len() >= limit {
                    items.truncate(limit);
                    return Ok(items);
                }
            }
            match out.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => return Ok(items),
            }
        }
    }

    /// The items with these keys, in no particular order (absent ones are skipped): one
    /// BatchGetItem per 100 keys, retrying unprocessed keys with backoff. Duplicate keys are
    /// asked once (BatchGetItem refuses a request that names a key twice).
    pub async fn batch_get_all(
        &self,
        keys: Vec<Item>,
        projection: Option<&str>,
    ) -> Result<Vec<Item>, DynamoError> {
        let mut unique: Vec<Item> = Vec::with_capacity(keys.len());
        for key in keys {
            if !unique.contains(&key) {
                unique.push(key);
            }
        }
        // One key (an article's source, say): the same eventual read as a GetItem, which has
        // less to build and parse and no unprocessed keys to follow.
        if let [key] = unique.as_mut_slice() {
            let key = std::mem::take(key);
            return Ok(self
                .get_item(key, false, projection)
                .await?
                .into_iter()
                .collect());
        }
        let mut items = Vec::with_capacity(unique.len());
        for chunk in unique.chunks(BATCH_GET_KEYS) {
            let mut pending = chunk.to_vec();
            let mut round = 0;
            while !pending.is_empty() {
                round += 1;
                if round > BATCH_GET_ROUNDS {
                    return Err(DynamoError::Call {
                        operation: "BatchGetItem",
                        table: self.name.to_string(),
                        message: format!(
                            "{} keys still unprocessed after {BATCH_GET_ROUNDS} rounds",
                            pending.len()
                        ),
                        unavailable: true,
                    });
                }
                if round > 1 {
                    tokio::time::sleep(RetryPolicy::CONFLICTS.backoff(round - 1)).await;
                }
                let request = KeysAndAttributes {
                    keys: pending,
                    projection_expression: projection.map(str::to_string),
                };
                let input = BatchGetInput {
                    request_items: HashMap::from([(self.name().to_string(), request)]),
                };
                let out: BatchGetOutput = self
                    .client
                    .call("BatchGetItem", &input)
                    .await
                    .map_err(|e| self.fail("BatchGetItem", &e))?;
                items.extend(
                    out.responses
                        .and_then(|mut r| r.remove(self.name()))
                        .unwrap_or_default(),
                );
                pending = out
                    .unprocessed_keys
                    .and_then(|mut u| u.remove(self.name()))
                    .map(|k| k.keys)
                    .unwrap_or_default();
            }
        }
        Ok(items)
    }

    /// A cheap read that proves the table answers (health checks).
    pub async fn ping(&self) -> Result<(), DynamoError> {
        self.get(super::key("HEALTH", "PING")).await.map(|_| ())
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct KeysAndAttributes {
    keys: Vec<Item>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    projection_expression: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct BatchGetInput {
    request_items: HashMap<String, KeysAndAttributes>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct BatchGetOutput {
    #[serde(default)]
    responses: Option<HashMap<String, Vec<Item>>>,
    #[serde(default)]
    unprocessed_keys: Option<HashMap<String, KeysAndAttributes>>,
}
