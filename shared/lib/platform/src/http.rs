//! Router glue shared by every HTTP function: JSON and query extraction with field-level
//! 400s, the error-rendering layer, fallbacks, body limits, request logging, HSTS and health.

use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ErrorKind, ErrorStyle};

/// Default request body limit: generous for JSON, far below API Gateway's 10 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;

/// A JSON body. Malformed JSON, a missing body, a wrong content type and wrong field types
/// become 400/415 naming the problem; domain validation happens after, in the handler.
pub struct Json<T>(pub T);

impl<T, S> FromRequest<S> for Json<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let headers = req.headers().clone();
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|rejection| ApiError::from_status(rejection.status()))?;
        check_json_content_type(&headers, bytes.is_empty())?;
        // Every request body of the platform is a JSON object; serde would read a struct from
        // an array too (`[null, null]` as a profile update).
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        if first.is_some_and(|b| *b != b'{')
            && serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok()
        {
            return Err(ApiError::validation(vec![
                crate::validation::FieldError::new("body", "must be a JSON object"),
            ]));
        }
        parse_json(&bytes).map(Json)
    }
}

/// Parses a JSON document into `T`, reporting the path of a wrongly typed field.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request("Request body is required")
            .with_details(vec!["body: must not be empty".into()]));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            ApiError::bad_request("Malformed JSON body")
                .with_details(vec![format!("body: {inner}")])
        } else {
            let field = if path == "." {
                "body".to_string()
            } else {
                path
            };
            ApiError::validation(vec![crate::validation::FieldError::new(
                field,
                strip_position(&inner.to_string()),
            )])
        }
    })?;
    de.end().map_err(|e| {
        ApiError::bad_request("Malformed JSON body").with_details(vec![format!("body: {e}")])
    })?;
    Ok(value)
}

/// The request's media type, lowercase and without parameters (`text/plain;charset=UTF-8` is
/// `text/plain`); `None` without a `Content-Type` header.
pub fn media_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::CONTENT_TYPE)?;
    Some(
        value
            .to_str()
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase(),
    )
}

/// A JSON body must say so (`application/json`, or `application/*+json`). The types a web
/// page may send to another origin without asking first (`text/plain`, a form, or none at all)
/// are refused with 415, so a browser must preflight every cross-origin JSON request, and a page
/// elsewhere cannot make its visitors spend the platform's model or fetches. A request with no
/// content type and no body falls through to the "body is required" answer.
fn check_json_content_type(headers: &HeaderMap, body_is_empty: bool) -> Result<(), ApiError> {
    let mime = match media_type(headers) {
        None if body_is_empty => return Ok(()),
        None => String::new(),
        Some(mime) => mime,
    };
    let accepted =
        mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"));
    if accepted {
        Ok(())
    } else if mime.is_empty() {
        Err(ApiError::new(
            ErrorKind::UnsupportedMediaType,
            "A JSON body needs Content-Type: application/json",
        ))
    } else {
        Err(ApiError::new(
            ErrorKind::UnsupportedMediaType,
            format!("Content type {mime} is not supported; send application/json"),
        ))
    }
}

fn strip_position(message: &str) -> String {
    match message.find(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Query parameters with the same field-naming 400s as [`Json`].
pub struct Query<T>(pub T);

impl<T, S> FromRequestParts<S> for Query<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or("");
        let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(de)
            .map(Query)
            .map_err(|err| {
                let field = err.path().to_string();
                ApiError::field(field, err.into_inner().to_string())
            })
    }
}

