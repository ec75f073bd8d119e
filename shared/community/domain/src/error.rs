//! The community service's one error enum, and how each variant answers (its status).

use platform::dynamo::DynamoError;
use platform::{ApiError, Invalid};

#[derive(Debug, thiserror::Error)]
pub enum CommunityError {
    /// 400 naming the fields.
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// 404: missing, deleted, or another author's draft.
    #[error("post not found")]
    PostNotFound,
    /// 404: a comment that is missing, deleted, or on a post the caller cannot see.
    #[error("comment not found")]
    CommentNotFound,
    /// 400: a reply's `parentId` names no comment on this post (the post itself exists).
    #[error("parentId: no such comment on this post")]
    ParentNotFound,
    /// 404: no such user.
    #[error("user not found")]
    UserNotFound,
    /// 404: a feed of a topic no post has carried, or of a name no author has published under.
    #[error("{0} not found")]
    FeedNotFound(&'static str),
    /// 403: another user's list they do not show (or their drafts).
    #[error("this list is private")]
    PrivateList,
    /// 409: reacting to or bookmarking one's own draft.
    #[error("{0}")]
    Conflict(String),
    /// 403: only the author may change a post.
    #[error("only the author may change this post")]
    NotAuthor,
    /// 403: only the author may change or delete a comment.
    #[error("only the author may change this comment")]
    NotCommentAuthor,
    /// 401: the token's account was deleted (or never existed in identity).
    #[error("the account of this token no longer exists")]
    AccountGone,
    /// 502: the identity service could not be asked.
    #[error("identity service: {0}")]
    Identity(String),
    /// 503: the identity service answered that it cannot serve now; retry shortly.
    #[error("identity service busy: {0}")]
    IdentityBusy(String),
    /// 503: contention outlasted the retries.
    #[error("the post is busy, try again")]
    Busy,
    /// A queue could not take a message (503: retry).
    #[error("queue: {0}")]
    Queue(String),
    /// 503: the `queue` queue could not take the message a call answers for (`what`: its
    /// kind); a retry sends it again.
    #[error("{what} not queued: {reason}")]
    NotQueued {
        queue: &'static str,
        what: &'static str,
        reason: String,
    },
    /// The search index failed (503 when unavailable, else 500).
    #[error(transparent)]
    Search(#[from] community_search::SearchError),
    /// A table call failed (503 when unavailable, else 500).
    #[error(transparent)]
    Store(#[from] DynamoError),
}

impl From<platform::dynamo::TransactionError> for CommunityError {
    fn from(e: platform::dynamo::TransactionError) -> Self {
        match e {
            platform::dynamo::TransactionError::Dynamo(d) => Self::Store(d),
            platform::dynamo::TransactionError::Conflict
            | platform::dynamo::TransactionError::Condition { .. } => Self::Busy,
        }
    }
}

/// 400 naming the fields, 401, 403, 404, 502 when identity cannot be asked, 503 when the
/// table or the identity service is busy or unreachable, else 500 (the cause goes to the log).
impl From<CommunityError> for ApiError {
    fn from(error: CommunityError) -> Self {
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
            CommunityError::FeedNotFound(what) => ApiError::not_found(format!("{what} not found")),
            CommunityError::PrivateList => ApiError::forbidden("This list is private"),
            CommunityError::Conflict(reason) => ApiError::conflict(reason),
            CommunityError::NotAuthor => {
                ApiError::forbidden("Only the author may change this post")
            }
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::ErrorKind;

    #[test]
    fn domain_errors_become_statuses() {
        let invalid = ApiError::from(CommunityError::Invalid(platform::Invalid::field(
            "title", "too long",
        )));
        assert_eq!(invalid.kind, ErrorKind::BadRequest);
        assert_eq!(invalid.details, vec!["title: too long"]);
        assert_eq!(
            ApiError::from(CommunityError::PostNotFound).kind,
            ErrorKind::NotFound
        );
        assert_eq!(
            ApiError::from(CommunityError::NotAuthor).kind,
            ErrorKind::Forbidden
        );
        assert_eq!(
            ApiError::from(CommunityError::AccountGone).kind,
            ErrorKind::Unauthorized
        );
        assert_eq!(
            ApiError::from(CommunityError::Identity("down".into())).kind,
            ErrorKind::BadGateway
        );
        assert_eq!(
            ApiError::from(CommunityError::IdentityBusy("HTTP 503".into())).kind,
            ErrorKind::ServiceUnavailable
        );
        assert_eq!(
            ApiError::from(CommunityError::Busy).kind,
            ErrorKind::ServiceUnavailable
        );
    }
}
