//! The routes themselves: `/health` and `/docs`, a 400 naming the field of every bad input,
//! the token every route needs, and the 503 of a table that is down.

use serde_json::{json, Value};
use stack_tests::intelligence::{stack, ANALYSES, ANALYZE, HEALTH, LOCAL_MODEL, QUERY};
use stack_tests::llm::{FakeLlm, TEST_MODEL};
use stack_tests::{assert_news_error, header};

#[tokio::test]
async fn health_reports_providers_and_the_index_and_docs_serve_swagger_ui() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let t = stack(&cloud, &local, &[]).await;
    let (_, token) = t.operator("reader").await;
    t.runbook(
        &token,
        "Disk full",
        "Delete rotated logs.\n\nGrow the volume.",
    )
    .await;
    let health = t.get_json(HEALTH).await;
    assert_eq!(health["status"], "ok");
    assert_eq!(health["providers"]["default_mode"], "cloud");
    assert_eq!(
        health["providers"]["cloud"],
        json!({"configured": true, "model": TEST_MODEL})
    );
    assert_eq!(
        health["providers"]["local"],
        json!({"configured": true, "model": LOCAL_MODEL})
    );
    assert_eq!(
        health["embeddings"],
        json!({"configured": false, "model": null})
    );
    assert_eq!(health["index"]["status"], "ok");
    assert_eq!(health["index"]["ranking"], "bm25");
    assert_eq!(health["index"]["documents"], 1);
    assert_eq!(health["index"]["runbook_chunks"], 1);
    assert_eq!(health["index"]["analyses"], 0);
    assert_eq!(
        cloud.call_count() + local.call_count(),
        0,
        "health calls no model"
    );

    let docs = t.get("/docs").await;
    assert_eq!(docs.status(), 303);
    assert_eq!(header(docs.headers(), "location"), "/docs/index.html");
    let page = t.get("/docs/index.html").await;
    assert_eq!(page.status(), 200);
    assert!(header(page.headers(), "content-type").starts_with("text/html"));
    let html = page.text().await.unwrap();
    assert!(html.contains("swagger-ui") && html.contains("Incident intelligence API"));
    for file in [
        "/docs/swagger-ui-bundle.js",
        "/docs/swagger-ui.css",
        "/docs/swagger-initializer.js",
    ] {
        assert_eq!(t.get(file).await.status(), 200, "{file}");
    }
    let doc = t.get_json("/docs/openapi.json").await;
    assert_eq!(doc["servers"][0]["url"], "..");
    for path in [
        ANALYZE,
        QUERY,
        "/api/v1/rag/search",
        "/api/v1/rag/documents",
        HEALTH,
    ] {
        assert!(doc["paths"][path].is_object(), "{path}");
    }
    // The platform's one contract has every intelligence route too.
    let contract = t.get_json("/v3/api-docs").await;
    for (path, method) in [
        (ANALYZE, "post"),
        (QUERY, "post"),
        ("/api/v1/analyses/{log_id}", "delete"),
        (ANALYSES, "delete"),
        ("/api/v1/rag/documents", "get"),
        ("/api/v1/rag/documents", "post"),
        ("/api/v1/rag/documents/{id}", "delete"),
        ("/api/v1/rag/search", "post"),
        (HEALTH, "get"),
        ("/docs", "get"),
    ] {
        assert!(
            contract["paths"][path][method].is_object(),
            "{method} {path}"
        );
    }
}

