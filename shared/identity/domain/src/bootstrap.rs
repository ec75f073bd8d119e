//! The deployment's first administrator. Roles belong to accounts, so the first ADMIN cannot
//! come from a username anyone could register: the stack names the account (a custom resource
//! run when it deploys; `local/run` and the test stacks run it too), and this creates it with
//! the given password, or gives the ADMIN role to an existing account of that name whose
//! password is the given one (never to someone who registered the name first).

use platform::dynamo::Table;
use platform::sessions::SessionRegistry;
use platform::{Clock, ConfigError, Env, FieldError, Invalid};

use crate::error::IdentityError;
use crate::model::{Email, Password, Role, UserId, Username};
use crate::password;
use crate::store::{NewUser, UserStore};

/// The administrator the deployment names, parsed under the registration rules.
pub struct BootstrapAccount {
    pub username: Username,
    pub password: Password,
    pub email: Option<Email>,
}

impl std::fmt::Debug for BootstrapAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BootstrapAccount({}, ***)", self.username.as_str())
    }
}

impl BootstrapAccount {
    /// `username` and `password` under the registration rules; `email` optional (blank: none).
    pub fn parse(username: &str, password: &str, email: Option<&str>) -> Result<Self, Invalid> {
        let username = Username::parse(username);
        let password = Password::parse(password);
        let email = email
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(Email::parse)
            .transpose();
        match (username, password, email) {
            (Ok(username), Ok(password), Ok(email)) => Ok(Self {
                username,
                password,
                email,
            }),
            (username, password, email) => Err(Invalid(
                [username.err(), password.err(), email.err()]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<FieldError>>(),
            )),
        }
    }
}

/// What the administrator account became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BootstrapOutcome {
    Created(UserId),
    Promoted(UserId),
    AlreadyAdmin(UserId),
}

impl BootstrapOutcome {
    pub fn user_id(&self) -> &UserId {
        match self {
            Self::Created(id) | Self::Promoted(id) | Self::AlreadyAdmin(id) => id,
        }
    }
}

/// Makes the first administrator: the users and sessions tables only (no signing key).
pub struct AdminBootstrap {
    store: UserStore,
    sessions: SessionRegistry,
    clock: Clock,
}

impl AdminBootstrap {
    pub fn new(store: UserStore, sessions: SessionRegistry, clock: Clock) -> Self {
        Self {
            store,
            sessions,
            clock,
        }
    }

    /// From `USERS_TABLE` and `SESSIONS_TABLE`.
    pub fn from_env(
        env: &Env,
        aws: &platform::aws::AwsClients,
        clock: Clock,
    ) -> Result<Self, ConfigError> {
        Ok(Self::new(
            UserStore::new(Table::from_env(env, aws, "USERS_TABLE")?, clock.clone()),
            SessionRegistry::new(Table::from_env(env, aws, "SESSIONS_TABLE")?),
            clock,
        ))
    }

    /// Creates the account with USER and ADMIN. An existing account of that name is given the
    /// ADMIN role only when the deployment's password is its password (the operator's own
    /// account; its sessions end so its next sign-in carries the role); anyone else's account
    /// of that name is refused ([`IdentityError::BootstrapNameHeld`]), so registering the name
    /// before the first deploy gains a squatter nothing. Idempotent: a stack update or a second
    /// start changes nothing.
    pub async fn ensure_admin(
        &self,
        account: &BootstrapAccount,
    ) -> Result<BootstrapOutcome, IdentityError> {
        let key = account.username.key();
        if let Some(record) = self.store.login_record(&key).await? {
            let user = self
                .store
                .user(&record.user_id)
                .await?
                .ok_or(IdentityError::UserNotFound)?;
            if user.roles.contains(&Role::Admin) {
                return Ok(BootstrapOutcome::AlreadyAdmin(record.user_id));
            }
            let owned = password::verify(
                account.password.expose().to_string(),
                Some(record.password_hash),
            )
            .await;
            if !owned {
                tracing::warn!(user_id = %record.user_id, "bootstrap administrator's name is held by another account");
                return Err(IdentityError::BootstrapNameHeld(
                    account.username.as_str().to_string(),
                ));
            }
            let mut roles = user.roles;
            roles.push(Role::Admin);
            roles.sort();
            roles.dedup();
            self.store.set_roles(&record.user_id, &roles).await?;
            self.sessions.end_all(record.user_id.as_str()).await?;
            tracing::info!(user_id = %record.user_id, "bootstrap administrator promoted");
            return Ok(BootstrapOutcome::Promoted(record.user_id));
        }
        let password_hash = password::hash(account.password.expose().to_string()).await?;
        let user = NewUser {
            id: UserId::new(uuid::Uuid::new_v4().to_string()),
            username_key: key,
            username: account.username.as_str().to_string(),
            email_key: account.email.as_ref().map(Email::key),
            email: account.email.as_ref().map(|e| e.as_str().to_string()),
            name: None,
            roles: vec![Role::User, Role::Admin],
            password_hash,
            created_at: self.clock.timestamp(),
            recipe_preferences: None,
        };
        self.store.create(&user).await?;
        tracing::info!(user_id = %user.id, "bootstrap administrator created");
        Ok(BootstrapOutcome::Created(user.id))
    }
}
