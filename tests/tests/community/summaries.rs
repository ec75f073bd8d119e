//! Post summaries through the local stack against the emulator, with the fake model as the
//! provider: a published post's summary is asked of the model and stored (COMPLETED, its
//! model and time); drafts and title edits ask nothing, content edits ask again; a failing
//! provider is retried by the queue until the dead-letter consumer marks it FAILED and lists
//! it; the admin's re-trigger (202) makes it PENDING and then COMPLETED; a repeated or older
//! request asks the model nothing and overwrites nothing.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use aws_lambda_events::event::sqs::{SqsEvent, SqsMessage};
use community::model::summary::content_hash;
use community::SummaryRequest;
use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, message, post_input, post_path};
use stack_tests::genai::llm_parameters;
use stack_tests::llm::{FakeLlm, TEST_MODEL};
use stack_tests::stack::Call;
use stack_tests::TestStack;

const FAILED: &str = "/api/v1/admin/summaries/failed";

fn summary_path(id: &str) -> String {
    format!("{}/summary", post_path(id))
}

fn retry_path(id: &str) -> String {
    format!("/api/v1/admin/posts/{id}/summary/retry")
}

/// A stack whose model is `llm`, with the summary queue's retries `retry_seconds` apart.
async fn stack_retrying(llm: &FakeLlm, retry_seconds: &str) -> TestStack {
    let mut parameters: BTreeMap<String, String> = llm_parameters(llm);
    parameters.insert("SummaryRetryDelaySeconds".into(), retry_seconds.into());
    TestStack::start_with(parameters).await
}

/// A stack whose model is `llm`, with the summary queue's retries a second apart.
async fn stack(llm: &FakeLlm) -> TestStack {
    stack_retrying(llm, "1").await
}

/// The local stack's retry delay (`local/parameters.json`), which must bring a failing
/// summary to FAILED within two minutes.
fn local_retry_seconds() -> String {
    let path = stack_tests::repo_root().join("local/parameters.json");
    let parameters: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    parameters["SummaryRetryDelaySeconds"]
        .as_str()
        .expect("local/parameters.json sets SummaryRetryDelaySeconds")
        .to_string()
}

