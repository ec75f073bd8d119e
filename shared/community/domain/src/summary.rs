//! AI summaries of posts (community): the state a post's summary is in, the request the
//! summary queue carries, and the reads and admin operations on them.
//!
//! # States
//!
//! | State | Trigger | Next | Effects |
//! |---|---|---|---|
//! | none (a draft) | created PUBLISHED, or published | PENDING | a summary request is sent |
//! | any | content changed while PUBLISHED | PENDING | a new request (a newer version) |
//! | PENDING | the summarizer stores the model's answer | COMPLETED | `summary`, `summaryGeneratedAt`, `summaryModel` |
//! | PENDING | every retry of the queue failed (the DLQ consumer) | FAILED | listed in the failed-summary list |
//! | any, published | admin re-trigger | PENDING | a new request (a newer version); off the failed list |
//!
//! Only published posts are summarised: the design publishes the summary event when a post is
//! created published, and a draft is visible to its author only. A post unpublished later
//! keeps its summary; its content changed as a draft is summarised when it is published
//! again. Changing a post's title, topics or links does not ask for a new summary; its
//! content does (compared by SHA-256, so restoring content whose summary exists asks for
//! nothing). While PENDING the previous summary (if any) is still answered, with its
//! `generatedAt` and `model`.
//!
//! # Nothing is lost, nothing is overwritten
//!
//! The write that wants a summary puts `summaryStatus` PENDING, a new `summaryVersion` and the
//! post's row in the summary outbox (`SUMQ#`) in the post's own transaction; the community
//! function then sends a [`SummaryRequest`] `{postId, version, contentHash}` to the summary
//! queue. If that send fails, the outbox row stays and the index scheduler sends the request
//! again once the row has waited `SUMMARY_RESCUE_MINUTES` (longer than the queue's whole
//! retry schedule, so a request still being retried is not doubled).
//!
//! The summarizer stores an answer only if the post's `summaryVersion` is still the request's
//! and its status still PENDING (one conditional transaction, which also clears the outbox
//! row): a late or repeated message finds the version moved on or the status COMPLETED and
//! changes nothing; it is recognised before the model is asked (no cost). A request whose
//! `contentHash` is not the post's content any more is dropped too (a newer request exists).
//!
//! Delivery is at least once: a failure (the model, the limits, the table) leaves the
//! message on the queue, which delivers it again after its visibility timeout, up to
//! `maxReceiveCount` times; then SQS moves it to the dead-letter queue, whose consumer (the
//! same summarizer) sets FAILED under the same version condition, so a post that has moved
//! on is never marked failed by an old request.

use platform::aws::Sqs;
use platform::{ConfigError, Env, Invalid};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::CommunityError;
use crate::input::{PageRequest, PostId, UserId};
use crate::service::Community;
use crate::store::summaries::RetryError;

/// The failed-summary list's page size when none is asked (20).
pub const FAILED_PAGE_SIZE: u32 = 20;
/// The largest page size of the failed-summary list.
pub const MAX_FAILED_PAGE_SIZE: u32 = 100;
/// The last page of the failed-summary list.
pub const MAX_FAILED_PAGE: u32 = 49;
/// The most failed summaries counted for `totalElements`: a longer list counts this many.
pub const FAILED_COUNT_CAP: usize = 1000;

/// A summary's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryStatus {
    /// Wanted: the summarizer has it (or will, after a retry or a rescue).
    Pending,
    /// The summary describes the post's current content.
    Completed,
    /// Every retry failed; an admin may re-trigger it.
    Failed,
}

impl SummaryStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "PENDING",
            Self::Completed => "COMPLETED",
            Self::Failed => "FAILED",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "PENDING" => Some(Self::Pending),
            "COMPLETED" => Some(Self::Completed),
            "FAILED" => Some(Self::Failed),
            _ => None,
        }
    }
}

/// SHA-256 (hex) of a post's content: what a summary describes.
pub fn content_hash(content: &str) -> String {
    ring::digest::digest(&ring::digest::SHA256, content.as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The summary queue's message: summarise this post's content at this summary version.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SummaryRequest {
    pub post_id: String,
    /// The post's `summaryVersion` when the summary was wanted.
    pub version: i64,
    /// SHA-256 (hex) of the content to summarise.
    pub content_hash: String,
}

impl SummaryRequest {
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "postId": self.post_id,
            "version": self.version,
            "contentHash": self.content_hash,
        })
        .to_string()
    }

    /// Reads a message body: a uuid, a positive version, a SHA-256 in hex.
    pub fn parse(body: &str) -> Result<Self, String> {
        let request: Self = serde_json::from_str(body).map_err(|e| e.to_string())?;
        uuid::Uuid::parse_str(&request.post_id)
            .map_err(|_| format!("postId {:?} is not a uuid", request.post_id))?;
        if request.version < 1 {
            return Err(format!("version {} is not positive", request.version));
        }
        let hash = request.content_hash.to_ascii_lowercase();
        if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("contentHash is not a SHA-256 in hex".into());
        }
        Ok(Self {
            post_id: request.post_id.to_ascii_lowercase(),
            version: request.version,
            content_hash: hash,
        })
    }
}

