//! IAM enforcement against the real emulator: a function whose clients come from
//! `platform::aws::AwsClients::from_env`, as every function's do, makes calls its policy in the
//! template allows and calls it does not; the refused ones reach its code as the errors AWS
//! gives, and the stack records them.
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

use std::sync::Arc;

use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, KeysAndAttributes, Put, TransactWriteItem,
};
use axum::extract::Path;
use axum::routing::post;
use local_stack::iam::AccessDenial;
use local_stack::{start, Registry, StackOptions};
use platform::aws::{AwsClients, AwsError};
use platform::Env;
use serde_json::{json, Value};
use support::{aws_config, options, random_stack, write_template};

const TEMPLATE: &str = r#"
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
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
        - {AttributeName: pk, AttributeType: S}
        - {AttributeName: owner, AttributeType: S}
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      GlobalSecondaryIndexes:
        - IndexName: byOwner
          KeySchema: [{AttributeName: owner, KeyType: HASH}]
          Projection: {ProjectionType: ALL}
  NotesTable:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - {AttributeName: pk, AttributeType: S}
        - {AttributeName: day, AttributeType: S}
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      GlobalSecondaryIndexes:
        - IndexName: byDay
          KeySchema: [{AttributeName: day, KeyType: HASH}]
          Projection: {ProjectionType: ALL}
  WorkQueue:
    Type: AWS::SQS::Queue
  OtherQueue:
    Type: AWS::SQS::Queue
  PicturesBucket:
    Type: AWS::S3::Bucket
  ProbeFunction:
    Type: AWS::Serverless::Function
    Metadata:
      BuildProperties:
        Binary: probe
    Properties:
      Environment:
        Variables:
          ITEMS: !Ref ItemsTable
          NOTES: !Ref NotesTable
          WORK_QUEUE: !Ref WorkQueue
          OTHER_QUEUE: !Ref OtherQueue
          BUCKET: !Ref PicturesBucket
      Policies:
        - DynamoDBReadPolicy:
            TableName: !Ref ItemsTable
        - SQSSendMessagePolicy:
            QueueName: !GetAtt WorkQueue.QueueName
        - S3ReadPolicy:
            BucketName: !Ref PicturesBucket
        - Statement:
            - Effect: Allow
              Action: [dynamodb:PutItem, "dynamodb:Get*", dynamodb:DeleteItem]
              Resource: !GetAtt NotesTable.Arn
            - Effect: Allow
              Action: dynamodb:Query
              Resource: !Sub "${NotesTable.Arn}/index/byDay"
            - Sid: NotesAreKept
              Effect: Deny
              Action: dynamodb:DeleteItem
              Resource: !GetAtt NotesTable.Arn
      Events:
        Probe:
          Type: HttpApi
          Properties:
            ApiId: !Ref HttpApi
            Path: /probe/{op}
            Method: POST
"#;

/// What one call gave: `ok`, or the error's code and HTTP status.
fn outcome<T>(result: Result<T, AwsError>) -> Value {
    match result {
        Ok(_) => json!({"ok": true}),
        Err(e) => json!({
            "ok": false,
            "code": e.code(),
            "message": e.to_string(),
            "status": e.status(),
        }),
    }
}

struct Probe {
    aws: AwsClients,
    items: String,
    notes: String,
    work_queue: String,
    other_queue: String,
}

fn key(pk: &str) -> std::collections::HashMap<String, AttributeValue> {
    std::collections::HashMap::from([("pk".to_string(), AttributeValue::S(pk.to_string()))])
}

