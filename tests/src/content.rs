//! The content service as tests use it: submitting feeds, reading pages of articles, and
//! SQS batches for the feed worker.

use std::sync::Arc;

use aws_lambda_events::event::sqs::{SqsEvent, SqsMessage};
use news_feed_scheduler_function::FeedScheduler;
use platform::SqsHandler;
use reqwest::Response;
use serde_json::{json, Value};

use crate::feeds::{FeedDocument, FeedServer};
use crate::stack::TestStack;

pub const SOURCES: &str = "/api/content/sources";
pub const ARTICLES: &str = "/api/content/articles";
pub const TOPICS: &str = "/api/content/topics";

/// The route of one source.
pub fn source(id: &str) -> String {
    format!("{SOURCES}/{id}")
}

/// Submits the feed at `url` as `token`'s user, whatever the answer.
pub async fn submit(t: &TestStack, token: &str, url: &str) -> Response {
    t.post_json_auth(SOURCES, token, &json!({ "url": url }))
        .await
}

/// Submits the feed at `url` and returns its source's id.
pub async fn submit_id(t: &TestStack, token: &str, url: &str) -> String {
    let source: Value = submit(t, token, url).await.json().await.expect("json");
    source["id"].as_str().expect("id").to_string()
}

/// A stack, a feed server, and a new user who submitted the feed it serves.
pub struct SubmittedFeed {
    pub t: TestStack,
    pub feeds: FeedServer,
    /// The submitter's profile.
    pub user: Value,
    /// The submitter's token.
    pub token: String,
    pub source_id: String,
}

/// Starts a stack and a feed server serving `document` at `path`, registers `username`, and
/// submits the feed as that user.
pub async fn submitted_feed(username: &str, path: &str, document: FeedDocument) -> SubmittedFeed {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let url = feeds.put(path, document);
    let (user, token) = t.user(username).await;
    let source_id = submit_id(&t, &token, &url).await;
    SubmittedFeed {
        t,
        feeds,
        user,
        token,
        source_id,
    }
}

/// The `publishedAt` of every article of a page, in order.
pub fn published(articles: &Value) -> Vec<String> {
    field_of_each(articles, "publishedAt")
}

/// The `id` of every article of a page, in order.
pub fn ids(articles: &Value) -> Vec<String> {
    field_of_each(articles, "id")
}

fn field_of_each(articles: &Value, field: &str) -> Vec<String> {
    articles["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|a| a[field].as_str().expect(field).to_string())
        .collect()
}

/// The feed worker's handler, configured as the stack configures it.
pub async fn feed_worker(t: &TestStack) -> Arc<dyn SqsHandler> {
    news_feed_worker_function::handler(t.env("NewsFeedWorkerFunction"))
        .await
        .expect("worker")
}

/// The page reader's handler, configured as the stack configures it.
pub async fn page_reader(t: &TestStack) -> Arc<dyn SqsHandler> {
    news_page_reader_function::handler(t.env("NewsPageReaderFunction"))
        .await
        .expect("page reader")
}

/// The feed scheduler, configured as the stack configures it.
pub async fn feed_scheduler(t: &TestStack) -> FeedScheduler {
    FeedScheduler::from_env(&t.env("NewsFeedSchedulerFunction"))
        .await
        .expect("scheduler")
}

/// An SQS batch of `(message id, body)` as Lambda delivers it to the feed worker.
pub fn sqs_event(bodies: &[(&str, String)]) -> SqsEvent {
    let mut event = SqsEvent::default();
    event.records = bodies
        .iter()
        .map(|(id, body)| {
            let mut message = SqsMessage::default();
            message.message_id = Some(id.to_string());
            message.body = Some(body.clone());
            message.event_source = Some("aws:sqs".into());
            message
        })
        .collect();
    event
}

/// [`submitted_feed`], and the submitter subscribed: a source the scheduler and the worker
/// keep fresh (sources nobody subscribes to are not refreshed).
pub async fn subscribed_feed(username: &str, path: &str, document: FeedDocument) -> SubmittedFeed {
    let feed = submitted_feed(username, path, document).await;
    let response = feed.t.subscribe(&feed.token, &feed.source_id).await;
    assert_eq!(response.status(), 200, "subscribe");
    feed
}

/// The content table of the stack, as the content function's store sees it.
pub async fn content_store(t: &TestStack) -> news::store::ContentStore {
    news::store::ContentStore::new(
        platform::dynamo::Table::new(t.aws().await.dynamodb, t.table("ContentTable")),
        platform::Clock::system(),
    )
}

/// The source sweeper's handler, configured as the stack configures it.
pub async fn source_sweeper(t: &TestStack) -> Arc<dyn SqsHandler> {
    news_source_sweeper_function::handler(t.env("NewsSourceSweeperFunction"))
        .await
        .expect("sweeper")
}

/// Every item of the content table whose partition key is `pk` (a Query, every page).
pub async fn partition(t: &TestStack, pk: &str) -> Vec<crate::stack::Item> {
    let db = t.dynamodb().await;
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let page = db
            .query()
            .table_name(t.table("ContentTable"))
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(
                ":pk",
                aws_sdk_dynamodb::types::AttributeValue::S(pk.to_string()),
            )
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("query");
        items.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            return items;
        }
    }
}

/// The article items of the content table that belong to source `id` (a Scan, every page).
pub async fn article_items_of(t: &TestStack, id: &str) -> Vec<crate::stack::Item> {
    let db = t.dynamodb().await;
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let page = db
            .scan()
            .table_name(t.table("ContentTable"))
            .filter_expression("sourceId = :id AND begins_with(pk, :article)")
            .expression_attribute_values(
                ":id",
                aws_sdk_dynamodb::types::AttributeValue::S(id.to_string()),
            )
            .expression_attribute_values(
                ":article",
                aws_sdk_dynamodb::types::AttributeValue::S("ARTICLE#".into()),
            )
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("scan");
        items.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            return items;
        }
    }
}

/// Makes source `id` due for a refresh as if its time had come: its next fetch time set a
/// minute in the past (in its fetch bookkeeping). Returns that time, the `due` of the refresh
/// its chain would now deliver.
pub async fn make_due(t: &TestStack, id: &str) -> String {
    let due = platform::clock::rfc3339(chrono::Utc::now() - chrono::Duration::minutes(1));
    set_next_fetch(t, id, &due).await;
    due
}

/// Sets source `id`'s next fetch time (in its fetch bookkeeping) to `at`.
pub async fn set_next_fetch(t: &TestStack, id: &str, at: &str) {
    t.dynamodb()
        .await
        .update_item()
        .table_name(t.table("ContentTable"))
        .key(
            "pk",
            aws_sdk_dynamodb::types::AttributeValue::S(format!("SOURCE#{id}")),
        )
        .key(
            "sk",
            aws_sdk_dynamodb::types::AttributeValue::S("FETCH".into()),
        )
        .update_expression("SET nextFetchAt = :due")
        .expression_attribute_values(
            ":due",
            aws_sdk_dynamodb::types::AttributeValue::S(at.to_string()),
        )
        .send()
        .await
        .expect("set the next fetch time");
}

/// The source's fetch bookkeeping item.
pub async fn fetch_item(t: &TestStack, id: &str) -> crate::stack::Item {
    partition(t, &format!("SOURCE#{id}"))
        .await
        .into_iter()
        .find(|i| i.get("sk").and_then(|v| v.as_s().ok()).map(String::as_str) == Some("FETCH"))
        .expect("fetch bookkeeping")
}
