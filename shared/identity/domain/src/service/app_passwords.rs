//! App passwords and what apps do with them: `ClientLogin` (an app password for an `Auth`
//! value) and the exchange of an `Auth` value for a short-lived user token.

use identity_client::ReaderSession;

use crate::app_passwords::{
    new_id, new_secret, secret_hash, secret_matches, AppPassword, AppPasswordPage, ClientLogin,
    CreatedAppPassword, ReaderAuth, MAX_APP_PASSWORDS,
};
use crate::error::IdentityError;
use crate::model::UserId;
use crate::store::StoredAppPassword;

use super::{until_unchanged, Identity};

/// How long the user token of an app's reader session lasts: short, so a revoked app
/// password stops working within minutes even where a caller keeps the token.
pub const READER_TOKEN_SECONDS: i64 = 600;

/// `lastUsedAt` is written at most once in this many seconds per app password.
const LAST_USED_GRANULARITY_SECONDS: i64 = 3600;

/// The roles of a reader session's token: an app reads and subscribes; no app password
/// carries an administrator's or operator's powers.
const READER_ROLES: [&str; 1] = ["USER"];

impl Identity {
    /// A new app password of the person, made in the session of version `session_version`
    /// (the token that asked): it ends when that session does.
    pub async fn create_app_password(
        &self,
        id: &UserId,
        session_version: u64,
        name: String,
    ) -> Result<CreatedAppPassword, IdentityError> {
        let secret = new_secret()?;
        let stored = StoredAppPassword {
            id: new_id()?,
            name,
            secret_hash: secret_hash(&secret),
            created_at: self.clock.timestamp(),
            last_used_at: None,
            session_version,
        };
        let add = || {
            until_unchanged(|_| async {
                Ok(self
                    .store
                    .add_app_password(id, &stored, MAX_APP_PASSWORDS)
                    .await?)
            })
        };
        match add().await {
            // Ended ones a sign-out could not delete yet may hold places: free them, once.
            Err(IdentityError::TooManyAppPasswords)
                if self.forget_ended_app_passwords(id).await? =>
            {
                add().await?;
            }
            other => other?,
        }
        tracing::info!(user_id = %id, app_password = %stored.id, "app password created");
        Ok(CreatedAppPassword {
            id: stored.id,
            name: stored.name,
            password: secret,
            created_at: stored.created_at,
        })
    }

    /// The person's live app passwords, newest first: `size` after `after` (a sort key of
    /// [`list_key`]).
    pub async fn app_passwords(
        &self,
        id: &UserId,
        after: Option<&str>,
        size: usize,
    ) -> Result<AppPasswordPage, IdentityError> {
        let (passwords, session) = tokio::try_join!(
            async { Ok::<_, IdentityError>(self.store.app_passwords(id).await?) },
            async { Ok::<_, IdentityError>(self.sessions.state(id.as_str()).await?) },
        )?;
        let mut live: Vec<StoredAppPassword> = passwords
            .into_iter()
            .filter(|p| session.admits(p.session_version))
            .collect();
        live.sort_by_key(|p| std::cmp::Reverse(list_key(p)));
        let mut rest = live
            .into_iter()
            .filter(|p| after.is_none_or(|after| list_key(p).as_str() < after))
            .peekable();
        let items: Vec<StoredAppPassword> = rest.by_ref().take(size).collect();
        let next_cursor = match (rest.peek(), items.last()) {
            (Some(_), Some(last)) => Some(platform::cursor::encode_cursor(&list_key(last))),
            _ => None,
        };
        Ok(AppPasswordPage {
            items: items
                .into_iter()
                .map(|p| AppPassword {
                    id: p.id,
                    name: p.name,
                    created_at: p.created_at,
                    last_used_at: p.last_used_at,
                })
                .collect(),
            next_cursor,
        })
    }

    /// Revokes one app password: apps using it are refused from now on.
    pub async fn revoke_app_password(
        &self,
        id: &UserId,
        password_id: &str,
    ) -> Result<(), IdentityError> {
        if !self.store.remove_app_password(id, password_id).await? {
            return Err(IdentityError::AppPasswordNotFound);
        }
        tracing::info!(user_id = %id, app_password = %password_id, "app password revoked");
        Ok(())
    }

    /// Deletes every app password of the account, after its sessions ended (they are refused
    /// from the version change on; this keeps the list and the count true).
    pub(super) async fn forget_app_passwords(&self, id: &UserId) -> Result<(), IdentityError> {
        until_unchanged(|_| async {
            let passwords = self.store.app_passwords(id).await?;
            Ok(self.store.remove_app_passwords(id, &passwords).await?)
        })
        .await
    }

