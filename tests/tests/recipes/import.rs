//! Importing recipes from pages (`POST /api/recipes/recipes/import`) through the stack: the
//! corpus (`tests/fixtures/recipe-pages`, pages in the shapes recipe publishers write) served
//! by a loopback site, each page imported and compared with the recipe expected of it, the
//! per-field accuracy printed; the page without structured data read by the fake model; the
//! site's robots.txt obeyed; bad input named.

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use recipes::import::corpus::{self, Case, Score};
use serde_json::{json, Value};
use stack_tests::genai::llm_parameters;
use stack_tests::llm::FakeLlm;
use stack_tests::server::TestServer;
use stack_tests::{assert_news_error, TestStack};

const IMPORT: &str = "/api/recipes/recipes/import";

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/recipe-pages")
}

/// A recipe site on loopback serving the corpus; `/private/` is closed to robots.
async fn site(cases: Arc<Vec<Case>>) -> TestServer {
    let app = Router::new().fallback(move |request: Request<Body>| {
        let cases = Arc::clone(&cases);
        async move {
            let path = request.uri().path().trim_start_matches('/').to_string();
            if path == "robots.txt" {
                return (
                    [(header::CONTENT_TYPE, "text/plain")],
                    "User-agent: *\nDisallow: /private/\n",
                )
                    .into_response();
            }
            let name = path
                .trim_start_matches("private/")
                .trim_end_matches(".html");
            match cases.iter().find(|c| c.name == name) {
                Some(case) => {
                    let content_type = case
                        .content_type
                        .clone()
                        .unwrap_or_else(|| "text/html; charset=utf-8".into());
                    Response::builder()
                        .header(header::CONTENT_TYPE, content_type)
                        .body(Body::from(case.body.clone()))
                        .unwrap_or_default()
                }
                None => StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    TestServer::start(app).await
}

/// What the fake model answers for the corpus's page without structured data.
fn model_answer(expected: &Value) -> String {
    let lines: Vec<&str> = vec![
        "1 kg burgonya",
        "6 db tojás",
        "20 dkg kolbász",
        "4 dl tejföl",
        "1 csipet só",
    ];
    json!({
        "title": expected["title"],
        "ingredients": lines,
        "instructions": expected["instructions"],
        "portions": 4,
        "prepMinutes": null,
        "cookMinutes": null,
        "totalMinutes": 70
    })
    .to_string()
}

#[tokio::test]
async fn the_corpus_imports_with_its_field_accuracy() {
    let cases = Arc::new(corpus::cases(&corpus_dir()).unwrap());
    assert!(cases.len() >= 30, "{} pages", cases.len());
    let site = site(Arc::clone(&cases)).await;
    let llm = FakeLlm::start().await;
    let mut parameters = llm_parameters(&llm);
    // The whole corpus at once: more than the default 10 imports a minute.
    parameters.insert(
        "RecipesImportRateLimitPerUser".into(),
        "100/60,1000/86400".into(),
    );
    let t = TestStack::start_with(parameters).await;
    let token = t.cook("importer").await;
    let base = site.url("");
    let mut score = Score::default();
    for case in cases.iter() {
        let model = case.expected["importedBy"] == "model";
        if model {
            llm.reply(&model_answer(&case.expected));
        }
        let url = site.url(&format!("/{}.html", case.name));
        let response = t.post_json_auth(IMPORT, &token, &json!({"url": url})).await;
        assert_eq!(response.status(), 201, "{}", case.name);
        let recipe: Value = response.json().await.unwrap();
        assert_eq!(recipe["source"]["url"], url, "{}", case.name);
        assert!(recipe["id"].as_i64().is_some_and(|id| id > 0));
        // Stored: the recipe reads back as answered.
        let read: Value = t
            .get_auth(&format!("/api/recipes/recipes/{}", recipe["id"]), &token)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(read["ingredients"], recipe["ingredients"], "{}", case.name);
        score.add(
            &case.name,
            &case.expected,
            &corpus::actual_from_json(&recipe),
            &base,
        );
        if model {
            let call = &llm.calls()[0];
            assert!(
                call.prompt().contains("Rakott krumpli"),
                "the page's text is given"
            );
        }
    }
    println!("{}", score.report());
    for miss in &score.misses {
        println!("miss: {miss}");
    }
    assert!(score.misses.len() <= 3, "{:#?}", score.misses);
}

#[tokio::test]
async fn refusals_name_the_url() {
    let cases = Arc::new(corpus::cases(&corpus_dir()).unwrap());
    let site = site(Arc::clone(&cases)).await;
    let llm = FakeLlm::start().await;
    let t = TestStack::start_with(llm_parameters(&llm)).await;
    let token = t.cook("refused").await;

    let anonymous = t
        .post_json(
            IMPORT,
            &json!({"url": site.url("/01-wprm-yoast-graph.html")}),
        )
        .await;
    assert_eq!(anonymous.status(), 401);
    // A token that is not a person's imports nothing.
    let service = t.service_token().await;
    let forbidden = t
        .post_json_auth(
            IMPORT,
            &service,
            &json!({"url": site.url("/01-wprm-yoast-graph.html")}),
        )
        .await;
    assert_eq!(forbidden.status(), 403);

    for (body, why) in [
        (json!({}), "is required"),
        (json!({"url": ""}), "is required"),
        (json!({"url": "ftp://example.com/r"}), "http or https"),
        (json!({"url": "not a url"}), "valid absolute URL"),
        (
            json!({"url": "https://u:p@example.com/"}),
            "user name or password",
        ),
        (
            json!({"url": site.url("/private/01-wprm-yoast-graph.html")}),
            "robots.txt",
        ),
        (json!({"url": site.url("/missing.html")}), "HTTP status 404"),
    ] {
        let response = t.post_json_auth(IMPORT, &token, &body).await;
        let error = assert_news_error(response, 400, "/recipes/import").await;
        let details = error["details"].to_string();
        assert!(
            details.contains("url") && details.contains(why),
            "{body}: {error}"
        );
    }
    let unknown = t
        .post_json_auth(IMPORT, &token, &json!({"url": site.url("/x"), "extra": 1}))
        .await;
    assert_eq!(unknown.status(), 400);

    // No structured data, and the model finds no recipe either: a 400 naming url, nothing
    // stored.
    llm.reply(r#"{"recipe": null}"#);
    let none = t
        .post_json_auth(
            IMPORT,
            &token,
            &json!({"url": site.url("/18-no-structured-data-model.html")}),
        )
        .await;
    let error = assert_news_error(none, 400, "/recipes/import").await;
    assert!(
        error["details"].to_string().contains("holds no recipe"),
        "{error}"
    );
    let list: Value = t
        .get_auth("/api/recipes/recipes", &token)
        .await
        .json()
        .await
        .unwrap();
    assert!(list.as_array().is_some_and(Vec::is_empty), "{list}");
}
