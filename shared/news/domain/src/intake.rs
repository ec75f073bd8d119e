//! Feeds coming in: a person's submission or discovery, and each source's WebSub callback.
//! Its own function links it (the feed parser, the encodings and the HTML tokenizer), so the
//! content function that answers reads stays small.

use platform::aws::AwsClients;
use platform::{Env, Invalid};

use crate::accounts::Accounts;
use crate::ingest::{Delivery, HubMode, Ingest, IngestError, Verification};
use crate::input::{FeedUrl, SourceId};
use crate::model::{DiscoveredFeed, Source};
use crate::service::{NewsError, Refusal};
use crate::StartError;

/// A submission's or discovery's failure: what is wrong with the URL, named `url`.
fn submission_error(error: IngestError) -> NewsError {
    let refused =
        |refusal, message: String| NewsError::Refused(refusal, Invalid::field("url", message));
    match error {
        IngestError::InvalidUrl(e) => refused(Refusal::InvalidUrl, e.to_string()),
        IngestError::Fetch(e) => refused(Refusal::Unreachable, format!("unreachable: {e}")),
        IngestError::NotAFeed(e) => refused(Refusal::NotAFeed, e.to_string()),
        IngestError::NoFeedFound(_) => refused(Refusal::NotAFeed, error.to_string()),
        IngestError::Store(e) => e.into(),
        // A submission enqueues without failing on the queue: never here.
        IngestError::Queue(_) => NewsError::Busy,
    }
}

/// A WebSub callback's failure: the table's (the callbacks fetch nothing but article pages,
/// whose failures only leave excerpts).
fn push_error(error: IngestError) -> NewsError {
    match error {
        IngestError::Store(e) => e.into(),
        other => Invalid::field("body", other.to_string()).into(),
    }
}

/// A submitted feed: its source, and whether the submission created it.
#[derive(Debug, Clone)]
pub struct Submitted {
    pub source: Source,
    pub created: bool,
}

/// Submissions, discoveries and WebSub callbacks, over [`Ingest`].
#[derive(Clone, Debug)]
pub struct FeedIntake {
    ingest: Ingest,
}

impl FeedIntake {
    pub fn new(ingest: Ingest) -> Self {
        Self { ingest }
    }

    /// What [`Ingest::from_env`] reads.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, StartError> {
        Ok(Self::new(Ingest::from_env(env, aws)?))
    }

    /// [`FeedIntake::submit`] for a user: refused when the caller's account is gone, so a token
    /// that outlives its account cannot add sources.
    pub async fn submit_as_user(
        &self,
        accounts: &impl Accounts,
        url: &FeedUrl,
    ) -> Result<Submitted, NewsError> {
        if !accounts.caller_exists().await? {
            return Err(NewsError::AccountGone);
        }
        self.submit(url).await
    }

    /// The source of a feed URL: the existing one, else a new one fetched, parsed and stored
    /// with its articles before this answers.
    pub async fn submit(&self, url: &FeedUrl) -> Result<Submitted, NewsError> {
        match self.ingest.submit(url.as_str()).await {
            Ok((source, created)) => Ok(Submitted { source, created }),
            Err(e) => Err(submission_error(e)),
        }
    }

    /// The feeds at a site's address (or the feed itself), for a person to choose from;
    /// nothing is stored.
    pub async fn discover(&self, url: &FeedUrl) -> Result<Vec<DiscoveredFeed>, NewsError> {
        self.ingest
            .discover(url.as_str())
            .await
            .map_err(submission_error)
    }

    /// A WebSub hub's verification of intent for source `id`'s callback.
    pub async fn verify_push(
        &self,
        id: &SourceId,
        mode: HubMode,
        topic: &str,
        lease_seconds: Option<i64>,
    ) -> Result<Verification, NewsError> {
        self.ingest
            .verify_push(id.as_str(), mode, topic, lease_seconds)
            .await
            .map_err(push_error)
    }

    /// A WebSub delivery to source `id`'s callback: checked, then stored like a poll's.
    pub async fn deliver(
        &self,
        id: &SourceId,
        signature: Option<&str>,
        body: &[u8],
    ) -> Result<Delivery, NewsError> {
        self.ingest
            .deliver(id.as_str(), signature, body)
            .await
            .map_err(push_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::ErrorKind;

    #[test]
    fn refused_submissions_say_why_and_name_url() {
        let unreachable = submission_error(IngestError::Fetch(crate::FetchError::Timeout));
        assert!(matches!(
            unreachable,
            NewsError::Refused(Refusal::Unreachable, _)
        ));
        let api = crate::service::to_api(unreachable);
        assert_eq!(api.kind, ErrorKind::BadRequest);
        assert_eq!(
            api.details,
            vec!["url: unreachable: the feed server did not respond in time"]
        );
        let nothing = submission_error(IngestError::NoFeedFound(String::new()));
        assert!(matches!(nothing, NewsError::Refused(Refusal::NotAFeed, _)));
        assert_eq!(
            crate::service::to_api(nothing).details,
            vec!["url: no feed found at this address"]
        );
    }
}