impl Probe {
    async fn run(&self, op: &str) -> Value {
        let db = &self.aws.dynamodb;
        match op {
            "items-get" => outcome(
                db.get_item()
                    .table_name(&self.items)
                    .set_key(Some(key("a")))
                    .send()
                    .await
                    .map_err(AwsError::from),
            ),
            "items-put" => outcome(
                db.put_item()
                    .table_name(&self.items)
                    .set_item(Some(key("a")))
                    .send()
                    .await
                    .map_err(AwsError::from),
            ),
            "items-query-index" => outcome(
                db.query()
                    .table_name(&self.items)
                    .index_name("byOwner")
                    .key_condition_expression("#o = :o")
                    .expression_attribute_names("#o", "owner")
                    .expression_attribute_values(":o", AttributeValue::S("x".into()))
                    .send()
                    .await
                    .map_err(AwsError::from),
            ),
            "notes-query-table" => outcome(
                db.query()
                    .table_name(&self.notes)
                    .key_condition_expression("pk = :p")
                    .expression_attribute_values(":p", AttributeValue::S("x".into()))
                    .send()
                    .await
                    .map_err(AwsError::from),
            ),
            "notes-query-index" => outcome(
                db.query()
                    .table_name(&self.notes)
                    .index_name("byDay")
                    .key_condition_expression("#d = :d")
                    .expression_attribute_names("#d", "day")
                    .expression_attribute_values(":d", AttributeValue::S("x".into()))
                    .send()
                    .await
                    .map_err(AwsError::from),
            ),
            "notes-get" => outcome(
                db.get_item()
                    .table_name(&self.notes)
                    .set_key(Some(key("a")))
                    .send()
                    .await
                    .map_err(AwsError::from),
            ),
            "notes-delete" => outcome(
                db.delete_item()
                    .table_name(&self.notes)
                    .set_key(Some(key("a")))
                    .send()
                    .await
                    .map_err(AwsError::from),
            ),
            "batch-get" => {
                let keys = |pk: &str| {
                    KeysAndAttributes::builder()
                        .keys(key(pk))
                        .build()
                        .expect("keys")
                };
                outcome(
                    db.batch_get_item()
                        .request_items(&self.items, keys("a"))
                        .request_items(&self.notes, keys("b"))
                        .send()
                        .await
                        .map_err(AwsError::from),
                )
            }
            "transact" => {
                let put = Put::builder()
                    .table_name(&self.notes)
                    .set_item(Some(key("n")))
                    .build()
                    .expect("put");
                let check = ConditionCheck::builder()
                    .table_name(&self.items)
                    .set_key(Some(key("a")))
                    .condition_expression("attribute_not_exists(pk)")
                    .build()
                    .expect("check");
                outcome(
                    db.transact_write_items()
                        .transact_items(TransactWriteItem::builder().put(put).build())
                        .transact_items(TransactWriteItem::builder().condition_check(check).build())
                        .send()
                        .await
                        .map_err(AwsError::from),
                )
            }
            "send-work" => outcome(self.aws.sqs().send_message(&self.work_queue, "hello").await),
            "send-other" => outcome(
                self.aws
                    .sqs()
                    .send_message(&self.other_queue, "hello")
                    .await,
            ),
            other => json!({"unknown": other}),
        }
    }
}

