//! Post views: a read writes nothing; the page's beacon queues a view, and the view counter
//! counts it once per reader, post and hour, exactly once under redelivery and lost replies.

use std::time::{Duration, Instant};

use aws_lambda_events::event::sqs::SqsEvent;
use community::queues::Reader;
use community::ViewRequest;
use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, message, post_input, post_path};
use stack_tests::faults::{rule, Faults};
use stack_tests::keyheat::Meter;
use stack_tests::TestStack;

fn views_path(id: &str) -> String {
    format!("{}/views", post_path(id))
}

async fn beacon(t: &TestStack, id: &str, token: Option<&str>) -> u16 {
    let request = t.http.post(t.url(&views_path(id)));
    let request = match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    };
    request.send().await.unwrap().status().as_u16()
}

async fn view_count(t: &TestStack, id: &str, token: Option<&str>) -> i64 {
    t.get_ok(&post_path(id), token).await["viewCount"]
        .as_i64()
        .unwrap()
}

/// Waits until the post shows `want` views, then a while longer to see no more arrive.
async fn views_settle_at(t: &TestStack, id: &str, want: i64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while view_count(t, id, None).await != want {
        assert!(
            Instant::now() < deadline,
            "views stayed at {} (wanted {want})",
            view_count(t, id, None).await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(view_count(t, id, None).await, want, "more views came");
}

#[tokio::test]
async fn a_read_writes_nothing_and_a_reader_counts_once_an_hour() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    let (_, carol) = t.member("carol").await;
    let post = t.create_post(&author, &post_input("Counted", &[])).await;
    let id = post["id"].as_str().unwrap().to_string();

    // The indexer writes the post once after its creation: wait for it before metering.
    let deadline = Instant::now() + Duration::from_secs(20);
    while t
        .scan("CommunityTable")
        .await
        .iter()
        .any(|i| i["pk"].as_s().unwrap().starts_with("IDXQ#"))
    {
        assert!(Instant::now() < deadline, "the indexer never caught up");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let table = t.table("CommunityTable");
    let prefix = table.strip_suffix("CommunityTable").unwrap();
    let meter = Meter::start(&stack_tests::emulator(), prefix).await;
    for token in [None, Some(bob.as_str()), Some(author.as_str()), None] {
        assert_eq!(view_count(&t, &id, token).await, 0);
    }
    let written: Vec<_> = meter
        .take()
        .await
        .into_iter()
        .filter(|u| u.table == table && u.write_units > 0.0)
        .map(|u| u.key)
        .collect();
    assert!(written.is_empty(), "a read wrote {written:?}");

    // Bob twice, an anonymous reader twice, carol once, the author twice: three readers.
    for token in [
        Some(bob.as_str()),
        None,
        Some(bob.as_str()),
        Some(author.as_str()),
        None,
        Some(carol.as_str()),
        Some(author.as_str()),
    ] {
        assert_eq!(beacon(&t, &id, token).await, 202);
    }
    views_settle_at(&t, &id, 3).await;
    // Another address is another anonymous reader, counted once too.
    for _ in 0..2 {
        let other = stack_tests::limits::from(t.http.post(t.url(&views_path(&id))), "198.51.100.2");
        assert_eq!(other.send().await.unwrap().status(), 202);
    }
    views_settle_at(&t, &id, 4).await;
    // A view is one dedupe row per reader and hour, each expiring; none holds an address.
    let rows: Vec<_> = t
        .scan("CommunityTable")
        .await
        .into_iter()
        .filter(|i| i["pk"].as_s().unwrap().starts_with(&format!("VIEW#{id}#")))
        .collect();
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(rows.iter().all(|r| r.contains_key("expiresAt")), "{rows:?}");
    assert!(
        rows.iter()
            .all(|r| !r["pk"].as_s().unwrap().contains("127.0.0.1")
                && !r["pk"].as_s().unwrap().contains("198.51")),
        "{rows:?}"
    );
}

#[tokio::test]
async fn drafts_bad_ids_and_bad_tokens() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    let mut input = post_input("A draft", &[]);
    input["status"] = json!("DRAFT");
    let draft = t.create_post(&author, &input).await;
    let id = draft["id"].as_str().unwrap().to_string();
    // Accepted (a beacon tells nothing about the post) and never counted: once a view sent
    // after them is counted, theirs were handled too.
    assert_eq!(beacon(&t, &id, Some(&bob)).await, 202);
    assert_eq!(beacon(&t, &id, None).await, 202);
    let published = t.create_post(&author, &post_input("Published", &[])).await;
    let published = published["id"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(beacon(&t, &published, Some(&bob)).await, 202);
    views_settle_at(&t, &published, 1).await;
    assert_eq!(view_count(&t, &id, Some(&author)).await, 0);
    assert!(
        t.scan("CommunityTable")
            .await
            .iter()
            .all(|i| !i["pk"].as_s().unwrap().starts_with(&format!("VIEW#{id}"))),
        "a draft's view left a row"
    );

    let bad = t
        .http
        .post(t.url(&views_path("not-a-uuid")))
        .send()
        .await
        .unwrap();
    let body = assert_reason_error(bad, 400).await;
    assert!(message(&body).contains("id"), "{body}");
    let bad_token = t
        .http
        .post(t.url(&views_path(&id)))
        .bearer_auth("not.a.token")
        .send()
        .await
        .unwrap();
    assert_reason_error(bad_token, 401).await;
}

fn batch(views: &[ViewRequest], ids: &[&str]) -> SqsEvent {
    let records: Vec<Value> = views
        .iter()
        .zip(ids)
        .map(|(v, id)| json!({"messageId": id, "body": v.to_json(), "eventSource": "aws:sqs"}))
        .collect();
    serde_json::from_value(json!({ "Records": records })).unwrap()
}

#[tokio::test]
async fn a_redelivered_batch_counts_nothing_twice() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (author_id, author) = t.member("alice").await;
    let post = t
        .create_post(&author, &post_input("Redelivered", &[]))
        .await;
    let id = post["id"].as_str().unwrap().to_string();
    let bob = Reader::member("5b0f3c1e-0000-4000-8000-0000000000b0");
    let anonymous = Reader::anonymous(b"salt", "203.0.113.7");
    let hour = 493_000;
    let views = [
        ViewRequest::new(&id, &bob, hour),
        ViewRequest::new(&id, &bob, hour),
        ViewRequest::new(&id, &anonymous, hour),
        ViewRequest::new(&id, &bob, hour + 1),
        ViewRequest::new(&id, &Reader::member(&author_id), hour),
    ];
    let event = batch(&views, &["m1", "m2", "m3", "m4", "m5"]);
    let counter = community_views_function::handler(t.env("CommunityViewsFunction"))
        .await
        .unwrap();
    let first = counter.handle(event.clone()).await.unwrap();
    assert!(first.batch_item_failures.is_empty());
    // Bob in two hours, the anonymous reader once; the author never.
    assert_eq!(view_count(&t, &id, None).await, 3);
    let again = counter.handle(event).await.unwrap();
    assert!(again.batch_item_failures.is_empty());
    assert_eq!(
        view_count(&t, &id, None).await,
        3,
        "redelivery counted again"
    );
    // Part of it again with a new view: only the new one counts.
    let carol = Reader::member("5b0f3c1e-0000-4000-8000-0000000000c0");
    let mixed = batch(
        &[
            ViewRequest::new(&id, &anonymous, hour),
            ViewRequest::new(&id, &carol, hour),
        ],
        &["m3", "m6"],
    );
    assert!(counter
        .handle(mixed)
        .await
        .unwrap()
        .batch_item_failures
        .is_empty());
    assert_eq!(view_count(&t, &id, None).await, 4);
}

/// A community stack, a post of alice's and bob's token; the view counter's writes of that
/// post meet `faults`' rules, set before bob's view.
async fn a_post_read_under(rules: Value) -> (TestStack, String, Faults) {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    let post = t
        .create_post(&author, &post_input("Lost replies", &[]))
        .await;
    let id = post["id"].as_str().unwrap().to_string();
    let faults = Faults::of(&t);
    let rules = rules.to_string().replace("{post}", &id);
    faults.set(serde_json::from_str(&rules).unwrap()).await;
    assert_eq!(beacon(&t, &id, Some(&bob)).await, 202);
    (t, id, faults)
}

/// Finding: "viewCount one too low". The reply to the write that claims the view is lost
/// after it applied: the SDK's retry must not find the view claimed and count nothing.
#[tokio::test]
async fn a_view_whose_claim_reply_is_lost_counts_once() {
    // The counter's first write naming the view's row, whichever call makes it.
    let (t, id, faults) = a_post_read_under(json!([
        rule("dynamodb", "PutItem", "lost-reply", "VIEW#{post}", 1),
        rule(
            "dynamodb",
            "TransactWriteItems",
            "lost-reply",
            "VIEW#{post}",
            1
        ),
    ]))
    .await;
    views_settle_at(&t, &id, 1).await;
    let injected = faults.injected("PutItem").await + faults.injected("TransactWriteItems").await;
    assert_eq!(injected, 1);
}

/// Finding: "viewCount one too high". The reply to the write that adds the view to the post
/// is lost after it applied: the SDK's retry must not add it again.
#[tokio::test]
async fn a_view_whose_count_reply_is_lost_counts_once() {
    let (t, id, faults) = a_post_read_under(json!([
        rule("dynamodb", "UpdateItem", "lost-reply", "viewCount", 1),
        rule(
            "dynamodb",
            "TransactWriteItems",
            "lost-reply",
            "viewCount",
            1
        ),
    ]))
    .await;
    views_settle_at(&t, &id, 1).await;
    let injected =
        faults.injected("UpdateItem").await + faults.injected("TransactWriteItems").await;
    assert_eq!(injected, 1);
}

/// SQS delivers the view's message twice (enqueued twice): the second finds the view counted.
#[tokio::test]
async fn a_view_delivered_twice_counts_once() {
    let (t, id, faults) = a_post_read_under(json!([rule(
        "sqs",
        "SendMessage",
        "duplicate",
        "{post}",
        1
    )]))
    .await;
    views_settle_at(&t, &id, 1).await;
    assert_eq!(faults.injected("SendMessage").await, 1);
}

/// SQS delivers the view's message late: nothing counts it before, it counts once after.
#[tokio::test]
async fn a_view_delivered_late_counts_once_it_arrives() {
    let (t, id, faults) = a_post_read_under(json!([{
        "service": "sqs", "operation": "SendMessage", "fault": "delay", "match": "{post}",
        "times": 1, "seconds": 4,
    }]))
    .await;
    assert_eq!(faults.injected("SendMessage").await, 1);
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        view_count(&t, &id, None).await,
        0,
        "counted before it was delivered"
    );
    views_settle_at(&t, &id, 1).await;
}