/// Why summary requests could not be sent.
#[derive(Debug, thiserror::Error)]
#[error("summary queue: {0}")]
pub struct SummaryEnqueueError(pub String);

/// The summary queue (`SUMMARY_QUEUE_URL`).
#[derive(Clone, Debug)]
pub struct SummaryQueue {
    sqs: Sqs,
    url: String,
}

impl SummaryQueue {
    pub fn new(sqs: Sqs, url: impl Into<String>) -> Self {
        Self {
            sqs,
            url: url.into(),
        }
    }

    pub fn from_env(env: &Env, sqs: Sqs) -> Result<Self, ConfigError> {
        Ok(Self::new(sqs, env.require("SUMMARY_QUEUE_URL")?))
    }

    pub async fn request(&self, request: &SummaryRequest) -> Result<(), SummaryEnqueueError> {
        self.sqs
            .send_message(&self.url, &request.to_json())
            .await
            .map(|_| ())
            .map_err(|e| SummaryEnqueueError(e.to_string()))
    }

    /// Sends several, ten to a SendMessageBatch.
    pub async fn request_all(
        &self,
        requests: &[SummaryRequest],
    ) -> Result<(), SummaryEnqueueError> {
        use platform::aws::sqs::BatchEntry;
        for chunk in requests.chunks(10) {
            let entries: Vec<BatchEntry> = chunk
                .iter()
                .enumerate()
                .map(|(i, r)| BatchEntry {
                    id: i.to_string(),
                    message_body: r.to_json(),
                })
                .collect();
            let out = self
                .sqs
                .send_message_batch(&self.url, &entries)
                .await
                .map_err(|e| SummaryEnqueueError(e.to_string()))?;
            if let Some(failed) = out.failed.first() {
                return Err(SummaryEnqueueError(format!(
                    "{} of {} messages refused: {}",
                    out.failed.len(),
                    entries.len(),
                    failed.code
                )));
            }
        }
        Ok(())
    }
}

/// A post's AI summary (the product's "Summary state").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PostSummary {
    /// `PENDING`, `COMPLETED` or `FAILED`; null for a draft that was never published.
    #[schema(value_type = Option<SummaryStatusName>)]
    pub status: Option<String>,
    /// The summary; while PENDING, the previous one (null before the first).
    pub summary: Option<String>,
    #[schema(format = "date-time")]
    pub generated_at: Option<String>,
    /// The model that wrote it.
    pub model: Option<String>,
}

/// The states of a summary.
#[derive(ToSchema)]
#[allow(dead_code)]
pub enum SummaryStatusName {
    #[schema(rename = "PENDING")]
    Pending,
    #[schema(rename = "COMPLETED")]
    Completed,
    #[schema(rename = "FAILED")]
    Failed,
}

/// A post whose summary failed (the product's "Failed-summary row").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailedSummary {
    #[schema(format = "uuid")]
    pub id: String,
    /// The post's title now.
    pub title: String,
    #[schema(format = "uuid")]
    pub author_id: String,
    #[schema(example = "FAILED")]
    pub summary_status: String,
    /// When the summary was given up.
    #[schema(format = "date-time")]
    pub updated_at: String,
}

/// A page of failed summaries, most recently failed first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailedSummaryPage {
    pub content: Vec<FailedSummary>,
    pub page: u32,
    pub size: u32,
    /// Pages of `totalElements`.
    pub total_pages: u64,
    /// The failed summaries, counted up to 1,000: a longer list says 1,000 (page on with
    /// `nextCursor`).
    #[schema(maximum = 1000)]
    pub total_elements: u64,
    /// The `cursor` of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub next_cursor: Option<String>,
}

