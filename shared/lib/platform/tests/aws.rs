//! The platform's layer over the AWS SDK against the emulator (`AWS_ENDPOINT_URL`, which
//! `local/test` starts): every DynamoDB operation the stores use, SQS's two sends and S3's
//! PutObject, each checked with a client of its own; and the errors the stores tell apart (a
//! failed condition, a cancelled transaction with its reasons, a missing table).

// Test code: a failed unwrap, expect or index is a failed test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::HashMap;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use platform::aws::s3::PutObject;
use platform::aws::sqs::BatchEntry;
use platform::aws::AwsClients;
use platform::dynamo::{
    is_condition_failed, item_size, key, n, s, AttributeValue, Attributes, Blob, Item, Table,
    Transaction, TransactionError, MAX_ITEM_BYTES,
};
use platform::Env;

fn env() -> Env {
    assert!(
        std::env::var_os("AWS_ENDPOINT_URL").is_some(),
        "AWS_ENDPOINT_URL is not set: run through local/test, which starts the emulator"
    );
    Env::from_process()
}

fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{prefix}-{}-{nanos}", std::process::id())
}

/// A new table keyed `pk`/`sk`, as ours and as the SDK's.
async fn table() -> (Table, aws_sdk_dynamodb::Client) {
    let env = env();
    let sdk = aws_sdk_dynamodb::Client::new(&platform::aws::sdk_config(&env));
    let name = unique("aws-client");
    let key = |name: &str, kind: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .unwrap()
    };
    let attribute = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    sdk.create_table()
        .table_name(&name)
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .attribute_definitions(attribute("pk"))
        .attribute_definitions(attribute("sk"))
        .send()
        .await
        .expect("create table");
    let aws = AwsClients::from_env(&env).await;
    (Table::new(aws.dynamodb.clone(), name), sdk)
}

fn every_type() -> Item {
    let mut item = key("P", "S");
    for (name, value) in [
        ("s", s("héllo")),
        // DynamoDB answers numbers normalised (`-12.50` comes back `-12.5`): this one is.
        ("n", AttributeValue::N("-12.5".into())),
        ("b", AttributeValue::B(Blob::new(vec![0, 159, 255]))),
        ("t", AttributeValue::Bool(true)),
        ("z", AttributeValue::Null(true)),
        ("l", AttributeValue::L(vec![s("a"), n(1)])),
        (
            "m",
            AttributeValue::M(HashMap::from([("inner".to_string(), s("x"))])),
        ),
        ("ss", AttributeValue::Ss(vec!["a".into(), "b".into()])),
        ("ns", AttributeValue::Ns(vec!["1".into(), "2".into()])),
        (
            "bs",
            AttributeValue::Bs(vec![Blob::new(vec![1]), Blob::new(vec![2, 3])]),
        ),
    ] {
        item.insert(name.to_string(), value);
    }
    item
}

