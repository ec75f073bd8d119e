//! The community content service (community): posts and topics, on `CommunityTable`.
//!
//! [`Community`] is the facade the community function's handlers call, one call per request,
//! with inputs already parsed into the types of [`input`] (each with its `parse` and bounds).
//! Beneath it:
//!
//! - [`keys`]: every key of the table;
//! - [`store`]: the table's access patterns (documented there), one transaction per post
//!   write, with topic statistics, lists and counters moved in the same transaction;
//! - [`stats`]: how topic activity and hotness are computed (a 14-day ring per topic);
//! - [`identity`]: the [`Identity`] port (who a user is), implemented at the edge over the
//!   users service's internal route;
//! - [`model`]: what the service answers (OpenAPI schemas);
//! - [`search`]: ranked search of published posts over the `community-search` port, and
//!   how each write reaches the index (an outbox row and a queue);
//! - [`summary`]: AI summaries of posts: their states, the queue's request, the admin's
//!   re-trigger and failed list (written by the `community-summarizer` function);
//! - [`CommunityError`]: the one error enum, which the function maps to statuses.
//!
//! # Topic activity and hotness
//!
//! Each topic keeps `totalPostCount` (published live posts now: moved by publishing,
//! unpublishing and topic changes) and a ring of 14 daily slots counting the posts **first
//! published** into it each UTC day. `postsThisWeek` sums the last 7 days (today included),
//! `postsPrevWeek` the 7 before; `activityScore` weights each of the 14 days by
//! `2^(-age/7)` (a half-life of a week) and rounds to 2 decimals; `isHot` is
//! `postsThisWeek >= 3 AND postsThisWeek >= 1.5 * postsPrevWeek` (growth, not size). Slots
//! from an older fortnight are recognised by the day they hold and ignored, so no job ever
//! sweeps the ring. See [`stats`].

pub mod cleanup;
pub mod comments;
pub mod error;
pub mod identity;
pub mod input;
pub mod keys;
pub mod lists;
pub mod model;
pub mod moderation;
pub mod reactions;
pub mod search;
mod service;
pub mod social;
pub mod stats;
pub mod store;
pub mod summary;
pub mod views;

pub use cleanup::{AccountCleanup, CleanupQueue};
pub use error::CommunityError;
pub use identity::{Identity, IdentityError, Profile};
pub use reactions::{ReactionChange, ReactionQueue};
pub use search::{IndexQueue, PostSearch, SearchText};
pub use service::Community;
pub use summary::{SummaryQueue, SummaryRequest};
pub use views::{ViewQueue, ViewRequest};
