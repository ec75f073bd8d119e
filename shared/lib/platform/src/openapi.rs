//! What every function's OpenAPI document shares: the error bodies, the health body and the
//! security schemes. Each HTTP function's library exposes `openapi()` built from annotations
//! on its own handlers; the contract test merges them into the one committed document.

use serde::Serialize;
use utoipa::openapi::security::{
    ApiKey, ApiKeyValue, ClientCredentials, Flow, HttpAuthScheme, HttpBuilder, OAuth2, Scopes,
    SecurityScheme,
};
use utoipa::openapi::OpenApi;
use utoipa::ToSchema;

/// Security scheme of user tokens: `Authorization: Bearer <JWT>` from the users login.
pub const BEARER_JWT: &str = "bearerJwt";
/// Security scheme of the community's internal operations.
pub const INTERNAL_TOKEN: &str = "internalToken";
/// Security scheme of OAuth2 clients authenticating to the token endpoint with HTTP Basic.
pub const CLIENT_BASIC: &str = "clientBasic";

/// The detailed error body (news reader, recipes, incident platform).
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// ISO 8601 UTC.
    #[schema(example = "2026-11-22T12:00:00.000Z")]
    pub timestamp: String,
    /// The HTTP status.
    #[schema(example = 400)]
    pub code: u16,
    #[schema(example = "Validation failed")]
    pub message: String,
    /// `field: reason` entries; empty when none.
    #[schema(example = json!(["username: must be 3 to 50 characters"]))]
    pub details: Vec<String>,
    /// The request path as the answering service sees it (without the gateway prefix).
    #[schema(example = "/auth/register")]
    pub path: String,
}

/// The reason error body (community).
#[derive(Serialize, ToSchema)]
pub struct ReasonErrorBody {
    /// ISO 8601 UTC.
    pub timestamp: String,
    /// The HTTP status.
    pub status: u16,
    /// The status's reason phrase.
    pub error: String,
    pub message: String,
}

/// `UP`, or `DOWN` when a dependency (the function's table) cannot be reached.
#[derive(Serialize, ToSchema)]
pub enum HealthStatus {
    #[serde(rename = "UP")]
    Up,
    #[serde(rename = "DOWN")]
    Down,
}

/// A health check's body.
#[derive(Serialize, ToSchema)]
pub struct Health {
    pub status: HealthStatus,
}

/// The documented 429 of a rate-limited operation: `body` (`ErrorBody` or `ReasonErrorBody`)
/// and the `Retry-After` header. Use it in an `IntoResponses` beside the operation's others.
pub fn too_many_requests(
    description: &str,
    body: &str,
) -> (String, utoipa::openapi::RefOr<utoipa::openapi::Response>) {
    use utoipa::openapi::header::HeaderBuilder;
    use utoipa::openapi::{ContentBuilder, Object, Ref, ResponseBuilder, Type};
    let retry_after = HeaderBuilder::new()
        .schema(Some(Object::with_type(Type::Integer)))
        .description(Some("Seconds until the spent limit's window ends"))
        .build();
    let response = ResponseBuilder::new()
        .description(description)
        .header("Retry-After", retry_after)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name(body)))
                .build(),
        )
        .build();
    ("429".to_string(), utoipa::openapi::RefOr::T(response))
}

/// The crate the [`crate::too_many_requests_response`] macro expands to.
#[doc(hidden)]
pub use utoipa as __utoipa;

/// Declares the documented 429 of a braked route (a rate limit spent: `Retry-After` and the
/// error body `$body`), for a handler's `responses(...)`:
/// `platform::too_many_requests_response!(pub(crate) struct TooManyWrites: "Too many writes; ...", "ReasonErrorBody");`
#[macro_export]
macro_rules! too_many_requests_response {
    ($(#[$attr:meta])* $vis:vis struct $name:ident: $description:expr, $body:expr) => {
        $(#[$attr])*
        $vis struct $name;

        impl $crate::openapi::__utoipa::IntoResponses for $name {
            fn responses() -> ::std::collections::BTreeMap<
                ::std::string::String,
                $crate::openapi::__utoipa::openapi::RefOr<
                    $crate::openapi::__utoipa::openapi::Response,
                >,
            > {
                ::std::collections::BTreeMap::from([$crate::openapi::too_many_requests(
                    $description,
                    $body,
                )])
            }
        }
    };
}

/// Adds the platform's security schemes to a function's document; use it as
/// `#[openapi(modifiers(&platform::openapi::SecuritySchemes))]`.
pub struct SecuritySchemes;

impl utoipa::Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER_JWT,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "A user token from POST /api/users/auth/login (EdDSA-signed JWT).",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            CLIENT_BASIC,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Basic)
                    .description(Some(
                        "An OAuth2 client's id and secret (RFC 6749 2.3.1), at the token endpoint.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            INTERNAL_TOKEN,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-Internal-Service-Token",
                "The shared secret of the community's internal operations.",
            ))),
        );
    }
}

