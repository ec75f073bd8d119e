//! The port through which the assistant reads an article: another route family's data
//! (the news reader's content service), so a trait here and its implementation at the edge
//! (`functions/news/assistant`, over `GET /api/content/articles/{id}`).

use std::future::Future;

use crate::model::ArticleId;

/// The parts of an article the assistant works on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Article {
    pub title: String,
    /// The body, one entry per paragraph.
    pub paragraphs: Vec<String>,
}

/// Why an article could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ArticleError {
    /// No article has this id.
    #[error("article {0} not found")]
    NotFound(ArticleId),
    /// The source failed: unreachable, slow, another answer than the article, unreadable.
    #[error("the content service could not provide article {id}: {reason}")]
    Unavailable { id: ArticleId, reason: String },
    /// The source is not configured so that it can be reached.
    #[error("the content service cannot be reached as configured: {0}")]
    Misconfigured(String),
}

/// Where articles come from.
pub trait ArticleSource: Send + Sync {
    /// Article `id`'s headline and paragraphs.
    fn article(&self, id: &ArticleId)
        -> impl Future<Output = Result<Article, ArticleError>> + Send;
}