#[tokio::test]
async fn every_attribute_type_round_trips_and_the_sdk_reads_the_same() {
    let (table, sdk) = table().await;
    let item = every_type();
    table
        .put_item()
        .set_item(Some(item.clone()))
        .send()
        .await
        .expect("put");
    let mut read = table.get(key("P", "S")).await.expect("get").expect("found");
    // Sets come back in the emulator's order.
    for set in ["ss", "ns", "bs"] {
        match read.get_mut(set) {
            Some(AttributeValue::Ss(v) | AttributeValue::Ns(v)) => v.sort(),
            Some(AttributeValue::Bs(v)) => v.sort_by(|a, b| a.as_ref().cmp(b.as_ref())),
            other => panic!("{set}: {other:?}"),
        }
    }
    assert_eq!(read, item);
    assert_eq!(
        table
            .get_eventual(key("P", "S"))
            .await
            .unwrap()
            .map(|i| i.len()),
        Some(item.len())
    );
    assert_eq!(table.get(key("P", "absent")).await.unwrap(), None);

    let theirs = sdk
        .get_item()
        .table_name(table.name())
        .key("pk", aws_sdk_dynamodb::types::AttributeValue::S("P".into()))
        .key("sk", aws_sdk_dynamodb::types::AttributeValue::S("S".into()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(theirs["s"].as_s().unwrap(), "héllo");
    assert_eq!(theirs["n"].as_n().unwrap(), "-12.5");
    assert_eq!(theirs["b"].as_b().unwrap().as_ref(), [0, 159, 255]);
    assert!(*theirs["t"].as_bool().unwrap());
    assert_eq!(theirs["m"].as_m().unwrap()["inner"].as_s().unwrap(), "x");
    assert_eq!(theirs["bs"].as_bs().unwrap().len(), 2);
}

#[tokio::test]
async fn conditional_writes_report_a_failed_condition() {
    let (table, _) = table().await;
    let put = || {
        table
            .put_item()
            .set_item(Some(key("P", "once")))
            .condition_expression("attribute_not_exists(pk)")
    };
    put().send().await.expect("first put");
    let error = put().send().await.expect_err("second put");
    assert!(is_condition_failed(&error), "{error}");
    let failure = table.fail("PutItem", &error);
    assert!(!failure.is_unavailable());
    assert!(
        failure
            .to_string()
            .contains("ConditionalCheckFailedException"),
        "{failure}"
    );

    // UpdateItem: ADD creates and counts, the condition guards.
    for _ in 0..2 {
        table
            .update_item()
            .set_key(Some(key("P", "counter")))
            .update_expression("ADD #hits :one")
            .condition_expression("attribute_not_exists(#hits) OR #hits < :limit")
            .expression_attribute_names("#hits", "hits")
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":limit", n(2))
            .send()
            .await
            .expect("counted");
    }
    let error = table
        .update_item()
        .set_key(Some(key("P", "counter")))
        .update_expression("ADD hits :one")
        .condition_expression("hits < :limit")
        .set_expression_attribute_values(Some(Item::from([
            (":one".to_string(), n(1)),
            (":limit".to_string(), n(2)),
        ])))
        .send()
        .await
        .expect_err("at the limit");
    assert!(is_condition_failed(&error));
    let counter = table.get(key("P", "counter")).await.unwrap().unwrap();
    assert_eq!(counter.int(table.name(), "hits").unwrap(), 2);

    // DeleteItem: conditional on a value.
    let error = table
        .delete_item()
        .set_key(Some(key("P", "counter")))
        .condition_expression("hits = :other")
        .expression_attribute_values(":other", n(5))
        .send()
        .await
        .expect_err("another count");
    assert!(is_condition_failed(&error));
    table
        .delete_item()
        .set_key(Some(key("P", "counter")))
        .condition_expression("hits = :read")
        .expression_attribute_values(":read", n(2))
        .send()
        .await
        .expect("deleted");
    assert_eq!(table.get(key("P", "counter")).await.unwrap(), None);
}

#[tokio::test]
async fn queries_follow_pages_and_batch_reads_follow_chunks() {
    let (table, _) = table().await;
    let mut tx = Transaction::new(&table);
    for i in 0..25 {
        let mut item = key("Q", format!("ROW#{i:03}"));
        item.insert("i".into(), n(i));
        tx.put(item, None).unwrap();
    }
    tx.commit().await.expect("written");

    let query = || {
        table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :rows)")
            .expression_attribute_values(":pk", s("Q"))
            .expression_attribute_values(":rows", s("ROW#"))
            .limit(7)
    };
    let all = table.query_all(query(), None).await.expect("all pages");
    assert_eq!(all.len(), 25);
    assert_eq!(all[0].int(table.name(), "i").unwrap(), 0);
    let newest = table
        .query_all(query().scan_index_forward(false), Some(10))
        .await
        .unwrap();
    assert_eq!(newest.len(), 10);
    assert_eq!(newest[0].int(table.name(), "i").unwrap(), 24);
    // One page of 7 rows, filtered to 3, projected to their sort keys.
    let page = query()
        .filter_expression("i < :max")
        .expression_attribute_values(":max", n(3))
        .projection_expression("sk")
        .consistent_read(true)
        .send()
        .await
        .expect("one page");
    assert!(page.last_evaluated_key.is_some());
    let rows = page.items.unwrap_or_default();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|i| i.len() == 1 && i.contains_key("sk")));

    // 150 keys, one twice and some absent: two BatchGetItem chunks.
    let mut keys: Vec<Item> = (0..150).map(|i| key("Q", format!("ROW#{i:03}"))).collect();
    keys.push(key("Q", "ROW#000"));
    let found = table
        .batch_get_all(keys, Some("sk, i"))
        .await
        .expect("batch");
    assert_eq!(found.len(), 25);
    let one = table
        .batch_get_all(vec![key("Q", "ROW#004")], None)
        .await
        .unwrap();
    assert_eq!(one[0].int(table.name(), "i").unwrap(), 4);
}

