//! The local stack against the real emulator (moto): provisioning, HTTP routing, SQS batches
//! with partial failures and redrive, schedules. Functions are real handlers written here.
//!
//! Needs `AWS_ENDPOINT_URL` (the project's `local/test` script starts the emulator and sets it).

// Test code: a failed unwrap or an out-of-range index is a failed test, which is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use aws_sdk_sqs::types::{QueueAttributeName, SendMessageBatchRequestEntry};
use axum::extract::{Path, Request};
use axum::routing::{any, get};
use futures::future::BoxFuture;
use futures::FutureExt;
use http_body_util::BodyExt;
use local_stack::{start, Registry, RunningStack, StackError};
use platform::{BoxError, Env, ScheduleHandler, SqsHandler};
use serde_json::{json, Value};
use support::{aws_config, endpoint, options, random_stack, write_template};

const TEMPLATE: &str = r#"
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Parameters:
  Greeting:
    Type: String
    Default: hello
  Size:
    Type: Number
    Default: 3
Conditions:
  Big: !Equals [!Ref Size, 10]
Globals:
  Function:
    Timeout: 10
    Environment:
      Variables:
        GREETING: !Ref Greeting
Resources:
  HttpApi:
    Type: AWS::Serverless::HttpApi
    Properties:
      StageName: $default
  ItemsTable:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - AttributeName: pk
          AttributeType: S
        - AttributeName: gsi1pk
          AttributeType: S
      KeySchema:
        - AttributeName: pk
          KeyType: HASH
      GlobalSecondaryIndexes:
        - IndexName: gsi1
          KeySchema:
            - AttributeName: gsi1pk
              KeyType: HASH
          Projection:
            ProjectionType: ALL
      TimeToLiveSpecification:
        AttributeName: expiresAt
        Enabled: true
  OnlyWhenBig:
    Type: AWS::DynamoDB::Table
    Condition: Big
    Properties:
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
  WorkQueue:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 1
  FailingQueue:
    Type: AWS::SQS::Queue
    Properties:
      VisibilityTimeout: 1
      RedrivePolicy:
        deadLetterTargetArn: !GetAtt DeadLetterQueue.Arn
        maxReceiveCount: 2
  DeadLetterQueue:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: dead-letters
      MessageRetentionPeriod: 1209600
  ItemsFunction:
    Type: AWS::Serverless::Function
    Metadata:
      BuildProperties:
        Binary: items
    Properties:
      Environment:
        Variables:
          TABLE: !Ref ItemsTable
          QUEUE_URL: !Ref WorkQueue
          QUEUE_ARN: !GetAtt WorkQueue.Arn
          API: !GetAtt HttpApi.ApiEndpoint
          LABEL: !Sub "${AWS::StackName}-${Greeting}-${Size}"
          MODE: !If [Big, big, small]
      Events:
        Item:
          Type: HttpApi
          Properties:
            ApiId: !Ref HttpApi
            Path: /items/{id}
            Method: GET
  ProxyFunction:
    Type: AWS::Serverless::Function
    Metadata:
      BuildProperties:
        Binary: proxy
    Properties:
      Events:
        Proxy:
          Type: HttpApi
          Properties:
            Path: /api/x/{proxy+}
            Method: ANY
  FallbackFunction:
    Type: AWS::Serverless::Function
    Metadata:
      BuildProperties:
        Binary: fallback
    Properties:
      Events:
        Everything:
          Type: HttpApi
  Worker:
    Type: AWS::Serverless::Function
    Metadata:
      BuildProperties:
        Binary: worker
    Properties:
      Events:
        Work:
          Type: SQS
          Properties:
            Queue: !GetAtt WorkQueue.Arn
            BatchSize: 10
            FunctionResponseTypes:
              - ReportBatchItemFailures
  FailingWorker:
    Type: AWS::Serverless::Function
    Metadata:
      BuildProperties:
        Binary: failing-worker
    Properties:
      Events:
        Poison:
          Type: SQS
          Properties:
            Queue: !GetAtt FailingQueue.Arn
  Digest:
    Type: AWS::Serverless::Function
    Metadata:
      BuildProperties:
        Binary: digest
    Properties:
      Events:
        Daily:
          Type: Schedule
          Properties:
            Schedule: cron(0 6 * * ? *)
            Input: '{"kind": "daily"}'
