//! The digest service's ports: calls to other route families (and the model), each a trait
//! here, implemented at the edge (`shared/community/digests-edge/src/ports.rs`) over HTTP.

use std::future::Future;

use crate::input::{DigestDate, UserId};

/// A news article as a digest sees it (the news reader's article list item).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArticleRef {
    pub id: String,
    pub title: String,
    /// The feed's short description, plain text (may be empty).
    pub summary: String,
    pub source_id: String,
    pub source_title: String,
    pub link: Option<String>,
    /// RFC 3339.
    pub published_at: String,
    /// The news reader topic slugs (the news reader's topic ids).
    pub topics: Vec<NewsTopic>,
}

/// A news topic: its slug (id) and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewsTopic {
    pub slug: String,
    pub name: String,
}

/// A port that could not answer (unreachable, slow, another status, unreadable).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{service}: {reason}")]
pub struct PortError {
    pub service: &'static str,
    pub reason: String,
}

impl PortError {
    pub fn new(service: &'static str, reason: impl Into<String>) -> Self {
        Self {
            service,
            reason: reason.into(),
        }
    }
}

/// The news reader's articles, read through the content API.
pub trait NewsArticles: Send + Sync {
    /// The articles published on `day` (in the digest time zone), newest first, in any of
    /// `topics` (slugs), or in any topic when `topics` is `None`; at most `limit`, each once.
    fn articles_of_day(
        &self,
        topics: Option<&[String]>,
        day: DigestDate,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<ArticleRef>, PortError>> + Send;
}

/// Identity: a user's followed topics, and the users of the platform a page at a time.
pub trait Users: Send + Sync {
    /// The slugs `user` follows (identity settings `followedTopics`); `None`: no such user.
    fn followed_topics(
        &self,
        user: &UserId,
    ) -> impl Future<Output = Result<Option<Vec<String>>, PortError>> + Send;

    /// One page of user ids after `cursor`, and the cursor of the next page (`None`: the end).
    fn page(
        &self,
        cursor: Option<&str>,
        limit: usize,
    ) -> impl Future<Output = Result<(Vec<String>, Option<String>), PortError>> + Send;
}

/// The community's topics: the uuid of each news topic slug where the community knows it.
pub trait CommunityTopics: Send + Sync {
    /// `(slug, id, name)` of every community topic whose slug is among `slugs`.
    fn ids_of(
        &self,
        slugs: &[String],
    ) -> impl Future<Output = Result<Vec<(String, String, String)>, PortError>> + Send;
}

/// No community topic is known: every topic gets its name-based id (tests, and when the
/// community service cannot be asked).
pub struct NoCommunityTopics;

impl CommunityTopics for NoCommunityTopics {
    async fn ids_of(&self, _slugs: &[String]) -> Result<Vec<(String, String, String)>, PortError> {
        Ok(Vec::new())
    }
}