#[tokio::test]
async fn a_cancelled_transaction_names_the_items_whose_condition_failed() {
    let (table, _) = table().await;
    let mut setup = Transaction::new(&table);
    setup.put(key("T", "exists"), None).unwrap();
    setup.commit_retrying().await.expect("setup");

    let mut tx = Transaction::new(&table);
    tx.put(key("T", "new"), Some("attribute_not_exists(pk)"))
        .unwrap()
        .check(key("T", "exists"), "attribute_not_exists(pk)")
        .unwrap()
        .add(key("T", "count"), "n", 1, None)
        .unwrap();
    let error = tx.commit().await.expect_err("cancelled");
    match &error {
        TransactionError::Condition { failed } => assert_eq!(failed, &[1]),
        other => panic!("{other:?}"),
    }
    assert!(error.failed_at(1) && !error.failed_at(0));
    assert_eq!(
        table.get(key("T", "new")).await.unwrap(),
        None,
        "nothing written"
    );

    let mut ok = Transaction::new(&table);
    ok.add(key("T", "count"), "n", 5, None).unwrap();
    let mut update = ok
        .update_builder(key("T", "exists"))
        .update_expression("SET #label = :label")
        .expression_attribute_names("#label", "label")
        .expression_attribute_values(":label", s("kept"));
    update = update.condition_expression("attribute_exists(pk)");
    ok.update(update).unwrap();
    ok.commit().await.expect("committed");
    let count = table.get(key("T", "count")).await.unwrap().unwrap();
    assert_eq!(count.int(table.name(), "n").unwrap(), 5);
    let exists = table.get(key("T", "exists")).await.unwrap().unwrap();
    assert_eq!(exists.opt_string("label").as_deref(), Some("kept"));
}

#[tokio::test]
async fn a_missing_table_fails_as_an_error_not_as_unavailable() {
    let (table, _) = table().await;
    let aws = AwsClients::from_env(&env()).await;
    let gone = Table::new(aws.dynamodb.clone(), format!("{}-gone", table.name()));
    let error = gone.get(key("a", "b")).await.expect_err("no table");
    assert!(!error.is_unavailable());
    assert!(
        error.to_string().contains("ResourceNotFoundException"),
        "{error}"
    );
}

/// The emulator refuses items above ~405,000 bytes (AWS: 409,600, [`MAX_ITEM_BYTES`]): an
/// item of 400,000 bytes as `item_size` counts them is stored and read back whole, and one
/// over the limit is refused as a request error, not as an outage.
#[tokio::test]
async fn large_items_are_stored_whole_and_oversized_ones_refused_as_invalid() {
    let (table, _) = table().await;
    let mut item = key("L", "big");
    let overhead = item_size(&item) + "body".len();
    item.insert("body".into(), s("x".repeat(400_000 - overhead)));
    assert_eq!(item_size(&item), 400_000);
    table
        .put_item()
        .set_item(Some(item.clone()))
        .send()
        .await
        .expect("a 400,000-byte item");
    let read = table.get(key("L", "big")).await.unwrap().unwrap();
    assert_eq!(read, item);

    let mut over = key("L", "over");
    over.insert("body".into(), s("x".repeat(MAX_ITEM_BYTES)));
    let error = table
        .put_item()
        .set_item(Some(over))
        .send()
        .await
        .expect_err("over the limit");
    assert_eq!(error.code(), Some("ValidationException"), "{error}");
    assert!(!table.fail("PutItem", &error).is_unavailable());
}

#[tokio::test]
async fn sqs_sends_single_messages_and_batches() {
    let env = env();
    let sdk = aws_sdk_sqs::Client::new(&platform::aws::sdk_config(&env));
    let url = sdk
        .create_queue()
        .queue_name(unique("aws-client"))
        .send()
        .await
        .expect("queue")
        .queue_url
        .unwrap();
    let sqs = AwsClients::from_env(&env).await.sqs();
    let id = sqs.send_message(&url, "one").await.expect("sent");
    assert!(!id.is_empty());
    let entries: Vec<BatchEntry> = (0..3)
        .map(|i| BatchEntry {
            id: format!("e{i}"),
            message_body: format!("batch {i}"),
        })
        .collect();
    let outcome = sqs.send_message_batch(&url, &entries).await.expect("batch");
    assert!(outcome.failed.is_empty(), "{:?}", outcome.failed);
    assert_eq!(outcome.successful.len(), 3);

    let mut bodies = Vec::new();
    for _ in 0..5 {
        let received = sdk
            .receive_message()
            .queue_url(&url)
            .max_number_of_messages(10)
            .send()
            .await
            .unwrap();
        bodies.extend(
            received
                .messages
                .unwrap_or_default()
                .into_iter()
                .filter_map(|m| m.body),
        );
        if bodies.len() == 4 {
            break;
        }
    }
    bodies.sort();
    assert_eq!(bodies, ["batch 0", "batch 1", "batch 2", "one"]);

    let error = sqs
        .send_message(&format!("{url}-missing"), "lost")
        .await
        .expect_err("no such queue");
    assert!(!error.is_unavailable());
    assert!(
        error
            .code()
            .is_some_and(|c| c.contains("NonExistentQueue") || c.contains("QueueDoesNotExist")),
        "{error}"
    );
}

