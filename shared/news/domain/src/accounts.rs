//! The port to the users service's side of a submission: whether the account of the user
//! token a request carries still exists. A token outlives its account by up to its lifetime,
//! and the users table belongs to the users route family, so the content service asks it
//! through [`Accounts`]: over HTTP, identity's client asks `GET /api/users/users/me` with the
//! caller's own token.

use std::future::Future;

use identity_client::Caller;

/// The users service could not say (unreachable, timed out, or an answer we cannot read).
#[derive(Debug, thiserror::Error)]
#[error("users service failed: {0}")]
pub struct AccountsError(pub String);

/// The accounts of user tokens.
pub trait Accounts: Send + Sync {
    /// True when the account of the caller's user token exists.
    fn caller_exists(&self) -> impl Future<Output = Result<bool, AccountsError>> + Send;
}

impl Accounts for Caller<'_> {
    async fn caller_exists(&self) -> Result<bool, AccountsError> {
        self.account_exists()
            .await
            .map_err(|e| AccountsError(e.to_string()))
    }
}
