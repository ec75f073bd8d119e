//! The web function: the template's `$default` route, so everything no other function
//! serves.
//!
//! - `GET /actuator/health`: the gateway's health, `{status: "UP"}`.
//! - `GET /v3/api-docs`: the platform's one OpenAPI contract (the committed
//!   `openapi.json`, embedded at build time).
//! - `GET /swagger-ui.html`: 302 to the Swagger UI at `/swagger-ui/`, whose files are
//!   embedded too (no CDN, works offline and under the page's CSP).
//! - `/assets/...`: the web client's content-hashed files, cached for a year.
//! - `/` and every other path outside the reserved prefixes: the web client's HTML, never
//!   cached without revalidation, so client-side routes deep-link.
//! - Reserved prefixes that no function serves (an unknown `/api/...` family, say): 404 in
//!   Document A's error body.

pub mod assets;

use axum::extract::Request;
use axum::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use platform::openapi::{ErrorBody, Health};
use platform::{ApiError, BoxError, Env, ErrorKind, ErrorStyle};
use utoipa::OpenApi;

use crate::assets::File;

/// Path prefixes that belong to the API and platform surface, never to the web client.
pub const RESERVED_PREFIXES: &[&str] = &[
    "/api",
    "/actuator",
    "/swagger-ui",
    "/v3/api-docs",
    "/health",
    "/prometheus",
    "/grafana",
    "/assets",
];

/// Hashed files never change under their name.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Pages and the contract: always revalidated (cheaply, with the ETag).
const REVALIDATE: &str = "no-cache";

/// The client's policy: its own scripts and styles only (no inline ones); article images
/// from https hosts; API calls to this origin only.
pub const CLIENT_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data: https:; connect-src 'self'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

/// Swagger UI's policy: as strict (its icons are data: URIs).
pub const SWAGGER_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

/// Builds the function's router: what a cold start does (nothing to connect to).
pub async fn router(_env: Env) -> Result<Router, BoxError> {
    Ok(app())
}

pub fn app() -> Router {
    Router::new()
        .route("/actuator/health", get(health))
        .route("/v3/api-docs", get(api_docs))
        .route("/swagger-ui.html", get(swagger_ui))
        .route("/swagger-ui", get(swagger_ui))
        .route("/swagger-ui/", get(swagger_page))
        .route("/swagger-ui/index.html", get(swagger_page))
        .route("/", get(client))
        .fallback(fallback)
        .layer(axum::middleware::map_response(security_headers))
        .layer(axum::middleware::from_fn_with_state(
            ErrorStyle::Detailed { strip_prefix: "" },
            platform::http::render_errors,
        ))
}

/// The gateway's own operations, for the platform's contract.
#[derive(OpenApi)]
#[openapi(
    paths(health, api_docs, swagger_ui, client),
    components(schemas(Health, ErrorBody)),
    tags((name = "gateway", description = "The platform surface: health, contract, docs UI and web client"))
)]
pub struct GatewayApi;

/// The web function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    GatewayApi::openapi()
}

/// The gateway is up.
#[utoipa::path(
    get,
    path = "/actuator/health",
    operation_id = "gatewayHealth",
    tag = "gateway",
    responses((status = 200, description = "The gateway is up", body = Health))
)]
async fn health() -> Response {
    platform::http::health(true)
}

/// The platform's OpenAPI 3.1 contract: every route of every system.
#[utoipa::path(
    get,
    path = "/v3/api-docs",
    operation_id = "apiDocs",
    tag = "gateway",
    responses((status = 200, description = "This document", content_type = "application/json", body = Object))
)]
async fn api_docs(headers: HeaderMap) -> Response {
    serve(&headers, &assets::API_DOCS, REVALIDATE)
}

/// The interactive API documentation.
#[utoipa::path(
    get,
    path = "/swagger-ui.html",
    operation_id = "swaggerUi",
    tag = "gateway",
    responses((status = 302, description = "Redirect to the Swagger UI", headers(("Location" = String, description = "/swagger-ui/"))))
)]
async fn swagger_ui() -> Response {
    (
        StatusCode::FOUND,
        [
            (header::LOCATION, "/swagger-ui/"),
            (header::CACHE_CONTROL, REVALIDATE),
        ],
    )
        .into_response()
}

async fn swagger_page(headers: HeaderMap) -> Response {
    let mut response = serve(&headers, &assets::SWAGGER_HTML, REVALIDATE);
    set(&mut response, header::CONTENT_SECURITY_POLICY, SWAGGER_CSP);
    response
}