/// The page of an admin list (failed summaries, the moderation log): `page` 0 to 49, `size` 1 to 100 (default 20).
pub fn admin_page(
    page: Option<i64>,
    size: Option<i64>,
    cursor: Option<&str>,
) -> Result<PageRequest, Invalid> {
    let mut errors = platform::validation::FieldErrors::new();
    let page = u32::try_from(page.unwrap_or(0))
        .ok()
        .filter(|p| *p <= MAX_FAILED_PAGE);
    if page.is_none() {
        errors.add("page", format!("must be between 0 and {MAX_FAILED_PAGE}"));
    }
    let size = u32::try_from(size.unwrap_or(i64::from(FAILED_PAGE_SIZE)))
        .ok()
        .filter(|s| (1..=MAX_FAILED_PAGE_SIZE).contains(s));
    if size.is_none() {
        errors.add(
            "size",
            format!("must be between 1 and {MAX_FAILED_PAGE_SIZE}"),
        );
    }
    errors.finish()?;
    PageRequest {
        page: page.unwrap_or(0),
        size: size.unwrap_or(FAILED_PAGE_SIZE),
        after: None,
    }
    .with_cursor(cursor)
}

impl Community {
    /// The summary of a post visible to `caller` (drafts to their author only).
    pub async fn summary(
        &self,
        id: &PostId,
        caller: Option<&UserId>,
    ) -> Result<PostSummary, CommunityError> {
        let post = self
            .store()
            .post(id.as_str())
            .await?
            .filter(|p| p.visible_to(caller.map(UserId::as_str)))
            .ok_or(CommunityError::PostNotFound)?;
        Ok(summary_of(&post.summary))
    }

    /// The admin's re-trigger: PENDING again; answers the request to send and the state.
    pub async fn retry_summary(
        &self,
        id: &PostId,
    ) -> Result<(SummaryRequest, PostSummary), CommunityError> {
        let request = self
            .store()
            .retry_summary(id.as_str())
            .await
            .map_err(|e| match e {
                RetryError::NotFound => CommunityError::PostNotFound,
                RetryError::Draft => CommunityError::Conflict(e.to_string()),
                RetryError::Race => CommunityError::Busy,
                RetryError::Store(e) => CommunityError::Store(e),
            })?;
        let post = self
            .store()
            .post(id.as_str())
            .await?
            .ok_or(CommunityError::PostNotFound)?;
        Ok((request, summary_of(&post.summary)))
    }

    /// A page of the failed-summary list.
    pub async fn failed_summaries(
        &self,
        page: PageRequest,
    ) -> Result<FailedSummaryPage, CommunityError> {
        let (rows, total, next_cursor) = self.store().failed_summaries(&page).await?;
        Ok(FailedSummaryPage {
            content: rows
                .into_iter()
                .map(|row| FailedSummary {
                    id: row.post.id,
                    title: row.post.title,
                    author_id: row.post.author_id,
                    summary_status: row
                        .post
                        .summary
                        .status
                        .unwrap_or(SummaryStatus::Failed)
                        .as_str()
                        .to_string(),
                    updated_at: row.failed_at,
                })
                .collect(),
            page: page.page,
            size: page.size,
            total_pages: total.div_ceil(u64::from(page.size)),
            total_elements: total,
            next_cursor,
        })
    }
}

pub(crate) fn summary_of(state: &crate::store::posts::SummaryState) -> PostSummary {
    PostSummary {
        status: state.status.map(|s| s.as_str().to_string()),
        summary: state.text.clone(),
        generated_at: state.generated_at.clone(),
        model: state.model.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_and_junk_is_refused() {
        let request = SummaryRequest {
            post_id: "5b0f3c1e-0000-4000-8000-00000000000a".into(),
            version: 3,
            content_hash: content_hash("Hello"),
        };
        assert_eq!(
            SummaryRequest::parse(&request.to_json()),
            Ok(request.clone())
        );
        for bad in [
            "junk",
            r#"{"postId":"x","version":1,"contentHash":"00"}"#,
            &request.to_json().replace("\"version\":3", "\"version\":0"),
            &request.to_json().replace(&request.content_hash, "abc"),
            r#"{"postId":"5b0f3c1e-0000-4000-8000-00000000000a"}"#,
        ] {
            assert!(SummaryRequest::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn failed_pages_default_to_20_and_are_bounded() {
        assert_eq!(
            admin_page(None, None, None).unwrap(),
            PageRequest {
                page: 0,
                size: 20,
                after: None
            }
        );
        assert!(admin_page(Some(49), Some(100), None).is_ok());
        assert!(admin_page(Some(50), None, None).is_err());
        assert!(admin_page(None, Some(0), None).is_err());
        assert!(admin_page(None, Some(101), None).is_err());
        assert!(admin_page(Some(-1), None, None).is_err());
        assert!(admin_page(None, None, Some("")).is_err());
        // A cursor wins over a page number beside it.
        let after = admin_page(Some(3), None, Some("3230")).unwrap();
        assert_eq!((after.page, after.after.as_deref()), (0, Some("20")));
    }
}
