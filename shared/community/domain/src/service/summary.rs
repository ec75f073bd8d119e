//! AI summaries of posts (community): the facade's reads and admin operations on them, and
//! the design of their states (the types are in [`crate::model::summary`]).
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
//! post's row in the summary outbox (`SUMQ#`) in the post's own transaction; the facade
//! then sends a [`SummaryRequest`] `{postId, version, contentHash}` to the summary
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

use crate::error::CommunityError;
use crate::input::{PageRequest, PostId, UserId};
use crate::model::jobs::Applied;
use crate::model::summary::{
    content_hash, FailedSummary, FailedSummaryPage, PostSummary, SummaryStatus,
};
use crate::queues::SummaryRequest;
use crate::store::summaries::RetryError;

use super::Community;

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

    /// The admin's re-trigger: PENDING again, then the request sent to the summarizer (a
    /// failed send only logged: the outbox sends it again); answers the state.
    pub async fn retry_summary(
        &self,
        id: &PostId,
        admin: &str,
    ) -> Result<PostSummary, CommunityError> {
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
        tracing::info!(post_id = %request.post_id, version = request.version, admin,
            "summary re-triggered");
        self.request_summary(Some(&request)).await;
        Ok(summary_of(&post.summary))
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

/// What the summarizer is to summarise for a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryJob {
    pub author_id: String,
    pub title: String,
    pub content: String,
}

impl Community {
    /// The post a summary request names, when it still wants that summary: a request for a
    /// post that is gone, or whose content is not the request's any more, is dropped from the
    /// outbox; one that moved on (a newer version, or no longer PENDING) is skipped. Nothing
    /// is asked of the model for those.
    pub async fn summary_job(
        &self,
        request: &SummaryRequest,
    ) -> Result<Option<SummaryJob>, CommunityError> {
        let id = request.post_id.as_str();
        let Some(post) = self.store().post(id).await?.filter(|p| !p.deleted) else {
            self.store().drop_summary_request(request).await?;
            tracing::info!(post_id = id, "summary of a post that is gone: dropped");
            return Ok(None);
        };
        let state = &post.summary;
        if state.version != request.version || state.status != Some(SummaryStatus::Pending) {
            tracing::info!(post_id = id, request = request.version, current = state.version,
                status = ?state.status, "summary request moved on or done: skipped");
            return Ok(None);
        }
        let body = self.store().body(id).await?;
        if content_hash(&body.content) != request.content_hash {
            // Edited as a draft since: its next publication asks again.
            self.store().drop_summary_request(request).await?;
            tracing::info!(
                post_id = id,
                "the content is not the request's any more: skipped"
            );
            return Ok(None);
        }
        Ok(Some(SummaryJob {
            author_id: post.author_id,
            title: post.title,
            content: body.content,
        }))
    }

    /// Stores the model's summary for `request`, unless the post moved on meanwhile.
    pub async fn complete_summary(
        &self,
        request: &SummaryRequest,
        summary: &str,
        model: &str,
    ) -> Result<Applied, CommunityError> {
        Ok(self
            .store()
            .complete_summary(request, summary, model)
            .await?)
    }

    /// Gives `request` up (every retry failed): FAILED, unless the post moved on.
    pub async fn fail_summary(&self, request: &SummaryRequest) -> Result<Applied, CommunityError> {
        Ok(self.store().fail_summary(request).await?)
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