/// The web client.
///
/// Every path outside `/api`, `/actuator`, `/swagger-ui`, `/v3/api-docs`, `/health`,
/// `/prometheus`, `/grafana` and `/assets` answers this same page, so the client's own
/// routes (`/articles/{id}`, `/sources/{id}`, `/settings`, ...) deep-link.
#[utoipa::path(
    get,
    path = "/",
    operation_id = "webClient",
    tag = "gateway",
    responses((status = 200, description = "The web client's HTML", content_type = "text/html", body = String))
)]
async fn client(headers: HeaderMap) -> Response {
    client_page(&headers)
}

fn client_page(headers: &HeaderMap) -> Response {
    let mut response = serve(headers, &assets::CLIENT_HTML, REVALIDATE);
    set(&mut response, header::CONTENT_SECURITY_POLICY, CLIENT_CSP);
    response
}

async fn fallback(request: Request) -> Response {
    let path = request.uri().path();
    let method = request.method();
    let readable = method == Method::GET || method == Method::HEAD;
    if path.starts_with("/assets/") || path.starts_with("/swagger-ui/") {
        if let (true, Some(file)) = (readable, assets::find(path)) {
            return serve(request.headers(), file, IMMUTABLE);
        }
    }
    if is_reserved(path) {
        return ApiError::not_found(format!("No route for {method} {path}")).into_response();
    }
    if !readable {
        let mut response = ApiError::new(
            ErrorKind::MethodNotAllowed,
            format!("{method} is not allowed on a web client page; use GET"),
        )
        .into_response();
        set(&mut response, header::ALLOW, "GET, HEAD");
        return response;
    }
    client_page(request.headers())
}

/// Whether `path` is `prefix` or below it, for one of the reserved prefixes.
pub fn is_reserved(path: &str) -> bool {
    RESERVED_PREFIXES.iter().any(|prefix| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// An embedded file: 304 when the client's copy is current, gzip when the client accepts it.
fn serve(headers: &HeaderMap, file: &File, cache_control: &'static str) -> Response {
    let mut response = if not_modified(headers, file.etag) {
        StatusCode::NOT_MODIFIED.into_response()
    } else if !file.gzip || accepts_gzip(headers) {
        let mut response = file.bytes.into_response();
        if file.gzip {
            set(&mut response, header::CONTENT_ENCODING, "gzip");
        }
        response
    } else {
        match file.inflate() {
            Ok(bytes) => bytes.into_response(),
            Err(e) => return ApiError::internal("inflate an embedded file", e).into_response(),
        }
    };
    set(&mut response, header::CONTENT_TYPE, file.content_type);
    set(&mut response, header::CACHE_CONTROL, cache_control);
    set(&mut response, header::ETAG, file.etag);
    if file.gzip {
        set(&mut response, header::VARY, "Accept-Encoding");
    }
    response
}

fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    let tag = |t: &str| t.trim().trim_start_matches("W/").to_string();
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|candidate| candidate.trim() == "*" || tag(candidate) == tag(etag))
}

