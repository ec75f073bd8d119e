//! The community's community service through the stack: its users, posts and the reason error
//! body every route of it answers in.

use reqwest::Response;
use serde_json::{json, Value};

use crate::stack::INTERNAL_TOKEN;
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

/// Asserts the Reason error body `{timestamp, status, error, message}` (nothing else) and
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
/// The ids of a page's posts, in order.
pub fn page_ids(page: &Value) -> Vec<String> {
    page["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|p| p["id"].as_str().expect("id").to_string())
        .collect()
}

pub fn message(body: &Value) -> &str {
    body["message"].as_str().unwrap_or_default()
}

impl TestStack {
    /// The community index scheduler as this stack configures it: call `handle` with
    /// [`index_schedule_event`] to run it once, as its schedule would.
    pub async fn index_scheduler(&self) -> std::sync::Arc<dyn platform::ScheduleHandler> {
        community_index_scheduler_function::handler(self.env("CommunityIndexSchedulerFunction"))
            .await
            .expect("the index scheduler starts")
    }

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
        self.send(
            self.http
                .patch(self.url(path))
                .bearer_auth(token)
                .json(body),
        )
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

    /// Waits (up to 30 s) until the reaction counter has brought the post to `likes` and
    /// `dislikes`; the post as `token` reads it then.
    pub async fn reactions_counted(
        &self,
        post_id: &str,
        token: Option<&str>,
        likes: i64,
        dislikes: i64,
    ) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let post = self.get_ok(&post_path(post_id), token).await;
            if post["likeCount"] == likes && post["dislikeCount"] == dislikes {
                return post;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "reactions never counted to {likes}/{dislikes}: {post}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }

    /// `PUT` (true) or `DELETE` (false) a bookmark as `token`.
    pub async fn bookmark(&self, post_id: &str, token: &str, on: bool) -> Response {
        let path = bookmark_path(post_id);
        if on {
            self.send(self.http.put(self.url(&path)).bearer_auth(token))
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
        self.send(request).await
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

/// The community's image upload.
pub const UPLOAD_IMAGES: &str = "/api/v1/uploads/images";
/// The boundary of the forms [`form`] writes.
pub const BOUNDARY: &str = "----stack-tests-7MA4YWxkTrZu0gW";

/// One part of a `multipart/form-data` body: field name, file name, declared type, bytes.
pub struct FormPart<'a> {
    pub name: &'a str,
    pub filename: Option<&'a str>,
    pub content_type: Option<&'a str>,
    pub bytes: &'a [u8],
}

impl<'a> FormPart<'a> {
    /// The field `file` holding `bytes`, named and typed as `filename` and `content_type`.
    pub fn file(filename: &'a str, content_type: &'a str, bytes: &'a [u8]) -> Self {
        Self {
            name: "file",
            filename: Some(filename),
            content_type: Some(content_type),
            bytes,
        }
    }
}

/// A `multipart/form-data` body of `parts` with [`BOUNDARY`], as a browser writes it.
pub fn form(parts: &[FormPart<'_>]) -> Vec<u8> {
    let mut body = Vec::new();
    for part in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        let mut disposition = format!("Content-Disposition: form-data; name=\"{}\"", part.name);
        if let Some(filename) = part.filename {
            disposition.push_str(&format!("; filename=\"{filename}\""));
        }
        body.extend_from_slice(disposition.as_bytes());
        body.extend_from_slice(b"\r\n");
        if let Some(content_type) = part.content_type {
            body.extend_from_slice(format!("Content-Type: {content_type}\r\n").as_bytes());
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(part.bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// The content type of a [`form`] body.
pub fn form_content_type() -> String {
    format!("multipart/form-data; boundary={BOUNDARY}")
}

/// A 1×1 PNG.
pub const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc\xf8\x9f\xc6\xf0\x1f\0\x062\x02e3\t\xc2e\0\0\0\0IEND\xaeB`\x82";
/// A 1×1 GIF.
pub const GIF: &[u8] = b"GIF89a\x01\0\x01\0\x80\0\0\xff\xff\xff\0\0\0!\xf9\x04\x01\0\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02D\x01\0;";
/// A 1×1 lossless WebP.
pub const WEBP: &[u8] =
    b"RIFF\x1a\0\0\0WEBPVP8L\r\0\0\0/\0\0\0\x10\x07\x10\x11\x11\x88\x88\xfe\x07\0";
/// The start of a JFIF JPEG through its end marker (what sniffing reads is its first bytes).
pub const JPEG: &[u8] = b"\xff\xd8\xff\xe0\0\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0\xff\xd9";

impl TestStack {
    /// `POST /api/v1/uploads/images` with `body` as a [`form`], with a token when given.
    pub async fn upload(&self, token: Option<&str>, body: Vec<u8>) -> Response {
        let mut request = self
            .http
            .post(self.url(UPLOAD_IMAGES))
            .header("content-type", form_content_type())
            .body(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        self.send(request).await
    }

    /// Uploads one file as `token`, which must answer 201 with a `Location` equal to its
    /// `url`; the url.
    pub async fn upload_ok(&self, token: &str, file: FormPart<'_>) -> String {
        let response = self.upload(Some(token), form(&[file])).await;
        let status = response.status().as_u16();
        let location = header(response.headers(), "location").to_string();
        let body: Value = response.json().await.expect("json");
        assert_eq!(status, 201, "upload: {body}");
        let url = body["url"].as_str().expect("url").to_string();
        assert_eq!(location, url);
        url
    }
}

/// The index scheduler's schedule event, from `events/`.
pub fn index_schedule_event() -> aws_lambda_events::event::eventbridge::EventBridgeEvent<Value> {
    let path = crate::repo_root().join("events/community-index-scheduler/schedule.json");
    let text = std::fs::read_to_string(path).expect("the schedule event");
    serde_json::from_str(&text).expect("a schedule event")
}
