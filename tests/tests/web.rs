//! The web function's router on its own (it needs no AWS): the client's pages and hashed
//! assets with their caching, the committed contract, Swagger UI, and the reserved prefixes
//! answering in the news error shape. Moved from the function crate's unit tests.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use axum::body::Body;
use axum::http::StatusCode;
use stack_tests::contract::{self, CONTRACT_FILE};
use stack_tests::router::{self, Answer};
use web_function::{CLIENT_CSP, SWAGGER_CSP};

/// What hashed assets are served with: they never change under their name.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

async fn call(method: &str, uri: &str, headers: &[(&str, &str)]) -> Answer {
    router::send(
        &web_function::app(),
        router::request(method, uri, headers, Body::empty()),
    )
    .await
}

/// The URL of the first `src="…"` of a page.
fn first_src(html: &str) -> &str {
    html.split("src=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a src attribute")
}

#[tokio::test]
async fn health_is_up() {
    let answer = call("GET", "/actuator/health", &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json(), serde_json::json!({"status": "UP"}));
}

#[tokio::test]
async fn client_pages_deep_link_and_are_revalidated() {
    for path in [
        "/",
        "/articles/abc",
        "/sources/x/y?page=2",
        "/settings",
        "/apis",
        "/healthz",
    ] {
        let answer = call("GET", path, &[]).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert_eq!(answer.header("content-type"), "text/html; charset=utf-8");
        assert_eq!(answer.header("cache-control"), "no-cache");
        assert_eq!(answer.header("content-security-policy"), CLIENT_CSP);
        assert_eq!(answer.header("x-content-type-options"), "nosniff");
        let html = String::from_utf8(answer.body).expect("identity-encoded html");
        assert!(
            html.contains("<script type=\"module\" src=\"/assets/app."),
            "{html}"
        );
        assert!(!html.contains("<script>"), "no inline scripts: {html}");
    }
}

/// Locally the uploads bucket is served by the emulator over plain http: the client's pages
/// allow images from exactly its `images/` path (and recipe photos' `recipes/`) and requests (a presigned upload's PUT) to
/// exactly its `incoming/` path, not every `http:` host; the docs UI keeps its own policy. A
/// base URL that cannot be a CSP source stops the cold start.
#[tokio::test]
async fn client_pages_allow_images_from_exactly_the_uploads_base() {
    let env = platform::Env::new()
        .with("UPLOADS_BUCKET", "local-uploadsbucket")
        .with("UPLOADS_PUBLIC_BASE_URL", "")
        .with("AWS_ENDPOINT_URL", "http://127.0.0.1:4566")
        .with("AWS_REGION", "us-east-1");
    let app = web_function::router(env).await.expect("router");
    let answer = router::send(
        &app,
        router::request("GET", "/community/write", &[], Body::empty()),
    )
    .await;
    let csp = answer.header("content-security-policy");
    assert!(
        csp.contains(
            "img-src 'self' data: https: http://127.0.0.1:4566/local-uploadsbucket/images/ \
             http://127.0.0.1:4566/local-uploadsbucket/recipes/;"
        ),
        "{csp}"
    );
    assert!(
        csp.contains("connect-src 'self' http://127.0.0.1:4566/local-uploadsbucket/incoming/;"),
        "{csp}"
    );
    assert!(
        !csp.split(';')
            .any(|d| d.split_whitespace().any(|s| s == "http:")),
        "{csp}"
    );
    let docs = router::send(
        &app,
        router::request("GET", "/swagger-ui/", &[], Body::empty()),
    )
    .await;
    assert_eq!(docs.header("content-security-policy"), SWAGGER_CSP);

    let cdn = platform::Env::new()
        .with("UPLOADS_BUCKET", "b")
        .with("UPLOADS_PUBLIC_BASE_URL", "https://img.example.com/");
    let app = web_function::router(cdn).await.expect("router");
    let answer = router::send(&app, router::request("GET", "/", &[], Body::empty())).await;
    assert!(answer
        .header("content-security-policy")
        .contains("https: https://img.example.com/images/;"));
    // The CDN serves images; uploads are sent to the bucket itself.
    let cdn = platform::Env::new()
        .with("UPLOADS_BUCKET", "b")
        .with("UPLOADS_PUBLIC_BASE_URL", "https://img.example.com/")
        .with("AWS_REGION", "eu-west-1");
    let app = web_function::router(cdn).await.expect("router");
    let answer = router::send(&app, router::request("GET", "/", &[], Body::empty())).await;
    assert!(answer
        .header("content-security-policy")
        .contains("connect-src 'self' https://b.s3.eu-west-1.amazonaws.com/incoming/;"));

    let bad = platform::Env::new().with("UPLOADS_PUBLIC_BASE_URL", "http://x.example/a;b");
    assert!(web_function::router(bad).await.is_err());
}