/// `Accept-Encoding` lists gzip (or `*`) without `q=0`.
fn accepts_gzip(headers: &HeaderMap) -> bool {
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

fn set(response: &mut Response, name: HeaderName, value: &'static str) {
    response
        .headers_mut()
        .insert(name, HeaderValue::from_static(value));
}

/// Headers every answer of this function carries.
async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers
        .entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(
            "default-src 'none'; frame-ancestors 'none'",
        ));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    async fn call(
        method: &str,
        uri: &str,
        headers: &[(&str, &str)],
    ) -> (StatusCode, HeaderMap, Vec<u8>) {
        let mut request = axum::http::Request::builder().method(method).uri(uri);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = app()
            .oneshot(request.body(Body::empty()).expect("request"))
            .await
            .expect("infallible");
        let status = response.status();
        let headers = response.headers().clone();
        let body = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes()
            .to_vec();
        (status, headers, body)
    }

    fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    fn json(body: &[u8]) -> serde_json::Value {
        serde_json::from_slice(body).expect("json body")
    }

    #[tokio::test]
    async fn health_is_up() {
        let (status, _, body) = call("GET", "/actuator/health", &[]).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(json(&body), serde_json::json!({"status": "UP"}));
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
            let (status, headers, body) = call("GET", path, &[]).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            assert_eq!(header(&headers, "content-type"), "text/html; charset=utf-8");
            assert_eq!(header(&headers, "cache-control"), "no-cache");
            assert_eq!(header(&headers, "content-security-policy"), CLIENT_CSP);
            assert_eq!(header(&headers, "x-content-type-options"), "nosniff");
            let html = String::from_utf8(body).expect("identity-encoded html");
            assert!(
                html.contains("<script type=\"module\" src=\"/assets/app."),
                "{html}"
            );
            assert!(!html.contains("<script>"), "no inline scripts: {html}");
        }
    }

    #[tokio::test]
    async fn revalidation_answers_304() {
        let (_, headers, _) = call("GET", "/", &[]).await;
        let etag = header(&headers, "etag").to_string();
        assert!(etag.starts_with("W/\""), "{etag}");
        let (status, _, body) = call("GET", "/sources", &[("if-none-match", &etag)]).await;
        assert_eq!(status, StatusCode::NOT_MODIFIED);
        assert!(body.is_empty());
        let (status, _, _) = call("GET", "/", &[("if-none-match", "W/\"other\"")]).await;
        assert_eq!(status, StatusCode::OK);
    }

    #[tokio::test]
    async fn hashed_assets_are_immutable_and_gzip_when_accepted() {
        let (_, _, html) = call("GET", "/", &[]).await;
        let html = String::from_utf8(html).expect("utf-8");
        let src = html
            .split("src=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("the entry module's URL");
        let (status, headers, plain) = call("GET", src, &[]).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(header(&headers, "cache-control"), IMMUTABLE);
        assert_eq!(
            header(&headers, "content-type"),
            "text/javascript; charset=utf-8"
        );
        assert!(headers.get("content-encoding").is_none());
        let (_, headers, gz) = call("GET", src, &[("accept-encoding", "br, gzip")]).await;
        assert_eq!(header(&headers, "content-encoding"), "gzip");
        assert_eq!(header(&headers, "vary"), "Accept-Encoding");
        let mut inflated = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut inflated)
            .expect("gzip");
        assert_eq!(inflated, plain);
        let (_, headers, _) = call("GET", src, &[("accept-encoding", "gzip;q=0")]).await;
        assert!(headers.get("content-encoding").is_none());
    }

    #[tokio::test]
    async fn contract_is_served_as_committed() {
        let (status, headers, body) = call("GET", "/v3/api-docs", &[]).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(header(&headers, "content-type"), "application/json");
        assert_eq!(body, include_bytes!("../openapi.json"));
    }

    #[tokio::test]
    async fn swagger_ui_redirects_and_serves_its_embedded_files() {
        let (status, headers, _) = call("GET", "/swagger-ui.html", &[]).await;
        assert_eq!(status, StatusCode::FOUND);
        assert_eq!(header(&headers, "location"), "/swagger-ui/");
        let (status, headers, body) = call("GET", "/swagger-ui/", &[]).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(header(&headers, "content-security-policy"), SWAGGER_CSP);
        let html = String::from_utf8(body).expect("utf-8");
        let bundle = html
            .split("src=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("the bundle's URL");
        assert!(
            bundle.starts_with("/swagger-ui/swagger-ui-bundle."),
            "{bundle}"
        );
        let (status, headers, _) = call("GET", bundle, &[]).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(header(&headers, "cache-control"), IMMUTABLE);
        let (status, _, body) = call("GET", "/swagger-ui/swagger-initializer.js", &[]).await;
        assert_eq!(
            status,
            StatusCode::NOT_FOUND,
            "only hashed names are served"
        );
        assert_eq!(json(&body)["path"], "/swagger-ui/swagger-initializer.js");
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
            let (status, headers, body) = call("GET", path, &[]).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
            assert!(header(&headers, "content-type").starts_with("application/json"));
            let body = json(&body);
            assert_eq!(body["code"], 404, "{body}");
            assert_eq!(body["path"], path, "{body}");
            assert!(
                body["details"].is_array() && body["timestamp"].is_string(),
                "{body}"
            );
        }
        let (status, _, body) = call("POST", "/api/unknown", &[]).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(json(&body)["code"], 404);
    }

    #[tokio::test]
    async fn writes_to_client_pages_are_405() {
        let (status, headers, body) = call("POST", "/articles/1", &[]).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(header(&headers, "allow"), "GET, HEAD");
        assert_eq!(json(&body)["code"], 405);
        let (status, _, body) = call("DELETE", "/actuator/health", &[]).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(json(&body)["path"], "/actuator/health");
    }

    #[test]
    fn reserved_prefixes_match_whole_segments() {
        assert!(is_reserved("/api"));
        assert!(is_reserved("/api/users"));
        assert!(is_reserved("/swagger-ui/x"));
        assert!(!is_reserved("/apis"));
        assert!(!is_reserved("/healthy"));
        assert!(!is_reserved("/"));
    }
}
