//! The OAuth2 token endpoint (RFC 6749 section 4.4, client credentials). The protocol (form
//! body, HTTP Basic client authentication, the RFC's `error` codes) lives here; identity
//! checks the client and issues the token.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::IntoResponse;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use identity::clients::{requested_scopes, ClientCredentials};
use identity::error::oauth_error;
use platform::http::form_pairs;
use platform::openapi::ErrorBody;
use platform::{ApiError, ErrorKind};
use serde::Serialize;
use utoipa::ToSchema;

use crate::{no_store, AppState};

/// A client-credentials token request (RFC 6749 4.4), form-encoded.
#[derive(Debug, Default, ToSchema)]
pub struct TokenRequest {
    /// Always `client_credentials`.
    #[schema(required = true, value_type = String, example = "client_credentials")]
    grant_type: Option<String>,
    /// Space-separated scopes; all the client's scopes when absent.
    #[schema(example = "source.write")]
    scope: Option<String>,
    /// With `client_secret`, instead of HTTP Basic.
    client_id: Option<String>,
    client_secret: Option<String>,
}

impl TokenRequest {
    /// The fields of a form body; the first of a repeated field counts.
    fn from_form(body: &[u8]) -> Self {
        let mut request = Self::default();
        for (name, value) in form_pairs(std::str::from_utf8(body).unwrap_or("")) {
            let field = match name.as_str() {
                "grant_type" => &mut request.grant_type,
                "scope" => &mut request.scope,
                "client_id" => &mut request.client_id,
                "client_secret" => &mut request.client_secret,
                _ => continue,
            };
            field.get_or_insert(value);
        }
        request
    }

    /// The credentials in the form, when both parts are there.
    fn client_credentials(&self) -> Option<ClientCredentials> {
        Some(ClientCredentials {
            id: self.client_id.clone()?,
            secret: self.client_secret.clone()?,
        })
    }
}

/// A service token (RFC 6749 5.1).
#[derive(Serialize, ToSchema)]
pub struct ServiceToken {
    access_token: String,
    /// Always `Bearer`.
    token_type: &'static str,
    /// Seconds until the token expires.
    expires_in: i64,
    /// The granted scopes, space-separated.
    scope: String,
}

/// RFC 6749 section 4.4: client credentials, client authenticated by HTTP Basic (or, as the
/// RFC allows, `client_id`/`client_secret` in the form). Errors carry the RFC's `error` code.
#[utoipa::path(
    post,
    path = "/api/users/oauth2/token",
    operation_id = "issueServiceToken",
    tag = "users",
    summary = "Issues a service token to an OAuth2 client (client credentials grant)",
    security(("clientBasic" = []), ()),
    request_body(content = TokenRequest, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "The token", body = ServiceToken),
        (status = 400, description = "`invalid_request`, `unsupported_grant_type` or `invalid_scope` (in the body's `error`)", body = ErrorBody),
        (status = 401, description = "`invalid_client`: missing or wrong client credentials", body = ErrorBody),
        (status = 415, description = "The body is not form-encoded", body = ErrorBody),
    )
)]
pub async fn token(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<impl IntoResponse, ApiError> {
    let form_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if !form_type {
        return Err(oauth_error(
            ErrorKind::UnsupportedMediaType,
            "invalid_request",
            "Send the token request as application/x-www-form-urlencoded",
        ));
    }
    let request = TokenRequest::from_form(&body);
    match request.grant_type.as_deref() {
        None => {
            return Err(oauth_error(
                ErrorKind::BadRequest,
                "invalid_request",
                "grant_type is required",
            ))
        }
        Some("client_credentials") => {}
        Some(_) => {
            return Err(oauth_error(
                ErrorKind::BadRequest,
                "unsupported_grant_type",
                "Only grant_type=client_credentials is supported",
            ))
        }
    }
    let credentials = basic_credentials(&headers)
        .or_else(|| request.client_credentials())
        .ok_or_else(|| {
            oauth_error(
                ErrorKind::Unauthorized,
                "invalid_client",
                "Client authentication is required",
            )
        })?;
    let grant = state
        .identity
        .service_token(&credentials, requested_scopes(request.scope.as_deref()))?;
    Ok(no_store(axum::Json(ServiceToken {
        access_token: grant.token.token,
        token_type: "Bearer",
        expires_in: grant.token.expires_in,
        scope: grant.scopes.join(" "),
    })))
}

fn basic_credentials(headers: &HeaderMap) -> Option<ClientCredentials> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = STANDARD.decode(encoded.trim()).ok()?;
    let decoded = String::from_utf8(decoded).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    // RFC 6749 2.3.1: both parts are form-urlencoded before Basic encoding.
    let decode = |s: &str| {
        form_pairs(&format!("v={s}"))
            .pop()
            .map(|(_, v)| v)
            .unwrap_or_default()
    };
    Some(ClientCredentials {
        id: decode(id),
        secret: decode(secret),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_form_and_basic_credentials() {
        let request = TokenRequest::from_form(
            b"grant_type=client_credentials&scope=a+b&grant_type=password&client_id=c",
        );
        assert_eq!(request.grant_type.as_deref(), Some("client_credentials"));
        assert_eq!(request.scope.as_deref(), Some("a b"));
        assert!(request.client_credentials().is_none(), "no secret");

        let mut headers = HeaderMap::new();
        let encoded = STANDARD.encode("my%20client:s%3Acret");
        headers.insert(
            header::AUTHORIZATION,
            format!("Basic {encoded}").parse().expect("header"),
        );
        let credentials = basic_credentials(&headers).expect("credentials");
        assert_eq!(
            (credentials.id.as_str(), credentials.secret.as_str()),
            ("my client", "s:cret")
        );
    }
}
