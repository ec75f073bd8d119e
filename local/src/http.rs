//! The local API Gateway: one listener, every `HttpApi` route of the template.
//!
//! A request is matched against the route table, buffered (API Gateway hands Lambda the whole
//! body, and refuses more than 10 MiB), and passed unchanged to the chosen function's router,
//! which therefore sees exactly the public path, query, headers and body it sees in Lambda.
//! Responses are returned as the function produced them; only API Gateway's own answers
//! (404 without a route, 413, 500 on a crashed handler) use API Gateway's JSON bodies.
//!
//! Functions with a `FunctionUrlConfig` are also reachable on their "own URL", which locally is
//! the path prefix `/lambda-url/{binary}` on the same listener (as `cargo lambda watch` serves
//! function URLs): the prefix is stripped, so the function sees the path it sees in Lambda.
//!
//! Each forwarded request carries the request context Lambda gives the function
//! (`lambda_http::request::RequestContext`): the client's address as `http.sourceIp`, and the
//! domain it called, a function URL's being `<binary>.lambda-url.local.on.aws` as AWS's are
//! `<id>.lambda-url.<region>.on.aws`. The address is the socket peer's; when the peer is on
//! loopback (a proxy on this machine, or the tests), the last address of its
//! `X-Forwarded-For` (the one that proxy added) stands for the client. Deployed, API Gateway
//! sets `sourceIp` itself and no header can change it.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};

use crate::cors::UrlCors;
use futures::FutureExt;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http::StatusCode;
use http_body_util::BodyExt;
use lambda_http::aws_lambda_events::apigw::ApiGatewayV2httpRequestContext;
use lambda_http::request::RequestContext;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tower::ServiceExt;
use tracing::{error, info, warn};

use crate::invoke;
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

/// Where function URLs live on the local listener, as `cargo lambda watch` serves them:
/// `/lambda-url/{binary}/rest` reaches that function as `/rest`.
pub const FUNCTION_URL_PREFIX: &str = "/lambda-url/";

/// Routes and the routers of the HTTP functions they name.
pub struct Dispatcher {
    pub routes: RouteTable,
    pub functions: BTreeMap<String, axum::Router>,
    /// Functions with a `FunctionUrlConfig`: binary name → logical id.
    pub function_urls: BTreeMap<String, String>,
    /// Their `Cors`, by binary name.
    pub function_url_cors: BTreeMap<String, UrlCors>,
}

/// A request to a function URL: which function, the prefix it is served under locally, and
/// the path the function itself sees.
struct FunctionUrlRequest<'a> {
    function: &'a str,
    prefix: String,
    own_path: &'a str,
}

impl Dispatcher {
    /// The function a `/lambda-url/{binary}/...` path names, and the path it sees.
    fn function_url<'a>(&'a self, path: &'a str) -> Option<FunctionUrlRequest<'a>> {
        let rest = path.strip_prefix(FUNCTION_URL_PREFIX)?;
        let (binary, own_path) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, "/"),
        };
        let function = self.function_urls.get(binary)?;
        Some(FunctionUrlRequest {
            function,
            prefix: format!("{FUNCTION_URL_PREFIX}{binary}"),
            own_path,
        })
    }
}

/// The gateway as an axum app: every request goes through [`dispatch`].
pub fn app(dispatcher: Arc<Dispatcher>) -> axum::Router {
    axum::Router::new()
        .fallback(dispatch)
        .with_state(dispatcher)
}

