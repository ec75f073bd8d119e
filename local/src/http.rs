//! The local API Gateway: one listener, every `HttpApi` route of the template.
//!
//! A request is matched against the route table, buffered (API Gateway hands Lambda the whole
//! body, and refuses more than 10 MiB), and passed unchanged to the chosen function's router,
//! which therefore sees exactly the public path, query, headers and body it sees in Lambda.
//! Responses are returned as the function produced them; only API Gateway's own answers
//! (404 without a route, 413, 500 on a crashed handler) use API Gateway's JSON bodies.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};
use futures::FutureExt;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http::StatusCode;
use http_body_util::BodyExt;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tower::ServiceExt;
use tracing::{error, info, warn};

use crate::routes::RouteTable;
use crate::shutdown;

/// API Gateway's payload limit.
pub const MAX_PAYLOAD_BYTES: usize = 10 * 1024 * 1024;
/// An oversized body is still read (and dropped) up to this size before answering 413, so
/// that the client finishes sending and reads the answer instead of a reset connection.
const DRAIN_LIMIT_BYTES: usize = 64 * 1024 * 1024;

enum BodyError {
    TooLarge,
    Read(String),
}

/// The whole body, or `TooLarge` past [`MAX_PAYLOAD_BYTES`] (after draining what is left).
async fn read_body(mut body: Body) -> Result<Bytes, BodyError> {
    let mut buffer = BytesMut::new();
    let mut total = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| BodyError::Read(e.to_string()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        total = total.saturating_add(data.len());
        if total > DRAIN_LIMIT_BYTES {
            return Err(BodyError::TooLarge);
        }
        if total <= MAX_PAYLOAD_BYTES {
            buffer.extend_from_slice(&data);
        }
    }
    if total > MAX_PAYLOAD_BYTES {
        return Err(BodyError::TooLarge);
    }
    Ok(buffer.freeze())
}

/// Routes and the routers of the HTTP functions they name.
pub struct Dispatcher {
    pub routes: RouteTable,
    pub functions: BTreeMap<String, axum::Router>,
}

/// The gateway as an axum app: every request goes through [`dispatch`].
pub fn app(dispatcher: Arc<Dispatcher>) -> axum::Router {
    axum::Router::new()
        .fallback(dispatch)
        .with_state(dispatcher)
}

pub fn serve(listener: TcpListener, app: axum::Router, stop: shutdown::Receiver) -> JoinHandle<()> {
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(shutdown::wait(stop))
            .await
        {
            error!(error = %e, "http server stopped");
        }
    })
}

fn gateway_error(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(CONTENT_TYPE, "application/json")],
        serde_json::json!({ "message": message }).to_string(),
    )
        .into_response()
}

async fn dispatch(State(dispatcher): State<Arc<Dispatcher>>, request: Request) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let target = dispatcher.routes.find(&method, &path).and_then(|route| {
        let router = dispatcher.functions.get(&route.function)?;
        Some((route.function.clone(), router.clone()))
    });
    let (function, response) = match target {
        None => (
            "-".to_string(),
            gateway_error(StatusCode::NOT_FOUND, "Not Found"),
        ),
        Some((function, router)) => {
            let response = forward(router, request).await;
            (function, response)
        }
    };
    let status = response.status().as_u16();
    let latency_ms = started.elapsed().as_millis() as u64;
    info!(%method, %path, %function, status, latency_ms, "request");
    response
}

