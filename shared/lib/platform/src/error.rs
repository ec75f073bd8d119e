//! The one error answer: what a handler answers when it fails. The type and its constructors
//! need no HTTP stack, so each domain crate says how its errors answer
//! (`impl From<DomainError> for platform::ApiError`) next to them; with `edge`, the status
//! mapping and the rendering in the error body shape of the router's system (see
//! `ErrorStyle`) come in.

#[cfg(feature = "edge")]
use axum::http::{HeaderValue, StatusCode};
#[cfg(feature = "edge")]
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Map, Value};

#[cfg(feature = "edge")]
use crate::clock::rfc3339;
use crate::validation::{FieldError, Invalid};

/// What went wrong, as a client should understand it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorKind {
    BadRequest,
    Unauthorized,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    Conflict,
    PayloadTooLarge,
    UnsupportedMediaType,
    TooManyRequests,
    Internal,
    BadGateway,
    ServiceUnavailable,
    GatewayTimeout,
}

#[cfg(feature = "edge")]
impl ErrorKind {
    pub fn status(self) -> StatusCode {
        match self {
            Self::BadRequest => StatusCode::BAD_REQUEST,
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Forbidden => StatusCode::FORBIDDEN,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::Conflict => StatusCode::CONFLICT,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            Self::BadGateway => StatusCode::BAD_GATEWAY,
            Self::ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::GatewayTimeout => StatusCode::GATEWAY_TIMEOUT,
        }
    }

    pub fn from_status(status: StatusCode) -> Self {
        match status.as_u16() {
            401 => Self::Unauthorized,
            403 => Self::Forbidden,
            404 => Self::NotFound,
            405 => Self::MethodNotAllowed,
            409 => Self::Conflict,
            413 => Self::PayloadTooLarge,
            415 => Self::UnsupportedMediaType,
            429 => Self::TooManyRequests,
            502 => Self::BadGateway,
            503 => Self::ServiceUnavailable,
            504 => Self::GatewayTimeout,
            s if (400..500).contains(&s) => Self::BadRequest,
            _ => Self::Internal,
        }
    }
}

/// `Retry-After` of a 503: AWS throttling and brief outages pass within seconds, and a client
/// that waits this long and retries (every write being whole or absent) is not refused again
/// for the same burst.
pub const UNAVAILABLE_RETRY_AFTER: u32 = 2;

/// The error every handler returns. Rendering happens in [`crate::http::render_errors`], which
/// knows the request path and the router's [`ErrorStyle`].
#[derive(Debug, Clone)]
pub struct ApiError {
    pub kind: ErrorKind,
    pub message: String,
    pub details: Vec<String>,
    /// Extra top-level body members (an OAuth2 `error` code, for example).
    pub extra: Map<String, Value>,
    /// `WWW-Authenticate` challenge sent with a 401.
    pub challenge: Option<&'static str>,
    /// `Retry-After` seconds sent with a 429 (or a 503: see [`ApiError::retry_after`]).
    pub retry_after: Option<u32>,
    /// Why it failed, for the log only (never rendered): the error layer logs it once, with
    /// the request's method and path.
    pub cause: Option<Box<str>>,
}