async fn fields_of(response: reqwest::Response, path: &str) -> Vec<String> {
    let body = assert_news_error(response, 400, path).await;
    stack_tests::details(&body)
        .into_iter()
        .map(|d| d.split(':').next().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test]
async fn every_bad_input_is_a_400_naming_its_field_and_every_route_needs_a_token() {
    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let t = stack(&cloud, &local, &[]).await;
    let (_, token) = t.operator("validator").await;
    let long = |n: usize| "x".repeat(n);
    let log = "1732486400000-5b0f3c1e00004000800000000000000a";
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (ANALYZE, json!({}), vec!["content"]),
        (ANALYZE, json!({"content": "  "}), vec!["content"]),
        (ANALYZE, json!({"content": 7}), vec!["content"]),
        (ANALYZE, json!({"content": long(20_001)}), vec!["content"]),
        (
            ANALYZE,
            json!({"content": "x", "mode": "gpu"}),
            vec!["mode"],
        ),
        (ANALYZE, json!({"content": "x", "mode": true}), vec!["mode"]),
        (
            ANALYZE,
            json!({"content": "x", "use_rag": "yes"}),
            vec!["use_rag"],
        ),
        (
            ANALYZE,
            json!({"content": "x", "log_id": "42"}),
            vec!["log_id"],
        ),
        (
            ANALYZE,
            json!({"content": "x", "log_id": log.to_uppercase()}),
            vec!["log_id"],
        ),
        (
            ANALYZE,
            json!({"content": "", "mode": "x", "use_rag": 1, "log_id": 1}),
            vec!["content", "mode", "use_rag", "log_id"],
        ),
        (ANALYZE, json!([{"content": "x"}]), vec!["body"]),
        (QUERY, json!({"text": ""}), vec!["text"]),
        (QUERY, json!({"text": long(1_001)}), vec!["text"]),
        (QUERY, json!({"log_id": "../etc"}), vec!["log_id"]),
        (
            QUERY,
            json!({"service_name": long(101)}),
            vec!["service_name"],
        ),
        (QUERY, json!({"limit": 0}), vec!["limit"]),
        (QUERY, json!({"limit": 51}), vec!["limit"]),
        (QUERY, json!({"limit": "5"}), vec!["limit"]),
        (
            "/api/v1/rag/documents",
            json!({"content": "c"}),
            vec!["title"],
        ),
        (
            "/api/v1/rag/documents",
            json!({"title": long(201), "content": "c"}),
            vec!["title"],
        ),
        (
            "/api/v1/rag/documents",
            json!({"title": "t", "content": " "}),
            vec!["content"],
        ),
        (
            "/api/v1/rag/documents",
            json!({"title": "t"}),
            vec!["content"],
        ),
        (
            "/api/v1/rag/documents",
            json!({"title": "t", "content": "c", "tags": "ops"}),
            vec!["tags"],
        ),
        (
            "/api/v1/rag/documents",
            json!({"title": "t", "content": "c", "tags": ["ok", "", long(51)]}),
            vec!["tags[1]", "tags[2]"],
        ),
        (
            "/api/v1/rag/documents",
            json!({"title": "t", "content": "c", "tags": (0..21).map(|i| format!("t{i}")).collect::<Vec<_>>()}),
            vec!["tags"],
        ),
        ("/api/v1/rag/search", json!({}), vec!["query"]),
        (
            "/api/v1/rag/search",
            json!({"query": long(1_001)}),
            vec!["query"],
        ),
        (
            "/api/v1/rag/search",
            json!({"query": "q", "top_k": 0}),
            vec!["top_k"],
        ),
        (
            "/api/v1/rag/search",
            json!({"query": "q", "top_k": 21}),
            vec!["top_k"],
        ),
        (
            "/api/v1/rag/search",
            json!({"query": "q", "top_k": 1.5}),
            vec!["top_k"],
        ),
    ];
    for (path, body, fields) in cases {
        let got = fields_of(t.post_json_auth(path, &token, &body).await, path).await;
        assert_eq!(got, fields, "{path} {body}");
    }
    let documents = "/api/v1/rag/documents";
    for query in ["limit=0", "limit=101", "limit=ten", "cursor=nope"] {
        let path = format!("{documents}?{query}");
        let field = query.split('=').next().unwrap();
        assert_eq!(
            fields_of(t.get_auth(&path, &token).await, documents).await,
            [field],
            "{query}"
        );
    }
    // Not JSON, and too large.
    let r = t.post_raw(ANALYZE, "application/xml", "<a/>").await;
    assert_eq!(r.status(), 401, "the token is checked first");
    let r = t
        .http
        .post(t.url(ANALYZE))
        .bearer_auth(&token)
        .header("content-type", "application/xml")
        .body("<a/>")
        .send()
        .await
        .unwrap();
    assert_news_error(r, 415, ANALYZE).await;
    let r = t
        .post_json_auth(ANALYZE, &token, &json!({"content": long(3 * 1024 * 1024)}))
        .await;
    assert_news_error(r, 413, ANALYZE).await;
    assert_eq!(
        cloud.call_count() + local.call_count(),
        0,
        "no bad input reached a model"
    );

    // Every route but /health and /docs: 401 without a token, or with a bad one.
    let routes = [
        ("POST", ANALYZE),
        ("POST", QUERY),
        (
            "DELETE",
            "/api/v1/analyses/1732486400000-5b0f3c1e00004000800000000000000a",
        ),
        ("DELETE", ANALYSES),
        ("POST", "/api/v1/rag/documents"),
        ("GET", "/api/v1/rag/documents"),
        (
            "DELETE",
            "/api/v1/rag/documents/5b0f3c1e-0000-4000-8000-00000000000a",
        ),
        ("POST", "/api/v1/rag/search"),
    ];
    for (method, path) in routes {
        for auth in [None, Some("not-a-jwt")] {
            let mut request = t
                .http
                .request(method.parse().unwrap(), t.url(path))
                .json(&json!({"content": "x", "title": "t", "query": "q"}));
            if let Some(bad) = auth {
                request = request.bearer_auth(bad);
            }
            let r = request.send().await.unwrap();
            assert_news_error(r, 401, path).await;
        }
    }
    assert_eq!(t.get(HEALTH).await.status(), 200);
    assert_eq!(t.get("/docs/openapi.json").await.status(), 200);

    // A method a path does not serve is a 405 naming the ones it does.
    for (method, path, allowed) in [
        ("GET", ANALYZE, "POST"),
        ("PUT", QUERY, "POST"),
        ("PATCH", ANALYSES, "DELETE"),
        ("TRACE", HEALTH, "GET"),
        ("POST", "/docs", "GET"),
    ] {
        let r = t
            .http
            .request(method.parse().unwrap(), t.url(path))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        let allow = header(r.headers(), "allow").to_string();
        assert_news_error(r, 405, path).await;
        assert!(allow.contains(allowed), "{method} {path}: Allow {allow}");
    }
}