"#;

/// What the in-test functions saw.
#[derive(Clone, Default)]
struct Seen {
    /// (body, ApproximateReceiveCount) per record the worker was given.
    work: Arc<Mutex<Vec<(String, String)>>>,
    poison: Arc<Mutex<usize>>,
    schedules: Arc<Mutex<Vec<EventBridgeEvent<Value>>>>,
}

struct Worker(Seen);

impl SqsHandler for Worker {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        let seen = self.0.clone();
        async move {
            let mut response = SqsBatchResponse::default();
            for record in event.records {
                assert_eq!(record.event_source.as_deref(), Some("aws:sqs"));
                let body = record.body.clone().unwrap_or_default();
                let count = record
                    .attributes
                    .get("ApproximateReceiveCount")
                    .cloned()
                    .unwrap_or_default();
                seen.work
                    .lock()
                    .expect("lock")
                    .push((body.clone(), count.clone()));
                // Fails once, then succeeds on redelivery.
                if body == "flaky" && count == "1" {
                    response.add_failure(record.message_id.clone().unwrap_or_default());
                }
            }
            Ok(response)
        }
        .boxed()
    }
}

struct FailingWorker(Seen);

impl SqsHandler for FailingWorker {
    fn handle(&self, event: SqsEvent) -> BoxFuture<'static, Result<SqsBatchResponse, BoxError>> {
        *self.0.poison.lock().expect("lock") += event.records.len();
        async { Err::<SqsBatchResponse, BoxError>("cannot process this".into()) }.boxed()
    }
}

struct Digest(Seen);

impl ScheduleHandler for Digest {
    fn handle(&self, event: EventBridgeEvent<Value>) -> BoxFuture<'static, Result<(), BoxError>> {
        self.0.schedules.lock().expect("lock").push(event);
        async { Ok(()) }.boxed()
    }
}

async fn echo(name: &'static str, request: Request) -> String {
    let method = request.method().to_string();
    let uri = request.uri().to_string();
    let body = request
        .into_body()
        .collect()
        .await
        .map(|b| String::from_utf8_lossy(&b.to_bytes()).into_owned())
        .unwrap_or_default();
    format!("{name} {method} {uri} {body}")
}

fn test_registry(seen: &Seen) -> Registry {
    let mut registry = Registry::new();
    registry.http("items", |env: Env| async move {
        let table = env.require("TABLE")?.to_string();
        Ok(axum::Router::new().route(
            "/items/{id}",
            get(move |Path(id): Path<String>, request: Request| {
                let table = table.clone();
                async move {
                    axum::Json(json!({
                        "function": "items",
                        "id": id,
                        "uri": request.uri().to_string(),
                        "table": table,
                    }))
                }
            }),
        ))
    });
    registry.http("proxy", |_env| async {
        Ok(axum::Router::new().fallback(any(|r: Request| echo("proxy", r))))
    });
    registry.http("fallback", |_env| async {
        Ok(axum::Router::new().fallback(any(|r: Request| echo("fallback", r))))
    });
    let s = seen.clone();
    registry.sqs("worker", move |_env| {
        let s = s.clone();
        async move { Ok(Arc::new(Worker(s)) as Arc<dyn SqsHandler>) }
    });
    let s = seen.clone();
    registry.sqs("failing-worker", move |_env| {
        let s = s.clone();
        async move { Ok(Arc::new(FailingWorker(s)) as Arc<dyn SqsHandler>) }
    });
    let s = seen.clone();
    registry.schedule("digest", move |_env| {
        let s = s.clone();
        async move { Ok(Arc::new(Digest(s)) as Arc<dyn ScheduleHandler>) }
    });
    registry
}

