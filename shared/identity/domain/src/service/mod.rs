//! The facade: [`Identity`], the one entry point the identity function calls, once per request,
//! with inputs already parsed ([`crate::input`]); it answers [`IdentityError`], never HTTP.
//!
//! Its calls live by the data they serve, each an `impl Identity`: [`accounts`] (registration,
//! the profile and roles), [`sessions`] (logins, tokens and ending sessions), [`directory`]
//! (pages of accounts), [`settings`] (and the followed-topic outbox), [`subscriptions`],
//! [`saved`] articles, [`app_passwords`] (and the Google Reader API's logins), the recipe service's view of an account ([`recipes`]), account
//! [`deletion`] and the OAuth2 [`clients`]. This module holds the struct, its construction and
//! the helpers they share.

mod accounts;
mod app_passwords;
mod clients;
mod deletion;
mod directory;
mod recipes;
mod saved;
mod sessions;
mod settings;
mod subscriptions;

use std::future::Future;
use std::sync::Arc;

use platform::aws::AwsClients;
use platform::dynamo::{retry_on_conflict, RetryPolicy, Table};
use platform::sessions::SessionRegistry;
use platform::tokens::TokenVerifier;
use platform::{Clock, ConfigError, Env};

pub use self::app_passwords::READER_TOKEN_SECONDS;
pub use self::clients::ServiceGrant;
pub use self::directory::AccountPage;
pub use self::sessions::RenewedSession;

use crate::clients::ServiceClients;
use crate::error::IdentityError;
use crate::model::{Profile, UserId};
use crate::store::{StoredUser, UserStore};
use crate::tokens::{Jwks, TokenIssuer};

/// The identity service, built once per cold start.
pub struct Identity {
    store: UserStore,
    issuer: Arc<TokenIssuer>,
    sessions: SessionRegistry,
    clients: ServiceClients,
    clock: Clock,
}

impl Identity {
    pub fn new(
        store: UserStore,
        issuer: TokenIssuer,
        sessions: SessionRegistry,
        clients: ServiceClients,
        clock: Clock,
    ) -> Self {
        Self {
            store,
            issuer: Arc::new(issuer),
            sessions,
            clients,
            clock,
        }
    }

    /// From `USERS_TABLE`, `SESSIONS_TABLE`, the JWT variables and `SERVICE_CLIENTS`.
    pub fn from_env(env: &Env, aws: &AwsClients, clock: Clock) -> Result<Self, ConfigError> {
        let store = UserStore::new(Table::from_env(env, aws, "USERS_TABLE")?, clock.clone());
        let sessions = SessionRegistry::new(Table::from_env(env, aws, "SESSIONS_TABLE")?);
        Ok(Self::new(
            store,
            TokenIssuer::from_env(env, clock.clone())?,
            sessions,
            ServiceClients::from_env(env)?,
            clock,
        ))
    }

    /// The verifier of this function's own routes: keys and sessions.
    pub fn verifier(&self) -> TokenVerifier {
        self.issuer
            .verifier()
            .with_sessions(Some(self.sessions.clone()))
    }

    /// The issuer, for the identity function's own service tokens (its calls to content).
    pub fn issuer(&self) -> Arc<TokenIssuer> {
        Arc::clone(&self.issuer)
    }

    /// The public keys tokens are verified with.
    pub fn jwks(&self) -> Jwks {
        self.issuer.jwks()
    }

    /// True when the users table answers.
    pub async fn healthy(&self) -> bool {
        match self.store.ping().await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(error = %e, "users table health check failed");
                false
            }
        }
    }

    async fn user(&self, id: &UserId) -> Result<StoredUser, IdentityError> {
        self.store
            .user(id)
            .await?
            .ok_or(IdentityError::UserNotFound)
    }

    /// The account a write acts for: a valid token whose account is gone is refused
    /// ([`IdentityError::AccountGone`]) before anything is written.
    async fn live_user(&self, id: &UserId) -> Result<StoredUser, IdentityError> {
        self.store.user(id).await?.ok_or(IdentityError::AccountGone)
    }
}

/// Runs a read-modify-write of the account until it does not lose a race with another
/// request, or the platform's conflict policy gives up ([`IdentityError::ConcurrentChange`]).
async fn until_unchanged<T, F, Fut>(attempt: F) -> Result<T, IdentityError>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<T, IdentityError>>,
{
    retry_on_conflict(
        RetryPolicy::CONFLICTS,
        IdentityError::is_concurrent_change,
        attempt,
    )
    .await
}
fn to_profile(user: StoredUser) -> Profile {
    Profile {
        id: user.id.as_str().to_string(),
        username: user.username,
        email: user.email,
        name: user.name,
        roles: user.roles,
        created_at: user.created_at,
    }
}