    /// Deletes the app passwords whose session has ended; true when there were any.
    async fn forget_ended_app_passwords(&self, id: &UserId) -> Result<bool, IdentityError> {
        until_unchanged(|_| async {
            let session = self.sessions.state(id.as_str()).await?;
            let ended: Vec<StoredAppPassword> = self
                .store
                .app_passwords(id)
                .await?
                .into_iter()
                .filter(|p| !session.admits(p.session_version))
                .collect();
            self.store.remove_app_passwords(id, &ended).await?;
            Ok(!ended.is_empty())
        })
        .await
    }

    /// `ClientLogin`: the `Auth` value for the person `login` names (username or address) and
    /// one of their live app passwords; [`IdentityError::BadAppPassword`] for anything else,
    /// the account's own password included.
    pub async fn client_login(&self, login: ClientLogin) -> Result<String, IdentityError> {
        let user_id = match self.store.login_record(&login.login_key).await? {
            Some(record) => Some(record.user_id),
            None if login.login_key.contains('@') => {
                self.store.user_id_for_email(&login.login_key).await?
            }
            None => None,
        };
        let Some(user_id) = user_id else {
            return Err(IdentityError::BadAppPassword);
        };
        let (passwords, session) = tokio::try_join!(
            async { Ok::<_, IdentityError>(self.store.app_passwords(&user_id).await?) },
            async { Ok::<_, IdentityError>(self.sessions.state(user_id.as_str()).await?) },
        )?;
        // Every hash is compared, so the time taken does not say which one matched.
        let matched = passwords
            .into_iter()
            .filter(|p| secret_matches(&login.password, &p.secret_hash))
            .fold(None, |found, p| found.or(Some(p)));
        let Some(password) = matched.filter(|p| session.admits(p.session_version)) else {
            return Err(IdentityError::BadAppPassword);
        };
        self.mark_used(&user_id, &password).await;
        tracing::info!(user_id = %user_id, app_password = %password.id, "app signed in");
        Ok(ReaderAuth {
            user_id,
            id: password.id,
            secret: login.password,
        }
        .encode())
    }

    /// The person an `Auth` value stands for, with a user token of theirs lasting
    /// [`READER_TOKEN_SECONDS`]; [`IdentityError::BadAppPassword`] when its app password is
    /// unknown, revoked or ended, or its account is gone.
    pub async fn reader_session(&self, auth: &str) -> Result<ReaderSession, IdentityError> {
        let auth = ReaderAuth::parse(auth).ok_or(IdentityError::BadAppPassword)?;
        let (password, session) = tokio::try_join!(
            async {
                Ok::<_, IdentityError>(self.store.app_password(&auth.user_id, &auth.id).await?)
            },
            async { Ok::<_, IdentityError>(self.sessions.state(auth.user_id.as_str()).await?) },
        )?;
        let password = password
            .filter(|p| secret_matches(&auth.secret, &p.secret_hash))
            .filter(|p| session.admits(p.session_version))
            .ok_or(IdentityError::BadAppPassword)?;
        let user = self
            .store
            .user(&auth.user_id)
            .await?
            .ok_or(IdentityError::BadAppPassword)?;
        let token = self.issuer.short_user_token(
            user.id.as_str(),
            &user.username,
            READER_ROLES.iter().map(|r| r.to_string()).collect(),
            password.session_version,
            READER_TOKEN_SECONDS,
        )?;
        self.mark_used(&user.id, &password).await;
        Ok(ReaderSession {
            user_id: user.id.as_str().to_string(),
            username: user.username,
            access_token: token.token,
            expires_in: token.expires_in,
        })
    }

    /// Records the use of an app password, when its `lastUsedAt` is older than an hour (so
    /// an app's every request writes nothing). Best effort: a failure is logged.
    async fn mark_used(&self, id: &UserId, password: &StoredAppPassword) {
        let now = self.clock.now();
        let since = platform::clock::rfc3339(
            now - chrono::Duration::seconds(LAST_USED_GRANULARITY_SECONDS),
        );
        if password
            .last_used_at
            .as_deref()
            .is_some_and(|used| used >= since.as_str())
        {
            return;
        }
        let now = platform::clock::rfc3339(now);
        if let Err(error) = self
            .store
            .touch_app_password(id, &password.id, &now, &since)
            .await
        {
            tracing::warn!(%error, app_password = %password.id, "lastUsedAt not recorded");
        }
    }
}

/// The sort key of the app password list (newest first by this key, descending) and of its
/// cursors.
pub fn list_key(password: &StoredAppPassword) -> String {
    format!("{}#{}", password.created_at, password.id)
}
