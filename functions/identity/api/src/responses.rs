//! The error responses several operations document, declared once. Use them in a
//! `#[utoipa::path]` beside the operation's own: `responses((status = 200, ...), NeedsUser)`.

use std::collections::BTreeMap;

use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response, ResponseBuilder};
use utoipa::IntoResponses;

/// An error response with the detailed error body.
fn error(description: &str) -> RefOr<Response> {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorBody")))
                .build(),
        )
        .build()
        .into()
}

/// 401: the operation needs a user token.
pub struct NeedsUser;

impl IntoResponses for NeedsUser {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        BTreeMap::from([("401".to_string(), error("No valid user token"))])
    }
}

/// 401 of a write: it needs a user token whose account still exists.
pub struct NeedsLiveUser;

impl IntoResponses for NeedsLiveUser {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        BTreeMap::from([(
            "401".to_string(),
            error("No valid user token, or the token's account no longer exists"),
        )])
    }
}

/// 404 and 502 of a subscription change, which the content service makes.
pub struct SubscriptionErrors;

impl IntoResponses for SubscriptionErrors {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        BTreeMap::from([
            ("404".to_string(), error("No such source")),
            ("502".to_string(), error("The content service failed")),
            (
                "503".to_string(),
                error(
                    "The content service or the users table is busy: retry later (`Retry-After`)",
                ),
            ),
        ])
    }
}

platform::too_many_requests_response!(
    /// 429: too many login attempts from this address or on this username.
    pub struct TooManyLogins:
        "Too many login attempts from this address or on this username; retry after \
         Retry-After seconds",
        "ErrorBody"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_responses_refer_to_the_error_body() {
        let responses = serde_json::to_value(SubscriptionErrors::responses()).expect("json");
        assert_eq!(
            responses["502"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/ErrorBody"
        );
        assert_eq!(responses["404"]["description"], "No such source");
    }
}
