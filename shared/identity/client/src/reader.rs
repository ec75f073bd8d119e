//! The routes other functions call for people who read through their own apps (the Google
//! Reader API's function, the OPML import's worker), with the internal service token:
//!
//! - `POST /api/users/internal/reader-sessions` `{auth}`: the `Auth` value a client got from
//!   `ClientLogin` exchanged for a short-lived user token of its person ([`ReaderSession`]);
//! - `POST|DELETE /api/users/internal/users/{id}/subscriptions/{sourceId}`: identity's own
//!   subscribe and unsubscribe for that person ([`SubscriptionAnswer`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The body of `POST /api/users/internal/reader-sessions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReaderSessionRequest {
    /// The `Auth` value `ClientLogin` answered, as the client sends it after
    /// `GoogleLogin auth=`.
    #[cfg_attr(feature = "schema", schema(min_length = 1, max_length = 260))]
    pub auth: String,
}

/// A person reading through one of their app passwords, for the next few minutes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReaderSession {
    #[cfg_attr(feature = "schema", schema(format = Uuid))]
    pub user_id: String,
    pub username: String,
    /// A user token of the person (role USER only, whatever roles the account holds), to send
    /// as `Authorization: Bearer` to the platform's routes; it ends with the account's sessions.
    pub access_token: String,
    /// Seconds the token is valid for from now.
    #[cfg_attr(feature = "schema", schema(minimum = 1))]
    pub expires_in: i64,
}

/// What identity answered a subscription change made for a person.
#[derive(Debug, Clone, PartialEq)]
pub enum SubscriptionAnswer {
    /// 200: the source as the content service shows it (its `Source` schema), with its new
    /// `subscriberCount`.
    Source(Map<String, Value>),
    /// 204 (unsubscribe only): the person was the last subscriber; the source is deleted.
    SourceDeleted,
    /// 404: no such source, or no such person.
    NotFound,
}
