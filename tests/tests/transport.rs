//! HSTS on every answer of every HTTP function of `template.yaml`, through the local stack:
//! each `HttpApi` route and function URL the template declares is asked for a path its
//! function serves and one it does not (the function's own 404), so a function added later
//! without `platform::http::finish` fails here.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use local_stack::template::Template;
use platform::http::STRICT_TRANSPORT_SECURITY;
use stack_tests::{header, repo_root, TestStack};

/// A request path for an `HttpApi` event's `Path`: parameters and `{proxy+}` filled in.
fn probe_path(route: &str, tail: &str) -> String {
    if route == "$default" {
        return format!("/{tail}");
    }
    route
        .split('/')
        .map(|segment| match segment {
            "{proxy+}" => tail.to_string(),
            s if s.starts_with('{') => "probe".to_string(),
            s => s.to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn every_http_answer_carries_hsts() {
    assert_eq!(
        STRICT_TRANSPORT_SECURITY,
        "max-age=63072000; includeSubDomains"
    );
    let template = Template::load(&repo_root().join("template.yaml")).expect("template.yaml");
    let t = TestStack::start().await;
    let client = platform::tls::http_client().build().unwrap();

    let mut urls = Vec::new();
    for function in template.functions().expect("functions") {
        for event in function.events.iter().filter(|e| e.kind == "HttpApi") {
            let route = event
                .properties
                .get("Path")
                .and_then(|p| p.as_str())
                .expect("an HttpApi event has a Path");
            for tail in ["actuator/health", "health", "no-such-route-for-hsts"] {
                urls.push(t.url(&probe_path(route, tail)));
            }
        }
        if function.function_url {
            let base = t.function_url(&function.logical_id);
            urls.push(format!("{base}/health"));
            urls.push(format!("{base}/no-such-route-for-hsts"));
        }
    }
    assert!(urls.len() >= 14, "the template's HTTP functions: {urls:?}");
    // Answers a handler makes itself: a 401, a 400 naming a field, a 405, a 304.
    let login = t.url("/api/users/auth/login");
    let mut answers = vec![
        (
            "GET /api/users/users/me".to_string(),
            client.get(t.url("/api/users/users/me")).send().await,
        ),
        (
            format!("POST {login}"),
            client
                .post(&login)
                .header("content-type", "application/json")
                .body("{}")
                .send()
                .await,
        ),
        (
            "POST /sources".to_string(),
            client.post(t.url("/sources")).send().await,
        ),
    ];
    let page = client
        .get(t.url("/"))
        .send()
        .await
        .expect("the client page");
    let etag = header(page.headers(), "etag").to_string();
    answers.push((
        "GET / (If-None-Match)".to_string(),
        client
            .get(t.url("/"))
            .header("if-none-match", etag)
            .send()
            .await,
    ));
    for url in urls {
        answers.push((format!("GET {url}"), client.get(&url).send().await));
    }

    let mut statuses = std::collections::BTreeSet::new();
    for (what, answer) in answers {
        let answer = answer.unwrap_or_else(|e| panic!("{what}: {e}"));
        statuses.insert(answer.status().as_u16());
        assert_eq!(
            header(answer.headers(), "strict-transport-security"),
            STRICT_TRANSPORT_SECURITY,
            "{what} answered {} without HSTS",
            answer.status()
        );
    }
    for status in [200, 304, 400, 401, 404, 405] {
        assert!(statuses.contains(&status), "no {status} among {statuses:?}");
    }
}
