//! The content service's errors as HTTP answers, in the detailed error body.

use news::NewsError;
use platform::ApiError;

/// The answer to a failed call on [`news::News`]: 400 naming the fields, 404, 503 when the
/// table is busy or unreachable (worth a retry), else 500 with the details logged.
pub fn to_api(error: NewsError) -> ApiError {
    match error {
        NewsError::Invalid(invalid) => invalid.into(),
        NewsError::SourceNotFound => ApiError::not_found("Source not found"),
        NewsError::ArticleNotFound => ApiError::not_found("Article not found"),
        NewsError::Busy => ApiError::unavailable("The source is busy, try again"),
        NewsError::AccountGone => {
            ApiError::unauthorized("The account of this token no longer exists")
        }
        NewsError::Accounts(e) => {
            tracing::error!(reason = %e, "users service call failed");
            ApiError::bad_gateway("The users service could not be reached")
        }
        NewsError::Store(e) if e.is_unavailable() => {
            tracing::warn!(error = %e, "content table unavailable");
            ApiError::unavailable("The content service is unavailable, try again")
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
