//! Telemetry: the model calls' metrics and the request's spans reach the OTLP collector
//! before the response, with the caller's trace context, and failures counted by kind.

use std::time::Duration;

use serde_json::json;
use stack_tests::genai::{function_url, ok_json, post, stack, ARTICLE};
use stack_tests::llm::{FakeLlm, TEST_MODEL};
use stack_tests::otlp::OtlpReceiver;
use stack_tests::Call;

#[tokio::test]
async fn metrics_and_traces_reach_the_collector_before_the_response() {
    let llm = FakeLlm::start().await;
    let otlp = OtlpReceiver::start().await;
    let t = stack(
        &llm,
        &[
            ("OtelExporterOtlpEndpoint", &otlp.endpoint()),
            (
                "OtelResourceAttributes",
                "deployment.environment=test,team=news%20desk",
            ),
        ],
    )
    .await;

    // A call with token usage; a caller's trace context.
    llm.reply_with_usage("Summary.", Some((42, 7)));
    let response = t
        .http
        .post(t.url("/api/ai/summarize"))
        .header(
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        )
        .json(&json!({"text": ARTICLE}))
        .call()
        .await;
    ok_json(response).await;
    // No waiting: the export happened before the response.
    let labels = [("endpoint", "summarize"), ("provider", "cloud")];
    let requests = otlp
        .point("gen_ai.llm.requests", &labels)
        .expect("requests exported");
    assert_eq!(requests.value, 1.0);
    assert_eq!(requests.labels.len(), 2, "{requests:?}");
    let latency = otlp
        .point("gen_ai.llm.latency", &labels)
        .expect("latency exported");
    assert_eq!((latency.kind.as_str(), latency.value), ("histogram", 1.0));
    assert!(
        latency.sum.is_some_and(|s| s > 0.0 && s < 5.0),
        "{latency:?}"
    );
    assert_eq!(
        otlp.point("gen_ai.llm.prompt_tokens", &labels)
            .map(|p| p.value),
        Some(42.0)
    );
    assert_eq!(
        otlp.point("gen_ai.llm.completion_tokens", &labels)
            .map(|p| p.value),
        Some(7.0)
    );
    let resource = otlp.resource_attributes();
    assert_eq!(
        resource.get("service.name").map(String::as_str),
        Some("gen-ai")
    );
    assert_eq!(
        resource.get("deployment.environment").map(String::as_str),
        Some("test")
    );
    assert_eq!(resource.get("team").map(String::as_str), Some("news desk"));

    let spans = otlp.spans();
    let server = spans
        .iter()
        .find(|s| s.name == "POST /api/ai/summarize")
        .expect("server span");
    assert_eq!(server.kind, 2);
    assert_eq!(server.trace_id, "0af7651916cd43dd8448eb211c80319c");
    assert_eq!(server.parent_span_id, "b7ad6b7169203331");
    assert_eq!(
        server
            .attributes
            .get("http.response.status_code")
            .map(String::as_str),
        Some("200")
    );
    let chat = spans
        .iter()
        .find(|s| s.name == format!("chat {TEST_MODEL}"))
        .expect("client span");
    assert_eq!((chat.kind, &chat.trace_id), (3, &server.trace_id));
    assert_eq!(chat.parent_span_id, server.span_id);
    assert_eq!(
        chat.attributes
            .get("gen_ai.usage.input_tokens")
            .map(String::as_str),
        Some("42")
    );
    let sent = llm
        .last_call()
        .traceparent
        .expect("traceparent to the model");
    assert!(
        sent.starts_with("00-0af7651916cd43dd8448eb211c80319c-"),
        "{sent}"
    );

    // Without usage, no token counts; a cache hit calls no model and counts nothing.
    llm.reply_with_usage("Explained.", None);
    ok_json(post(&t, &t.url("/api/ai/explain"), &json!({"text": ARTICLE})).await).await;
    let explain = [("endpoint", "explain"), ("provider", "cloud")];
    assert_eq!(
        otlp.point("gen_ai.llm.requests", &explain).map(|p| p.value),
        Some(1.0)
    );
    assert_eq!(otlp.point("gen_ai.llm.prompt_tokens", &explain), None);
    assert_eq!(otlp.point("gen_ai.llm.completion_tokens", &explain), None);
    let (_, cache) =
        ok_json(post(&t, &t.url("/api/ai/summarize"), &json!({"text": ARTICLE})).await).await;
    assert_eq!(cache, "hit");
    assert_eq!(
        otlp.point("gen_ai.llm.requests", &labels).map(|p| p.value),
        Some(1.0)
    );

    // Failures count as errors with their kind, and fail the server span.
    llm.fail(503);
    let failed = post(&t, &t.url("/api/ai/sentiment"), &json!({"text": ARTICLE})).await;
    assert_eq!(failed.status(), 502);
    let errors = otlp
        .point(
            "gen_ai.llm.errors",
            &[
                ("endpoint", "sentiment"),
                ("provider", "cloud"),
                ("error.type", "http_status"),
            ],
        )
        .expect("errors exported");
    assert_eq!(errors.value, 1.0);
    llm.reply("not json at all");
    let unusable = post(&t, &t.url("/api/ai/sentiment"), &json!({"text": ARTICLE})).await;
    assert_eq!(unusable.status(), 502);
    assert_eq!(
        otlp.point(
            "gen_ai.llm.errors",
            &[("endpoint", "sentiment"), ("error.type", "unusable_output")],
        )
        .map(|p| p.value),
        Some(1.0)
    );
    assert!(otlp
        .spans()
        .iter()
        .any(|s| s.name == "POST /api/ai/sentiment" && s.status_code == 2));
    assert_eq!(
        otlp.metric_names(),
        [
            "gen_ai.llm.completion_tokens",
            "gen_ai.llm.errors",
            "gen_ai.llm.latency",
            "gen_ai.llm.prompt_tokens",
            "gen_ai.llm.requests",
        ]
    );
}

