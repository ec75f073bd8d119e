//! The community's news digests through the local stack: generation for followers and
//! non-followers, skip and force, stories reported by several sources grouped into one event,
//! visibility, the deprecated persist, the item size bound, the job lifecycle through the
//! digest queue and worker, and the daily schedule. The news is stored in the content table
//! and read by the digests through the content API; the model is the tests' fake.

mod generation;
mod jobs;
mod stored;

use news::model::TopicRef;
use news::store::{NewArticle, NewSource};
use serde_json::{json, Value};
use stack_tests::content::content_store;
use stack_tests::genai::llm_parameters;
use stack_tests::llm::FakeLlm;
use stack_tests::stack::{Call, INTERNAL_TOKEN};
use stack_tests::TestStack;

/// The day the tests' news is published on.
const DAY: &str = "2025-09-01";

async fn stack(llm: &FakeLlm) -> TestStack {
    TestStack::start_with(llm_parameters(llm)).await
}

/// Stores a source and its articles `(id, title, topic, published_at)` in the content table.
async fn news(t: &TestStack, source: &str, articles: &[(&str, &str, &str, &str)]) {
    let store = content_store(t).await;
    store
        .create_source(NewSource {
            id: source.into(),
            url: format!("http://127.0.0.1/{source}.xml"),
            title: format!("{source} News"),
            site_url: None,
            description: None,
        })
        .await
        .expect("source");
    for (id, title, topic, at) in articles {
        store
            .upsert_article(&NewArticle {
                id: (*id).into(),
                source_id: source.into(),
                source_title: format!("{source} News"),
                title: (*title).into(),
                link: Some(format!("https://{source}.example.com/{id}")),
                author: None,
                published_at: (*at).into(),
                summary: Some(format!("What {source} says about {title}.")),
                paragraphs: vec!["Body.".into()],
                topics: vec![TopicRef {
                    id: (*topic).into(),
                    name: capitalised(topic),
                }],
                image_url: None,
            })
            .await
            .expect("article");
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The day's news: one story reported by two sources in other words (energy), one by one source (weather),
/// and stories of the days around it.
async fn the_days_news(t: &TestStack) {
    news(
        t,
        "harbour",
        &[
            (
                "h1",
                "Harbour city opens its first tidal power station",
                "energy",
                "2025-09-01T08:00:00.000Z",
            ),
            (
                "h2",
                "Storm closes the coast road",
                "weather",
                "2025-09-01T12:00:00.000Z",
            ),
            (
                "h0",
                "Yesterday's energy prices",
                "energy",
                "2025-08-31T23:59:00.000Z",
            ),
            (
                "h3",
                "Tomorrow's energy prices",
                "energy",
                "2025-09-02T00:00:00.000Z",
            ),
        ],
    )
    .await;
    news(
        t,
        "coast",
        &[(
            "c1",
            "Tidal power station switched on in Harbour City",
            "energy",
            "2025-09-01T09:30:00.000Z",
        )],
    )
    .await;
}

const ANSWER: &str = r#"{"subtitle": "Tides and storms", "summary": "The harbour goes tidal while a storm closes the road.",
 "events": [{"index": 1, "headline": "Harbour switches on tidal power", "summaryBullets": ["The station powers 40,000 homes.", "It opened on Monday."]},
            {"index": 2, "headline": "Storm shuts the coast road", "summaryBullets": ["Drivers are diverted inland."]}]}"#;

async fn follow(t: &TestStack, token: &str, topics: Value) {
    let r = t
        .put_json_auth(
            "/api/users/users/me/settings",
            token,
            &json!({ "followedTopics": topics }),
        )
        .await;
    assert_eq!(r.status(), 200);
}

fn generate_path(user: &str, query: &str) -> String {
    format!("/api/v1/internal/digests/generate/users/{user}?{query}")
}

async fn generate(t: &TestStack, user: &str, query: &str) -> reqwest::Response {
    t.http
        .post(t.url(&generate_path(user, query)))
        .header("x-internal-service-token", INTERNAL_TOKEN)
        .call()
        .await
}

async fn generate_ok(t: &TestStack, user: &str, query: &str) -> Value {
    let r = generate(t, user, query).await;
    let status = r.status().as_u16();
    let body: Value = r.json().await.expect("json");
    assert_eq!(status, 200, "{body}");
    body
}

async fn get_digest(t: &TestStack, id: &str, token: Option<&str>) -> reqwest::Response {
    let mut request = t.http.get(t.url(&format!("/api/v1/digests/{id}")));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.call().await
}

async fn persist(t: &TestStack, body: &Value, token: Option<&str>) -> reqwest::Response {
    let mut request = t.http.post(t.url("/api/v1/internal/digests")).json(body);
    if let Some(token) = token {
        request = request.header("x-internal-service-token", token);
    }
    request.call().await
}

fn event(headline: &str) -> Value {
    json!({"headline": headline, "summaryBullets": ["One."], "topicIds": [],
           "sources": [{"sourceName": "Harbour News", "provider": "news.example.com",
                        "publishedAt": "2025-09-01T08:00:00Z", "title": headline}]})
}

async fn admin_generate(t: &TestStack, user: &str, query: &str, token: &str) -> reqwest::Response {
    t.http
        .post(t.url(&format!(
            "/api/v1/admin/digests/generate/users/{user}?{query}"
        )))
        .bearer_auth(token)
        .call()
        .await
}
