//! The port to the users service's side of a submission: whether the account of the user
//! token a request carries still exists. A token outlives its account by up to its lifetime,
//! and the users table belongs to the users route family, so the content service asks it
//! through [`Accounts`]; the news function implements it over HTTP.

use std::future::Future;

/// The users service could not say (unreachable, timed out, or an answer we cannot read).
#[derive(Debug, thiserror::Error)]
#[error("users service failed: {0}")]
pub struct AccountsError(pub String);

/// The accounts of user tokens.
pub trait Accounts: Send + Sync {
    /// True when the account of the caller's user token exists.
    fn caller_exists(&self) -> impl Future<Output = Result<bool, AccountsError>> + Send;
}
