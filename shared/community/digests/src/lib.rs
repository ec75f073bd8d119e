//! The community's news digests: PERSONAL (one user's) and PUBLIC (shared), generated from
//! The news reader's articles of a day, on `DigestsTable`.
//!
//! [`Digests`] is the facade the digest functions call (`functions/community/digests`, the
//! HTTP routes; `community-digest-worker`, the jobs; `community-digest-scheduler`, the daily
//! schedule). Beneath it:
//!
//! - [`input`]: ids, days, the time zone, pages, the deprecated persist input, and the bounds;
//! - [`ports`]: what other route families answer — the day's news articles (content API),
//!   a user's followed topics and the users a page at a time (identity's internal routes),
//!   community topic ids — as traits, implemented over HTTP at the edge;
//! - [`cluster`]: the story grouping ([`StoryGrouping`]), by text similarity with the
//!   `digest-stories` crate ([`SimilarStories`]);
//! - [`writer`]: the model's part, one chat completion per digest;
//! - [`store`]: the table's items and access patterns;
//! - [`jobs`]: generation jobs and the digest queue.
//!
//! # Generation for a user and a day
//!
//! 1. The user's row for the day exists and `force` is false: **SKIPPED**.
//! 2. Identity's `followedTopics` (404 from identity: the user does not exist).
//! 3. Topics followed: the day's articles in them (the content API's
//!    `GET /api/content/articles?topicId=&page&size=100`, newest first, paged until past the
//!    day: at most 5 pages a topic, [`service::MAX_TOPICS`] topics, [`service::MAX_ARTICLES`]
//!    articles kept, newest first) are grouped into events ([`cluster`]), the most reported
//!    first, at most 30 events of at most 10 sources; the model writes each event's headline
//!    and bullets and the digest's subtitle and summary in one call ([`writer`]); the service
//!    builds the title and computes `eventCount`, `sourceCount` (distinct source and provider
//!    pairs), `readTimeMinutes` (200 words a minute, at least 1), `previewHeadlines` (the
//!    first 3) and `topics` (the followed topics that had news, most frequent first). A fresh
//!    PERSONAL digest is stored with the user's day row in one transaction (a forced one
//!    replaces and deletes the previous one). No article in the followed topics: SKIPPED.
//! 4. No topic followed: the day's PUBLIC digest, generated from all the day's articles the
//!    first time any user needs it (one per day: its id is name-based on the day), is
//!    assigned to the user. `force` does not regenerate the PUBLIC digest (it is everyone's);
//!    it only assigns it again. A day without any news: SKIPPED.
//!
//! Outcome and job statuses: `GENERATED` (a new PERSONAL digest, or the PUBLIC one assigned;
//! the message says which), `SKIPPED`, and for jobs also `PENDING`, `RUNNING`, `FAILED`.
//!
//! # Cost of one digest
//!
//! **One LLM call** per PERSONAL digest and per day's PUBLIC digest (the events are batched
//! in one prompt); assigning an existing PUBLIC digest costs none; a SKIPPED run costs none.
//! Content API calls: at most 5 per followed topic (20 topics) and 5 for a PUBLIC digest;
//! one identity call; one community topic lookup.
//!
//! # Topics across systems
//!
//! `topics[].id` and events' `topicIds` are community topic uuids: the community's id of the
//! slug (`GET /api/v1/topics/stats`) when it has the topic (every followed topic has one once
//! followed), else a name-based uuid of the slug ([`service::topic_uuid`]), stable across
//! digests, so the field is always a uuid.

pub mod cluster;
pub mod error;
pub mod input;
pub mod jobs;
pub mod model;
pub mod ports;
pub mod service;
pub mod store;
pub mod writer;

pub use cluster::{SimilarStories, StoryGrouping};
pub use error::DigestError;
pub use jobs::{DigestQueue, JobMessage};
pub use ports::{ArticleRef, CommunityTopics, NewsArticles, NewsTopic, PortError, Users};
pub use service::{Digests, Sources};
