//! The [`Identity`] port: what the community service needs to know about a user, asked of the
//! identity (users) service, which stays the only reader of its table: over HTTP, its client's
//! `GET /api/users/internal/users/{id}` (internal service token).

use std::future::Future;

use identity_client::{CallError, IdentityApi};

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

    /// The user of `username` (any case), for `@mentions`; `None` when there is none. A port
    /// that cannot look names up knows nobody.
    fn user_by_username(
        &self,
        _username: &str,
    ) -> impl Future<Output = Result<Option<Profile>, IdentityError>> + Send {
        async { Ok(None) }
    }
}

fn profile_of(user: identity_client::InternalUser) -> Profile {
    Profile {
        display_name: if user.display_name.trim().is_empty() {
            user.username.clone()
        } else {
            user.display_name
        },
        id: user.id,
        username: user.username,
        roles: user.roles.iter().map(|r| r.as_str().to_string()).collect(),
        show_bookmarks: user.show_bookmarks,
        show_likes: user.show_likes,
    }
}

fn call_error(e: CallError) -> IdentityError {
    match e {
        e if e.is_busy() => IdentityError::Busy(e.to_string()),
        CallError::Unreadable(e) => IdentityError::Failed(format!("unreadable profile: {e}")),
        CallError::CutOff(e) => IdentityError::Failed(format!("unreadable profile: {e}")),
        e => IdentityError::Failed(e.to_string()),
    }
}

impl Identity for IdentityApi<'_> {
    async fn profile(&self, user: &UserId) -> Result<Option<Profile>, IdentityError> {
        let found = self
            .internal_user(user.as_str())
            .await
            .map_err(call_error)?;
        Ok(found.map(profile_of))
    }

    async fn user_by_username(&self, username: &str) -> Result<Option<Profile>, IdentityError> {
        let found = self
            .internal_user_by_username(username)
            .await
            .map_err(call_error)?;
        Ok(found.map(profile_of))
    }
}