#[tokio::test]
async fn a_streamed_answer_exports_its_span_and_metrics_when_the_stream_ends() {
    let llm = FakeLlm::start().await;
    let otlp = OtlpReceiver::start().await;
    let t = stack(&llm, &[("OtelExporterOtlpEndpoint", &otlp.endpoint())]).await;
    llm.reply("The harbour city opened a tidal power station.");
    let gate = llm.hold_last_chunk();
    let url = format!("{}/stream/summarize", function_url(&t));
    let response = post(&t, &url, &json!({"text": ARTICLE})).await;
    assert_eq!(response.status(), 200);
    let streamed = |otlp: &OtlpReceiver| {
        otlp.spans()
            .into_iter()
            .find(|s| s.kind == 2 && s.name.ends_with("/stream/summarize"))
    };
    // The answer is still being written: its span has not ended.
    assert!(streamed(&otlp).is_none(), "{:?}", otlp.spans());
    let hold = Duration::from_millis(400);
    let opener = tokio::spawn(async move {
        tokio::time::sleep(hold).await;
        gate.open();
    });
    let body = response.text().await.unwrap();
    opener.await.unwrap();
    assert!(body.contains("event: done"), "{body}");
    // No other request: the stream's own end exported its span and the model's metrics.
    let span = streamed(&otlp).expect("the stream's server span");
    let lasted = span.end_nanos.saturating_sub(span.start_nanos);
    assert!(
        lasted >= u64::try_from(hold.as_nanos()).unwrap(),
        "the span covers the whole stream: {lasted} ns"
    );
    let requests = otlp
        .points("gen_ai.llm.requests")
        .iter()
        .map(|p| p.value)
        .sum::<f64>();
    assert_eq!(requests, 1.0);
    assert!(!otlp.points("gen_ai.llm.latency").is_empty());
}
