//! The recipe service's view of an account: registration without an email, the username and
//! the recipe preferences kept on the profile ([`crate::recipes`]).

use crate::error::IdentityError;
use crate::model::{Role, UserId};
use crate::password;
use crate::recipes::{RecipeAccount, RecipeUser, RecipeUserChange, UserPreferences};
use crate::store::{NewUser, StoredUser};

use super::{until_unchanged, Identity, RenewedSession};

impl Identity {
    /// Registers an account through the recipe service: no email, no name, the recipe
    /// service's default preferences.
    pub async fn register_recipe_account(
        &self,
        account: RecipeAccount,
    ) -> Result<(), IdentityError> {
        let username_key = account.key();
        let roles = vec![Role::User];
        let password_hash = password::hash(account.password).await?;
        let preferences =
            serde_json::to_string(&UserPreferences::default()).map_err(IdentityError::Encode)?;
        let user = NewUser {
            id: UserId::new(uuid::Uuid::new_v4().to_string()),
            username_key,
            username: account.username,
            email_key: None,
            email: None,
            name: None,
            roles,
            password_hash,
            created_at: self.clock.timestamp(),
            recipe_preferences: Some(preferences),
        };
        self.store.create(&user).await?;
        tracing::info!(user_id = %user.id, "user registered through the recipe service");
        Ok(())
    }

    /// The recipe service's view of the account: its username and recipe preferences (the
    /// defaults when never set, as for an account registered through the news reader).
    pub async fn recipe_user(&self, id: &UserId) -> Result<RecipeUser, IdentityError> {
        let user = self.user(id).await?;
        Ok(RecipeUser {
            preferences: recipe_preferences(&user),
            username: user.username,
        })
    }

    /// Update user (recipe service): a new username (unique; its login item moves with it), a new
    /// password, preference changes. Refused when the account is gone. A new password needs
    /// the current one (403 otherwise) and ends every other session: the answer then carries
    /// a token for this one.
    pub async fn update_recipe_user(
        &self,
        id: &UserId,
        change: RecipeUserChange,
    ) -> Result<Option<RenewedSession>, IdentityError> {
        let new_hash = match &change.password {
            Some(password) => {
                let user = self.live_user(id).await?;
                self.check_current_password(&user, change.current_password.clone())
                    .await?;
                let hash = password::hash(password.clone()).await?;
                self.end_all_sessions(id).await?;
                Some(hash)
            }
            None => None,
        };
        until_unchanged(|_| async {
            let current = self.live_user(id).await?;
            let new_username = change
                .username
                .as_deref()
                .filter(|u| *u != current.username)
                .map(|u| (u.to_string(), u.to_ascii_lowercase()));
            if new_username.is_some() || new_hash.is_some() {
                self.store
                    .change_login(
                        &current,
                        new_username.as_ref().map(|(u, k)| (u.as_str(), k.as_str())),
                        new_hash.as_deref(),
                    )
                    .await?;
            }
            if let Some(preferences) = &change.preferences {
                let next = preferences.apply(recipe_preferences(&current));
                let json = serde_json::to_string(&next).map_err(IdentityError::Encode)?;
                self.store.set_recipe_preferences(id, &json).await?;
            }
            Ok(())
        })
        .await?;
        if new_hash.is_some() {
            tracing::info!(user_id = %id, "password changed; other sessions ended");
            return Ok(Some(self.renewed_session(id).await?));
        }
        Ok(None)
    }
}

/// The stored recipe preferences, or the defaults (unreadable ones are logged and replaced).
fn recipe_preferences(user: &StoredUser) -> UserPreferences {
    user.recipe_preferences
        .as_deref()
        .and_then(|json| match serde_json::from_str(json) {
            Ok(preferences) => Some(preferences),
            Err(e) => {
                tracing::warn!(user = %user.id, error = %e, "stored recipe preferences unreadable; defaults used");
                None
            }
        })
        .unwrap_or_default()
}
