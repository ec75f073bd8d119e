use std::sync::Arc;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemFluentBuilder;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemFluentBuilder;
use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::builders::UpdateBuilder;
use aws_sdk_dynamodb::types::{
    DeleteRequest, KeysAndAttributes, PutRequest, TransactGetItem, WriteRequest,
};
use aws_sdk_dynamodb::Client;

use super::{DynamoError, Item, RetryPolicy};

/// DynamoDB's limit on the keys of one BatchGetItem.
const BATCH_GET_KEYS: usize = 100;
/// Rounds of retrying unprocessed keys before a batch read gives up (as unavailable).
const BATCH_GET_ROUNDS: u32 = 8;
/// DynamoDB's limit on the writes of one BatchWriteItem.
const BATCH_WRITE_ITEMS: usize = 25;
/// Rounds of retrying unprocessed writes before a batch write gives up (as unavailable).
const BATCH_WRITE_ROUNDS: u32 = 8;

/// One table: the client and the table's name. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Table {
    client: Client,
    name: Arc<str>,
}

impl Table {
    pub fn new(client: Client, name: impl Into<String>) -> Self {
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

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// A table of a client that is never connected: for unit tests of what stores build.
    pub fn offline(name: impl Into<String>) -> Self {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
            .build();
        Self::new(Client::from_conf(config), name)
    }

    /// The error of a failed call on this table, classified (see [`DynamoError::is_unavailable`]).
    pub fn fail<E>(&self, operation: &'static str, err: &SdkError<E, HttpResponse>) -> DynamoError
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
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
    pub fn query(&self) -> QueryFluentBuilder {
        self.client.query().table_name(self.name())
    }

    /// A PutItem on this table.
    pub fn put_item(&self) -> PutItemFluentBuilder {
        self.client.put_item().table_name(self.name())
    }

    /// An UpdateItem on this table.
    pub fn update_item(&self) -> UpdateItemFluentBuilder {
        self.client.update_item().table_name(self.name())
    }

    /// An UpdateItem of what `update` (built for a transaction) writes, for a caller that
    /// wants the item back (`return_values`).
    pub fn update_item_from(&self, update: UpdateBuilder) -> UpdateItemFluentBuilder {
        self.update_item()
            .set_key(update.get_key().clone())
            .set_update_expression(update.get_update_expression().clone())
            .set_condition_expression(update.get_condition_expression().clone())
            .set_expression_attribute_names(update.get_expression_attribute_names().clone())
            .set_expression_attribute_values(update.get_expression_attribute_values().clone())
    }

    /// A DeleteItem on this table.
    pub fn delete_item(&self) -> DeleteItemFluentBuilder {
        self.client.delete_item().table_name(self.name())
    }

    /// The item with `key`, read consistently (sees every write acknowledged before it).
    pub async fn get(&self, key: Item) -> Result<Option<Item>, DynamoError> {
        self.get_item(key, true, None).await
    }

    /// The items with `keys` (at most 100), in order, read as one snapshot (TransactGetItems):
    /// a transaction that writes several of them is seen whole or not at all.
    pub async fn get_together(&self, keys: Vec<Item>) -> Result<Vec<Option<Item>>, DynamoError> {
        let count = keys.len();
        let mut read = self.client.transact_get_items();
        for key in keys {
            let get = aws_sdk_dynamodb::types::Get::builder()
                .table_name(self.name())
                .set_key(Some(key))
                .build()
                .map_err(|e| DynamoError::build("TransactGetItems", self.name(), e))?;
            read = read.transact_items(TransactGetItem::builder().get(get).build());
        }
        let out = read
            .send()
            .await
            .map_err(|e| self.fail("TransactGetItems", &e))?;
        let mut items: Vec<Option<Item>> = out
            .responses
            .unwrap_or_default()
            .into_iter()
            .map(|r| r.item)
            .collect();
        items.resize(count, None);
        Ok(items)
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
        self.client
            .get_item()
            .table_name(self.name())
            .set_key(Some(key))
            .consistent_read(consistent)
            .set_projection_expression(projection.map(str::to_string))
            .send()
            .await
            .map(|out| out.item)
            .map_err(|e| self.fail("GetItem", &e))
    }

    /// Runs `query` (built on [`Table::client`] for this table) and follows its pages until
    /// `limit` items are read or the results end. The caller bounds `limit`; `None` reads all.
    pub async fn query_all(
        &self,
        query: QueryFluentBuilder,
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
                let request = KeysAndAttributes::builder()
                    .set_keys(Some(pending))
                    .set_projection_expression(projection.map(str::to_string))
                    .build()
                    .map_err(|e| self.invalid("BatchGetItem", e))?;
                let out = self
                    .client
                    .batch_get_item()
                    .request_items(self.name(), request)
                    .send()
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

    /// Puts every item (replacing items of the same keys), 25 to a BatchWriteItem, retrying
    /// unprocessed writes with backoff. Not atomic: a failure may leave some written.
    pub async fn put_all(&self, items: Vec<Item>) -> Result<(), DynamoError> {
        let requests = items
            .into_iter()
            .map(|item| {
                let put = PutRequest::builder()
                    .set_item(Some(item))
                    .build()
                    .map_err(|e| self.invalid("BatchWriteItem", e))?;
                Ok(WriteRequest::builder().put_request(put).build())
            })
            .collect::<Result<Vec<_>, DynamoError>>()?;
        self.batch_write(requests).await
    }

    /// Deletes the items with these keys (absent ones are no error), as [`Self::put_all`].
    pub async fn delete_all(&self, keys: Vec<Item>) -> Result<(), DynamoError> {
        let requests = keys
            .into_iter()
            .map(|key| {
                let delete = DeleteRequest::builder()
                    .set_key(Some(key))
                    .build()
                    .map_err(|e| self.invalid("BatchWriteItem", e))?;
                Ok(WriteRequest::builder().delete_request(delete).build())
            })
            .collect::<Result<Vec<_>, DynamoError>>()?;
        self.batch_write(requests).await
    }

    async fn batch_write(&self, requests: Vec<WriteRequest>) -> Result<(), DynamoError> {
        for chunk in requests.chunks(BATCH_WRITE_ITEMS) {
            let mut pending = chunk.to_vec();
            let mut round = 0;
            while !pending.is_empty() {
                round += 1;
                if round > BATCH_WRITE_ROUNDS {
                    return Err(DynamoError::Call {
                        operation: "BatchWriteItem",
                        table: self.name.to_string(),
                        message: format!("{} writes still unprocessed", pending.len()),
                        unavailable: true,
                    });
                }
                if round > 1 {
                    tokio::time::sleep(RetryPolicy::CONFLICTS.backoff(round - 1)).await;
                }
                let out = self
                    .client
                    .batch_write_item()
                    .request_items(self.name(), pending)
                    .send()
                    .await
                    .map_err(|e| self.fail("BatchWriteItem", &e))?;
                pending = out
                    .unprocessed_items
                    .and_then(|mut u| u.remove(self.name()))
                    .unwrap_or_default();
            }
        }
        Ok(())
    }

    /// A cheap read that proves the table answers (health checks).
    pub async fn ping(&self) -> Result<(), DynamoError> {
        self.get(super::key("HEALTH", "PING")).await.map(|_| ())
    }
}