async fn start_stack(stack_name: &str, seen: &Seen) -> RunningStack {
    let template = write_template(TEMPLATE);
    start(options(template.path(), stack_name), test_registry(seen))
        .await
        .expect("stack starts")
}

async fn queue_attributes(
    sqs: &aws_sdk_sqs::Client,
    url: &str,
) -> std::collections::HashMap<QueueAttributeName, String> {
    sqs.get_queue_attributes()
        .queue_url(url)
        .attribute_names(QueueAttributeName::All)
        .send()
        .await
        .expect("attributes")
        .attributes
        .expect("attributes")
}

/// Polls `check` until it holds or `timeout` passes.
async fn eventually(timeout: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + timeout;
    while tokio::time::Instant::now() < deadline {
        if check() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    check()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provisions_resources_and_resolves_environments() {
    let stack_name = random_stack();
    let seen = Seen::default();
    let stack = start_stack(&stack_name, &seen).await;
    let config = aws_config().await;
    let dynamodb = aws_sdk_dynamodb::Client::new(&config);
    let sqs = aws_sdk_sqs::Client::new(&config);

    let table = stack.physical_name("ItemsTable").expect("table name");
    assert_eq!(table, format!("{stack_name}-ItemsTable"));
    let description = dynamodb
        .describe_table()
        .table_name(&table)
        .send()
        .await
        .expect("table exists")
        .table
        .expect("description");
    let indexes: Vec<_> = description
        .global_secondary_indexes()
        .iter()
        .filter_map(|i| i.index_name())
        .collect();
    assert_eq!(indexes, ["gsi1"]);
    assert_eq!(stack.physical_name("OnlyWhenBig"), None, "condition false");

    let work_url = stack.physical_name("WorkQueue").expect("queue url");
    assert!(
        work_url.ends_with(&format!("/{stack_name}-WorkQueue")),
        "{work_url}"
    );
    let dlq_url = stack.physical_name("DeadLetterQueue").expect("dlq url");
    assert!(
        dlq_url.ends_with(&format!("/{stack_name}-dead-letters")),
        "{dlq_url}"
    );
    let failing_url = stack.physical_name("FailingQueue").expect("queue url");
    let attributes = queue_attributes(&sqs, &failing_url).await;
    let redrive: Value = serde_json::from_str(
        attributes
            .get(&QueueAttributeName::RedrivePolicy)
            .expect("redrive policy"),
    )
    .expect("policy json");
    assert!(redrive["deadLetterTargetArn"]
        .as_str()
        .is_some_and(|arn| arn.ends_with(&format!(":{stack_name}-dead-letters"))));
    assert_eq!(redrive["maxReceiveCount"].to_string(), "2");
    assert_eq!(
        attributes
            .get(&QueueAttributeName::VisibilityTimeout)
            .map(String::as_str),
        Some("1")
    );

    let env = stack.function_env("ItemsFunction").expect("env");
    assert_eq!(env.get("TABLE"), Some(table.as_str()));
    assert_eq!(env.get("QUEUE_URL"), Some(work_url.as_str()));
    assert!(env
        .get("QUEUE_ARN")
        .is_some_and(|arn| arn.starts_with("arn:aws:sqs:us-east-1:")
            && arn.ends_with(&format!(":{stack_name}-WorkQueue"))));
    assert_eq!(env.get("API"), Some(stack.base_url()));
    assert_eq!(
        env.get("LABEL"),
        Some(format!("{stack_name}-hello-3").as_str())
    );
    assert_eq!(env.get("MODE"), Some("small"));
    assert_eq!(env.get("GREETING"), Some("hello"));
    assert_eq!(env.get("AWS_LAMBDA_FUNCTION_NAME"), Some("ItemsFunction"));
    assert_eq!(env.get("AWS_ENDPOINT_URL"), Some(endpoint().as_str()));
    assert_eq!(env.get("AWS_REGION"), Some("us-east-1"));
    stack.shutdown().await;

    // Idempotent: the same stack starts again over what already exists.
    let again = start_stack(&stack_name, &seen).await;
    assert_eq!(again.physical_name("ItemsTable"), Some(table));
    assert_eq!(again.physical_name("WorkQueue"), Some(work_url));
    again.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routes_http_requests_like_api_gateway() {
    let seen = Seen::default();
    let stack = start_stack(&random_stack(), &seen).await;
    let base = stack.base_url().to_string();
    let client = platform::tls::http_client().build().expect("client");
    let get = |path: &str| client.get(format!("{base}{path}")).send();

    let items: Value = get("/items/42?x=1")
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(items["function"], "items");
    assert_eq!(items["id"], "42");
    assert_eq!(items["uri"], "/items/42?x=1");
    assert_eq!(
        items["table"].as_str(),
        stack.physical_name("ItemsTable").as_deref()
    );

    let proxied = client
        .post(format!("{base}/api/x/a/b?q=1"))
        .body("payload")
        .send()
        .await
        .expect("request");
    assert_eq!(proxied.status(), 200);
    assert_eq!(
        proxied.text().await.expect("text"),
        "proxy POST /api/x/a/b?q=1 payload"
    );

    // No route for the method, a greedy variable without a segment, an unknown path:
    // all go to $default.
    for (method, path) in [
        ("POST", "/items/42"),
        ("GET", "/api/x"),
        ("DELETE", "/nothing/here"),
    ] {
        let response = client
            .request(method.parse().expect("method"), format!("{base}{path}"))
            .send()
            .await
            .expect("request");
        assert_eq!(
            response.text().await.expect("text"),
            format!("fallback {method} {path} ")
        );
    }

    let too_big = client
        .post(format!("{base}/api/x/upload"))
        .body(vec![b'x'; 10 * 1024 * 1024 + 1])
        .send()
        .await
        .expect("request");
    assert_eq!(too_big.status(), 413);

    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partial_batch_failure_redelivers_only_the_failed_message() {
    let seen = Seen::default();
    let stack = start_stack(&random_stack(), &seen).await;
    let sqs = aws_sdk_sqs::Client::new(&aws_config().await);
    let url = stack.physical_name("WorkQueue").expect("queue");

    let entries = ["ok-1", "flaky", "ok-2"]
        .iter()
        .enumerate()
        .map(|(i, body)| {
            SendMessageBatchRequestEntry::builder()
                .id(i.to_string())
                .message_body(*body)
                .build()
                .expect("entry")
        })
        .collect::<Vec<_>>();
    sqs.send_message_batch()
        .queue_url(&url)
        .set_entries(Some(entries))
        .send()
        .await
        .expect("send");

    let work = seen.work.clone();
    let redelivered = eventually(Duration::from_secs(20), || {
        work.lock()
            .expect("lock")
            .iter()
            .any(|(body, count)| body == "flaky" && count == "2")
    })
    .await;
    assert!(
        redelivered,
        "flaky was not redelivered: {:?}",
        seen.work.lock().expect("lock")
    );

    // Longer than the 1 s visibility timeout: anything not deleted would come back.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut deliveries = seen.work.lock().expect("lock").clone();
    deliveries.sort();
    assert_eq!(
        deliveries,
        [
            ("flaky".to_string(), "1".to_string()),
            ("flaky".to_string(), "2".to_string()),
            ("ok-1".to_string(), "1".to_string()),
            ("ok-2".to_string(), "1".to_string()),
        ]
    );
    let attributes = queue_attributes(&sqs, &url).await;
    for key in [
        QueueAttributeName::ApproximateNumberOfMessages,
        QueueAttributeName::ApproximateNumberOfMessagesNotVisible,
    ] {
        assert_eq!(
            attributes.get(&key).map(String::as_str),
            Some("0"),
            "{key:?}"
        );
    }
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_that_always_fails_ends_in_the_dead_letter_queue() {
    let seen = Seen::default();
    let stack = start_stack(&random_stack(), &seen).await;
    let sqs = aws_sdk_sqs::Client::new(&aws_config().await);
    let url = stack.physical_name("FailingQueue").expect("queue");
    let dlq = stack.physical_name("DeadLetterQueue").expect("dlq");
    sqs.send_message()
        .queue_url(&url)
        .message_body("poison")
        .send()
        .await
        .expect("send");

    let deadline = tokio::time::Instant::now() + Duration::from_secs(25);
    let mut dead = Vec::new();
    while dead.is_empty() && tokio::time::Instant::now() < deadline {
        dead = sqs
            .receive_message()
            .queue_url(&dlq)
            .wait_time_seconds(1)
            .send()
            .await
            .expect("receive")
            .messages
            .unwrap_or_default();
    }
    let bodies: Vec<_> = dead.iter().filter_map(|m| m.body()).collect();
    assert_eq!(bodies, ["poison"], "the message did not reach the DLQ");
    let attempts = *seen.poison.lock().expect("lock");
    assert_eq!(attempts, 2, "maxReceiveCount is 2");
    stack.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fire_schedule_calls_the_schedule_handler() {
    let seen = Seen::default();
    let stack = start_stack(&random_stack(), &seen).await;
    stack.fire_schedule("Digest").await.expect("fire");
    {
        let events = seen.schedules.lock().expect("lock");
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].source, "aws.events");
        assert_eq!(events[0].detail_type, "Scheduled Event");
        assert_eq!(events[0].detail, json!({"kind": "daily"}));
    }
    assert!(matches!(
        stack.fire_schedule("ItemsFunction").await,
        Err(StackError::NotScheduled(_))
    ));
    stack.shutdown().await;
}

#[tokio::test]
async fn start_up_errors_name_what_to_fix() {
    let _ = endpoint();
    let seen = Seen::default();

    let mut registry = test_registry(&seen);
    let mut missing_binary = Registry::new();
    missing_binary.http("items", |_env| async { Ok(axum::Router::new()) });
    let template = write_template(TEMPLATE);
    let err = start(options(template.path(), &random_stack()), missing_binary)
        .await
        .err()
        .expect("unknown binary");
    assert!(matches!(err, StackError::UnknownBinary { .. }), "{err}");

    let broken = TEMPLATE.replace("TABLE: !Ref ItemsTable", "TABLE: !Ref NoSuchTable");
    let broken = write_template(&broken);
    let err = start(options(broken.path(), &random_stack()), registry.clone())
        .await
        .err()
        .expect("unresolvable");
    let message = err.to_string();
    assert!(
        message.contains("ItemsFunction")
            && message.contains("TABLE")
            && message.contains("NoSuchTable"),
        "{message}"
    );

    // A secret read from a store by CloudFormation: never sent to a function as the literal.
    let stored = TEMPLATE.replace(
        "TABLE: !Ref ItemsTable",
        "TABLE: !Sub \"{{resolve:secretsmanager:${ItemsTable}}}\"",
    );
    let stored = write_template(&stored);
    let err = start(options(stored.path(), &random_stack()), registry.clone())
        .await
        .err()
        .expect("a dynamic reference");
    let message = err.to_string();
    assert!(
        message.contains("ItemsFunction")
            && message.contains("TABLE")
            && message.contains("{{resolve:secretsmanager:")
            && message.contains("dynamic reference"),
        "{message}"
    );

    // An SQS event on a function whose binary builds an HTTP router.
    registry.http("worker", |_env| async { Ok(axum::Router::new()) });
    let err = start(options(template.path(), &random_stack()), registry)
        .await
        .err()
        .expect("mismatched handler");
    assert!(matches!(err, StackError::Event { .. }), "{err}");
}
