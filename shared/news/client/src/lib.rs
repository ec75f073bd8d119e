//! The news (content) product as the other products read it: the answers of its routes, the
//! types the news function's handlers serialize ([`model`]).
//!
//! - `GET /api/content/articles/{id}` ([`Article`]: the assistant) and
//!   `GET /api/content/articles?topicId=&page=&size=` ([`Page`] of [`Article`]: the digests);
//! - `POST` and `DELETE /api/content/sources/{id}/subscribers/{userId}` ([`Source`],
//!   [`Unsubscribed`]: identity's subscriptions).

pub mod model;

pub use model::{Article, FullTextMode, Page, Source, TopicRef, Unsubscribed};
