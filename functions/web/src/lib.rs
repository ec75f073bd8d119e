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
//!   The detailed error body.
//!
//! The client's pages allow images from exactly one plain-http place besides https hosts:
//! where uploaded images are served (`csp`), read from the environment at a cold start; and
//! requests to two places besides their own origin: the uploads bucket's `incoming/` path,
//! where a presigned upload is sent, and the assistant function URL's `stream/` path, which the
//! page names for the AI panel (`page`).

pub mod assets;
pub mod csp;
#[cfg(test)]
mod first_visit;
pub mod page;

use axum::extract::{Request, State};
use axum::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use platform::http::accepts_gzip;
use platform::openapi::{ErrorBody, Health};
use platform::{ApiError, BoxError, Env, ErrorKind, ErrorStyle};
use utoipa::OpenApi;

use crate::assets::File;
use crate::page::ClientPage;

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

pub use crate::csp::CLIENT_CSP;

/// Swagger UI's policy: as strict (its icons are data: URIs).
pub const SWAGGER_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

/// Builds the function's router: what a cold start does (nothing to connect to; the
/// uploads' image and presigned-upload sources are read from `UPLOADS_PUBLIC_BASE_URL`,
/// `UPLOADS_BUCKET`, `AWS_ENDPOINT_URL(_S3)` and `AWS_REGION`, the AI panel's stream source
/// from `GENAI_FUNCTION_URL`, see [`csp`]).
pub async fn router(env: Env) -> Result<Router, BoxError> {
    // Community uploads and recipe photos: one img-src list holds them.
    let images: Vec<String> = csp::uploads_image_source(&env)?
        .into_iter()
        .chain(csp::recipe_photo_source(&env)?)
        .collect();
    let uploads = (!images.is_empty()).then(|| images.join(" "));
    let upload_puts = csp::uploads_put_source(&env)?;
    let genai_stream = csp::genai_stream_source(&env)?;
    // Both are request targets: one connect-src list holds them.
    let connect: Vec<String> = upload_puts
        .into_iter()
        .chain(genai_stream.clone())
        .collect();
    let connect = (!connect.is_empty()).then(|| connect.join(" "));
    let policy = HeaderValue::from_str(&csp::client_csp(uploads.as_deref(), connect.as_deref()))?;
    Ok(app_parts(Client {
        policy,
        page: ClientPage::new(genai_stream.as_deref())?,
    }))
}

/// The router without an uploads image source or a stream URL: the client's policy is
/// [`CLIENT_CSP`].
pub fn app() -> Router {
    app_parts(Client {
        policy: HeaderValue::from_static(CLIENT_CSP),
        page: ClientPage::Embedded(&assets::CLIENT_HTML),
    })
}

fn app_parts(page: Client) -> Router {
    Router::new()
        .route("/actuator/health", get(health))
        .route("/v3/api-docs", get(api_docs))
        .route("/swagger-ui.html", get(swagger_ui))
        .route("/swagger-ui", get(swagger_ui))
        .route("/swagger-ui/", get(swagger_page))
        .route("/swagger-ui/index.html", get(swagger_page))
        .route("/", get(client))
        .fallback(fallback)
        .with_state(page)
        .layer(axum::middleware::map_response(security_headers))
        .layer(axum::middleware::from_fn_with_state(
            ErrorStyle::Detailed { strip_prefix: "" },
            platform::http::render_errors,
        ))
        .layer(axum::middleware::map_response(
            platform::http::strict_transport_security,
        ))
}

/// The client's page and its Content-Security-Policy.
#[derive(Clone)]
struct Client {
    policy: HeaderValue,
    page: ClientPage,
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
    security(()),
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
    security(()),
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
    security(()),
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
    security(()),
    tag = "gateway",
    responses((status = 200, description = "The web client's HTML", content_type = "text/html", body = String))
)]
async fn client(State(client): State<Client>, headers: HeaderMap) -> Response {
    client_page(&headers, &client)
}

fn client_page(headers: &HeaderMap, client: &Client) -> Response {
    let mut response = client.page.serve(headers, REVALIDATE);
    response
        .headers_mut()
        .insert(header::CONTENT_SECURITY_POLICY, client.policy.clone());
    response
}

async fn fallback(State(client): State<Client>, request: Request) -> Response {
    let path = request.uri().path();
    let method = request.method();
    let readable = method == Method::GET || method == Method::HEAD;
    if path.starts_with("/assets/") || path.starts_with("/swagger-ui/") {
        if let (true, Some(file)) = (readable, assets::find(path)) {
            return serve(request.headers(), file, IMMUTABLE);
        }
    }
    if is_community_path(path) {
        // Rendered here, not by the detailed error layer: the community's families answer in
        // their own body, unknown paths included. A JSON answer is left as it is by the layer.
        let body = ApiError::not_found(format!("No route for {method} {path}"))
            .body(&ErrorStyle::Reason, path);
        return (StatusCode::NOT_FOUND, axum::Json(body)).into_response();
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
    client_page(request.headers(), &client)
}

/// The first path segments under `/api/v1/` that belong to the incident platform,
/// whose errors keep the detailed body.
const INCIDENT_FAMILIES: [&str; 7] = [
    "logs",
    "incidents",
    "alerts",
    "logbook",
    "analyze",
    "analyses",
    "rag",
];

/// Whether `path` is under the community's `/api/v1/` (and not an incident family).
pub fn is_community_path(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/api/v1/") else {
        return path == "/api/v1";
    };
    let family = rest.split('/').next().unwrap_or_default();
    !INCIDENT_FAMILIES.contains(&family)
}

/// Whether `path` is `prefix` or below it, for one of the reserved prefixes.
pub fn is_reserved(path: &str) -> bool {
    RESERVED_PREFIXES.iter().any(|prefix| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// An embedded file: 304 when the client's copy is current, gzip when the client accepts it.
pub(crate) fn serve(headers: &HeaderMap, file: &File, cache_control: &'static str) -> Response {
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

pub(crate) fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    let tag = |t: &str| t.trim().trim_start_matches("W/").to_string();
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|candidate| candidate.trim() == "*" || tag(candidate) == tag(etag))
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

    // The router's own tests, which send requests through it, are black-box tests in
    // `tests/tests/web.rs`.

    #[test]
    fn community_paths_are_under_api_v1_except_incident_families() {
        assert!(is_community_path("/api/v1"));
        assert!(is_community_path("/api/v1/nope"));
        assert!(is_community_path("/api/v1/digests/me"));
        assert!(!is_community_path("/api/v1/logs"));
        assert!(!is_community_path("/api/v1/incidents/1"));
        assert!(!is_community_path("/api/v10/x"));
        assert!(!is_community_path("/api/users/x"));
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
