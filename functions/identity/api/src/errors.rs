//! How identity's errors answer over HTTP: status, message and `details` of the error body.
//! Handlers return [`Error`], and `?` converts the domain's errors and the platform's. The
//! router's error layer renders it and logs its cause once.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use identity::store::StoreError;
use identity::IdentityError;
use platform::{ApiError, ErrorKind};

/// What a handler of this function fails with.
#[derive(Debug)]
pub struct Error(ApiError);

impl From<ApiError> for Error {
    fn from(error: ApiError) -> Self {
        Self(error)
    }
}

impl From<platform::Invalid> for Error {
    fn from(invalid: platform::Invalid) -> Self {
        Self(invalid.into())
    }
}

impl From<platform::FieldError> for Error {
    fn from(error: platform::FieldError) -> Self {
        Self(ApiError::field(error.field, error.reason))
    }
}

impl From<IdentityError> for Error {
    fn from(error: IdentityError) -> Self {
        Self(to_api(error))
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        self.0.into_response()
    }
}

/// The answer to an identity operation that failed.
fn to_api(e: IdentityError) -> ApiError {
    match e {
        IdentityError::Invalid(invalid) => invalid.into(),
        IdentityError::UsernameTaken => taken("username"),
        IdentityError::EmailTaken => taken("email"),
        IdentityError::BadCredentials => ApiError::unauthorized("Invalid username or password"),
        IdentityError::UserNotFound => ApiError::not_found("User not found"),
        IdentityError::WrongCurrentPassword => ApiError::forbidden("The current password is wrong")
            .with_details(vec!["currentPassword: is wrong".to_string()]),
        // Who may act, not what was sent: a schema-valid request the caller may not make.
        IdentityError::RoleRefused(reason) => ApiError::forbidden(reason),
        IdentityError::Sessions(e) => {
            ApiError::unavailable("Sessions cannot be changed right now; try again")
                .caused_by(format!("sessions table unavailable: {e}"))
        }
        IdentityError::AccountGone => {
            ApiError::unauthorized("The account of this token no longer exists")
        }
        IdentityError::SessionEnded => {
            ApiError::unauthorized("The session has ended: sign in again")
        }
        IdentityError::TooManySaved(field) => ApiError::from(platform::Invalid::field(
            field,
            format!(
                "at most {} articles can be saved; remove one first",
                identity::model::MAX_SAVED_ARTICLES
            ),
        )),
        IdentityError::SourceNotFound => ApiError::not_found("Source not found"),
        IdentityError::ConcurrentChange => {
            ApiError::conflict("The record was changed concurrently; try again")
        }
        IdentityError::BadClientCredentials => oauth_error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            "Client authentication failed",
        ),
        IdentityError::ScopeNotAllowed(scope) => oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_scope",
            &format!("Scope {scope} is not allowed for this client"),
        ),
        IdentityError::Content(e @ identity::ContentError::Busy(_)) => {
            ApiError::unavailable("The content service is busy: retry later")
                .caused_by(format!("content service busy: {e}"))
        }
        IdentityError::Content(e) => {
            ApiError::bad_gateway("The content service could not be reached")
                .caused_by(format!("content service call failed: {e}"))
        }
        IdentityError::Community(e) => {
            ApiError::bad_gateway("The community service could not be reached")
                .caused_by(format!("community service call failed: {e}"))
        }
        IdentityError::Recipes(e) => {
            ApiError::bad_gateway("The recipe service could not be reached")
                .caused_by(format!("recipe service call failed: {e}"))
        }
        IdentityError::Store(e) => store_failure(e),
        IdentityError::Password(e) => ApiError::internal("password hash", e),
        IdentityError::Signing(e) => ApiError::internal("sign token", e),
        IdentityError::Encode(e) => ApiError::internal("encode preferences", e),
        // Only the bootstrap custom resource meets it; never an HTTP request.
        held @ IdentityError::BootstrapNameHeld(_) => ApiError::internal("bootstrap", held),
    }
}

fn taken(field: &str) -> ApiError {
    ApiError::conflict(format!("The {field} is already taken"))
        .with_details(vec![format!("{field}: is already taken")])
}

/// A throttled or unreachable table is worth retrying (503); anything else is a fault (500).
fn store_failure(e: StoreError) -> ApiError {
    if e.is_unavailable() {
        ApiError::unavailable("The users table is unavailable; try again")
            .caused_by(format!("users table unavailable: {e}"))
    } else {
        ApiError::internal("users store", e)
    }
}

/// An RFC 6749 5.2 error: the body carries `error` and `error_description`; a 401 challenges
/// for HTTP Basic client authentication.
pub fn oauth_error(status: StatusCode, code: &'static str, message: &str) -> ApiError {
    let error = ApiError::new(ErrorKind::from_status(status), message)
        .with_extra("error", code)
        .with_extra("error_description", message.to_string());
    if status == StatusCode::UNAUTHORIZED {
        error.with_challenge("Basic")
    } else {
        error
    }
}

#[cfg(test)]
mod tests {
    use platform::{FieldError, Invalid};

    use super::*;

    #[test]
    fn domain_errors_keep_their_answers() {
        let taken = to_api(IdentityError::EmailTaken);
        assert_eq!(taken.status(), StatusCode::CONFLICT);
        assert_eq!(taken.details, vec!["email: is already taken"]);

        let invalid = to_api(IdentityError::Invalid(Invalid(vec![FieldError::new(
            "enabledSourceIds",
            "not subscribed to source x",
        )])));
        assert_eq!(invalid.status(), StatusCode::BAD_REQUEST);
        assert_eq!(invalid.message, "Validation failed");
        assert_eq!(
            invalid.details,
            vec!["enabledSourceIds: not subscribed to source x"]
        );

        let login = to_api(IdentityError::BadCredentials);
        assert_eq!(login.challenge, Some("Bearer"));

        let client = to_api(IdentityError::BadClientCredentials);
        assert_eq!(client.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(client.challenge, Some("Basic"));
        assert_eq!(client.extra.get("error"), Some(&"invalid_client".into()));

        let content = to_api(IdentityError::Content(identity::ContentError::Failed(
            "HTTP 500".into(),
        )));
        assert_eq!(content.status(), StatusCode::BAD_GATEWAY);
        let busy = to_api(IdentityError::Content(identity::ContentError::Busy(
            "HTTP 503".into(),
        )));
        assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            busy.retry_after(),
            Some(platform::error::UNAVAILABLE_RETRY_AFTER)
        );
    }
}