impl ApiError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            details: Vec::new(),
            extra: Map::new(),
            challenge: None,
            retry_after: None,
            cause: None,
        }
    }

    pub fn validation(errors: Vec<FieldError>) -> Self {
        let mut e = Self::new(ErrorKind::BadRequest, "Validation failed");
        e.details = errors.iter().map(ToString::to_string).collect();
        e
    }

    pub fn field(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::validation(vec![FieldError::new(field, reason)])
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadRequest, message)
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        let mut e = Self::new(ErrorKind::Unauthorized, message);
        e.challenge = Some("Bearer");
        e
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Forbidden, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, message)
    }

    pub fn bad_gateway(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadGateway, message)
    }

    /// 429: a rate limit refused the request; the client may retry in `retry_after` seconds.
    pub fn too_many_requests(retry_after: u64) -> Self {
        let mut e = Self::new(
            ErrorKind::TooManyRequests,
            format!("Too many requests; retry in {retry_after} seconds"),
        );
        // A window far beyond a day is still a wait; u32 keeps the error small (it is in every Result).
        e.retry_after = Some(u32::try_from(retry_after).unwrap_or(u32::MAX));
        e
    }

    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::ServiceUnavailable, message)
    }

    /// The `Retry-After` seconds the answer carries: the limit's wait for a 429, and for a
    /// 503 (a dependency throttling or unreachable after the SDK's own retries)
    /// [`UNAVAILABLE_RETRY_AFTER`] unless the error names its own.
    pub fn retry_after(&self) -> Option<u32> {
        self.retry_after.or_else(|| {
            (self.kind == ErrorKind::ServiceUnavailable).then_some(UNAVAILABLE_RETRY_AFTER)
        })
    }

    /// An unexpected failure: logged in full (by the error layer), shown to the client without
    /// internals.
    pub fn internal(context: &str, error: impl std::fmt::Display) -> Self {
        Self::new(ErrorKind::Internal, "Internal server error")
            .caused_by(format!("{context}: {error}"))
    }

    /// Records why it failed, for the log (the client sees only the message).
    pub fn caused_by(mut self, cause: impl std::fmt::Display) -> Self {
        self.cause = Some(cause.to_string().into_boxed_str());
        self
    }

    pub fn with_details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }

    pub fn with_extra(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    pub fn with_challenge(mut self, challenge: &'static str) -> Self {
        self.challenge = Some(challenge);
        self
    }

    #[cfg(feature = "edge")]
    pub fn status(&self) -> StatusCode {
        self.kind.status()
    }

    /// The body in `style`, for a request to `path` (the public path).
    #[cfg(feature = "edge")]
    pub fn body(&self, style: &ErrorStyle, path: &str) -> Value {
        let now = rfc3339(chrono::Utc::now());
        let status = self.status();
        let mut body = match style {
            ErrorStyle::Detailed { strip_prefix } => serde_json::json!({
                "timestamp": now,
                "code": status.as_u16(),
                "message": self.message,
                "details": self.details,
                "path": service_path(path, strip_prefix),
            }),
            ErrorStyle::Reason => {
                let message = if self.details.is_empty() {
                    self.message.clone()
                } else {
                    format!("{}: {}", self.message, self.details.join("; "))
                };
                serde_json::json!({
                    "timestamp": now,
                    "status": status.as_u16(),
                    "error": status.canonical_reason().unwrap_or("Error"),
                    "message": message,
                })
            }
        };
        if let Value::Object(map) = &mut body {
            for (k, v) in &self.extra {
                map.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        body
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.message)?;
        if !self.details.is_empty() {
            write!(f, " ({})", self.details.join("; "))?;
        }
        Ok(())
    }
}

impl std::error::Error for ApiError {}

impl From<Invalid> for ApiError {
    fn from(e: Invalid) -> Self {
        Self::validation(e.0)
    }
}

impl From<FieldError> for ApiError {
    fn from(e: FieldError) -> Self {
        Self::field(e.field, e.reason)
    }
}

impl From<crate::config::ConfigError> for ApiError {
    fn from(e: crate::config::ConfigError) -> Self {
        Self::internal("configuration", e)
    }
}

#[cfg(feature = "edge")]
impl IntoResponse for ApiError {
    /// Renders in the detailed style without a path; the router's error layer re-renders it with
    /// the right style and path.
    fn into_response(self) -> Response {
        let body = self.body(&ErrorStyle::Detailed { strip_prefix: "" }, "");
        let mut response = (self.status(), axum::Json(body)).into_response();
        if let Some(challenge) = self.challenge {
            response.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                HeaderValue::from_static(challenge),
            );
        }
        if let Some(seconds) = self.retry_after() {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response.extensions_mut().insert(self);
        response
    }
}

/// The shape of a router's error body.
#[cfg(feature = "edge")]
#[derive(Debug, Clone)]
pub enum ErrorStyle {
    /// `{timestamp, code, message, details, path}`, where `path` is the path as the service
    /// sees it, without the gateway prefix (news reader, recipes, incident platform).
    Detailed { strip_prefix: &'static str },
    /// `{timestamp, status, error, message}`, `error` being the status's reason phrase
    /// (community).
    Reason,
}

#[cfg(feature = "edge")]
fn service_path<'a>(path: &'a str, prefix: &str) -> &'a str {
    if prefix.is_empty() {
        return path;
    }
    match path.strip_prefix(prefix) {
        Some("") => "/",
        Some(rest) if rest.starts_with('/') => rest,
        _ => path,
    }
}

#[cfg(all(test, feature = "edge"))]
mod tests {
    use super::*;

    #[test]
    fn detailed_body_strips_the_gateway_prefix() {
        let e = ApiError::field("username", "is required");
        let body = e.body(
            &ErrorStyle::Detailed {
                strip_prefix: "/api/users",
            },
            "/api/users/auth/register",
        );
        assert_eq!(body["code"], 400);
        assert_eq!(body["path"], "/auth/register");
        assert_eq!(body["details"][0], "username: is required");
        assert!(body["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')));
    }

    #[test]
    fn reason_body_has_reason_phrase() {
        let e = ApiError::not_found("Post not found");
        let body = e.body(&ErrorStyle::Reason, "/api/v1/posts/x");
        assert_eq!(body["status"], 404);
        assert_eq!(body["error"], "Not Found");
        assert_eq!(body["message"], "Post not found");
        assert!(body.get("path").is_none());
    }

    #[test]
    fn prefix_only_strips_whole_segments() {
        assert_eq!(service_path("/api/usersx", "/api/users"), "/api/usersx");
        assert_eq!(service_path("/api/users", "/api/users"), "/");
        assert_eq!(service_path("/other", "/api/users"), "/other");
    }
}