async fn forward(router: axum::Router, request: Request) -> Response {
    let declared_length = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let (parts, body) = request.into_parts();
    if declared_length.is_some_and(|n| n > DRAIN_LIMIT_BYTES as u64) {
        return gateway_error(StatusCode::PAYLOAD_TOO_LARGE, "Request Entity Too Large");
    }
    let bytes = match read_body(body).await {
        Ok(bytes) => bytes,
        Err(BodyError::TooLarge) => {
            return gateway_error(StatusCode::PAYLOAD_TOO_LARGE, "Request Entity Too Large");
        }
        Err(BodyError::Read(e)) => {
            warn!(error = %e, "could not read the request body");
            return gateway_error(StatusCode::BAD_REQUEST, "Bad Request");
        }
    };

    // A fresh request: what Lambda gets is the HTTP request, not this server's extensions.
    let mut forwarded = Request::new(Body::from(bytes));
    *forwarded.method_mut() = parts.method;
    *forwarded.uri_mut() = parts.uri;
    *forwarded.version_mut() = parts.version;
    *forwarded.headers_mut() = parts.headers;

    match AssertUnwindSafe(router.oneshot(forwarded))
        .catch_unwind()
        .await
    {
        Ok(Ok(response)) => response,
        Ok(Err(never)) => match never {},
        Err(_) => {
            error!("function handler panicked");
            gateway_error(StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::Route;
    use axum::routing::any;

    fn echo(name: &'static str) -> axum::Router {
        axum::Router::new().fallback(any(move |request: Request| async move {
            let uri = request.uri().to_string();
            let method = request.method().to_string();
            let header = request
                .headers()
                .get("x-test")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            let body = request
                .into_body()
                .collect()
                .await
                .map(|b| b.to_bytes().len())
                .unwrap_or(0);
            format!("{name} {method} {uri} {header} {body}")
        }))
    }

    fn gateway(with_default: bool) -> axum::Router {
        let mut routes = vec![
            Route::parse(Some("GET"), Some("/items/{id}"), "Items").expect("route"),
            Route::parse(Some("ANY"), Some("/api/x/{proxy+}"), "Proxy").expect("route"),
            Route::parse(Some("GET"), Some("/boom"), "Boom").expect("route"),
        ];
        if with_default {
            routes.push(Route::parse(None, Some("$default"), "Default").expect("route"));
        }
        let panicking = axum::Router::new().fallback(any(|| async {
            if true {
                panic!("handler bug");
            }
            "unreachable"
        }));
        app(Arc::new(Dispatcher {
            routes: RouteTable::new(routes).expect("table"),
            functions: BTreeMap::from([
                ("Items".to_string(), echo("items")),
                ("Proxy".to_string(), echo("proxy")),
                ("Default".to_string(), echo("default")),
                ("Boom".to_string(), panicking),
            ]),
        }))
    }

    async fn call(app: &axum::Router, method: &str, uri: &str, body: Vec<u8>) -> (u16, String) {
        let request = http::Request::builder()
            .method(method)
            .uri(uri)
            .header("x-test", "kept")
            .body(Body::from(body))
            .expect("request");
        let response = app.clone().oneshot(request).await.expect("infallible");
        let status = response.status().as_u16();
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }

    #[tokio::test]
    async fn forwards_to_the_matching_function_unchanged() {
        let app = gateway(true);
        assert_eq!(
            call(&app, "GET", "/items/42?x=1&y=2", Vec::new()).await,
            (200, "items GET /items/42?x=1&y=2 kept 0".to_string())
        );
        assert_eq!(
            call(&app, "POST", "/api/x/a/b", b"hello".to_vec()).await,
            (200, "proxy POST /api/x/a/b kept 5".to_string())
        );
        assert_eq!(
            call(&app, "POST", "/items/42", Vec::new()).await,
            (200, "default POST /items/42 kept 0".to_string())
        );
        assert_eq!(
            call(&app, "GET", "/api/x", Vec::new()).await.1,
            "default GET /api/x kept 0"
        );
    }

    #[tokio::test]
    async fn gateway_answers_404_413_and_500_itself() {
        let app = gateway(false);
        assert_eq!(
            call(&app, "GET", "/nowhere", Vec::new()).await,
            (404, r#"{"message":"Not Found"}"#.to_string())
        );
        let (status, body) = call(
            &app,
            "POST",
            "/api/x/big",
            vec![b'a'; MAX_PAYLOAD_BYTES + 1],
        )
        .await;
        assert_eq!(
            (status, body.as_str()),
            (413, r#"{"message":"Request Entity Too Large"}"#)
        );
        let (status, _) = call(&app, "POST", "/api/x/fits", vec![b'a'; MAX_PAYLOAD_BYTES]).await;
        assert_eq!(status, 200);
        assert_eq!(
            call(&app, "GET", "/boom", Vec::new()).await,
            (500, r#"{"message":"Internal Server Error"}"#.to_string())
        );
    }
}
