//! What an identity operation can answer instead of its result. No HTTP here: the users
//! function maps each variant to its status and body.

use platform::Invalid;

use crate::password::HashError;
use crate::store::{StoreError, UniqueField};
use crate::subscriptions::ContentError;

#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    /// The input broke a rule; every field problem is named.
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error("the username is already taken")]
    UsernameTaken,
    #[error("the email is already taken")]
    EmailTaken,
    /// Unknown username or wrong password: deliberately one answer for both.
    #[error("invalid username or password")]
    BadCredentials,
    /// A password change whose `currentPassword` is not the account's password.
    #[error("the current password is wrong")]
    WrongCurrentPassword,
    /// A role change that would take the last ADMIN role away from its holder, or that names a
    /// role the platform does not have.
    #[error("{0}")]
    RoleRefused(String),
    /// The sessions table failed: no session can be ended or checked.
    #[error("sessions unavailable: {0}")]
    Sessions(#[from] platform::dynamo::DynamoError),
    /// The account of a valid token no longer exists.
    #[error("user not found")]
    UserNotFound,
    /// A write with a valid token whose account no longer exists: refused like a bad token.
    #[error("the account of this token no longer exists")]
    AccountGone,
    /// The deployment's administrator name belongs to an account whose password is not the
    /// deployment's: someone else registered it, and it is not made an administrator.
    #[error("an account named {0} already exists and its password is not the bootstrap administrator's password: choose another BootstrapAdminUsername, or set BootstrapAdminPassword to that account's password")]
    BootstrapNameHeld(String),
    /// A refresh of a token whose session ended (its account's session version moved on).
    #[error("the session has ended")]
    SessionEnded,
    /// The change would keep more saved articles than an account may (the field that asked).
    #[error("{0}: at most {max} saved articles", max = crate::model::MAX_SAVED_ARTICLES)]
    TooManySaved(&'static str),
    #[error("source not found")]
    SourceNotFound,
    /// Other requests kept changing the account while this one tried to.
    #[error("the account was changed concurrently")]
    ConcurrentChange,
    /// An OAuth2 client that is not configured, or whose secret is wrong.
    #[error("unknown client or wrong client secret")]
    BadClientCredentials,
    /// An OAuth2 client asked for a scope it was not given.
    #[error("scope {0} is not allowed for this client")]
    ScopeNotAllowed(String),
    /// The content service failed (it was unreachable or answered with an error).
    #[error(transparent)]
    Content(ContentError),
    /// The community service failed an account deletion's cleanup.
    #[error(transparent)]
    Community(crate::follows::FollowersError),
    /// The recipe service failed an account deletion's cleanup.
    #[error(transparent)]
    Recipes(crate::follows::RecipesServiceError),
    #[error(transparent)]
    Store(StoreError),
    #[error(transparent)]
    Password(#[from] HashError),
    /// Recipe preferences that could not be written as JSON (a fault, never the input's).
    #[error("encoding preferences failed: {0}")]
    Encode(serde_json::Error),
    #[error("signing a token failed: {0}")]
    Signing(#[from] jsonwebtoken::errors::Error),
}

impl IdentityError {
    /// True when DynamoDB refused the call for want of a permission (see
    /// [`platform::dynamo::DynamoError::is_access_denied`]).
    pub fn is_access_denied(&self) -> bool {
        match self {
            Self::Sessions(e) | Self::Store(StoreError::Dynamo(e)) => e.is_access_denied(),
            _ => false,
        }
    }

    /// True for a lost race with another request: the operation may be tried again.
    pub fn is_concurrent_change(&self) -> bool {
        matches!(self, Self::ConcurrentChange)
    }
}

/// The store's outcomes become the domain's; only failures stay store errors.
impl From<StoreError> for IdentityError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Taken(UniqueField::Username) => Self::UsernameTaken,
            StoreError::Taken(UniqueField::Email) => Self::EmailTaken,
            StoreError::Changed => Self::ConcurrentChange,
            StoreError::NoAccount => Self::AccountGone,
            other => Self::Store(other),
        }
    }
}

impl From<ContentError> for IdentityError {
    fn from(e: ContentError) -> Self {
        match e {
            ContentError::SourceNotFound => Self::SourceNotFound,
            other => Self::Content(other),
        }
    }
}