pub fn serve(listener: TcpListener, app: axum::Router, stop: shutdown::Receiver) -> JoinHandle<()> {
    tokio::spawn(async move {
        let app = app.into_make_service_with_connect_info::<SocketAddr>();
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
    let source_ip = source_ip(&request);
    let (function, response) = match dispatcher.function_url(&path) {
        Some(url) => {
            let response = match dispatcher.functions.get(url.function) {
                Some(router) => {
                    let own_path = url.own_path.to_string();
                    let binary = url.prefix.trim_start_matches(FUNCTION_URL_PREFIX);
                    let cors = dispatcher.function_url_cors.get(binary);
                    let preflight =
                        cors.and_then(|c| c.preflight(request.method(), request.headers()));
                    match preflight {
                        Some(answer) => answer,
                        None => {
                            let headers = request.headers().clone();
                            let context = request_context(
                                &format!("{binary}.lambda-url.local.on.aws"),
                                &source_ip,
                            );
                            let mut response = forward_to_url(
                                router.clone(),
                                request,
                                own_path,
                                &url.prefix,
                                context,
                            )
                            .await;
                            if let Some(cors) = cors {
                                cors.decorate(&headers, &mut response);
                            }
                            response
                        }
                    }
                }
                None => gateway_error(StatusCode::NOT_FOUND, "Not Found"),
            };
            (format!("{} (function URL)", url.function), response)
        }
        None => {
            let target = dispatcher.routes.find(&method, &path).and_then(|route| {
                let router = dispatcher.functions.get(&route.function)?;
                Some((route.function.clone(), router.clone()))
            });
            match target {
                None => (
                    "-".to_string(),
                    gateway_error(StatusCode::NOT_FOUND, "Not Found"),
                ),
                Some((function, router)) => {
                    let host = request
                        .headers()
                        .get(http::header::HOST)
                        .and_then(|h| h.to_str().ok())
                        .unwrap_or("localhost")
                        .to_string();
                    let context = request_context(&host, &source_ip);
                    (function, forward(router, request, context).await)
                }
            }
        }
    };
    let status = response.status().as_u16();
    let latency_ms = invoke::elapsed_ms(started);
    info!(%method, %path, %function, status, latency_ms, "request");
    response
}

/// A function URL request: the function sees its own path (no `/lambda-url/{binary}`), and
/// a redirect to one of its own absolute paths is sent back under the prefix.
async fn forward_to_url(
    router: axum::Router,
    request: Request,
    own_path: String,
    prefix: &str,
    context: RequestContext,
) -> Response {
    let (mut parts, body) = request.into_parts();
    let path_and_query = match parts.uri.query() {
        Some(query) => format!("{own_path}?{query}"),
        None => own_path,
    };
    match http::Uri::builder().path_and_query(path_and_query).build() {
        Ok(uri) => parts.uri = uri,
        Err(_) => return gateway_error(StatusCode::BAD_REQUEST, "Bad Request"),
    }
    let mut response = forward(router, Request::from_parts(parts, body), context).await;
    let relocated = response
        .headers()
        .get(http::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .filter(|l| l.starts_with('/') && !l.starts_with("//"))
        .and_then(|l| http::HeaderValue::from_str(&format!("{prefix}{l}")).ok());
    if let Some(location) = relocated {
        response
            .headers_mut()
            .insert(http::header::LOCATION, location);
    }
    response
}

/// The client's address: the socket peer, or, from a loopback peer, the last address of its
/// `X-Forwarded-For`. Requests built without a socket (unit tests) come from loopback.
fn source_ip(request: &Request) -> String {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([127, 0, 0, 1]), |info| info.0.ip());
    let forwarded = || {
        request
            .headers()
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|ip| ip.trim().parse::<IpAddr>().ok())
            .next_back()
    };
    let client = if peer.is_loopback() {
        forwarded().unwrap_or(peer)
    } else {
        peer
    };
    client.to_string()
}

/// What Lambda tells a function about an HTTP API or function URL request (the parts the
/// platform reads).
fn request_context(domain_name: &str, source_ip: &str) -> RequestContext {
    let mut context = ApiGatewayV2httpRequestContext::default();
    context.stage = Some("$default".to_string());
    context.domain_name = Some(domain_name.to_string());
    context.http.source_ip = Some(source_ip.to_string());
    RequestContext::ApiGatewayV2(context)
}

async fn forward(router: axum::Router, request: Request, context: RequestContext) -> Response {
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
    forwarded.extensions_mut().insert(context);

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
        let to_docs = || async { axum::response::Redirect::to("/docs/") };
        let redirecting = axum::Router::new()
            .route("/docs", axum::routing::get(to_docs))
            .route("/", axum::routing::get(to_docs));
        app(Arc::new(Dispatcher {
            routes: RouteTable::new(routes).expect("table"),
            functions: BTreeMap::from([
                ("Items".to_string(), echo("items")),
                ("Proxy".to_string(), echo("proxy")),
                ("Default".to_string(), echo("default")),
                ("Boom".to_string(), panicking),
                ("Redirecting".to_string(), redirecting),
            ]),
            function_urls: BTreeMap::from([
                ("items-bin".to_string(), "Items".to_string()),
                ("redirecting-bin".to_string(), "Redirecting".to_string()),
            ]),
            function_url_cors: BTreeMap::from([(
                "items-bin".to_string(),
                UrlCors {
                    allow_origins: vec!["*".into()],
                    allow_methods: vec!["POST".into()],
                    allow_headers: vec!["content-type".into()],
                    ..UrlCors::default()
                },
            )]),
        }))
    }

    /// A function URL's `Cors` is Lambda's: a preflight never reaches the function, and the
    /// function's answer to a cross-origin call carries the allow headers.
    #[tokio::test]
    async fn function_url_cors_answers_preflights_itself() {
        let app = gateway(false);
        let preflight = http::Request::builder()
            .method("OPTIONS")
            .uri("/lambda-url/items-bin/stream/x")
            .header("origin", "https://web.example")
            .header("access-control-request-method", "POST")
            .body(Body::empty())
            .expect("request");
        let answer = app.clone().oneshot(preflight).await.expect("answer");
        assert_eq!(answer.status(), StatusCode::OK);
        assert_eq!(
            answer.headers()["access-control-allow-origin"],
            "https://web.example"
        );
        let body = answer.into_body().collect().await.expect("body").to_bytes();
        assert!(body.is_empty(), "the function was not called");

        let call = http::Request::builder()
            .method("POST")
            .uri("/lambda-url/items-bin/x")
            .header("origin", "https://web.example")
            .body(Body::empty())
            .expect("request");
        let answer = app.clone().oneshot(call).await.expect("answer");
        assert_eq!(
            answer.headers()["access-control-allow-origin"],
            "https://web.example"
        );
        let body = answer.into_body().collect().await.expect("body").to_bytes();
        assert!(
            String::from_utf8_lossy(&body).starts_with("items"),
            "the function answered"
        );
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
    async fn function_urls_reach_their_function_without_the_prefix() {
        let app = gateway(false);
        assert_eq!(
            call(
                &app,
                "POST",
                "/lambda-url/items-bin/summarize?x=1",
                b"ab".to_vec()
            )
            .await,
            (200, "items POST /summarize?x=1 kept 2".to_string())
        );
        assert_eq!(
            call(&app, "GET", "/lambda-url/items-bin", Vec::new())
                .await
                .1,
            "items GET / kept 0"
        );
        assert_eq!(
            call(&app, "GET", "/lambda-url/items-bin/", Vec::new())
                .await
                .1,
            "items GET / kept 0"
        );
        // Functions without a function URL, and unknown binaries, are not reachable so.
        assert_eq!(
            call(&app, "GET", "/lambda-url/proxy-bin/x", Vec::new())
                .await
                .0,
            404
        );
        // A redirect to the function's own path comes back under its prefix, also when the
        // URL was given without a trailing slash.
        for uri in [
            "/lambda-url/redirecting-bin/docs",
            "/lambda-url/redirecting-bin",
        ] {
            let request = http::Request::builder()
                .uri(uri)
                .body(Body::empty())
                .expect("request");
            let response = app.clone().oneshot(request).await.expect("infallible");
            assert_eq!(
                response
                    .headers()
                    .get("location")
                    .and_then(|v| v.to_str().ok()),
                Some("/lambda-url/redirecting-bin/docs/"),
                "{uri}"
            );
        }
    }

    /// A function answering what its request context says: the domain and the client address.
    fn context_echo() -> axum::Router {
        axum::Router::new().fallback(any(|request: Request| async move {
            match request.extensions().get::<RequestContext>() {
                Some(RequestContext::ApiGatewayV2(c)) => format!(
                    "{} {}",
                    c.domain_name.clone().unwrap_or_default(),
                    c.http.source_ip.clone().unwrap_or_default()
                ),
                _ => "no context".to_string(),
            }
        }))
    }

    #[tokio::test]
    async fn functions_get_the_request_context_lambda_gives_them() {
        let routes =
            vec![Route::parse(Some("ANY"), Some("/api/x/{proxy+}"), "Ctx").expect("route")];
        let app = app(Arc::new(Dispatcher {
            routes: RouteTable::new(routes).expect("table"),
            functions: BTreeMap::from([("Ctx".to_string(), context_echo())]),
            function_urls: BTreeMap::from([("ctx-bin".to_string(), "Ctx".to_string())]),
            function_url_cors: BTreeMap::new(),
        }));
        let send = |uri: &str, peer: [u8; 4], forwarded: Option<&str>| {
            let mut request = http::Request::builder()
                .uri(uri)
                .header("host", "127.0.0.1:8080");
            if let Some(f) = forwarded {
                request = request.header("x-forwarded-for", f);
            }
            let mut request = request.body(Body::empty()).expect("request");
            request
                .extensions_mut()
                .insert(ConnectInfo(SocketAddr::from((peer, 50_000))));
            let app = app.clone();
            async move {
                let response = app.oneshot(request).await.expect("infallible");
                let bytes = response
                    .into_body()
                    .collect()
                    .await
                    .expect("body")
                    .to_bytes();
                String::from_utf8_lossy(&bytes).into_owned()
            }
        };
        assert_eq!(
            send("/api/x/a", [127, 0, 0, 1], None).await,
            "127.0.0.1:8080 127.0.0.1"
        );
        // A loopback peer is a proxy on this machine: the address it added is the client.
        assert_eq!(
            send("/api/x/a", [127, 0, 0, 1], Some("10.9.9.9, 203.0.113.7")).await,
            "127.0.0.1:8080 203.0.113.7"
        );
        // Anyone else's X-Forwarded-For is ignored, as API Gateway ignores it.
        assert_eq!(
            send("/api/x/a", [192, 0, 2, 10], Some("203.0.113.7")).await,
            "127.0.0.1:8080 192.0.2.10"
        );
        assert_eq!(
            send("/lambda-url/ctx-bin/a", [127, 0, 0, 1], Some("garbage")).await,
            "ctx-bin.lambda-url.local.on.aws 127.0.0.1"
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