/// Deployed, the AI panel streams from the GenAI function URL (the HTTP API buffers): the
/// page names its `stream/` base in a `<meta>` and the CSP lets requests go there; the page
/// then has its own ETag, so a browser's copy from a deployment without it is not reused.
#[tokio::test]
async fn the_page_names_the_genai_stream_url_it_may_connect_to() {
    let url = "https://abc123.lambda-url.eu-west-1.on.aws/";
    let app = web_function::router(platform::Env::new().with("GENAI_FUNCTION_URL", url))
        .await
        .expect("router");
    let meta = "<meta name=\"genai-stream-url\" content=\"https://abc123.lambda-url.eu-west-1.on.aws/stream/\">";
    let plain = router::send(
        &app,
        router::request("GET", "/articles/x", &[], Body::empty()),
    )
    .await;
    assert_eq!(plain.status, StatusCode::OK);
    assert_eq!(plain.header("content-type"), "text/html; charset=utf-8");
    assert!(plain
        .header("content-security-policy")
        .contains("connect-src 'self' https://abc123.lambda-url.eu-west-1.on.aws/stream/;"));
    let html = String::from_utf8(plain.body.clone()).expect("html");
    assert!(html.contains(meta), "{html}");
    assert!(html.find(meta) < html.find("</head>"));

    let gzipped = router::send(
        &app,
        router::request("GET", "/", &[("accept-encoding", "gzip")], Body::empty()),
    )
    .await;
    assert_eq!(gzipped.header("content-encoding"), "gzip");
    let mut inflated = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(gzipped.body.as_slice()),
        &mut inflated,
    )
    .expect("gzip");
    assert_eq!(inflated, html);

    let etag = plain.header("etag").to_string();
    let embedded = call("GET", "/", &[]).await;
    let embedded_etag = embedded.header("etag").to_string();
    assert_ne!(etag, embedded_etag);
    assert!(!String::from_utf8(embedded.body)
        .expect("html")
        .contains("genai-stream-url"));
    let again = router::send(
        &app,
        router::request("GET", "/", &[("if-none-match", &etag)], Body::empty()),
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    let stale = router::send(
        &app,
        router::request(
            "GET",
            "/",
            &[("if-none-match", &embedded_etag)],
            Body::empty(),
        ),
    )
    .await;
    assert_eq!(stale.status, StatusCode::OK);
}

#[tokio::test]
async fn revalidation_answers_304() {
    let etag = call("GET", "/", &[]).await.header("etag").to_string();
    assert!(etag.starts_with("W/\""), "{etag}");
    let answer = call("GET", "/sources", &[("if-none-match", &etag)]).await;
    assert_eq!(answer.status, StatusCode::NOT_MODIFIED);
    assert!(answer.body.is_empty());
    let answer = call("GET", "/", &[("if-none-match", "W/\"other\"")]).await;
    assert_eq!(answer.status, StatusCode::OK);
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_gzip_when_accepted() {
    let html = String::from_utf8(call("GET", "/", &[]).await.body).expect("utf-8");
    let src = first_src(&html);
    let plain = call("GET", src, &[]).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert_eq!(plain.header("cache-control"), IMMUTABLE);
    assert_eq!(
        plain.header("content-type"),
        "text/javascript; charset=utf-8"
    );
    assert!(plain.headers.get("content-encoding").is_none());
    let gz = call("GET", src, &[("accept-encoding", "br, gzip")]).await;
    assert_eq!(gz.header("content-encoding"), "gzip");
    assert_eq!(gz.header("vary"), "Accept-Encoding");
    let mut inflated = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&gz.body[..]),
        &mut inflated,
    )
    .expect("gzip");
    assert_eq!(inflated, plain.body);
    let refused = call("GET", src, &[("accept-encoding", "gzip;q=0")]).await;
    assert!(refused.headers.get("content-encoding").is_none());
}