#[tokio::test]
async fn s3_put_object_stores_the_body_with_its_headers_and_the_sdk_reads_it() {
    let env = env();
    let sdk = aws_sdk_s3::Client::from_conf(
        aws_sdk_s3::config::Builder::from(&platform::aws::sdk_config(&env))
            .force_path_style(true)
            .build(),
    );
    let bucket = unique("aws-client").to_lowercase();
    sdk.create_bucket().bucket(&bucket).send().await.unwrap();
    let s3 = AwsClients::from_env(&env).await.s3();
    let body: Vec<u8> = (0..300_000u32)
        .map(|i| u8::try_from(i % 253).unwrap())
        .collect();
    let key = "images/a-key with spaces+plus.png";
    s3.put_object(PutObject {
        bucket: &bucket,
        key,
        body: body.clone().into(),
        content_type: "image/png",
        cache_control: Some("public, max-age=31536000, immutable"),
    })
    .await
    .expect("put");

    let read = sdk
        .get_object()
        .bucket(&bucket)
        .key(key)
        .send()
        .await
        .unwrap();
    assert_eq!(read.content_type(), Some("image/png"));
    assert_eq!(
        read.cache_control(),
        Some("public, max-age=31536000, immutable")
    );
    let bytes = read.body.collect().await.unwrap().into_bytes();
    assert_eq!(bytes.as_ref(), body.as_slice());

    // The object's URL is path-style on the emulator, and serves it to anyone once a bucket
    // policy lets them (the emulator, like S3, refuses anonymous reads otherwise).
    let url = s3.object_url(&bucket, key).unwrap();
    let anonymous = platform::tls::http_client().build().unwrap();
    let refused = anonymous.get(&url).send().await.unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    let policy = serde_json::json!({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                       "Resource": format!("arn:aws:s3:::{bucket}/images/*")}]
    });
    sdk.put_bucket_policy()
        .bucket(&bucket)
        .policy(policy.to_string())
        .send()
        .await
        .unwrap();
    let endpoint = std::env::var("AWS_ENDPOINT_URL").unwrap();
    assert!(
        url.starts_with(&format!("{}/{bucket}/", endpoint.trim_end_matches('/'))),
        "{url}"
    );
    let served = anonymous.get(&url).send().await.unwrap();
    assert_eq!(served.status().as_u16(), 200);
    assert_eq!(served.bytes().await.unwrap().as_ref(), body.as_slice());

    let error = s3
        .put_object(PutObject {
            bucket: &format!("{bucket}-missing"),
            key: "k",
            body: bytes::Bytes::from_static(b"x"),
            content_type: "text/plain",
            cache_control: None,
        })
        .await
        .expect_err("no such bucket");
    assert_eq!(error.code(), Some("NoSuchBucket"), "{error}");
    assert!(!error.is_unavailable());
}

/// Inside a traced Lambda invocation (the runtime sets `_X_AMZN_TRACE_ID` beside
/// `AWS_LAMBDA_FUNCTION_NAME`), the SDK sends the trace on every call: SQS keeps it as the
/// message's `AWSTraceHeader`, which links the consumer's trace to the sender's and lets
/// Lambda see a function that re-queues itself.
#[tokio::test]
async fn the_invocations_trace_header_reaches_the_sqs_message() {
    const TRACE: &str =
        "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1";
    let env = env();
    let sdk = aws_sdk_sqs::Client::new(&platform::aws::sdk_config(&env));
    let url = sdk
        .create_queue()
        .queue_name(unique("traced"))
        .send()
        .await
        .expect("queue")
        .queue_url
        .unwrap();
    // What lambda_runtime does for each invocation (process-wide, as in Lambda).
    std::env::set_var("AWS_LAMBDA_FUNCTION_NAME", "traced-function");
    std::env::set_var("_X_AMZN_TRACE_ID", TRACE);
    let sqs = AwsClients::from_env(&env).await.sqs();
    sqs.send_message(&url, "traced").await.expect("sent");
    sqs.send_message_batch(
        &url,
        &[BatchEntry {
            id: "b".into(),
            message_body: "traced batch".into(),
        }],
    )
    .await
    .expect("batch");
    let mut traces = Vec::new();
    for _ in 0..5 {
        let received = sdk
            .receive_message()
            .queue_url(&url)
            .max_number_of_messages(10)
            .message_system_attribute_names(
                aws_sdk_sqs::types::MessageSystemAttributeName::AwsTraceHeader,
            )
            .send()
            .await
            .unwrap();
        for message in received.messages.unwrap_or_default() {
            let trace = message
                .attributes
                .unwrap_or_default()
                .remove(&aws_sdk_sqs::types::MessageSystemAttributeName::AwsTraceHeader);
            traces.push((message.body.unwrap_or_default(), trace));
        }
        if traces.len() == 2 {
            break;
        }
    }
    traces.sort();
    assert_eq!(
        traces,
        [
            ("traced".to_string(), Some(TRACE.to_string())),
            ("traced batch".to_string(), Some(TRACE.to_string())),
        ]
    );
}