/// Polls the summary of `id` until `done` holds (at most `within`); the last state.
async fn summary_until(
    t: &TestStack,
    id: &str,
    token: Option<&str>,
    within: Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let started = Instant::now();
    loop {
        let summary = t.get_ok(&summary_path(id), token).await;
        if done(&summary) {
            return summary;
        }
        assert!(
            started.elapsed() < within,
            "summary of {id} still {summary} after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

fn status_is(status: &'static str) -> impl Fn(&Value) -> bool {
    move |s: &Value| s["status"] == status
}

/// The summarizer's handler as the stack builds it, and one batch of `bodies` through it
/// (from the dead-letter queue when `dead`); the ids it asked to have delivered again.
async fn through_summarizer(t: &TestStack, bodies: &[String], dead: bool) -> Vec<String> {
    let env = t.env("CommunitySummarizerFunction");
    let arn = if dead {
        env.get("SUMMARY_DLQ_ARN").expect("DLQ arn").to_string()
    } else {
        "arn:aws:sqs:us-east-1:000000000000:summaries".to_string()
    };
    let handler = community_summarizer_function::handler(env)
        .await
        .expect("handler");
    let mut event = SqsEvent::default();
    event.records = bodies
        .iter()
        .enumerate()
        .map(|(i, body)| {
            let mut m = SqsMessage::default();
            m.message_id = Some(format!("m{i}"));
            m.body = Some(body.clone());
            m.event_source_arn = Some(arn.clone());
            m
        })
        .collect();
    let response = handler.handle(event).await.expect("batch handled");
    response
        .batch_item_failures
        .into_iter()
        .map(|f| f.item_identifier)
        .collect()
}

#[tokio::test]
async fn summary_success() {
    let llm = FakeLlm::start().await;
    llm.reply("  A harbour gets tidal power.  ");
    let t = stack(&llm).await;
    let (author_id, token) = t.member("summer").await;
    let content = "The harbour city opened a tidal power station that will supply homes.";
    let post = t
        .create_post(
            &token,
            &json!({"title": "Tidal power at last", "content": content}),
        )
        .await;
    let id = post["id"].as_str().unwrap();
    assert_eq!(post["summaryStatus"], "PENDING", "{post}");
    assert_eq!(post["summary"], Value::Null);

    // Anyone may read a published post's summary.
    let summary = summary_until(
        &t,
        id,
        None,
        Duration::from_secs(30),
        status_is("COMPLETED"),
    )
    .await;
    assert_eq!(summary["summary"], "A harbour gets tidal power.");
    assert_eq!(summary["model"], TEST_MODEL);
    let generated = summary["generatedAt"].as_str().unwrap();
    assert!(
        chrono::DateTime::parse_from_rfc3339(generated).is_ok(),
        "{generated}"
    );
    assert_eq!(
        summary.as_object().unwrap().len(),
        4,
        "status, summary, generatedAt, model: {summary}"
    );
    let call = llm.last_call();
    assert_eq!(llm.call_count(), 1);
    assert!(call.prompt().contains(content), "{}", call.prompt());
    assert!(call.prompt().contains("Tidal power at last"));
    assert!(call.body["max_tokens"]
        .as_u64()
        .is_some_and(|m| m > 0 && m <= 4096));

    // The post carries the same state.
    let full = t.get_ok(&post_path(id), None).await;
    assert_eq!(full["summaryStatus"], "COMPLETED");
    assert_eq!(full["summary"], "A harbour gets tidal power.");
    assert_eq!(full["summaryModel"], TEST_MODEL);
    assert_eq!(full["summaryGeneratedAt"], generated);

    // A title edit asks for nothing; a content edit asks again.
    let r = t
        .patch_json_auth(
            &post_path(id),
            &token,
            &json!({"title": "Tidal power, finally"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    llm.reply("The station now powers 40,000 homes.");
    let r = t
        .patch_json_auth(
            &post_path(id),
            &token,
            &json!({"content": "The station now powers 40,000 homes, the operator says."}),
        )
        .await;
    let edited: Value = r.json().await.unwrap();
    assert_eq!(edited["summaryStatus"], "PENDING", "{edited}");
    assert_eq!(
        edited["summary"], "A harbour gets tidal power.",
        "the previous summary is kept while the new one is made"
    );
    let renewed = summary_until(&t, id, None, Duration::from_secs(30), |s| {
        s["summary"] == "The station now powers 40,000 homes."
    })
    .await;
    assert_eq!(renewed["status"], "COMPLETED");
    assert_eq!(
        llm.call_count(),
        2,
        "the title edit asked the model nothing"
    );

    // A draft has no summary (its author alone sees it) until it is published.
    let draft = t
        .create_post(
            &token,
            &json!({"title": "Notes for later", "content": "Unfinished thoughts.", "status": "DRAFT"}),
        )
        .await;
    let draft_id = draft["id"].as_str().unwrap();
    let state = t.get_ok(&summary_path(draft_id), Some(&token)).await;
    assert_eq!(
        state,
        json!({"status": null, "summary": null, "generatedAt": null, "model": null})
    );
    assert_reason_error(t.get(&summary_path(draft_id)).await, 404).await;
    let (_, other) = t.member("summer2").await;
    assert_reason_error(t.get_auth(&summary_path(draft_id), &other).await, 404).await;
    llm.reply("Thoughts, unfinished.");
    let r = t
        .patch_json_auth(
            &post_path(draft_id),
            &token,
            &json!({"status": "PUBLISHED"}),
        )
        .await;
    assert_eq!(r.status(), 200);
    summary_until(&t, draft_id, None, Duration::from_secs(30), |s| {
        s["summary"] == "Thoughts, unfinished."
    })
    .await;
    assert_eq!(
        llm.call_count(),
        3,
        "the draft was summarised once, when published"
    );

    // Bad and unknown ids.
    let bad = assert_reason_error(t.get(&summary_path("not-a-uuid")).await, 400).await;
    assert!(message(&bad).contains("id"), "{bad}");
    assert_reason_error(
        t.get(&summary_path("00000000-0000-4000-8000-000000000000"))
            .await,
        404,
    )
    .await;
    let _ = author_id;
}

#[tokio::test]
async fn provider_failing_until_failed_then_retrigger() {
    let llm = FakeLlm::start().await;
    llm.fail(500);
    // With the local stack's own retry delay.
    let t = stack_retrying(&llm, &local_retry_seconds()).await;
    let admin = t.admin_token().await;
    let (author_id, token) = t.member("unlucky").await;
    let post = t
        .create_post(&token, &post_input("Doomed summary", &[]))
        .await;
    let id = post["id"].as_str().unwrap();

    // Five deliveries fail, then the dead-letter consumer gives up: well within two minutes.
    let started = Instant::now();
    let failed = summary_until(&t, id, None, Duration::from_secs(120), status_is("FAILED")).await;
    println!("FAILED after {:?}", started.elapsed());
    assert_eq!(failed["summary"], Value::Null);
    assert_eq!(
        llm.call_count(),
        5,
        "one model call per delivery, five deliveries"
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(llm.call_count(), 5, "nothing asks again once FAILED");

    // Listed for admins only, page size 20 by default.
    let list = t.get_ok(FAILED, Some(&admin)).await;
    assert_eq!(list["size"], 20);
    assert_eq!(list["page"], 0);
    assert_eq!(list["totalElements"], 1);
    assert_eq!(list["totalPages"], 1);
    let row = &list["content"][0];
    assert_eq!(row["id"], id);
    assert_eq!(row["title"], "Doomed summary");
    assert_eq!(row["authorId"], author_id.as_str());
    assert_eq!(row["summaryStatus"], "FAILED");
    assert!(chrono::DateTime::parse_from_rfc3339(row["updatedAt"].as_str().unwrap()).is_ok());
    assert_reason_error(t.get(FAILED).await, 401).await;
    assert_reason_error(t.get_auth(FAILED, &token).await, 403).await;
    let bad =
        assert_reason_error(t.get_auth(&format!("{FAILED}?size=101"), &admin).await, 400).await;
    assert!(message(&bad).contains("size"), "{bad}");
    let bad =
        assert_reason_error(t.get_auth(&format!("{FAILED}?page=50"), &admin).await, 400).await;
    assert!(message(&bad).contains("page"), "{bad}");

    // The re-trigger: admins only, 202, PENDING, then the outcome on the summary endpoint.
    assert_reason_error(t.post_auth(&retry_path(id), &token).await, 403).await;
    assert_reason_error(t.http.post(t.url(&retry_path(id))).call().await, 401).await;
    assert_reason_error(t.post_auth(&retry_path("nope"), &admin).await, 400).await;
    assert_reason_error(
        t.post_auth(&retry_path("00000000-0000-4000-8000-000000000000"), &admin)
            .await,
        404,
    )
    .await;
    llm.reply("Saved at the second attempt.");
    let r = t.post_auth(&retry_path(id), &admin).await;
    assert_eq!(r.status(), 202);
    let accepted: Value = r.json().await.unwrap();
    assert_eq!(accepted["status"], "PENDING", "{accepted}");
    let list = t.get_ok(FAILED, Some(&admin)).await;
    assert_eq!(list["totalElements"], 0, "off the failed list: {list}");
    let done = summary_until(
        &t,
        id,
        None,
        Duration::from_secs(30),
        status_is("COMPLETED"),
    )
    .await;
    assert_eq!(done["summary"], "Saved at the second attempt.");
    assert_eq!(llm.call_count(), 6);

    // A draft cannot be re-triggered.
    let draft = t
        .create_post(
            &token,
            &json!({"title": "Quiet draft", "content": "Not yet.", "status": "DRAFT"}),
        )
        .await;
    assert_reason_error(
        t.post_auth(&retry_path(draft["id"].as_str().unwrap()), &admin)
            .await,
        409,
    )
    .await;
}

#[tokio::test]
async fn duplicate_summary_message() {
    let llm = FakeLlm::start().await;
    llm.reply("First content, summarised.");
    let t = stack(&llm).await;
    let (_, token) = t.member("twice").await;
    let first = "The first content of the post, long enough to summarise.";
    let post = t
        .create_post(&token, &json!({"title": "Said twice", "content": first}))
        .await;
    let id = post["id"].as_str().unwrap().to_string();
    let done = summary_until(
        &t,
        &id,
        None,
        Duration::from_secs(30),
        status_is("COMPLETED"),
    )
    .await;
    assert_eq!(llm.call_count(), 1);

    // The same request again (SQS delivers at least once), twice in one batch and once more:
    // the model is not asked, nothing changes.
    let request = SummaryRequest {
        post_id: id.clone(),
        version: 1,
        content_hash: content_hash(first),
    }
    .to_json();
    let failures = through_summarizer(&t, &[request.clone(), request.clone()], false).await;
    assert!(failures.is_empty(), "{failures:?}");
    assert!(
        through_summarizer(&t, std::slice::from_ref(&request), false)
            .await
            .is_empty()
    );
    assert_eq!(llm.call_count(), 1, "a duplicate never reaches the model");
    assert_eq!(t.get_ok(&summary_path(&id), None).await, done);

    // A newer summary, then the older request arriving late, from the queue and from the
    // dead-letter queue: neither overwrites nor fails the newer summary.
    llm.reply("Second content, summarised.");
    let second = "The second content of the post, rewritten from the start.";
    let r = t
        .patch_json_auth(&post_path(&id), &token, &json!({"content": second}))
        .await;
    assert_eq!(r.status(), 200);
    let newer = summary_until(&t, &id, None, Duration::from_secs(30), |s| {
        s["summary"] == "Second content, summarised."
    })
    .await;
    assert_eq!(llm.call_count(), 2);
    assert!(
        through_summarizer(&t, std::slice::from_ref(&request), false)
            .await
            .is_empty()
    );
    assert!(through_summarizer(&t, std::slice::from_ref(&request), true)
        .await
        .is_empty());
    let current = SummaryRequest {
        post_id: id.clone(),
        version: 2,
        content_hash: content_hash(second),
    }
    .to_json();
    assert!(through_summarizer(&t, std::slice::from_ref(&current), true)
        .await
        .is_empty());
    assert_eq!(llm.call_count(), 2);
    assert_eq!(
        t.get_ok(&summary_path(&id), None).await,
        newer,
        "a late request changed nothing, not even to FAILED"
    );

    // Junk is delivered again from the queue, dropped from the dead-letter queue.
    assert_eq!(
        through_summarizer(&t, &["junk".to_string()], false).await,
        ["m0"]
    );
    assert!(through_summarizer(&t, &["junk".to_string()], true)
        .await
        .is_empty());
}
