//! Logins and the sessions they open: tokens, a session's refresh, a password change and
//! signing out everywhere.

use crate::error::IdentityError;
use crate::input::{self, Credentials};
use crate::model::UserId;
use crate::password;
use crate::store::StoredUser;
use crate::tokens::IssuedToken;

use super::{until_unchanged, Identity};

/// A token for the session that asked, after a change that ended every other session.
#[derive(Debug)]
pub struct RenewedSession {
    pub token: IssuedToken,
}

impl Identity {
    /// A token for the right username and password; the same error for every failure.
    pub async fn login(&self, credentials: Credentials) -> Result<IssuedToken, IdentityError> {
        let record = self.store.login_record(&credentials.username_key).await?;
        let stored_hash = record.as_ref().map(|r| r.password_hash.clone());
        let valid = password::verify(credentials.password, stored_hash).await;
        let Some(record) = record.filter(|_| valid) else {
            return Err(IdentityError::BadCredentials);
        };
        let user = self.user(&record.user_id).await?;
        self.token_for(&user).await
    }

    /// A fresh token for the account of a valid, unexpired user token (a session in use is
    /// renewed before it expires); refused when the account is gone or its sessions have moved
    /// past `presented_version`. The new token keeps the presented token's session version: a
    /// session that ends while the refresh runs (password or role change, sign out everywhere,
    /// deletion) raises the version after or before the read, and either way the new token is
    /// refused from then on, whatever roles it was minted with.
    pub async fn refresh(
        &self,
        id: &UserId,
        presented_version: u64,
    ) -> Result<IssuedToken, IdentityError> {
        let session = self.sessions.state(id.as_str()).await?;
        if !session.admits(presented_version) {
            return Err(IdentityError::SessionEnded);
        }
        let user = self.live_user(id).await?;
        let roles = user.roles.iter().map(|r| r.as_str().to_string()).collect();
        Ok(self
            .issuer
            .user_token(user.id.as_str(), &user.username, roles, presented_version)?)
    }

    /// A token for the account, carrying its stored roles and its current session version.
    async fn token_for(&self, user: &StoredUser) -> Result<IssuedToken, IdentityError> {
        let session = self.sessions.state(user.id.as_str()).await?;
        if session.closed {
            return Err(IdentityError::AccountGone);
        }
        let roles = user.roles.iter().map(|r| r.as_str().to_string()).collect();
        Ok(self
            .issuer
            .user_token(user.id.as_str(), &user.username, roles, session.version)?)
    }

    /// Sign out everywhere: every token of the account ends, this one included.
    pub async fn end_sessions(&self, id: &UserId) -> Result<(), IdentityError> {
        self.live_user(id).await?;
        self.end_all_sessions(id).await?;
        tracing::info!(user_id = %id, "every session ended");
        Ok(())
    }

    /// Ends every session of the account, its app passwords' included: they are refused from
    /// the version change on, then deleted.
    pub(super) async fn end_all_sessions(&self, id: &UserId) -> Result<(), IdentityError> {
        self.sessions.end_all(id.as_str()).await?;
        self.forget_app_passwords(id).await
    }

    /// Checks `current` against the account's password (403 when wrong): a stolen token alone
    /// cannot change the password.
    pub(super) async fn check_current_password(
        &self,
        user: &StoredUser,
        current: Option<String>,
    ) -> Result<(), IdentityError> {
        let record = self
            .store
            .login_record(&user.username.to_ascii_lowercase())
            .await?
            .filter(|r| r.user_id == user.id);
        let stored_hash = record.map(|r| r.password_hash);
        let valid = match current {
            Some(current) => password::verify(current, stored_hash).await,
            None => false,
        };
        if valid {
            Ok(())
        } else {
            Err(IdentityError::WrongCurrentPassword)
        }
    }

    /// Changes the password (the news reader's operation): `current` must be the password now.
    /// Every other session ends; the answer is a token for this one.
    pub async fn change_password(
        &self,
        id: &UserId,
        change: input::PasswordChange,
    ) -> Result<RenewedSession, IdentityError> {
        let user = self.live_user(id).await?;
        self.check_current_password(&user, Some(change.current))
            .await?;
        let new_hash = password::hash(change.new.expose().to_string()).await?;
        // Sessions end before the password changes: a failure in between leaves the old
        // password with every session ended, never a new password with a thief still in.
        self.end_all_sessions(id).await?;
        until_unchanged(|_| async {
            let current = self.live_user(id).await?;
            self.store
                .change_login(&current, None, Some(&new_hash))
                .await?;
            Ok(())
        })
        .await?;
        tracing::info!(user_id = %id, "password changed; other sessions ended");
        self.renewed_session(id).await
    }

    /// A token for the session that asked for a change that ended every other one: its
    /// version is the new one, so it carries on while every older token answers 401.
    pub(super) async fn renewed_session(
        &self,
        id: &UserId,
    ) -> Result<RenewedSession, IdentityError> {
        let user = self.live_user(id).await?;
        Ok(RenewedSession {
            token: self.token_for(&user).await?,
        })
    }
}
