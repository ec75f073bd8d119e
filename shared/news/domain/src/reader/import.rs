//! The port to what identity held for a person before the reader: their saved articles (now
//! the starred state) and their subscriptions (each backfilled with its reader row). Over
//! HTTP, identity's client asks `GET /api/users/users/me/saved` and
//! `GET /api/users/users/me/subscriptions` with the person's own token, so the news function
//! needs no access to the users table and no service token.

use std::future::Future;

use identity_client::Caller;

use crate::accounts::AccountsError;

/// What identity holds for one person, asked with their own token.
pub trait ReaderImport: Send + Sync {
    /// The article ids the person saved, newest first; `None` when identity no longer accepts
    /// the token (nothing to import).
    fn saved_ids(&self) -> impl Future<Output = Result<Option<Vec<String>>, AccountsError>> + Send;

    /// The source ids the person subscribes to; `None` as above.
    fn subscription_ids(
        &self,
    ) -> impl Future<Output = Result<Option<Vec<String>>, AccountsError>> + Send;
}

impl ReaderImport for Caller<'_> {
    async fn saved_ids(&self) -> Result<Option<Vec<String>>, AccountsError> {
        Caller::saved_article_ids(self)
            .await
            .map_err(|e| AccountsError(e.to_string()))
    }

    async fn subscription_ids(&self) -> Result<Option<Vec<String>>, AccountsError> {
        Caller::subscribed_source_ids(self)
            .await
            .map_err(|e| AccountsError(e.to_string()))
    }
}

/// Nothing to import: for callers that have no token of the person (a test, a worker).
#[derive(Debug, Clone, Copy, Default)]
pub struct NothingToImport;

impl ReaderImport for NothingToImport {
    async fn saved_ids(&self) -> Result<Option<Vec<String>>, AccountsError> {
        Ok(Some(Vec::new()))
    }

    async fn subscription_ids(&self) -> Result<Option<Vec<String>>, AccountsError> {
        Ok(Some(Vec::new()))
    }
}
