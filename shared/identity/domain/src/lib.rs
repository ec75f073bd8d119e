//! Identity: one user store and one token issuer for the whole platform.
//!
//! Accounts (register, login, profile, deletion), reader settings, news source subscriptions
//! (through the content service's [`SourceSubscriptions`] port) and OAuth2 client credentials
//! for services. [`Identity`] is the facade the identity function calls, once per request, with
//! inputs already parsed ([`input`]); it answers [`IdentityError`], never HTTP. Its calls live
//! in the private `service` module, one file per kind of data. Storage is described in
//! [`store`].

pub mod app_passwords;
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

mod service;

pub use crate::error::IdentityError;
pub use crate::follows::{
    CommunityAccounts, FollowersError, RecipeAccounts, RecipesServiceError, TopicFollowers,
};
pub use crate::service::{
    AccountPage, Identity, RenewedSession, ServiceGrant, READER_TOKEN_SECONDS,
};
pub use crate::subscriptions::{ContentError, SourceSubscriptions, SubscribedSource, Unsubscribed};
