//! The error bodies the platform answers, checked the same way by every test.

use reqwest::Response;
use serde_json::Value;

use crate::header;

/// Asserts the the news reader error body and returns it.
pub async fn assert_news_error(response: Response, status: u16, path: &str) -> Value {
    assert_eq!(response.status().as_u16(), status, "status");
    let content_type = header(response.headers(), "content-type").to_string();
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );
    let body: Value = response.json().await.expect("json body");
    assert_eq!(body["code"], status, "{body}");
    assert_eq!(body["path"], path, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    assert!(body["details"].is_array(), "{body}");
    let ts = body["timestamp"].as_str().expect("timestamp");
    assert!(chrono::DateTime::parse_from_rfc3339(ts).is_ok(), "{ts}");
    body
}

/// The `details` entries of an error body.
pub fn details(body: &Value) -> Vec<String> {
    body["details"]
        .as_array()
        .map(|d| {
            d.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