fn registry() -> Registry {
    let mut registry = Registry::new();
    registry.http("probe", |env: Env| async move {
        let probe = Arc::new(Probe {
            aws: AwsClients::from_env(&env).await,
            items: env.require("ITEMS")?.to_string(),
            notes: env.require("NOTES")?.to_string(),
            work_queue: env.require("WORK_QUEUE")?.to_string(),
            other_queue: env.require("OTHER_QUEUE")?.to_string(),
        });
        Ok(axum::Router::new().route(
            "/probe/{op}",
            post(move |Path(op): Path<String>| {
                let probe = Arc::clone(&probe);
                async move { axum::Json(probe.run(&op).await) }
            }),
        ))
    });
    registry
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_the_policy_does_not_grant_are_refused_as_aws_refuses_them() {
    let stack_name = random_stack();
    let template = write_template(TEMPLATE);
    let options = StackOptions {
        run_queue_pollers: false,
        functions: None,
        ..options(template.path(), &stack_name)
    };
    let stack = start(options, registry()).await.expect("stack starts");
    let http = platform::tls::http_client().build().expect("client");
    let probe = |op: &'static str| {
        let http = http.clone();
        let url = format!("{}/probe/{op}", stack.base_url());
        async move {
            let response = http.post(url).send().await.expect("request");
            assert_eq!(response.status(), 200, "{op}");
            let body: Value = response.json().await.expect("json");
            body
        }
    };
    let denied_json = |body: &Value, op: &str| {
        assert_eq!(body["ok"], false, "{op}: {body}");
        assert_eq!(body["code"], "AccessDeniedException", "{op}: {body}");
        assert_eq!(body["status"], 400, "{op}: {body}");
    };

    // SAM's DynamoDBReadPolicy: reads of the table and any of its indexes, no writes.
    let body = probe("items-get").await;
    assert_eq!(body["ok"], true, "{body}");
    denied_json(&probe("items-put").await, "items-put");
    let body = probe("items-query-index").await;
    assert_eq!(body["ok"], true, "{body}");
    // Inline statements: a wildcard action, an index-only Query, and a Deny that wins.
    let body = probe("notes-get").await;
    assert_eq!(body["ok"], true, "{body}");
    let body = probe("notes-query-index").await;
    assert_eq!(body["ok"], true, "{body}");
    denied_json(&probe("notes-query-table").await, "notes-query-table");
    let body = probe("notes-delete").await;
    denied_json(&body, "notes-delete");
    assert!(
        body["message"]
            .as_str()
            .is_some_and(|m| m.contains("explicit deny")),
        "{body}"
    );
    // Every table of a batch, and each item's own action in a transaction.
    denied_json(&probe("batch-get").await, "batch-get");
    denied_json(&probe("transact").await, "transact");
    // SQSSendMessagePolicy names one queue.
    let body = probe("send-work").await;
    assert_eq!(body["ok"], true, "{body}");
    denied_json(&probe("send-other").await, "send-other");

    let table =
        |name: &str| format!("arn:aws:dynamodb:us-east-1:123456789012:table/{stack_name}-{name}");
    let denial = |operation: &str, action: &str, resource: String, explicit: bool| AccessDenial {
        function: "ProbeFunction".into(),
        operation: operation.into(),
        action: action.into(),
        resource,
        explicit,
    };
    assert_eq!(
        stack.access_denials(),
        [
            denial("PutItem", "dynamodb:PutItem", table("ItemsTable"), false),
            denial("Query", "dynamodb:Query", table("NotesTable"), false),
            denial(
                "DeleteItem",
                "dynamodb:DeleteItem",
                table("NotesTable"),
                true
            ),
            denial(
                "BatchGetItem",
                "dynamodb:BatchGetItem",
                table("NotesTable"),
                false
            ),
            denial(
                "TransactWriteItems",
                "dynamodb:ConditionCheckItem",
                table("ItemsTable"),
                false
            ),
            denial(
                "SendMessage",
                "sqs:SendMessage",
                format!("arn:aws:sqs:us-east-1:123456789012:{stack_name}-OtherQueue"),
                false
            ),
        ]
    );

    // The function's environment names its policy: clients built from it are enforced too.
    let env = stack.function_env("ProbeFunction").expect("env").clone();
    assert!(env.get(local_stack::iam::FUNCTION_KEY).is_some());
    let as_function = AwsClients::from_env(&env).await;
    let items = stack.physical_name("ItemsTable").expect("table");
    let refused = platform::dynamo::Table::new(as_function.dynamodb.clone(), &items)
        .put_item()
        .set_item(Some(platform::dynamo::Item::from([(
            "pk".to_string(),
            platform::dynamo::s("b"),
        )])))
        .send()
        .await
        .expect_err("refused");
    assert_eq!(
        AwsError::from(refused).code(),
        Some("AccessDeniedException")
    );

    // The tests' (and the stack's) own clients are not the function's: not enforced.
    let config = aws_config().await;
    aws_sdk_dynamodb::Client::new(&config)
        .put_item()
        .table_name(&items)
        .set_item(Some(key("c")))
        .send()
        .await
        .expect("unenforced put");
    stack.shutdown().await;
}
