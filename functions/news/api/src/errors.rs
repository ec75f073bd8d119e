//! The news function's failures: handlers return [`Error`], and `?` converts the domain's
//! errors and the platform's. The router's error layer renders it in the detailed error body
//! and logs its cause once.

use axum::response::{IntoResponse, Response};
use news::NewsError;
use platform::ApiError;

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

impl From<NewsError> for Error {
    fn from(error: NewsError) -> Self {
        Self(to_api(error))
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        self.0.into_response()
    }
}

/// The answer to a failed call on [`news::News`]: 400 naming the fields, 404, 503 when the
/// table is busy or unreachable (worth a retry), else 500 with the details logged.
fn to_api(error: NewsError) -> ApiError {
    match error {
        NewsError::Invalid(invalid) => invalid.into(),
        NewsError::SourceNotFound => ApiError::not_found("Source not found"),
        NewsError::ArticleNotFound => ApiError::not_found("Article not found"),
        NewsError::Busy => ApiError::unavailable("The source is busy, try again"),
        NewsError::AccountGone => {
            ApiError::unauthorized("The account of this token no longer exists")
        }
        NewsError::Accounts(e) => ApiError::bad_gateway("The users service could not be reached")
            .caused_by(format!("users service call failed: {e}")),
        NewsError::Store(e) if e.is_unavailable() => {
            ApiError::unavailable("The content service is unavailable, try again")
                .caused_by(format!("content table unavailable: {e}"))
        }
        NewsError::Store(e) => ApiError::internal("content table", e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::ErrorKind;

    #[test]
    fn domain_errors_become_statuses() {
        let invalid = to_api(NewsError::Invalid(platform::Invalid::field(
            "size", "too big",
        )));
        assert_eq!(invalid.kind, ErrorKind::BadRequest);
        assert_eq!(invalid.details, vec!["size: too big"]);
        assert_eq!(to_api(NewsError::SourceNotFound).kind, ErrorKind::NotFound);
        assert_eq!(
            to_api(NewsError::ArticleNotFound).message,
            "Article not found"
        );
        assert_eq!(to_api(NewsError::Busy).kind, ErrorKind::ServiceUnavailable);
        assert_eq!(to_api(NewsError::AccountGone).kind, ErrorKind::Unauthorized);
    }
}
