//! The account record: registration, the profile and its roles.

use crate::error::IdentityError;
use crate::input::{NewAccount, ProfileChange};
use crate::model::{Profile, Role, UserId};
use crate::password;
use crate::store::{NewUser, StoreError, UniqueField};

use super::{to_profile, until_unchanged, Identity};

impl Identity {
    /// Registers an account: the role USER, whatever its name.
    pub async fn register(&self, account: NewAccount) -> Result<Profile, IdentityError> {
        self.create_account(account, vec![Role::User]).await
    }

    async fn create_account(
        &self,
        account: NewAccount,
        roles: Vec<Role>,
    ) -> Result<Profile, IdentityError> {
        let password_hash = password::hash(account.password.expose().to_string()).await?;
        let mut user = NewUser {
            id: UserId::new(uuid::Uuid::new_v4().to_string()),
            username_key: account.username.key(),
            username: account.username.as_str().to_string(),
            email_key: Some(account.email.key()),
            email: Some(account.email.as_str().to_string()),
            name: account.name,
            roles,
            password_hash,
            created_at: self.clock.timestamp(),
            recipe_preferences: None,
        };
        match self.store.create(&user).await {
            // Another account holds the address: the registration goes on with the address
            // unclaimed, and answers as any other, so nobody learns whose address it is.
            Err(StoreError::Taken(UniqueField::Email)) => {
                user.email_key = None;
                self.store.create(&user).await?;
            }
            other => other?,
        }
        tracing::info!(user_id = %user.id, "user registered");
        Ok(Profile {
            id: user.id.as_str().to_string(),
            username: user.username,
            email: user.email,
            name: user.name,
            roles: user.roles,
            created_at: user.created_at,
        })
    }

    /// The account whose username is `username` (any case); `None` when there is none.
    pub async fn user_id_by_username(
        &self,
        username: &str,
    ) -> Result<Option<UserId>, IdentityError> {
        Ok(self
            .store
            .login_record(&username.to_ascii_lowercase())
            .await?
            .map(|r| r.user_id))
    }

    pub async fn profile(&self, id: &UserId) -> Result<Profile, IdentityError> {
        Ok(to_profile(self.user(id).await?))
    }

    /// Applies `change` to the profile as it is now, retrying when another request changed
    /// the email first.
    pub async fn update_profile(
        &self,
        id: &UserId,
        change: ProfileChange,
    ) -> Result<Profile, IdentityError> {
        until_unchanged(|_| self.try_update_profile(id, &change)).await
    }

    async fn try_update_profile(
        &self,
        id: &UserId,
        change: &ProfileChange,
    ) -> Result<Profile, IdentityError> {
        let current = self.live_user(id).await?;
        let new_email = change
            .email
            .as_ref()
            .filter(|e| Some(e.as_str()) != current.email.as_deref());
        let new_name = change.name.as_ref().map(Option::as_deref);
        match self
            .store
            .update_profile(&current, new_email, new_name, true)
            .await
        {
            // The same answer as a free address: the change is kept unclaimed.
            Err(StoreError::Taken(UniqueField::Email)) => {
                self.store
                    .update_profile(&current, new_email, new_name, false)
                    .await?;
                tracing::info!(user_id = %id, "email changed to another account's address");
            }
            other => other?,
        }
        let mut updated = current;
        if let Some(email) = new_email {
            updated.email = Some(email.as_str().to_string());
        }
        if let Some(name) = &change.name {
            updated.name.clone_from(name);
        }
        Ok(to_profile(updated))
    }

    /// Sets the account's roles (an administrator's operation): USER always stays. An
    /// administrator's own roles are changed by another administrator (so one is always left to
    /// give ADMIN back, and a change never ends the session that asked for it). The account's
    /// sessions end, so its next sign-in carries the new roles.
    pub async fn set_roles(
        &self,
        admin: &UserId,
        id: &UserId,
        roles: &[Role],
    ) -> Result<Profile, IdentityError> {
        let mut next = vec![Role::User];
        for role in [Role::Operator, Role::Admin] {
            if roles.contains(&role) {
                next.push(role);
            }
        }
        if admin == id {
            return Err(IdentityError::RoleRefused(
                "an administrator's own roles are changed by another administrator".into(),
            ));
        }
        let mut user = self.user(id).await?;
        if user.roles != next {
            self.store.set_roles(id, &next).await?;
            self.end_all_sessions(id).await?;
            tracing::info!(user_id = %id, by = %admin, roles = ?next, "roles changed; sessions ended");
        }
        user.roles = next;
        Ok(to_profile(user))
    }
}
