//! Which pages' browsers may call the function URL (its `Cors`): only the origins the stack
//! names in `AssistantStreamOrigins` (the API's, CloudFront's and custom domains), never any
//! page (`*`), since every call there is a paid model call; with none named the URL has no CORS
//! at all and the web page streams through the HTTP API on its own origin instead.

use reqwest::{Method, Response};
use serde_json::json;
use stack_tests::genai::{function_url, post, stack, ARTICLE};
use stack_tests::llm::FakeLlm;
use stack_tests::stack::{TestStack, STREAM_ORIGIN};
use stack_tests::{header, Call};

const FOREIGN: &str = "https://spends-your-model.example";

/// A browser's preflight for the web client's streamed summary, from a page on `origin`.
async fn preflight(t: &TestStack, origin: &str) -> Response {
    t.http
        .request(
            Method::OPTIONS,
            format!("{}/stream/summarize", function_url(t)),
        )
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization,content-type",
        )
        .call()
        .await
}

/// The CORS headers of an answer, whatever their values.
fn cors_headers(response: &Response) -> Vec<String> {
    response
        .headers()
        .keys()
        .map(|k| k.as_str().to_string())
        .filter(|k| k.starts_with("access-control-"))
        .collect()
}

/// The web page's `<meta name="genai-stream-url">` and its CSP.
async fn page(t: &TestStack) -> (String, String) {
    let response = t.http.get(t.url("/")).call().await;
    assert_eq!(response.status().as_u16(), 200);
    let csp = header(response.headers(), "content-security-policy").to_string();
    (response.text().await.expect("html"), csp)
}

#[tokio::test]
async fn the_function_url_answers_browsers_from_the_named_origins_only() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;

    let named = preflight(&t, STREAM_ORIGIN).await;
    assert_eq!(named.status().as_u16(), 200);
    assert_eq!(
        header(named.headers(), "access-control-allow-origin"),
        STREAM_ORIGIN
    );
    assert_eq!(
        header(named.headers(), "access-control-allow-methods"),
        "POST"
    );
    assert!(header(named.headers(), "access-control-allow-headers").contains("authorization"));

    // Another site's page: the preflight is answered without a single allow header, so its
    // visitor's browser never sends the paid call.
    let foreign = preflight(&t, FOREIGN).await;
    assert_eq!(cors_headers(&foreign), Vec::<String>::new());
    assert_eq!(
        cors_headers(&preflight(&t, "http://news.example").await),
        Vec::<String>::new()
    );

    // The function's own answers: readable by the named origin's page only.
    llm.reply("Tidal power for 40,000 homes.");
    let body = json!({"text": ARTICLE, "length": "short"});
    let url = format!("{}/summarize", function_url(&t));
    let answer = t
        .http
        .post(&url)
        .header("origin", STREAM_ORIGIN)
        .json(&body)
        .call()
        .await;
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(
        header(answer.headers(), "access-control-allow-origin"),
        STREAM_ORIGIN
    );
    assert_eq!(
        header(answer.headers(), "access-control-expose-headers"),
        "x-genai-cache"
    );
    let answer = t
        .http
        .post(&url)
        .header("origin", FOREIGN)
        .json(&body)
        .call()
        .await;
    assert_eq!(cors_headers(&answer), Vec::<String>::new());

    // The page names the function URL, which streams, and may connect to its stream/ path.
    let stream = format!("{}/stream/", function_url(&t));
    let (html, csp) = page(&t).await;
    assert!(
        html.contains(&format!(
            "<meta name=\"genai-stream-url\" content=\"{stream}\">"
        )),
        "{html}"
    );
    assert!(csp.contains(&stream), "{csp}");
}

#[tokio::test]
async fn without_named_origins_the_function_url_has_no_cors_and_the_page_streams_through_the_api() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[("AssistantStreamOrigins", "")]).await;

    for origin in [STREAM_ORIGIN, FOREIGN] {
        let answer = preflight(&t, origin).await;
        assert_eq!(cors_headers(&answer), Vec::<String>::new(), "{origin}");
    }
    let (html, csp) = page(&t).await;
    assert!(!html.contains("genai-stream-url"), "{html}");
    assert!(!csp.contains("lambda-url"), "{csp}");

    // The page's own origin still streams, through the HTTP API.
    llm.reply("Tidal power for 40,000 homes.");
    let streamed = post(
        &t,
        &t.url("/api/ai/stream/summarize"),
        &json!({"text": ARTICLE, "length": "short"}),
    )
    .await;
    assert_eq!(streamed.status().as_u16(), 200);
    assert_eq!(
        header(streamed.headers(), "content-type"),
        "text/event-stream"
    );
    let events = streamed.text().await.expect("events");
    assert!(events.contains("event: done"), "{events}");
}
