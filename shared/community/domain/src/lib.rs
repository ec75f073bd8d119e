//! The community content service (community): posts and topics, on `CommunityTable`.
//!
//! [`Community`] is the facade: the only door to the product, for the community function's
//! handlers and its workers alike, one call per request or message, with inputs already
//! parsed into the types of [`input`] (each with its `parse` and bounds). Each call commits,
//! then sends its own follow-up messages. Its parts, each importing only those above it:
//!
//! - [`model`]: what the service answers (OpenAPI schemas) and its enums, pure; with
//!   [`model::stats`], how topic activity and hotness are computed (a 14-day ring per topic);
//! - [`input`]: the parse types, pure;
//! - [`keys`]: every key of the table;
//! - `store` (private): the table's access patterns (documented there), one transaction per
//!   post write, with topic statistics, lists and counters moved in the same transaction;
//! - [`queues`]: the product's messages and the queues that carry them;
//! - [`identity`]: the [`Identity`] port (who a user is), implemented at the edge over the
//!   users service's internal route;
//! - `service`: the facade, one file per area ([`Community`], and [`PostSearch`] over the
//!   `community-search` port);
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
//! sweeps the ring. See [`model::stats`].

pub mod error;
pub mod feeds;
pub mod identity;
pub mod input;
pub mod keys;
pub mod markdown;
pub mod model;
pub mod queues;
mod service;
mod store;

pub use error::CommunityError;
pub use identity::{Identity, IdentityError, Profile};
/// Where the schemas' documentation says topic statistics are computed.
pub use model::stats;
pub use queues::{
    NotificationEvent, QueueName, Queues, ReactionChange, SummaryRequest, ViewRequest,
};
pub use service::{
    Community, FeedAnswer, FeedScope, PostSearch, SummaryJob, MAX_COMMENTS_PER_POST,
};
