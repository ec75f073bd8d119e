//! The community service's one error enum; the function maps each variant to a status.

use platform::dynamo::DynamoError;
use platform::Invalid;

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
