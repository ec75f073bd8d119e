//! The Google Reader API as FreshRSS and Miniflux serve it, without I/O: what clients send
//! ([`request`]: the `GoogleLogin` header, the `T` token, repeated form keys, stream
//! parameters), the identifiers ([`ids`]: item ids in every form, stream ids), and what the
//! server answers ([`answers`]).

pub mod answers;
pub mod ids;
pub mod request;

pub use answers::*;
pub use ids::{FeedRef, ItemId, StreamId};
pub use request::*;
