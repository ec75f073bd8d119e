//! Identity: one user store and one token issuer for the whole platform.
//!
//! Accounts (register, login, profile, deletion), reader settings, news source subscriptions
//! (through the content service's [`SourceSubscriptions`] port) and OAuth2 client credentials
//! for services. [`Identity`] is the facade the users function calls, once per request, with
//! inputs already parsed ([`input`]); it answers [`IdentityError`], never HTTP. Storage is
//! described in [`store`].

pub mod bootstrap;
pub mod clients;
pub mod error;
pub mod follows;
pub mod input;
pub mod model;
pub mod password;
pub mod recipes;
pub mod store;
pub mod subscriptions;
pub mod tokens;

use std::future::Future;
use std::sync::Arc;

use platform::aws::AwsClients;
use platform::dynamo::{retry_on_conflict, RetryPolicy, Table};
use platform::sessions::SessionRegistry;
use platform::tokens::TokenVerifier;
use platform::{Clock, ConfigError, Env, FieldError, Invalid};

pub use crate::error::IdentityError;
pub use crate::follows::{
    CommunityAccounts, FollowersError, RecipeAccounts, RecipesServiceError, TopicFollowers,
};
pub use crate::subscriptions::{ContentError, SourceSubscriptions, SubscribedSource, Unsubscribed};

use crate::clients::{ClientCredentials, ServiceClients};
use crate::input::{Credentials, NewAccount, ProfileChange, SettingsChange};
use crate::model::{
    Profile, Role, SavedArticleId, SavedArticleIds, Settings, SourceId, Subscriptions, UserId,
    MAX_SAVED_ARTICLES,
};
use crate::recipes::{RecipeAccount, RecipeUser, RecipeUserChange, UserPreferences};
use crate::store::{NewUser, StoredUser, UserStore};
use crate::tokens::{IssuedToken, Jwks, TokenIssuer};

/// The identity service, built once per cold start.
pub struct Identity {
    store: UserStore,
    issuer: Arc<TokenIssuer>,
    sessions: SessionRegistry,
    clients: ServiceClients,
    clock: Clock,
}

/// A token for the session that asked, after a change that ended every other session.
#[derive(Debug)]
pub struct RenewedSession {
    pub token: IssuedToken,
}

/// One page of the account directory, for administrators.
#[derive(Debug)]
pub struct AccountPage {
    pub accounts: Vec<Profile>,
    pub next_cursor: Option<String>,
}

/// A service token and the scopes it grants.
#[derive(Debug)]
pub struct ServiceGrant {
    pub token: IssuedToken,
    pub scopes: Vec<String>,
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

    /// The issuer, for the users function's own service tokens (its calls to content).
    pub fn issuer(&self) -> Arc<TokenIssuer> {
        Arc::clone(&self.issuer)
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
        self.sessions.end_all(id.as_str()).await?;
        tracing::info!(user_id = %id, "every session ended");
        Ok(())
    }

    /// Checks `current` against the account's password (403 when wrong): a stolen token alone
    /// cannot change the password.
    async fn check_current_password(
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
        self.sessions.end_all(id.as_str()).await?;
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
    async fn renewed_session(&self, id: &UserId) -> Result<RenewedSession, IdentityError> {
        let user = self.live_user(id).await?;
        Ok(RenewedSession {
            token: self.token_for(&user).await?,
        })
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
            self.sessions.end_all(id.as_str()).await?;
            tracing::info!(user_id = %id, by = %admin, roles = ?next, "roles changed; sessions ended");
        }
        user.roles = next;
        Ok(to_profile(user))
    }