#[tokio::test]
async fn contract_is_served_as_committed() {
    let answer = call("GET", "/v3/api-docs", &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.header("content-type"), "application/json");
    let committed = std::fs::read(contract::path(CONTRACT_FILE)).expect("the committed contract");
    assert_eq!(answer.body, committed);
}

#[tokio::test]
async fn swagger_ui_redirects_and_serves_its_embedded_files() {
    let answer = call("GET", "/swagger-ui.html", &[]).await;
    assert_eq!(answer.status, StatusCode::FOUND);
    assert_eq!(answer.header("location"), "/swagger-ui/");
    let answer = call("GET", "/swagger-ui/", &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.header("content-security-policy"), SWAGGER_CSP);
    let html = String::from_utf8(answer.body).expect("utf-8");
    let bundle = first_src(&html);
    assert!(
        bundle.starts_with("/swagger-ui/swagger-ui-bundle."),
        "{bundle}"
    );
    let answer = call("GET", bundle, &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.header("cache-control"), IMMUTABLE);
    let answer = call("GET", "/swagger-ui/swagger-initializer.js", &[]).await;
    assert_eq!(
        answer.status,
        StatusCode::NOT_FOUND,
        "only hashed names are served"
    );
    assert_eq!(answer.json()["path"], "/swagger-ui/swagger-initializer.js");
}

#[tokio::test]
async fn reserved_prefixes_answer_404_in_the_news_error_shape() {
    for path in [
        "/api",
        "/api/unknown/thing",
        "/actuator/info",
        "/v3/api-docs/extra",
        "/health",
        "/prometheus",
        "/grafana/d/x",
        "/assets/app.js",
    ] {
        let answer = call("GET", path, &[]).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
        assert!(answer
            .header("content-type")
            .starts_with("application/json"));
        let body = answer.json();
        assert_eq!(body["code"], 404, "{body}");
        assert_eq!(body["path"], path, "{body}");
        assert!(
            body["details"].is_array() && body["timestamp"].is_string(),
            "{body}"
        );
    }
    let answer = call("POST", "/api/unknown", &[]).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.json()["code"], 404);
}

#[tokio::test]
async fn writes_to_client_pages_are_405() {
    let answer = call("POST", "/articles/1", &[]).await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(answer.header("allow"), "GET, HEAD");
    assert_eq!(answer.json()["code"], 405);
    let answer = call("DELETE", "/actuator/health", &[]).await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(answer.json()["path"], "/actuator/health");
}

#[tokio::test]
async fn every_answer_carries_hsts() {
    let html = String::from_utf8(call("GET", "/", &[]).await.body).expect("utf-8");
    let asset = first_src(&html).to_string();
    let etag = call("GET", "/", &[]).await.header("etag").to_string();
    for (method, path, headers, status) in [
        ("GET", "/", vec![], StatusCode::OK),
        (
            "GET",
            "/",
            vec![("if-none-match", etag.as_str())],
            StatusCode::NOT_MODIFIED,
        ),
        ("GET", asset.as_str(), vec![], StatusCode::OK),
        ("GET", "/swagger-ui.html", vec![], StatusCode::FOUND),
        ("GET", "/v3/api-docs", vec![], StatusCode::OK),
        ("GET", "/api/unknown", vec![], StatusCode::NOT_FOUND),
        (
            "POST",
            "/articles/1",
            vec![],
            StatusCode::METHOD_NOT_ALLOWED,
        ),
    ] {
        let answer = call(method, path, &headers).await;
        assert_eq!(answer.status, status, "{method} {path}");
        assert_eq!(
            answer.header("strict-transport-security"),
            "max-age=63072000; includeSubDomains",
            "{method} {path}"
        );
    }
}

/// The client's pure functions in Node (`tests/browser/client.test.mjs`): the `next=` rule and
/// navigation (only paths on the page's origin, never `/\host`, `/<tab>/host` or
/// `/..//host`), the community's topic slugs, error details and page links, a digest's
/// figures and link, the incident pages' timeline URLs, times, moves and analysis text, the
/// roles read from a token and sent from the accounts page, and the recipe list's next page.
#[test]
fn client_follows_next_to_this_origin_only() {
    let dir = stack_tests::repo_root().join("tests").join("browser");
    let output = std::process::Command::new("node")
        .arg("--test")
        .arg("client.test.mjs")
        .current_dir(&dir)
        .output()
        .expect("run node (Node.js 20 or newer is needed)");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "node --test client.test.mjs failed:\n{report}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(report.contains("# pass 24"), "{report}");
}
