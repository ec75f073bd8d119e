//! Reports: a member reports a post or a comment; admins read the open ones grouped by target
//! and resolve each group by removing the content (the admin removal, logged) or dismissing
//! the reports; every reporter is told the outcome (see `crate::store::reports`).

use platform::Invalid;

use crate::error::CommunityError;
use crate::input::{
    CommentId, PostId, RemovalReason, ReportInput, Resolution, ResolveAction, UserId,
};
use crate::model::notifications::{NotificationKind, ReportOutcome};
use crate::model::reports::{
    Report, ReportGroup, ReportQueuePage, ReportReason, ReportResolution, ReportTarget,
};
use crate::queues::{NotificationEvent, MAX_DIRECT_RECIPIENTS};
use crate::store::reports::{NewReport, ReportWrite};

use super::notifications::excerpt;
use super::Community;

/// Times a resolution reads the group again when a report came in meanwhile.
const RESOLVE_ATTEMPTS: u32 = 4;

/// The reason a removal is logged with when the admin gave no note: the group's most given.
fn top_reason(group: &ReportGroup) -> ReportReason {
    let r = &group.reasons;
    [
        (r.spam, ReportReason::Spam),
        (r.abuse, ReportReason::Abuse),
        (r.off_topic, ReportReason::OffTopic),
        (r.other, ReportReason::Other),
    ]
    .into_iter()
    .max_by_key(|(count, _)| *count)
    .map_or(ReportReason::Other, |(_, reason)| reason)
}

impl Community {
    /// Records the caller's report of a post or comment they can see; their second report
    /// of it changes nothing (`false`: it existed). Reporting one's own content is a 400.
    pub async fn report(
        &self,
        caller: &UserId,
        input: &ReportInput,
    ) -> Result<(Report, bool), CommunityError> {
        let store = self.store();
        let (post_id, author_id, text) = match input.target {
            ReportTarget::Post => {
                let post = store
                    .post(&input.target_id)
                    .await?
                    .filter(|p| p.is_public())
                    .ok_or(CommunityError::PostNotFound)?;
                (post.id, post.author_id, post.title)
            }
            ReportTarget::Comment => {
                let comment = store
                    .live_comment_by_id(&input.target_id)
                    .await?
                    .ok_or(CommunityError::CommentNotFound)?;
                let visible = store
                    .post(&comment.post_id)
                    .await?
                    .is_some_and(|p| p.is_public());
                if !visible {
                    return Err(CommunityError::CommentNotFound);
                }
                (comment.post_id, comment.author.id, comment.text)
            }
        };
        if author_id == caller.as_str() {
            return Err(Invalid::field("targetId", "is your own: you cannot report it").into());
        }
        let written = store
            .add_report(&NewReport {
                target: input.target,
                target_id: &input.target_id,
                post_id: &post_id,
                author_id: &author_id,
                excerpt: &excerpt(&text),
                reporter_id: caller.as_str(),
                reason: input.reason,
                text: input.text.as_deref(),
            })
            .await?;
        Ok(match written {
            ReportWrite::Created(r) => (r, true),
            ReportWrite::Existing(r) => (r, false),
        })
    }

    /// A page of the open report groups, newest first.
    pub async fn report_queue(
        &self,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<ReportQueuePage, CommunityError> {
        let after = cursor
            .map(|c| {
                platform::cursor::decode_cursor(c)
                    .filter(|sk| !sk.is_empty())
                    .ok_or_else(|| {
                        Invalid::field("cursor", "is not a cursor this service gave out")
                    })
            })
            .transpose()?;
        let (content, next) = self.store().report_queue(limit, after.as_deref()).await?;
        Ok(ReportQueuePage {
            content,
            next_cursor: next.map(|sk| platform::cursor::encode_cursor(&sk)),
        })
    }

    /// An admin resolves the open reports on a target: `remove` removes it (the admin
    /// removal with the note, or the reports' most given reason, as its reason; content
    /// already gone counts as removed), `dismiss` leaves it; then every reporter is told.
    /// 404 when the target has no open reports.
    pub async fn resolve_reports(
        &self,
        admin: &str,
        resolution: &Resolution,
    ) -> Result<ReportResolution, CommunityError> {
        let store = self.store();
        let not_found = || match resolution.target {
            ReportTarget::Post => CommunityError::PostNotFound,
            ReportTarget::Comment => CommunityError::CommentNotFound,
        };
        for _ in 0..RESOLVE_ATTEMPTS {
            let open = store
                .open_reports(resolution.target, &resolution.target_id)
                .await?
                .ok_or_else(not_found)?;
            let outcome = match resolution.action {
                ResolveAction::Dismiss => ReportOutcome::Dismissed,
                ResolveAction::Remove => {
                    let reason = match &resolution.note {
                        Some(note) => note.clone(),
                        None => format!("Reported as {}", top_reason(&open.group).as_str()),
                    };
                    let reason =
                        RemovalReason::parse(Some(&reason)).map_err(CommunityError::from)?;
                    let removed = match resolution.target {
                        ReportTarget::Post => {
                            let id = PostId::parse("targetId", &resolution.target_id)?;
                            self.remove_post(&id, admin, &reason).await
                        }
                        ReportTarget::Comment => {
                            let id = CommentId::parse("targetId", &resolution.target_id)?;
                            self.remove_comment(&id, admin, &reason).await
                        }
                    };
                    match removed {
                        // Deleted by its author or removed already: what the reports asked.
                        Ok(())
                        | Err(CommunityError::PostNotFound | CommunityError::CommentNotFound) => {}
                        Err(e) => return Err(e),
                    }
                    ReportOutcome::Removed
                }
            };
            if !store.close_reports(&open, outcome).await? {
                continue;
            }
            let at = self.clock().timestamp();
            for chunk in open.reporters.chunks(MAX_DIRECT_RECIPIENTS) {
                self.notify(NotificationEvent::Direct {
                    key: format!("report:{}", open.queue_sk),
                    kind: NotificationKind::ReportResolved.as_str().to_string(),
                    recipients: chunk.to_vec(),
                    post_id: open.group.post_id.clone(),
                    comment_id: (resolution.target == ReportTarget::Comment)
                        .then(|| resolution.target_id.clone()),
                    excerpt: open.group.excerpt.clone(),
                    reason: resolution.note.clone(),
                    outcome: Some(outcome.as_str().to_string()),
                    at: at.clone(),
                })
                .await;
            }
            return Ok(ReportResolution {
                target_type: resolution.target,
                target_id: resolution.target_id.clone(),
                outcome,
                reports: u64::try_from(open.reporters.len()).unwrap_or(u64::MAX),
            });
        }
        Err(CommunityError::Busy)
    }
}
