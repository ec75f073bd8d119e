//! Streamed answers on the function URL: the first event arrives while the model is still
//! writing, the finished answer is cached and then streams at once, failures before the
//! stream keep their statuses, a failure mid-stream is an `error` event, and the limits of
//! the JSON operations apply.

use std::time::Duration;

use serde_json::{json, Value};
use stack_tests::genai::{function_url, post, stack, ARTICLE, CACHE_HEADER};
use stack_tests::llm::{FakeLlm, TEST_MODEL};
use stack_tests::{header, Call};

/// Reads server-sent events off a response as they arrive.
struct Events {
    response: reqwest::Response,
    buffer: String,
}

impl Events {
    fn new(response: reqwest::Response) -> Self {
        assert_eq!(response.status().as_u16(), 200);
        assert_eq!(
            header(response.headers(), "content-type"),
            "text/event-stream"
        );
        Self {
            response,
            buffer: String::new(),
        }
    }

    /// The next `(event, data)`, waiting at most `within`; `None` at the end of the stream.
    async fn next(&mut self, within: Duration) -> Option<(String, Value)> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut name = String::new();
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event: ") {
                        name = v.to_string();
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        data.push_str(v);
                    }
                }
                return Some((name, serde_json::from_str(&data).expect("JSON data")));
            }
            let chunk = tokio::time::timeout(within, self.response.chunk())
                .await
                .expect("an event in time")
                .expect("readable stream")?;
            self.buffer
                .push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
        }
    }

    /// Every remaining event.
    async fn rest(mut self) -> Vec<(String, Value)> {
        let mut all = Vec::new();
        while let Some(event) = self.next(Duration::from_secs(10)).await {
            all.push(event);
        }
        all
    }
}

/// The text of the `delta` events, joined.
fn text(events: &[(String, Value)]) -> String {
    events
        .iter()
        .filter(|(name, _)| name == "delta")
        .map(|(_, data)| data["text"].as_str().expect("text"))
        .collect()
}

const SUMMARY: &str = "The harbour city opened a tidal power station for 40,000 homes.";

#[tokio::test]
async fn a_summary_streams_before_the_model_has_finished_and_is_then_cached() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;
    llm.reply(SUMMARY);
    llm.stream_delay(Some(Duration::from_millis(20)));
    let gate = llm.hold_last_chunk();
    let url = format!("{}/stream/summarize", function_url(&t));
    let request = json!({"text": ARTICLE, "length": "short"});

    let response = post(&t, &url, &request).await;
    assert_eq!(header(response.headers(), CACHE_HEADER), "miss");
    let mut events = Events::new(response);
    // The model holds its last word: the first event can only be read if it was streamed.
    let (name, first) = events.next(Duration::from_secs(10)).await.expect("first");
    assert_eq!((name.as_str(), &first), ("delta", &json!({"text": "The "})));
    assert_eq!(llm.chat_calls()[0].body["stream"], true);
    gate.open();
    let mut all = vec![(name, first)];
    all.extend(events.rest().await);
    assert_eq!(text(&all), SUMMARY);
    assert!(all.len() > 3, "one delta per word: {all:?}");
    let (name, done) = all.last().expect("done").clone();
    assert_eq!(name, "done");
    assert_eq!(
        done,
        json!({"summary": SUMMARY, "model": TEST_MODEL, "provider": "cloud"})
    );

    // The finished answer is cached: the JSON route and the stream answer it at once.
    llm.reply("Another answer the cache hides.");
    let json = post(&t, &t.url("/api/ai/summarize"), &request).await;
    assert_eq!(header(json.headers(), CACHE_HEADER), "hit");
    assert_eq!(
        json.json::<Value>().await.expect("json")["summary"],
        SUMMARY
    );
    let again = post(&t, &url, &request).await;
    assert_eq!(header(again.headers(), CACHE_HEADER), "hit");
    let cached = Events::new(again).rest().await;
    assert_eq!(
        cached.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["delta", "done"]
    );
    assert_eq!(text(&cached), SUMMARY);
    assert_eq!(llm.chat_calls().len(), 1, "one model call for three asks");
}

#[tokio::test]
async fn explain_and_qa_stream_and_sentiment_is_not_a_stream() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;
    let base = function_url(&t);
    llm.reply("Water turns the turbines.");
    let explained = Events::new(
        post(
            &t,
            &format!("{base}/stream/explain"),
            &json!({"text": ARTICLE, "knowledgeLevel": "child"}),
        )
        .await,
    )
    .rest()
    .await;
    assert_eq!(text(&explained), "Water turns the turbines.");
    let done = &explained.last().expect("done").1;
    assert_eq!(done["knowledgeLevel"], "child");
    assert_eq!(done["explanation"], "Water turns the turbines.");

    llm.reply("Fishermen worry about the eels.");
    let answered = Events::new(
        post(
            &t,
            &format!("{base}/stream/qa"),
            &json!({"text": ARTICLE, "question": "Who worries?"}),
        )
        .await,
    )
    .rest()
    .await;
    assert_eq!(
        answered.last().expect("done").1["answer"],
        "Fishermen worry about the eels."
    );
    // Through the HTTP API the same events come (API Gateway delivers them at the end).
    llm.reply("The gateway path.");
    let through_api = Events::new(
        post(
            &t,
            &t.url("/api/ai/stream/qa"),
            &json!({"text": ARTICLE, "question": "Which path?"}),
        )
        .await,
    )
    .rest()
    .await;
    assert_eq!(text(&through_api), "The gateway path.");

    let sentiment = post(
        &t,
        &format!("{base}/stream/sentiment"),
        &json!({"text": ARTICLE}),
    )
    .await;
    assert_eq!(sentiment.status().as_u16(), 404);
}

#[tokio::test]
async fn failures_before_the_stream_keep_their_status_and_after_it_are_an_error_event() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[("AiRateLimitAnonymous", "4/86400")]).await;
    let url = format!("{}/stream/summarize", function_url(&t));

    let invalid = post(&t, &url, &json!({"text": ARTICLE, "length": "huge"})).await;
    assert_eq!(invalid.status().as_u16(), 400);
    let body: Value = invalid.json().await.expect("json");
    assert_eq!(body["path"], "/stream/summarize");
    let missing_question = post(
        &t,
        &format!("{}/stream/qa", function_url(&t)),
        &json!({"text": ARTICLE}),
    )
    .await;
    assert_eq!(missing_question.status().as_u16(), 400);

    llm.fail(500);
    let refused = post(&t, &url, &json!({"text": ARTICLE})).await;
    assert_eq!(refused.status().as_u16(), 502);
    assert_eq!(
        header(refused.headers(), "content-type"),
        "application/json"
    );

    // The stream breaks after the first word: the reader gets it, then an error event.
    llm.garbage();
    let broken = Events::new(post(&t, &url, &json!({"text": ARTICLE})).await)
        .rest()
        .await;
    let names: Vec<&str> = broken.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["delta", "error"], "{broken:?}");
    let error = &broken[1].1;
    assert_eq!(error["code"], 502);
    assert_eq!(error["path"], "/stream/summarize");
    assert!(t.scan("GenAiCacheTable").await.is_empty(), "nothing cached");

    // Four anonymous operations a day: the stream counts as the JSON routes do.
    llm.reset();
    let limited = t
        .http
        .post(&url)
        .json(&json!({"text": ARTICLE}))
        .call()
        .await;
    assert_eq!(limited.status().as_u16(), 429);
}