    /// A page of accounts in id order, for administrators: up to `limit` after `after`.
    pub async fn accounts(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<AccountPage, IdentityError> {
        let (ids, more) = self.store.user_ids(after, limit).await?;
        let mut accounts = Vec::with_capacity(ids.len());
        for id in &ids {
            // Deleted between the index read and this one: skipped.
            if let Some(user) = self.store.user(&UserId::new(id.clone())).await? {
                accounts.push(to_profile(user));
            }
        }
        let next_cursor = if more { ids.last().cloned() } else { None };
        Ok(AccountPage {
            accounts,
            next_cursor,
        })
    }

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
        let user = NewUser {
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
        self.store.create(&user).await?;
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

    /// A fresh token for the account of a valid, unexpired user token (a session in use is
    /// renewed before it expires); refused when the account is gone. Roles are read again.
    pub async fn refresh(&self, id: &UserId) -> Result<IssuedToken, IdentityError> {
        let user = self.live_user(id).await?;
        self.token_for(&user).await
    }

    /// The sources the user subscribes to.
    pub async fn subscriptions(&self, id: &UserId) -> Result<Subscriptions, IdentityError> {
        let source_ids = self.store.subscriptions(id).await?;
        Ok(Subscriptions {
            source_ids: source_ids.iter().map(|s| s.as_str().to_string()).collect(),
        })
    }

    /// The user's saved article ids, newest first.
    pub async fn saved_articles(&self, id: &UserId) -> Result<SavedArticleIds, IdentityError> {
        Ok(SavedArticleIds {
            ids: self.store.saved(id).await?.ids,
        })
    }

    /// Saves an article (first in the list; saving it again changes nothing).
    pub async fn save_article(
        &self,
        id: &UserId,
        article: &SavedArticleId,
    ) -> Result<SavedArticleIds, IdentityError> {
        self.change_saved(id, "articleId", |ids| {
            if !ids.iter().any(|a| a == article.as_str()) {
                ids.insert(0, article.as_str().to_string());
            }
        })
        .await
    }

    /// Forgets a saved article (forgetting one not saved changes nothing).
    pub async fn unsave_article(
        &self,
        id: &UserId,
        article: &SavedArticleId,
    ) -> Result<SavedArticleIds, IdentityError> {
        self.change_saved(id, "articleId", |ids| {
            ids.retain(|a| a != article.as_str());
        })
        .await
    }

    /// Adds the articles not saved yet after the saved ones (a browser's list at login).
    pub async fn merge_saved_articles(
        &self,
        id: &UserId,
        articles: &[SavedArticleId],
    ) -> Result<SavedArticleIds, IdentityError> {
        self.change_saved(id, "ids", |ids| {
            for article in articles {
                if !ids.iter().any(|a| a == article.as_str()) {
                    ids.push(article.as_str().to_string());
                }
            }
        })
        .await
    }

    /// Applies `change` to the saved ids as stored, retrying when another device saved first;
    /// refused past [`MAX_SAVED_ARTICLES`] and when the account is gone.
    async fn change_saved(
        &self,
        id: &UserId,
        field: &'static str,
        change: impl Fn(&mut Vec<String>),
    ) -> Result<SavedArticleIds, IdentityError> {
        until_unchanged(|_| async {
            let read = self.store.saved(id).await?;
            let mut next = read.ids.clone();
            change(&mut next);
            if next.len() > MAX_SAVED_ARTICLES && next.len() > read.ids.len() {
                return Err(IdentityError::TooManySaved(field));
            }
            if next == read.ids {
                // Nothing to write, but a gone account must not pass as a quiet success.
                self.live_user(id).await?;
            } else {
                self.store.save_saved(id, &read, &next).await?;
            }
            Ok(SavedArticleIds { ids: next })
        })
        .await
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
        self.store
            .update_profile(&current, new_email, new_name)
            .await?;
        let mut updated = current;
        if let Some(email) = new_email {
            updated.email = Some(email.as_str().to_string());
        }
        if let Some(name) = &change.name {
            updated.name.clone_from(name);
        }
        Ok(to_profile(updated))
    }

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
                self.sessions.end_all(id.as_str()).await?;
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

    pub async fn settings(&self, id: &UserId) -> Result<Settings, IdentityError> {
        Ok(self.store.settings(id).await?.settings)
    }

    /// A page of the user directory: up to `limit` user ids after `after`, in id order, and
    /// the cursor of the next page (the last id) when more follow.
    pub async fn user_ids(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<String>, Option<String>), IdentityError> {
        let (ids, more) = self.store.user_ids(after, limit).await?;
        let next = if more { ids.last().cloned() } else { None };
        Ok((ids, next))
    }

    /// Applies `change` to the stored settings, retrying when another request saved first.
    /// `enabledSourceIds` may only name sources the user subscribes to.
    pub async fn update_settings(
        &self,
        id: &UserId,
        change: SettingsChange,
    ) -> Result<Settings, IdentityError> {
        until_unchanged(|_| self.try_update_settings(id, &change)).await
    }

    async fn try_update_settings(
        &self,
        id: &UserId,
        change: &SettingsChange,
    ) -> Result<Settings, IdentityError> {
        let read = self.store.settings(id).await?;
        let next = change.apply(read.settings.clone());
        if let Some(enabled) = change.enabled_source_ids() {
            let subscribed = self.store.subscriptions(id).await?;
            let unknown: Vec<FieldError> = enabled
                .iter()
                .filter(|id| !subscribed.iter().any(|s| s.as_str() == id.as_str()))
                .map(|id| {
                    FieldError::new("enabledSourceIds", format!("not subscribed to source {id}"))
                })
                .collect();
            if !unknown.is_empty() {
                return Err(Invalid(unknown).into());
            }
        }
        self.store.save_settings(id, &read, &next).await?;
        Ok(next)
    }

    /// Sends the user's pending followed-topic changes (oldest first) to the community
    /// service, each with the key `{userId}:{version}`, and forgets each once delivered. A
    /// failed send stops the flush and stays for the next one; answers how many were sent.
    pub async fn flush_follow_deltas(
        &self,
        followers: &impl TopicFollowers,
        id: &UserId,
    ) -> Result<usize, IdentityError> {
        let pending = self.store.pending_follow_deltas(id).await?;
        let mut sent = 0;
        for (version, deltas) in pending {
            if let Err(e) = followers.apply(&format!("{id}:{version}"), &deltas).await {
                tracing::warn!(user = %id, version, reason = %e, "followed topics not delivered; kept for the next flush");
                break;
            }
            self.store.delete_follow_delta(id, version).await?;
            sent += 1;
        }
        Ok(sent)
    }

    /// Subscribes the user to `source` at the content service, then records it and enables
    /// the source in the user's settings. Idempotent.
    pub async fn subscribe(
        &self,
        content: &impl SourceSubscriptions,
        user: &UserId,
        source: &SourceId,
    ) -> Result<SubscribedSource, IdentityError> {
        // A dead account's token must not add a subscriber at the content service.
        self.live_user(user).await?;
        let subscribed = content.subscribe(user, source).await?;
        if let Err(e) = self.record_subscription(user, source, true).await {
            if matches!(e, IdentityError::AccountGone) {
                // Deleted meanwhile: take back the subscriber its deletion could not see.
                if let Err(undo) = content.unsubscribe(user, source).await {
                    tracing::warn!(error = %undo, "undoing a deleted account's subscription failed");
                }
            }
            return Err(e);
        }
        Ok(subscribed)
    }

    /// Unsubscribes the user from `source` at the content service (the last subscriber
    /// leaving deletes it), then forgets it here.
    pub async fn unsubscribe(
        &self,
        content: &impl SourceSubscriptions,
        user: &UserId,
        source: &SourceId,
    ) -> Result<Unsubscribed, IdentityError> {
        self.live_user(user).await?;
        let outcome = match content.unsubscribe(user, source).await {
            Ok(outcome) => outcome,
            // Already gone on the content side: finish our half if we still hold it.
            Err(ContentError::SourceNotFound) => {
                if !self.store.subscriptions(user).await?.contains(source) {
                    return Err(IdentityError::SourceNotFound);
                }
                Unsubscribed::SourceDeleted
            }
            Err(e) => return Err(e.into()),
        };
        self.record_subscription(user, source, false).await?;
        Ok(outcome)
    }

    /// Records a subscription (or its end) and keeps `enabledSourceIds` in step: a new
    /// subscription is enabled, an ended one disappears. Idempotent.
    async fn record_subscription(
        &self,
        user: &UserId,
        source: &SourceId,
        subscribed: bool,
    ) -> Result<(), IdentityError> {
        until_unchanged(|_| async move {
            let read = self.store.settings(user).await?;
            let mut next = read.settings.clone();
            let enabled = &mut next.enabled_source_ids;
            if subscribed {
                if !enabled.iter().any(|id| id == source.as_str()) {
                    enabled.push(source.as_str().to_string());
                }
            } else {
                enabled.retain(|id| id != source.as_str());
            }
            self.store
                .save_subscription(user, source, subscribed, &read, &next)
                .await?;
            Ok(())
        })
        .await
    }

    /// Deletes the account: first every subscription at the content service (the
    /// last-subscriber rule applies), then the community's and the recipe service's cleanups,
    /// then everything the users table holds for it. Safe to repeat after a failure part-way.
    pub async fn delete_account(
        &self,
        content: &impl SourceSubscriptions,
        community: &(impl CommunityAccounts + TopicFollowers),
        recipes: &impl RecipeAccounts,
        user: &UserId,
    ) -> Result<(), IdentityError> {
        self.live_user(user).await?;
        for source in self.store.subscriptions(user).await? {
            match content.unsubscribe(user, &source).await {
                Ok(_) | Err(ContentError::SourceNotFound) => {}
                Err(e) => return Err(e.into()),
            }
        }
        // The community side before any record goes, so a failure leaves the account
        // deletable again: changes of followed topics still pending, the followed topics'
        // counts (once, by their key), then the cleanup of the user's posts and marks.
        self.flush_follow_deltas(community, user).await?;
        if !self.store.pending_follow_deltas(user).await?.is_empty() {
            return Err(IdentityError::Community(FollowersError(
                "followed topics could not be delivered".into(),
            )));
        }
        let followed = self.settings(user).await?.followed_topics;
        if !followed.is_empty() {
            let deltas: std::collections::BTreeMap<String, i64> =
                followed.into_iter().map(|topic| (topic, -1)).collect();
            community
                .apply(&format!("{user}:deleted"), &deltas)
                .await
                .map_err(IdentityError::Community)?;
        }
        community
            .forget(user.as_str())
            .await
            .map_err(IdentityError::Community)?;
        recipes
            .forget(user.as_str())
            .await
            .map_err(IdentityError::Recipes)?;
        // Every token of the account ends before its records go.
        self.sessions
            .close(user.as_str(), self.clock.now().timestamp())
            .await?;
        until_unchanged(|_| async {
            let account = self.user(user).await?;
            Ok(self.store.delete_account(&account).await?)
        })
        .await
    }

    /// A service token for an OAuth2 client (the client credentials grant), with the scopes
    /// asked for, or all the client's when `requested` is `None`.
    pub fn service_token(
        &self,
        credentials: &ClientCredentials,
        requested: Option<Vec<String>>,
    ) -> Result<ServiceGrant, IdentityError> {
        let client = self
            .clients
            .authenticate(&credentials.id, &credentials.secret)
            .ok_or(IdentityError::BadClientCredentials)?;
        let scopes = match requested {
            Some(requested) => {
                if let Some(bad) = requested.iter().find(|s| !client.scopes.contains(s)) {
                    return Err(IdentityError::ScopeNotAllowed(bad.clone()));
                }
                requested
            }
            None => client.scopes.clone(),
        };
        let token = self.issuer.service_token(&client.id, &scopes)?;
        Ok(ServiceGrant { token, scopes })
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
