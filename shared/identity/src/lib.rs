//! Identity: one user store and one token issuer for the whole platform.
//!
//! Accounts (register, login, profile), reader settings, and OAuth2 client credentials for
//! services. Storage is described in [`store`].

pub mod clients;
pub mod model;
pub mod password;
pub mod store;
pub mod tokens;

use platform::aws::AwsClients;
use platform::tokens::TokenVerifier;
use platform::{ApiError, ConfigError, Env, FieldErrors};

use crate::clients::ServiceClients;
use crate::model::{
    parse_name, Email, Password, Profile, Role, Settings, SettingsUpdate, Username,
};
use crate::store::{NewUser, StoreError, StoredUser, UserStore};
use crate::tokens::{IssuedToken, TokenIssuer};

/// A new account. Every field is checked and each problem named in the 400's `details`.
// Kept as sent; `Identity::register` parses it.
#[derive(Debug, Default, serde::Deserialize, utoipa::ToSchema)]
pub struct Registration {
    /// Unique (case-insensitively).
    #[schema(required = true, value_type = String, min_length = 3, max_length = 50, pattern = "^[A-Za-z0-9_.-]+$", example = "alice")]
    pub username: Option<String>,
    /// A valid address, unique (case-insensitively).
    #[schema(required = true, value_type = String, format = Email, max_length = 254, example = "alice@example.com")]
    pub email: Option<String>,
    #[schema(required = true, value_type = String, format = Password, min_length = 8, max_length = 128)]
    pub password: Option<String>,
    /// Display name; blank means none.
    #[schema(max_length = 100, example = "Alice")]
    pub name: Option<String>,
}

/// Profile changes as sent: absent fields are unchanged; `name: null` clears the name.
#[derive(Debug, Default, serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileUpdate {
    #[schema(value_type = Option<String>, format = Email)]
    pub email: Option<String>,
    /// Display name (at most 100 characters); `null` or blank clears it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 100)]
    pub name: Option<Option<String>>,
}

fn double_option<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<String>>, D::Error> {
    serde::Deserialize::deserialize(d).map(Some)
}

/// The identity service, built once per cold start.
pub struct Identity {
    store: UserStore,
    issuer: TokenIssuer,
    admins: Vec<String>,
    clients: ServiceClients,
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Taken(field) => ApiError::conflict(format!("The {field} is already taken"))
                .with_details(vec![format!("{field}: is already taken")]),
            StoreError::NotFound => ApiError::not_found("User not found"),
            StoreError::Contention => {
                ApiError::conflict("The record was changed concurrently; try again")
            }
            other => ApiError::internal("users store", other),
        }
    }
}

impl Identity {
    pub fn new(
        store: UserStore,
        issuer: TokenIssuer,
        admins: Vec<String>,
        clients: ServiceClients,
    ) -> Self {
        let admins = admins.into_iter().map(|a| a.to_ascii_lowercase()).collect();
        Self {
            store,
            issuer,
            admins,
            clients,
        }
    }

