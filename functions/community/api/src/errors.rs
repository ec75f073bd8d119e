//! The community function's failures: handlers return [`Error`], and `?` converts the
//! domain's errors and the platform's. The router's error layer renders it in the community's
//! reason body and logs its cause once.

use axum::response::{IntoResponse, Response};
use community::CommunityError;
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

impl From<CommunityError> for Error {
    fn from(error: CommunityError) -> Self {
        Self(to_api(error))
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        self.0.into_response()
    }
}

/// 400 naming the fields, 401, 403, 404, 502 when identity cannot be asked, 503 when the
/// table or the identity service is busy or unreachable, else 500 (the cause goes to the log).
fn to_api(error: CommunityError) -> ApiError {
    match error {
        CommunityError::Invalid(invalid) => invalid.into(),
        CommunityError::PostNotFound => ApiError::not_found("Post not found"),
        CommunityError::CommentNotFound => ApiError::not_found("Comment not found"),
        // The post exists; what is wrong is a field of the body, so the answer names it (a
        // 404 would say the post is not there).
        CommunityError::ParentNotFound => {
            ApiError::field("parentId", "no such comment on this post")
        }
        CommunityError::UserNotFound => ApiError::not_found("User not found"),
        CommunityError::PrivateList => ApiError::forbidden("This list is private"),
        CommunityError::Conflict(reason) => ApiError::conflict(reason),
        CommunityError::NotAuthor => ApiError::forbidden("Only the author may change this post"),
        CommunityError::NotCommentAuthor => {
            ApiError::forbidden("Only the author may change this comment")
        }
        CommunityError::AccountGone => {
            ApiError::unauthorized("The account of this token no longer exists")
        }
        CommunityError::Identity(reason) => {
            ApiError::bad_gateway("The identity service could not be reached")
                .caused_by(format!("identity service call failed: {reason}"))
        }
        CommunityError::IdentityBusy(reason) => {
            ApiError::unavailable("The identity service is busy: retry later")
                .caused_by(format!("identity service busy: {reason}"))
        }
        CommunityError::Busy => ApiError::unavailable("The post is busy, try again"),
        CommunityError::Store(e) if e.is_unavailable() => {
            ApiError::unavailable("The community service is unavailable, try again")
                .caused_by(format!("community table unavailable: {e}"))
        }
        CommunityError::Store(e) => ApiError::internal("community table", e),
        CommunityError::NotQueued {
            queue,
            what,
            reason,
        } => ApiError::unavailable(format!("The {queue} queue cannot be reached: retry later"))
            .caused_by(format!("{what} not queued: {reason}")),
        CommunityError::Queue(reason) => {
            ApiError::unavailable("The community service is unavailable, try again")
                .caused_by(format!("queue send failed: {reason}"))
        }
        CommunityError::Search(e) if e.is_unavailable() => {
            ApiError::unavailable("Search is unavailable, try again")
                .caused_by(format!("search index unavailable: {e}"))
        }
        CommunityError::Search(e) => ApiError::internal("search index", e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::ErrorKind;

    #[test]
    fn domain_errors_become_statuses() {
        let invalid = to_api(CommunityError::Invalid(platform::Invalid::field(
            "title", "too long",
        )));
        assert_eq!(invalid.kind, ErrorKind::BadRequest);
        assert_eq!(invalid.details, vec!["title: too long"]);
        assert_eq!(
            to_api(CommunityError::PostNotFound).kind,
            ErrorKind::NotFound
        );
        assert_eq!(to_api(CommunityError::NotAuthor).kind, ErrorKind::Forbidden);
        assert_eq!(
            to_api(CommunityError::AccountGone).kind,
            ErrorKind::Unauthorized
        );
        assert_eq!(
            to_api(CommunityError::Identity("down".into())).kind,
            ErrorKind::BadGateway
        );
        assert_eq!(
            to_api(CommunityError::IdentityBusy("HTTP 503".into())).kind,
            ErrorKind::ServiceUnavailable
        );
        assert_eq!(
            to_api(CommunityError::Busy).kind,
            ErrorKind::ServiceUnavailable
        );
    }
}
