//! Document B's community service through the stack: its users, posts and the reason error
//! body every route of it answers in.

use reqwest::Response;
use serde_json::{json, Value};

use crate::stack::{Call, INTERNAL_TOKEN};
use crate::{header, TestStack};

pub const POSTS: &str = "/api/v1/posts";
pub const TOPICS: &str = "/api/v1/topics";
pub const FOLLOWER_DELTAS: &str = "/api/v1/internal/topics/follower-deltas";

/// A post's path.
pub fn post_path(id: &str) -> String {
    format!("{POSTS}/{id}")
}

/// A post's reaction path.
pub fn reaction_path(post_id: &str) -> String {
    format!("{POSTS}/{post_id}/reaction")
}

/// A post's bookmark path.
pub fn bookmark_path(post_id: &str) -> String {
    format!("{POSTS}/{post_id}/bookmark")
}

/// A valid post input with these topics (published, as the default).
pub fn post_input(title: &str, topics: &[&str]) -> Value {
    json!({
        "title": title,
        "content": format!("{title}: some words about it, enough to read."),
        "topics": topics,
    })
}

/// Asserts Document B's error body `{timestamp, status, error, message}` (nothing else) and
/// returns it.
pub async fn assert_reason_error(response: Response, status: u16) -> Value {
    assert_eq!(response.status().as_u16(), status, "status");
    let content_type = header(response.headers(), "content-type").to_string();
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );
    let body: Value = response.json().await.expect("json body");
    let keys: Vec<&String> = body.as_object().expect("an object").keys().collect();
    assert_eq!(keys.len(), 4, "{body}");
    assert_eq!(body["status"], status, "{body}");
    let reason = http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Error");
    assert_eq!(body["error"], reason, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    let ts = body["timestamp"].as_str().expect("timestamp");
    assert!(chrono::DateTime::parse_from_rfc3339(ts).is_ok(), "{ts}");
    body
}

/// The message of a reason body.
pub fn message(body: &Value) -> &str {
    body["message"].as_str().unwrap_or_default()
}

impl TestStack {
    /// A registered user: (id, token).
    pub async fn member(&self, username: &str) -> (String, String) {
        let (profile, token) = self.user(username).await;
        (profile["id"].as_str().expect("id").to_string(), token)
    }

    /// `POST /api/v1/posts` as `token`, which must answer 201; the post.
    pub async fn create_post(&self, token: &str, input: &Value) -> Value {
        let response = self.post_json_auth(POSTS, token, input).await;
        let status = response.status().as_u16();
        let body: Value = response.json().await.expect("json");
        assert_eq!(status, 201, "create post: {body}");
        body
    }

    pub async fn patch_json_auth(&self, path: &str, token: &str, body: &Value) -> Response {
        self.http
            .patch(self.url(path))
            .bearer_auth(token)
            .json(body)
            .call()
            .await
    }

    /// `GET path`, with a token when given.
    pub async fn get_maybe_auth(&self, path: &str, token: Option<&str>) -> Response {
        match token {
            Some(token) => self.get_auth(path, token).await,
            None => self.get(path).await,
        }
    }

    /// `GET path` (with a token when given), which must answer 200; its JSON body.
    pub async fn get_ok(&self, path: &str, token: Option<&str>) -> Value {
        let response = self.get_maybe_auth(path, token).await;
        let status = response.status().as_u16();
        let body: Value = response.json().await.expect("json");
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    /// `PUT` a reaction `{type}` to a post as `token`.
    pub async fn react(&self, post_id: &str, token: &str, kind: &str) -> Response {
        self.put_json_auth(&reaction_path(post_id), token, &json!({ "type": kind }))
            .await
    }

    /// `PUT` a reaction, which must answer 200; the reaction result.
    pub async fn react_ok(&self, post_id: &str, token: &str, kind: &str) -> Value {
        let response = self.react(post_id, token, kind).await;
        let status = response.status().as_u16();
        let body: Value = response.json().await.expect("json");
        assert_eq!(status, 200, "react {kind}: {body}");
        body
    }

    /// `PUT` (true) or `DELETE` (false) a bookmark as `token`.
    pub async fn bookmark(&self, post_id: &str, token: &str, on: bool) -> Response {
        let path = bookmark_path(post_id);
        if on {
            self.http
                .put(self.url(&path))
                .bearer_auth(token)
                .call()
                .await
        } else {
            self.delete_auth(&path, token).await
        }
    }

    /// `POST` follower deltas with the internal token and, when given, an idempotency key.
    pub async fn follower_deltas(&self, deltas: &Value, key: Option<&str>) -> Response {
        let mut request = self
            .http
            .post(self.url(FOLLOWER_DELTAS))
            .header("x-internal-service-token", INTERNAL_TOKEN)
            .json(&json!({ "deltas": deltas }));
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        request.call().await
    }

    /// Every topic with its statistics, by slug.
    pub async fn topic_stats(&self) -> Vec<Value> {
        self.get_ok(&format!("{TOPICS}/stats"), None)
            .await
            .as_array()
            .expect("an array")
            .clone()
    }

    /// The topic with this slug in the flat list.
    pub async fn topic(&self, slug: &str) -> Option<Value> {
        self.topic_stats()
            .await
            .into_iter()
            .find(|t| t["slug"] == slug)
    }
}