/// An OAuth2 client-credentials scheme granting service scopes; a function whose routes need
/// a scope adds it beside [`SecuritySchemes`]: `modifiers(&SecuritySchemes, &MY_SCHEME)`.
pub struct ServiceTokenScheme {
    /// The scheme's name, as the routes' `security(...)` refer to it.
    pub name: &'static str,
    /// Each scope and what it allows.
    pub scopes: &'static [(&'static str, &'static str)],
}

impl utoipa::Modify for ServiceTokenScheme {
    fn modify(&self, openapi: &mut OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let scopes = Scopes::from_iter(self.scopes.iter().copied());
        components.add_security_scheme(
            self.name,
            SecurityScheme::OAuth2(OAuth2::with_description(
                [Flow::ClientCredentials(ClientCredentials::new(
                    "/api/users/oauth2/token",
                    scopes,
                ))],
                "A service token from the OAuth2 client-credentials grant, sent as a Bearer token.",
            )),
        );
    }
}

/// Documents the 503 a function answers when its table cannot be reached or is throttling
/// (`DynamoError::is_unavailable`), in the detailed error body, on every operation but those
/// in `except` (operations that touch no table) and those that document a 503 of their own.
pub struct TableUnavailable {
    pub except: &'static [&'static str],
}

impl utoipa::Modify for TableUnavailable {
    fn modify(&self, openapi: &mut OpenApi) {
        document_unavailable(
            openapi,
            self.except,
            "The service's table cannot be reached or is throttling: retry later",
            "ErrorBody",
        );
    }
}

/// Documents a function's 503 on every operation that has none of its own, in the community's
/// body (`ReasonErrorBody`), with `description` saying what could not be reached.
pub struct ReasonUnavailable {
    pub description: &'static str,
}

impl utoipa::Modify for ReasonUnavailable {
    fn modify(&self, openapi: &mut OpenApi) {
        document_unavailable(openapi, &[], self.description, "ReasonErrorBody");
    }
}

/// Adds a 503 with `body` to every operation not in `except` and without a 503 already, and
/// `Retry-After` to every 503 (the platform's 503s all carry it).
fn document_unavailable(openapi: &mut OpenApi, except: &[&str], description: &str, body: &str) {
    use utoipa::openapi::header::HeaderBuilder;
    use utoipa::openapi::{ContentBuilder, Object, Ref, RefOr, ResponseBuilder, Type};
    for item in openapi.paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ];
        for operation in operations.into_iter().flatten() {
            let excepted = operation
                .operation_id
                .as_deref()
                .is_some_and(|id| except.contains(&id));
            let retry_after = HeaderBuilder::new()
                .schema(Some(Object::with_type(Type::Integer)))
                .description(Some("Seconds to wait before trying again"))
                .build();
            // Every 503 carries Retry-After, the handler's own ones too.
            if let Some(RefOr::T(own)) = operation.responses.responses.get_mut("503") {
                own.headers
                    .entry("Retry-After".to_string())
                    .or_insert(RefOr::T(retry_after));
                continue;
            }
            if excepted || operation.responses.responses.contains_key("503") {
                continue;
            }
            let response = ResponseBuilder::new()
                .description(description)
                .header("Retry-After", retry_after)
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name(body)))
                        .build(),
                )
                .build();
            operation
                .responses
                .responses
                .insert("503".to_string(), response.into());
        }
    }
}

#[cfg(test)]
mod too_many_requests_tests {
    use utoipa::IntoResponses;

    crate::too_many_requests_response!(
        /// A braked test route's 429.
        struct TooManyTries: "Too many tries; retry after Retry-After seconds", "ErrorBody"
    );

    #[test]
    fn the_429_names_its_body_and_retry_after() {
        let responses = TooManyTries::responses();
        let json = serde_json::to_value(&responses).unwrap_or_default();
        assert_eq!(
            json["429"]["description"],
            "Too many tries; retry after Retry-After seconds"
        );
        assert!(json["429"]["headers"]["Retry-After"].is_object(), "{json}");
        assert_eq!(
            json["429"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/ErrorBody"
        );
    }
}
