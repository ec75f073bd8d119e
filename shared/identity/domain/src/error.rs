//! What an identity operation can answer instead of its result, and how each answers
//! ([`ApiError`]: no HTTP here, the function's router renders it).

use platform::{ApiError, ErrorKind, Invalid};

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
    #[error("app password not found")]
    AppPasswordNotFound,
    /// The account holds as many app passwords as it may.
    #[error("at most {max} app passwords", max = crate::app_passwords::MAX_APP_PASSWORDS)]
    TooManyAppPasswords,
    /// A `ClientLogin` or `Auth` value that matches no live app password (unknown, wrong,
    /// revoked, or ended with the account's sessions): one answer for all.
    #[error("unknown, revoked or ended app password")]
    BadAppPassword,
    #[error(transparent)]
    Random(#[from] crate::app_passwords::RandomError),
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
            StoreError::Full => Self::TooManyAppPasswords,
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

/// The answer to an identity operation that failed: status, message and `details` of the
/// error body.
impl From<IdentityError> for ApiError {
    fn from(e: IdentityError) -> Self {
        to_api(e)
    }
}

fn to_api(e: IdentityError) -> ApiError {
    match e {
        IdentityError::Invalid(invalid) => invalid.into(),
        IdentityError::UsernameTaken => taken("username"),
        IdentityError::EmailTaken => taken("email"),
        IdentityError::BadCredentials => ApiError::unauthorized("Invalid username or password"),
        IdentityError::UserNotFound => ApiError::not_found("User not found"),
        IdentityError::WrongCurrentPassword => ApiError::forbidden("The current password is wrong")
            .with_details(vec!["currentPassword: is wrong".to_string()]),
        // Who may act, not what was sent: a schema-valid request the caller may not make.
        IdentityError::RoleRefused(reason) => ApiError::forbidden(reason),
        IdentityError::Sessions(e) => {
            ApiError::unavailable("Sessions cannot be changed right now; try again")
                .caused_by(format!("sessions table unavailable: {e}"))
        }
        IdentityError::AccountGone => {
            ApiError::unauthorized("The account of this token no longer exists")
        }
        IdentityError::SessionEnded => {
            ApiError::unauthorized("The session has ended: sign in again")
        }
        IdentityError::TooManySaved(field) => ApiError::from(platform::Invalid::field(
            field,
            format!(
                "at most {} articles can be saved; remove one first",
                crate::model::MAX_SAVED_ARTICLES
            ),
        )),
        IdentityError::SourceNotFound => ApiError::not_found("Source not found"),
        IdentityError::AppPasswordNotFound => ApiError::not_found("App password not found"),
        IdentityError::TooManyAppPasswords => ApiError::conflict(format!(
            "At most {} app passwords: revoke one first",
            crate::app_passwords::MAX_APP_PASSWORDS
        ))
        .with_details(vec![format!(
            "name: at most {} app passwords; revoke one first",
            crate::app_passwords::MAX_APP_PASSWORDS
        )]),
        IdentityError::BadAppPassword => {
            ApiError::unauthorized("Unknown, revoked or ended app password")
                .with_challenge("GoogleLogin")
        }
        IdentityError::Random(e) => ApiError::internal("random source", e),
        IdentityError::ConcurrentChange => {
            ApiError::conflict("The record was changed concurrently; try again")
        }
        IdentityError::BadClientCredentials => oauth_error(
            ErrorKind::Unauthorized,
            "invalid_client",
            "Client authentication failed",
        ),
        IdentityError::ScopeNotAllowed(scope) => oauth_error(
            ErrorKind::BadRequest,
            "invalid_scope",
            &format!("Scope {scope} is not allowed for this client"),
        ),
        IdentityError::Content(e @ ContentError::Busy(_)) => {
            ApiError::unavailable("The content service is busy: retry later")
                .caused_by(format!("content service busy: {e}"))
        }
        IdentityError::Content(e) => {
            ApiError::bad_gateway("The content service could not be reached")
                .caused_by(format!("content service call failed: {e}"))
        }
        IdentityError::Community(e) => {
            ApiError::bad_gateway("The community service could not be reached")
                .caused_by(format!("community service call failed: {e}"))
        }
        IdentityError::Recipes(e) => {
            ApiError::bad_gateway("The recipe service could not be reached")
                .caused_by(format!("recipe service call failed: {e}"))
        }
        IdentityError::Store(e) => store_failure(e),
        IdentityError::Password(e) => ApiError::internal("password hash", e),
        IdentityError::Signing(e) => ApiError::internal("sign token", e),
        IdentityError::Encode(e) => ApiError::internal("encode preferences", e),
        // Only the bootstrap custom resource meets it; never an HTTP request.
        held @ IdentityError::BootstrapNameHeld(_) => ApiError::internal("bootstrap", held),
    }
}

fn taken(field: &str) -> ApiError {
    ApiError::conflict(format!("The {field} is already taken"))
        .with_details(vec![format!("{field}: is already taken")])
}

/// A throttled or unreachable table is worth retrying (503); anything else is a fault (500).
fn store_failure(e: StoreError) -> ApiError {
    if e.is_unavailable() {
        ApiError::unavailable("The users table is unavailable; try again")
            .caused_by(format!("users table unavailable: {e}"))
    } else {
        ApiError::internal("users store", e)
    }
}

/// An RFC 6749 5.2 error: the body carries `error` and `error_description`; a 401 challenges
/// for HTTP Basic client authentication.
pub fn oauth_error(kind: ErrorKind, code: &'static str, message: &str) -> ApiError {
    let error = ApiError::new(kind, message)
        .with_extra("error", code)
        .with_extra("error_description", message.to_string());
    if kind == ErrorKind::Unauthorized {
        error.with_challenge("Basic")
    } else {
        error
    }
}

#[cfg(test)]
mod tests {
    use platform::{FieldError, Invalid};

    use super::*;

    #[test]
    fn domain_errors_keep_their_answers() {
        let taken = to_api(IdentityError::EmailTaken);
        assert_eq!(taken.kind, ErrorKind::Conflict);
        assert_eq!(taken.details, vec!["email: is already taken"]);

        let invalid = to_api(IdentityError::Invalid(Invalid(vec![FieldError::new(
            "enabledSourceIds",
            "not subscribed to source x",
        )])));
        assert_eq!(invalid.kind, ErrorKind::BadRequest);
        assert_eq!(invalid.message, "Validation failed");
        assert_eq!(
            invalid.details,
            vec!["enabledSourceIds: not subscribed to source x"]
        );

        let login = to_api(IdentityError::BadCredentials);
        assert_eq!(login.challenge, Some("Bearer"));

        let client = to_api(IdentityError::BadClientCredentials);
        assert_eq!(client.kind, ErrorKind::Unauthorized);
        assert_eq!(client.challenge, Some("Basic"));
        assert_eq!(client.extra.get("error"), Some(&"invalid_client".into()));

        let content = to_api(IdentityError::Content(ContentError::Failed(
            "HTTP 500".into(),
        )));
        assert_eq!(content.kind, ErrorKind::BadGateway);
        let busy = to_api(IdentityError::Content(ContentError::Busy(
            "HTTP 503".into(),
        )));
        assert_eq!(busy.kind, ErrorKind::ServiceUnavailable);
        assert_eq!(
            busy.retry_after(),
            Some(platform::error::UNAVAILABLE_RETRY_AFTER)
        );
    }
}