/// Decodes `a=1&b=x%20y` into pairs (`+` is a space, as in HTML forms).
pub fn form_pairs(raw: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(raw.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// `Strict-Transport-Security` of every answer: two years, subdomains included. API Gateway
/// and function URLs serve HTTPS only and add no such header themselves; browsers ignore it
/// over plain HTTP, so the local stack is unaffected.
pub const STRICT_TRANSPORT_SECURITY: &str = "max-age=63072000; includeSubDomains";

/// Finishes a function's router: unknown routes 404, the error layer in `style`, the body
/// limit, a log line per request, and HSTS on every answer. Every HTTP function goes
/// through this (or [`finish_styled`]).
pub fn finish(router: Router, style: ErrorStyle, body_limit: usize) -> Router {
    finish_styled(router, ErrorStyles::single(style), body_limit)
}

/// [`finish`] for a router serving more than one system's paths: each error is rendered in
/// the style of the first of `styles`' prefixes its path falls under.
pub fn finish_styled(router: Router, styles: ErrorStyles, body_limit: usize) -> Router {
    router
        .fallback(not_found)
        .layer(axum::extract::DefaultBodyLimit::max(body_limit))
        .layer(axum::middleware::from_fn_with_state(
            styles,
            render_styled_errors,
        ))
        .layer(axum::middleware::map_response(strict_transport_security))
}

/// Which [`ErrorStyle`] a path's errors are rendered in: an ordered list of path prefixes,
/// the first match winning, and a default for every other path. A prefix matches at a
/// segment boundary (`/api/v1/admin/ai` matches `/api/v1/admin/ai/provider`, not
/// `/api/v1/admin/aix`).
#[derive(Clone, Debug)]
pub struct ErrorStyles {
    // Shared: the error layer clones its state for every request.
    prefixes: std::sync::Arc<[(&'static str, ErrorStyle)]>,
    default: ErrorStyle,
}

impl ErrorStyles {
    /// Every path in `style`.
    pub fn single(style: ErrorStyle) -> Self {
        Self {
            prefixes: std::sync::Arc::new([]),
            default: style,
        }
    }

    /// Paths under the given prefixes (checked in order) in their style, the rest in
    /// `default`.
    pub fn new(prefixes: &[(&'static str, ErrorStyle)], default: ErrorStyle) -> Self {
        let prefixes = prefixes
            .iter()
            .map(|(prefix, style)| (prefix.trim_end_matches('/'), style.clone()))
            .collect();
        Self { prefixes, default }
    }

    /// The style of `path`'s errors.
    pub fn for_path(&self, path: &str) -> &ErrorStyle {
        self.prefixes
            .iter()
            .find(|(prefix, _)| under(path, prefix))
            .map_or(&self.default, |(_, style)| style)
    }
}

/// `path` is `prefix` or below it.
fn under(path: &str, prefix: &str) -> bool {
    match path.strip_prefix(prefix) {
        Some(rest) => rest.is_empty() || rest.starts_with('/') || prefix.is_empty(),
        None => false,
    }
}

/// Adds [`STRICT_TRANSPORT_SECURITY`] to a response (a layer of every HTTP function).
pub async fn strict_transport_security(mut response: Response) -> Response {
    response.headers_mut().insert(
        header::STRICT_TRANSPORT_SECURITY,
        header::HeaderValue::from_static(STRICT_TRANSPORT_SECURITY),
    );
    response
}

/// `Cache-Control` of an answer a CDN may keep: anonymous readers' public pages, for `seconds`
/// at the edge and not at all in the browser (which asks again, and the edge answers).
pub fn public_cache_control(seconds: u32) -> String {
    format!("public, max-age=0, s-maxage={seconds}")
}

/// What every other answer of an edge-cached router carries: nothing kept anywhere.
pub const PRIVATE_CACHE_CONTROL: &str = "private, no-store";

/// How long a CDN may keep anonymous pages by default, and at most (`PUBLIC_CACHE_SECONDS`).
pub const DEFAULT_PUBLIC_CACHE_SECONDS: u32 = 10;
pub const MAX_PUBLIC_CACHE_SECONDS: u32 = 300;

/// The function's `PUBLIC_CACHE_SECONDS`, within 0..=[`MAX_PUBLIC_CACHE_SECONDS`].
pub fn public_cache_seconds(env: &crate::config::Env) -> Result<u32, crate::config::ConfigError> {
    let name = "PUBLIC_CACHE_SECONDS";
    let seconds = env.parse_or(name, DEFAULT_PUBLIC_CACHE_SECONDS)?;
    if seconds > MAX_PUBLIC_CACHE_SECONDS {
        return Err(crate::config::ConfigError::Invalid {
            name: name.to_string(),
            reason: format!("{seconds} is over {MAX_PUBLIC_CACHE_SECONDS}"),
        });
    }
    Ok(seconds)
}

/// Lets a CDN in front of the API (the template's optional CloudFront) serve `router`'s
/// anonymous reads: a 200 to a GET or HEAD without `Authorization` or `Cookie` is public for
/// `seconds` (0: never), and every other answer private; an answer that set its own
/// `Cache-Control` keeps it. A signed-in reader's answer (`isLikedByMe`, drafts) is never
/// shared.
pub fn edge_cached(router: Router, seconds: u32) -> Router {
    router.layer(axum::middleware::from_fn_with_state(
        seconds,
        mark_cacheable,
    ))
}

async fn mark_cacheable(State(seconds): State<u32>, req: Request, next: Next) -> Response {
    let anonymous_read = matches!(*req.method(), Method::GET | Method::HEAD)
        && !req.headers().contains_key(header::AUTHORIZATION)
        && !req.headers().contains_key(header::COOKIE);
    let mut response = next.run(req).await;
    if response.headers().contains_key(header::CACHE_CONTROL) {
        return response;
    }
    let value = if anonymous_read && seconds > 0 && response.status() == StatusCode::OK {
        header::HeaderValue::from_str(&public_cache_control(seconds))
            .unwrap_or(header::HeaderValue::from_static(PRIVATE_CACHE_CONTROL))
    } else {
        header::HeaderValue::from_static(PRIVATE_CACHE_CONTROL)
    };
    response.headers_mut().insert(header::CACHE_CONTROL, value);
    response
}

async fn not_found(method: Method) -> ApiError {
    ApiError::not_found(format!("No route for {method} on this path"))
}

/// A response extension for an error answer whose body a protocol fixes (the Google Reader
/// API's `text/plain` `Error=BadAuthentication`): the error layer passes it as it is.
#[derive(Clone, Copy, Debug)]
pub struct OwnErrorBody;

/// Renders every error response of the router in its product's shape: errors raised by handlers
/// (carrying an [`ApiError`]) and the framework's own bare 4xx/5xx responses alike.
pub async fn render_errors(State(style): State<ErrorStyle>, req: Request, next: Next) -> Response {
    render(req, next, |_| &style).await
}

/// [`render_errors`] with the style chosen by the request's path.
pub async fn render_styled_errors(
    State(styles): State<ErrorStyles>,
    req: Request,
    next: Next,
) -> Response {
    render(req, next, |path| styles.for_path(path)).await
}

async fn render<'s>(
    req: Request,
    next: Next,
    style_of: impl FnOnce(&str) -> &'s ErrorStyle,
) -> Response {
    let path = req.uri().path().to_string();
    let method = req.method().clone();
    let started = Instant::now();
    let response = next.run(req).await;
    let status = response.status();
    let response = if response.extensions().get::<OwnErrorBody>().is_some() {
        response
    } else if let Some(error) = response.extensions().get::<ApiError>().cloned() {
        log_cause(&method, &path, &error);
        rerender(response, &error, style_of(&path), &path)
    } else if (status.is_client_error() || status.is_server_error()) && !is_json(&response) {
        let error = framework_error(status);
        rerender(response, &error, style_of(&path), &path)
    } else {
        response
    };
    tracing::info!(
        method = %method,
        path = %path,
        status = response.status().as_u16(),
        latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        "request"
    );
    response
}

/// The one place a handler's failure is logged: an unexpected one (500) as an error, a
/// dependency's (502, 503, 504) as a warning, a client's mistake not at all.
fn log_cause(method: &axum::http::Method, path: &str, error: &ApiError) {
    let Some(cause) = error.cause.as_deref() else {
        return;
    };
    let status = error.status().as_u16();
    if error.kind == ErrorKind::Internal {
        tracing::error!(method = %method, path, status, cause, "request failed");
    } else if status >= 500 {
        tracing::warn!(method = %method, path, status, cause, "request failed");
    } else {
        tracing::info!(method = %method, path, status, cause, "request refused");
    }
}

fn framework_error(status: StatusCode) -> ApiError {
    let message = match status {
        StatusCode::NOT_FOUND => "Not found".to_string(),
        StatusCode::METHOD_NOT_ALLOWED => "Method not allowed on this path".to_string(),
        StatusCode::PAYLOAD_TOO_LARGE => "Request body is too large".to_string(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "Unsupported content type".to_string(),
        other => other.canonical_reason().unwrap_or("Error").to_string(),
    };
    ApiError::new(ErrorKind::from_status(status), message)
}

fn rerender(response: Response, error: &ApiError, style: &ErrorStyle, path: &str) -> Response {
    let (mut parts, _) = response.into_parts();
    let body = error.body(style, path);
    parts.headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    if let Some(seconds) = error.retry_after() {
        parts
            .headers
            .entry(header::RETRY_AFTER)
            .or_insert(header::HeaderValue::from(seconds));
    }
    let bytes = serde_json::to_vec(&body).unwrap_or_default();
    Response::from_parts(parts, Body::from(bytes))
}

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json") || v.contains("+json"))
}

impl ApiError {
    fn from_status(status: StatusCode) -> Self {
        framework_error(status)
    }
}

/// The health body: 200 `{status: UP}` or 503 `{status: DOWN}`.
pub fn health(up: bool) -> Response {
    if up {
        (
            StatusCode::OK,
            axum::Json(serde_json::json!({"status": "UP"})),
        )
            .into_response()
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(serde_json::json!({"status": "DOWN"})),
        )
            .into_response()
    }
}

/// The public base URL of the API a request came through (`https://{domainName}`), from the
/// request context API Gateway gives the function; `None` outside API Gateway.
pub fn api_origin(extensions: &axum::http::Extensions) -> Option<String> {
    match extensions.get::<lambda_http::request::RequestContext>()? {
        lambda_http::request::RequestContext::ApiGatewayV2(context) => context
            .domain_name
            .as_deref()
            .filter(|d| !d.is_empty())
            .map(|d| format!("https://{d}")),
        _ => None,
    }
}

/// The client's address as API Gateway or the function URL saw it (`requestContext.http.
/// sourceIp`). Never a header: `X-Forwarded-For` is whatever the client wrote. `None` outside
/// both (a request built in a test).
pub fn client_address(extensions: &axum::http::Extensions) -> Option<String> {
    match extensions.get::<lambda_http::request::RequestContext>()? {
        lambda_http::request::RequestContext::ApiGatewayV2(context) => context
            .http
            .source_ip
            .as_deref()
            .map(str::trim)
            .filter(|ip| !ip.is_empty())
            .map(str::to_string),
        _ => None,
    }
}

/// True when the request came through a function URL (`<id>.lambda-url.<region>.on.aws`)
/// rather than the HTTP API.
pub fn is_function_url(extensions: &axum::http::Extensions) -> bool {
    match extensions.get::<lambda_http::request::RequestContext>() {
        Some(lambda_http::request::RequestContext::ApiGatewayV2(context)) => context
            .domain_name
            .as_deref()
            .is_some_and(|d| d.contains(".lambda-url.")),
        _ => false,
    }
}

/// The base URL other route families are called through: `configured` (the function's
/// `INTERNAL_API_URL`) when set, else the API the request came through.
pub fn internal_api_base(
    configured: Option<&str>,
    extensions: &axum::http::Extensions,
) -> Option<String> {
    configured
        .map(|c| c.trim().trim_end_matches('/').to_string())
        .filter(|c| !c.is_empty())
        .or_else(|| api_origin(extensions))
}

/// `Accept-Encoding` lists gzip (or `*`) without `q=0`: whether a gzipped asset may be sent.
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim();
            let refused = parts.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q == 0.0)
            });
            (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !refused
        })
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn a_json_body_must_say_it_is_json_so_browsers_preflight_it() {
        use tower::ServiceExt;
        #[derive(serde::Deserialize)]
        struct Ask {
            #[allow(dead_code)]
            text: String,
        }
        let router = finish(
            Router::new().route(
                "/ask",
                axum::routing::post(|Json(_): Json<Ask>| async { "asked" }),
            ),
            ErrorStyle::Detailed { strip_prefix: "" },
            DEFAULT_BODY_LIMIT,
        );
        let send = |content_type: Option<&'static str>, body: &'static str| {
            let router = router.clone();
            async move {
                let mut request = Request::builder().method(Method::POST).uri("/ask");
                if let Some(content_type) = content_type {
                    request = request.header(header::CONTENT_TYPE, content_type);
                }
                let request = request.body(axum::body::Body::from(body)).unwrap();
                router.oneshot(request).await.unwrap().status().as_u16()
            }
        };
        let json = r#"{"text": "hi"}"#;
        // What a page on another origin may send without a preflight: refused.
        assert_eq!(send(Some("text/plain;charset=UTF-8"), json).await, 415);
        assert_eq!(
            send(Some("application/x-www-form-urlencoded"), json).await,
            415
        );
        assert_eq!(
            send(Some("multipart/form-data; boundary=x"), json).await,
            415
        );
        assert_eq!(send(None, json).await, 415);
        // JSON that says so is read.
        assert_eq!(send(Some("application/json"), json).await, 200);
        assert_eq!(
            send(Some("application/json; charset=utf-8"), json).await,
            200
        );
        assert_eq!(send(Some("application/merge-patch+json"), json).await, 200);
        // No body at all is the missing body's 400, as before.
        assert_eq!(send(None, "").await, 400);
    }

    #[tokio::test]
    async fn an_error_with_its_own_body_is_passed_as_it_is() {
        use tower::ServiceExt;
        let router = finish(
            Router::new()
                .route(
                    "/own",
                    axum::routing::get(|| async {
                        let mut response =
                            (StatusCode::UNAUTHORIZED, "Error=BadAuthentication\n").into_response();
                        response.extensions_mut().insert(OwnErrorBody);
                        response
                    }),
                )
                .route(
                    "/plain",
                    axum::routing::get(|| async {
                        (StatusCode::UNAUTHORIZED, "no").into_response()
                    }),
                ),
            ErrorStyle::Detailed { strip_prefix: "" },
            DEFAULT_BODY_LIMIT,
        );
        let get = |path: &'static str| {
            let router = router.clone();
            async move {
                let request = Request::builder()
                    .uri(path)
                    .body(axum::body::Body::empty())
                    .unwrap();
                let response = router.oneshot(request).await.unwrap();
                let bytes = axum::body::to_bytes(response.into_body(), 1024)
                    .await
                    .unwrap();
                String::from_utf8(bytes.to_vec()).unwrap()
            }
        };
        assert_eq!(get("/own").await, "Error=BadAuthentication\n");
        assert!(get("/plain").await.starts_with('{'));
    }

    #[test]
    fn gzip_is_sent_only_to_clients_that_accept_it() {
        let mut h = HeaderMap::new();
        assert!(!accepts_gzip(&h));
        h.insert(
            header::ACCEPT_ENCODING,
            axum::http::HeaderValue::from_static("br, gzip;q=0.8"),
        );
        assert!(accepts_gzip(&h));
        h.insert(
            header::ACCEPT_ENCODING,
            axum::http::HeaderValue::from_static("gzip;q=0, br"),
        );
        assert!(!accepts_gzip(&h));
    }

    use super::*;

    #[derive(serde::Deserialize, Debug)]
    struct Body {
        #[allow(dead_code)]
        name: Option<String>,
        #[allow(dead_code)]
        count: Option<u32>,
    }

    #[test]
    fn json_errors_name_the_field() {
        let err = parse_json::<Body>(br#"{"name": "x", "count": "many"}"#).unwrap_err();
        assert_eq!(err.status(), StatusCode::BAD_REQUEST);
        assert!(err.details[0].starts_with("count: invalid type"), "{err}");
        let err = parse_json::<Body>(b"{\"name\": ").unwrap_err();
        assert_eq!(err.message, "Malformed JSON body");
        let err = parse_json::<Body>(b"  ").unwrap_err();
        assert_eq!(err.details, vec!["body: must not be empty"]);
        let err = parse_json::<Body>(b"\"text\"").unwrap_err();
        assert!(err.details[0].starts_with("body: invalid type"), "{err}");
    }

    #[tokio::test]
    async fn every_503_says_when_to_try_again() {
        use tower::ServiceExt;
        let router = finish(
            Router::new()
                .route(
                    "/api/v1/throttled",
                    axum::routing::put(|| async { ApiError::unavailable("The table is busy") }),
                )
                .route(
                    "/api/v1/bare",
                    axum::routing::get(|| async { StatusCode::SERVICE_UNAVAILABLE }),
                ),
            ErrorStyle::Reason,
            DEFAULT_BODY_LIMIT,
        );
        for request in [
            Request::put("/api/v1/throttled").body(axum::body::Body::empty()),
            Request::get("/api/v1/bare").body(axum::body::Body::empty()),
        ] {
            let response = router.clone().oneshot(request.unwrap()).await.unwrap();
            assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
            assert_eq!(
                response.headers()[header::RETRY_AFTER],
                crate::error::UNAVAILABLE_RETRY_AFTER.to_string().as_str()
            );
        }
    }

    #[tokio::test]
    async fn a_rate_limited_request_is_429_with_retry_after_in_both_body_shapes() {
        use tower::ServiceExt;
        for (style, path) in [
            (
                ErrorStyle::Detailed {
                    strip_prefix: "/api/ai",
                },
                "/api/ai/qa",
            ),
            (ErrorStyle::Reason, "/api/v1/ai/qa"),
        ] {
            let router = finish(
                Router::new().route(
                    path,
                    axum::routing::post(|| async { ApiError::too_many_requests(42) }),
                ),
                style.clone(),
                DEFAULT_BODY_LIMIT,
            );
            let request = Request::post(path).body(axum::body::Body::empty()).unwrap();
            let response = router.oneshot(request).await.unwrap();
            assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
            assert_eq!(response.headers()[header::RETRY_AFTER], "42");
            let bytes = axum::body::to_bytes(response.into_body(), 1 << 16)
                .await
                .unwrap();
            let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            match style {
                ErrorStyle::Detailed { .. } => {
                    assert_eq!(body["code"], 429);
                    assert_eq!(body["path"], "/qa");
                    assert_eq!(body["message"], "Too many requests; retry in 42 seconds");
                }
                ErrorStyle::Reason => {
                    assert_eq!(body["status"], 429);
                    assert_eq!(body["error"], "Too Many Requests");
                    assert_eq!(body["message"], "Too many requests; retry in 42 seconds");
                }
            }
        }
    }

    #[test]
    fn error_styles_take_the_first_matching_prefix_at_a_segment_boundary() {
        let detailed = ErrorStyle::Detailed {
            strip_prefix: "/api/ai",
        };
        let styles = ErrorStyles::new(
            &[
                ("/api/v1/logs", detailed.clone()),
                ("/api/v1/", ErrorStyle::Reason),
            ],
            detailed.clone(),
        );
        let reason = |path| matches!(styles.for_path(path), ErrorStyle::Reason);
        assert!(reason("/api/v1"));
        assert!(reason("/api/v1/posts/1"));
        assert!(reason("/api/v1/logsx"), "not under /api/v1/logs");
        assert!(!reason("/api/v1/logs"));
        assert!(!reason("/api/v1/logs/7"), "the earlier prefix wins");
        assert!(!reason("/api/v1x/posts"));
        assert!(!reason("/api/ai/qa"));
        assert!(!reason("/"));
        let single = ErrorStyles::single(ErrorStyle::Reason);
        assert!(matches!(single.for_path("/anything"), ErrorStyle::Reason));
    }

    #[tokio::test]
    async fn a_styled_router_renders_framework_and_handler_errors_per_prefix() {
        use tower::ServiceExt;
        let router = finish_styled(
            Router::new()
                .route(
                    "/api/v1/admin/ai/provider",
                    axum::routing::get(|| async { "ok" }).put(|Json(_): Json<Body>| async {
                        ApiError::validation(vec![crate::validation::FieldError::new(
                            "provider",
                            "must be cloud or local",
                        )])
                    }),
                )
                .route(
                    "/api/ai/qa",
                    axum::routing::post(|| async { ApiError::bad_request("no") }),
                ),
            ErrorStyles::new(
                &[("/api/v1/admin/ai", ErrorStyle::Reason)],
                ErrorStyle::Detailed {
                    strip_prefix: "/api/ai",
                },
            ),
            DEFAULT_BODY_LIMIT,
        );
        let send = |method: Method, path: &str, content_type: Option<&str>, body: &str| {
            let mut request = Request::builder().method(method).uri(path);
            if let Some(content_type) = content_type {
                request = request.header(header::CONTENT_TYPE, content_type);
            }
            let request = request
                .body(axum::body::Body::from(body.to_string()))
                .unwrap();
            let router = router.clone();
            async move {
                let response = router.oneshot(request).await.unwrap();
                let status = response.status().as_u16();
                let bytes = axum::body::to_bytes(response.into_body(), 1 << 16)
                    .await
                    .unwrap();
                (
                    status,
                    serde_json::from_slice::<serde_json::Value>(&bytes).unwrap(),
                )
            }
        };
        let reason_cases = [
            (Method::GET, "/api/v1/admin/ai/nothing", None, "", 404),
            (Method::DELETE, "/api/v1/admin/ai/provider", None, "", 405),
            (
                Method::PUT,
                "/api/v1/admin/ai/provider",
                Some("text/xml"),
                "<a/>",
                415,
            ),
            (
                Method::PUT,
                "/api/v1/admin/ai/provider",
                Some("application/json"),
                "{}",
                400,
            ),
        ];
        for (method, path, content_type, body, status) in reason_cases {
            let (got, body) = send(method, path, content_type, body).await;
            assert_eq!(got, status, "{path}: {body}");
            assert_eq!(body["status"], status, "{body}");
            assert!(body["error"].is_string(), "{body}");
            assert!(
                body.get("code").is_none() && body.get("path").is_none(),
                "{body}"
            );
        }
        let (_, body) = send(
            Method::PUT,
            "/api/v1/admin/ai/provider",
            Some("application/json"),
            "{}",
        )
        .await;
        assert_eq!(
            body["message"],
            "Validation failed: provider: must be cloud or local"
        );
        for (method, path, status) in [
            (Method::GET, "/api/ai/nothing", 404),
            (Method::POST, "/api/ai/qa", 400),
            (Method::GET, "/api/v1/admin/aix", 404),
        ] {
            let (got, body) = send(method, path, None, "").await;
            assert_eq!(got, status, "{path}: {body}");
            assert_eq!(body["code"], status, "{body}");
            assert!(body["details"].is_array(), "{body}");
            assert!(body.get("error").is_none(), "{body}");
        }
    }

    #[tokio::test]
    async fn only_anonymous_reads_that_succeed_are_public_to_a_cdn() {
        use tower::ServiceExt;
        let router = edge_cached(
            Router::new()
                .route(
                    "/posts",
                    axum::routing::get(|| async { "[]" }).post(|| async { "ok" }),
                )
                .route(
                    "/topics",
                    axum::routing::get(|| async {
                        ([(header::CACHE_CONTROL, "public, max-age=30")], "[]")
                    }),
                )
                .fallback(|| async { StatusCode::NOT_FOUND }),
            10,
        );
        let cache_control =
            |method: Method, path: &str, header: Option<(header::HeaderName, &str)>| {
                let router = router.clone();
                let mut request = Request::builder().method(method).uri(path);
                if let Some((name, value)) = header {
                    request = request.header(name, value);
                }
                let request = request.body(axum::body::Body::empty()).unwrap();
                async move {
                    let response = router.oneshot(request).await.unwrap();
                    response.headers()[header::CACHE_CONTROL]
                        .to_str()
                        .unwrap()
                        .to_string()
                }
            };
        let public = "public, max-age=0, s-maxage=10";
        assert_eq!(cache_control(Method::GET, "/posts", None).await, public);
        assert_eq!(cache_control(Method::HEAD, "/posts", None).await, public);
        for (method, path, header) in [
            (
                Method::GET,
                "/posts",
                Some((header::AUTHORIZATION, "Bearer t")),
            ),
            (Method::GET, "/posts", Some((header::COOKIE, "session=s"))),
            (Method::POST, "/posts", None),
            (Method::GET, "/nothing", None),
        ] {
            assert_eq!(
                cache_control(method, path, header).await,
                PRIVATE_CACHE_CONTROL,
                "{path}"
            );
        }
        assert_eq!(
            cache_control(Method::GET, "/topics", None).await,
            "public, max-age=30"
        );
        let never = edge_cached(
            Router::new().route("/p", axum::routing::get(|| async { "" })),
            0,
        );
        let response = never
            .oneshot(
                Request::builder()
                    .uri("/p")
                    .body(axum::body::Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(
            response.headers()[header::CACHE_CONTROL],
            PRIVATE_CACHE_CONTROL
        );
    }

    #[test]
    fn decodes_form_pairs() {
        assert_eq!(
            form_pairs("a=1&b=x%20y+z&c&d=%zz"),
            vec![
                ("a".into(), "1".into()),
                ("b".into(), "x y z".into()),
                ("c".into(), "".into()),
                ("d".into(), "%zz".into()),
            ]
        );
    }
}