#[tokio::test]
async fn every_route_answers_503_when_its_table_is_down_and_no_model_is_asked() {
    use axum::body::Body;
    use stack_tests::router;

    let (cloud, local) = (FakeLlm::start().await, FakeLlm::start().await);
    let t = stack(&cloud, &local, &[]).await;
    let token = t.admin_token().await;
    let dead = format!("http://127.0.0.1:{}", stack_tests::server::closed_port());
    let app = incidents_intelligence_function::router(
        t.env("IncidentsIntelligenceFunction")
            .with("AWS_ENDPOINT_URL", dead),
    )
    .await
    .expect("router");
    let bearer = format!("Bearer {token}");
    let headers = [
        ("content-type", "application/json"),
        ("authorization", bearer.as_str()),
    ];
    let document = "5b0f3c1e-0000-4000-8000-00000000000a";
    for (method, path, body) in [
        (
            "POST",
            ANALYZE,
            r#"{"content": "ERROR x", "use_rag": true}"#,
        ),
        (
            "POST",
            ANALYZE,
            r#"{"content": "ERROR x", "log_id": "1732486400000-5b0f3c1e00004000800000000000000a"}"#,
        ),
        ("POST", QUERY, "{}"),
        ("POST", QUERY, r#"{"text": "disk"}"#),
        (
            "DELETE",
            "/api/v1/analyses/1732486400000-5b0f3c1e00004000800000000000000a",
            "",
        ),
        ("DELETE", ANALYSES, ""),
        (
            "POST",
            "/api/v1/rag/documents",
            r#"{"title": "t", "content": "c"}"#,
        ),
        ("GET", "/api/v1/rag/documents", ""),
        ("DELETE", &format!("/api/v1/rag/documents/{document}"), ""),
        ("POST", "/api/v1/rag/search", r#"{"query": "disk"}"#),
    ] {
        let answer = router::send(
            &app,
            router::request(method, path, &headers, Body::from(body.to_string())),
        )
        .await;
        assert_eq!(answer.status, 503, "{method} {path}: {}", answer.text());
        let error = answer.json();
        assert_eq!(
            (&error["code"], &error["path"]),
            (&json!(503), &json!(path))
        );
    }
    let health = router::get(&app, HEALTH).await;
    assert_eq!(health.status, 503);
    assert_eq!(health.json()["status"], "unavailable");
    assert_eq!(health.json()["index"]["status"], "unavailable");
    assert_eq!(cloud.call_count() + local.call_count(), 0);
}
