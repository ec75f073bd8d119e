//! The port to the content service's side of a subscription: a source's list of subscribers
//! (and its last-subscriber rule) belongs to the content route family, so identity reaches
//! it through [`SourceSubscriptions`]. The identity function implements it over HTTP; a test can
//! implement it in memory.

use std::future::Future;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::{SourceId, UserId};

/// A source as the content service shows it after a subscription change, passed to the
/// client unchanged (the content service documents it as its `Source` schema).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SubscribedSource(pub Map<String, Value>);

/// What leaving a source did.
#[derive(Debug, Clone, PartialEq)]
pub enum Unsubscribed {
    /// Others still subscribe: the source, with its new subscriber count.
    SourceRemains(SubscribedSource),
    /// The user was the last subscriber: the source and its articles are deleted.
    SourceDeleted,
}

/// Why the content service did not make a subscription change.
#[derive(Debug, thiserror::Error)]
pub enum ContentError {
    #[error("source not found")]
    SourceNotFound,
    /// It answered that it cannot serve now (503, 429): the user's client may retry shortly.
    #[error("content service busy: {0}")]
    Busy(String),
    /// Unreachable, timed out, refused our token, or answered what we cannot read.
    #[error("content service failed: {0}")]
    Failed(String),
}

/// The content service's subscriber lists. Both calls are idempotent.
pub trait SourceSubscriptions: Send + Sync {
    /// Adds `user` to `source`'s subscribers.
    fn subscribe(
        &self,
        user: &UserId,
        source: &SourceId,
    ) -> impl Future<Output = Result<SubscribedSource, ContentError>> + Send;

    /// Removes `user` from `source`'s subscribers; the last one leaving deletes the source.
    fn unsubscribe(
        &self,
        user: &UserId,
        source: &SourceId,
    ) -> impl Future<Output = Result<Unsubscribed, ContentError>> + Send;

    /// Takes back a subscription identity could not record: `user` leaves `source`'s
    /// subscribers, and a source left with none stays (as it was before).
    fn take_back(
        &self,
        user: &UserId,
        source: &SourceId,
    ) -> impl Future<Output = Result<(), ContentError>> + Send;

    /// Deletes part of a deleted account's reading state (marks, starred, labels); `true` once
    /// nothing is left.
    fn forget_reader(
        &self,
        user: &UserId,
    ) -> impl Future<Output = Result<bool, ContentError>> + Send;
}
