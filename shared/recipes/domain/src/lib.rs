//! The recipe service (recipe service): recipes per user, and the AI features on them (generate,
//! nutrients, ask).
//!
//! [`Recipes`] is the facade the recipes function calls once per request, with inputs already
//! parsed ([`input`]); it answers [`RecipesError`], never HTTP. Storage is described in
//! [`store`]; the food composition table and unit conversion in [`nutrients`]; the model's
//! prompts and the checks on what it answers in [`ai`]. Accounts and preferences belong to
//! identity (the identity function serves `/api/recipes/auth/*` and `/api/recipes/users/me`); the
//! AI features read the caller's preferences through the [`Preferences`] port.

pub mod ai;
pub mod allergens;
pub mod error;
mod identity;
pub mod images;
pub mod import;
pub mod ingredients;
pub mod input;
pub mod model;
pub mod nutrients;
pub mod plan;
pub mod planning;
pub mod scaling;
pub mod search;
pub mod service;
pub mod shopping;
pub mod store;

pub use ai::{Preferences, PreferencesError, UserPreferences};
pub use error::RecipesError;
pub use service::Recipes;
