//! The [`Identity`] port: what the community service needs to know about a user, asked of the
//! identity (users) service, which stays the only reader of its table.

use std::future::Future;

use crate::input::UserId;

/// A user as the community service sees them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub id: String,
    pub username: String,
    pub display_name: String,
    pub roles: Vec<String>,
    pub show_bookmarks: bool,
    pub show_likes: bool,
}

impl Profile {
    /// The role shown on an author: `ADMIN` when the user holds it, else `USER`.
    pub fn role(&self) -> &'static str {
        if self.roles.iter().any(|r| r == "ADMIN") {
            "ADMIN"
        } else {
            "USER"
        }
    }
}

/// The identity service could not answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum IdentityError {
    /// It answered that it cannot serve now (503, 429: its table throttled or unreachable):
    /// the caller's client may retry shortly.
    #[error("identity service busy: {0}")]
    Busy(String),
    /// Unreachable, misconfigured, or an answer that cannot be read.
    #[error("{0}")]
    Failed(String),
}

impl From<IdentityError> for crate::CommunityError {
    fn from(e: IdentityError) -> Self {
        match e {
            IdentityError::Busy(reason) => Self::IdentityBusy(reason),
            IdentityError::Failed(reason) => Self::Identity(reason),
        }
    }
}

/// Looks users up.
pub trait Identity: Send + Sync {
    /// The user's profile; `None` when there is no such account.
    fn profile(
        &self,
        user: &UserId,
    ) -> impl Future<Output = Result<Option<Profile>, IdentityError>> + Send;
}
