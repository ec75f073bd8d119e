//! One request straight through a function's router, without the stack's HTTP server: for
//! environments the stack is not started with, events as Lambda delivers them, and routers
//! a test builds itself.

use axum::body::Body;
use axum::Router;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

/// What a router answered, its body read whole.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
    /// The body as JSON; panics when it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("json body")
    }

    /// The body as JSON, or `Null` when it is not JSON.
    pub fn json_or_null(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// A header's value; empty when absent.
    pub fn header(&self, name: &str) -> &str {
        crate::header(&self.headers, name)
    }
}

/// Sends `request` through `router` and reads the whole answer.
pub async fn send(router: &Router, request: Request<Body>) -> Answer {
    let response = router
        .clone()
        .oneshot(request)
        .await
        .expect("routers are infallible");
    let status = response.status();
    let headers = response.headers().clone();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
        .to_vec();
    Answer {
        status,
        headers,
        body,
    }
}

/// A request with these headers and body.
pub fn request(
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: impl Into<Body>,
) -> Request<Body> {
    let mut request = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(body.into()).expect("request")
}

/// `GET uri`, no headers.
pub async fn get(router: &Router, uri: &str) -> Answer {
    send(router, request("GET", uri, &[], Body::empty())).await
}

/// `method uri` with `body` as `application/json`.
pub async fn json(router: &Router, method: &str, uri: &str, body: &str) -> Answer {
    let headers = [("content-type", "application/json")];
    send(router, request(method, uri, &headers, body.to_string())).await
}

/// `POST uri` with `body` as JSON.
pub async fn post_json(router: &Router, uri: &str, body: &Value) -> Answer {
    json(router, "POST", uri, &body.to_string()).await
}

/// The request an API Gateway v2 event file describes, converted as `lambda_http` converts
/// it on Lambda (and as `cargo lambda invoke --data-file` delivers it).
pub fn from_api_gateway_event(event: &str) -> Request<Body> {
    let request = lambda_http::request::from_str(event).expect("API Gateway v2 event");
    let (parts, body) = request.into_parts();
    Request::from_parts(parts, Body::from(body.to_vec()))
}