    /// From `USERS_TABLE`, the JWT variables, `ADMIN_USERNAMES` and `SERVICE_CLIENTS`.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, ConfigError> {
        let store = UserStore::new(aws.dynamodb.clone(), env.require("USERS_TABLE")?);
        Ok(Self::new(
            store,
            TokenIssuer::from_env(env)?,
            env.list("ADMIN_USERNAMES"),
            ServiceClients::from_env(env)?,
        ))
    }

    pub fn verifier(&self) -> TokenVerifier {
        self.issuer.verifier()
    }

    pub fn issuer(&self) -> &TokenIssuer {
        &self.issuer
    }

    pub fn clients(&self) -> &ServiceClients {
        &self.clients
    }

    fn roles_for(&self, username: &str) -> Vec<Role> {
        if self.admins.iter().any(|a| a.eq_ignore_ascii_case(username)) {
            vec![Role::User, Role::Admin]
        } else {
            vec![Role::User]
        }
    }

    pub async fn register(&self, input: Registration) -> Result<Profile, ApiError> {
        let mut errors = FieldErrors::new();
        let username = errors.check(Username::parse(input.username.as_deref().unwrap_or("")));
        let email = errors.check(Email::parse(input.email.as_deref().unwrap_or("")));
        let password = errors.check(Password::parse(input.password.as_deref().unwrap_or("")));
        let name = errors.check(parse_name(input.name.as_deref()));
        errors.finish()?;
        let (Some(username), Some(email), Some(password), Some(name)) =
            (username, email, password, name)
        else {
            return Err(ApiError::bad_request("Validation failed"));
        };

        let password_hash = password::hash(password.expose().to_string())
            .await
            .map_err(|e| ApiError::internal("password hash", e))?;
        let user = NewUser {
            id: uuid::Uuid::new_v4().to_string(),
            username_key: username.key(),
            username: username.as_str().to_string(),
            email_key: email.key(),
            email: email.as_str().to_string(),
            name,
            roles: self.roles_for(username.as_str()),
            password_hash,
            created_at: now(),
        };
        self.store.create(&user).await?;
        tracing::info!(user_id = %user.id, "user registered");
        Ok(Profile {
            id: user.id,
            username: user.username,
            email: user.email,
            name: user.name,
            roles: user.roles,
            created_at: user.created_at,
        })
    }

    /// A token for the right username and password; the same 401 for every failure.
    pub async fn login(
        &self,
        username: Option<String>,
        password: Option<String>,
    ) -> Result<IssuedToken, ApiError> {
        let mut errors = FieldErrors::new();
        let username = username.filter(|u| !u.trim().is_empty());
        let password = password.filter(|p| !p.is_empty());
        if username.is_none() {
            errors.add("username", "is required");
        }
        if password.is_none() {
            errors.add("password", "is required");
        }
        errors.finish()?;
        let (Some(username), Some(password)) = (username, password) else {
            return Err(ApiError::bad_request("Validation failed"));
        };
        let record = self
            .store
            .login_record(&username.trim().to_ascii_lowercase())
            .await?;
        let stored_hash = record.as_ref().map(|r| r.password_hash.clone());
        let valid = password::verify(password, stored_hash).await;
        let Some(record) = record.filter(|_| valid) else {
            return Err(ApiError::unauthorized("Invalid username or password"));
        };
        let roles = self.roles_for(&record.username);
        let user = self
            .store
            .user(&record.user_id)
            .await?
            .ok_or(StoreError::NotFound)?;
        if user.roles != roles {
            self.store.set_roles(&record.user_id, &roles).await?;
        }
        self.issuer
            .user_token(
                &record.user_id,
                &record.username,
                roles.iter().map(|r| r.as_str().to_string()).collect(),
            )
            .map_err(|e| ApiError::internal("sign token", e))
    }

    pub async fn profile(&self, user_id: &str) -> Result<Profile, ApiError> {
        let user = self
            .store
            .user(user_id)
            .await?
            .ok_or(StoreError::NotFound)?;
        Ok(to_profile(user))
    }

    pub async fn update_profile(
        &self,
        user_id: &str,
        update: ProfileUpdate,
    ) -> Result<Profile, ApiError> {
        let mut errors = FieldErrors::new();
        let email = update
            .email
            .as_deref()
            .and_then(|e| errors.check(Email::parse(e)));
        // Outer None: name unchanged; Some(None): cleared; Some(Some(n)): set.
        let new_name = match &update.name {
            None => None,
            Some(raw) => errors.check(parse_name(raw.as_deref())),
        };
        errors.finish()?;
        let current = self
            .store
            .user(user_id)
            .await?
            .ok_or(StoreError::NotFound)?;
        let new_email = email
            .filter(|e| e.as_str() != current.email)
            .map(|e| (e.as_str().to_string(), e.key()));
        self.store
            .update_profile(&current, new_email.clone(), new_name.clone())
            .await?;
        let mut updated = current;
        if let Some((email, _)) = new_email {
            updated.email = email;
        }
        if let Some(name) = new_name {
            updated.name = name;
        }
        Ok(to_profile(updated))
    }

    pub async fn settings(&self, user_id: &str) -> Result<Settings, ApiError> {
        Ok(self.store.settings(user_id).await?.0)
    }

    /// Applies `update` to the stored settings, retrying when another request saved first.
    /// `enabledSourceIds` may only name sources the user subscribes to.
    pub async fn update_settings(
        &self,
        user_id: &str,
        update: SettingsUpdate,
    ) -> Result<Settings, ApiError> {
        for _ in 0..3 {
            let (current, version) = self.store.settings(user_id).await?;
            let next = update
                .clone()
                .apply(current)
                .map_err(ApiError::validation)?;
            if update.enabled_source_ids.is_some() {
                let subscribed = self.store.subscriptions(user_id).await?;
                let unknown: Vec<String> = next
                    .enabled_source_ids
                    .iter()
                    .filter(|id| !subscribed.contains(id))
                    .map(|id| format!("enabledSourceIds: not subscribed to source {id}"))
                    .collect();
                if !unknown.is_empty() {
                    return Err(ApiError::bad_request("Validation failed").with_details(unknown));
                }
            }
            match self.store.save_settings(user_id, &next, version).await {
                Ok(()) => return Ok(next),
                Err(StoreError::Contention) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(StoreError::Contention.into())
    }

    /// The ids of the news sources the user subscribes to.
    pub async fn subscriptions(&self, user_id: &str) -> Result<Vec<String>, ApiError> {
        Ok(self.store.subscriptions(user_id).await?)
    }

    /// Records a subscription (or its end) and keeps `enabledSourceIds` in step: a new
    /// subscription is enabled, an ended one disappears. Idempotent.
    pub async fn record_subscription(
        &self,
        user_id: &str,
        source_id: &str,
        subscribed: bool,
    ) -> Result<Settings, ApiError> {
        for _ in 0..5 {
            let (mut settings, version) = self.store.settings(user_id).await?;
            let enabled = &mut settings.enabled_source_ids;
            if subscribed {
                if !enabled.iter().any(|id| id == source_id) {
                    enabled.push(source_id.to_string());
                }
            } else {
                enabled.retain(|id| id != source_id);
            }
            match self
                .store
                .save_subscription(user_id, source_id, subscribed, &settings, version)
                .await
            {
                Ok(()) => return Ok(settings),
                Err(StoreError::Contention) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(StoreError::Contention.into())
    }

    /// Deletes the account and everything the users table holds for it. Unsubscribing from
    /// the sources is the caller's part (it needs the content service), done first.
    pub async fn delete_account(&self, user_id: &str) -> Result<(), ApiError> {
        for _ in 0..3 {
            let Some(user) = self.store.user(user_id).await? else {
                return Err(StoreError::NotFound.into());
            };
            let username_key = user.username.to_ascii_lowercase();
            let email_key = user.email.to_lowercase();
            match self
                .store
                .delete_account(&user, &username_key, &email_key)
                .await
            {
                Ok(()) => return Ok(()),
                Err(StoreError::Contention) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(StoreError::Contention.into())
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
}

fn to_profile(user: StoredUser) -> Profile {
    Profile {
        id: user.id,
        username: user.username,
        email: user.email,
        name: user.name,
        roles: user.roles,
        created_at: user.created_at,
    }
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
