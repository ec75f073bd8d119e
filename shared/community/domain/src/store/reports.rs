//! Members' reports and the admins' queue of them.
//!
//! - A report: `REPORT#{target}#{id}`/`BY#{reporter}` (one per member and target, put only
//!   when absent; `outcome` and `resolvedAt` once resolved).
//! - The target's open group: `REPORTGROUP#{target}#{id}`/`OPEN`, holding `queueSk` (its row in
//!   the queue) and `count`; a report and a resolution are each conditioned on it.
//! - The queue: `REPORTQ`/`{openedAt}#{target}#{id}`, one row per open group with its counts
//!   by reason, the target's post, author and excerpt, and the latest reporter's words; a
//!   page is one Query, newest first.
//!
//! A report is one transaction of three items (its row, the group, the queue row); a
//! resolution deletes the group (conditioned on the count it read, so a report that came in
//! between is not left out) and the queue row, then marks each report. Rates: a spam wave of
//! 100 reports a second of one post writes each of `REPORT#post#{id}`, `REPORTGROUP#post#{id}`
//! and `REPORTQ` about 2 units (transactional) a report (`local/bench-keyheat`: see
//! docs/community-notifications.md); admins read the queue by the page.

use futures::{StreamExt, TryStreamExt};
use platform::dynamo::{n, s, Attributes, DynamoError, Item, Transaction, TransactionError};

use super::Store;
use crate::keys;
use crate::model::notifications::ReportOutcome;
use crate::model::reports::{ReasonCounts, Report, ReportGroup, ReportReason, ReportTarget};

/// Times a report is rebuilt when the group changed under it.
const REREADS: u32 = 5;

/// A member's report to record, with what the queue shows of its target.
#[derive(Debug, Clone)]
pub struct NewReport<'a> {
    pub target: ReportTarget,
    pub target_id: &'a str,
    pub post_id: &'a str,
    pub author_id: &'a str,
    pub excerpt: &'a str,
    pub reporter_id: &'a str,
    pub reason: ReportReason,
    pub text: Option<&'a str>,
}

/// A report recorded now, or the one the member made before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportWrite {
    Created(Report),
    Existing(Report),
}

/// A target's open reports, read for resolving them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenReports {
    pub group: ReportGroup,
    pub queue_sk: String,
    /// The group's `count` as read: closing it is conditioned on it.
    pub group_count: u64,
    pub reporters: Vec<String>,
}

fn report_of(row: &Item) -> Option<Report> {
    Some(Report {
        target_type: ReportTarget::parse(&row.opt_string("targetType")?)?,
        target_id: row.opt_string("targetId")?,
        reason: ReportReason::parse(&row.opt_string("reason")?)?,
        text: row.opt_string("text"),
        created_at: row.opt_string("createdAt")?,
        outcome: row
            .opt_string("outcome")
            .and_then(|o| ReportOutcome::parse(&o)),
    })
}

fn count(row: &Item, name: &str) -> u64 {
    row.get(name)
        .and_then(|v| v.as_n().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0)
}

fn group_of(row: &Item) -> Option<ReportGroup> {
    Some(ReportGroup {
        target_type: ReportTarget::parse(&row.opt_string("targetType")?)?,
        target_id: row.opt_string("targetId")?,
        post_id: row.opt_string("postId")?,
        author_id: row.opt_string("authorId")?,
        excerpt: row.opt_string("excerpt").unwrap_or_default(),
        count: count(row, "count"),
        reasons: ReasonCounts {
            spam: count(row, ReportReason::Spam.counter()),
            abuse: count(row, ReportReason::Abuse.counter()),
            off_topic: count(row, ReportReason::OffTopic.counter()),
            other: count(row, ReportReason::Other.counter()),
        },
        latest_text: row.opt_string("latestText"),
        opened_at: row.opt_string("openedAt")?,
        latest_at: row.opt_string("latestAt")?,
    })
}

impl Store {
    /// Records a member's report of a target, opening its group in the queue when it has
    /// none; a member's second report of the same target changes nothing.
    pub async fn add_report(&self, new: &NewReport<'_>) -> Result<ReportWrite, DynamoError> {
        let target = new.target.as_str();
        let report_key = keys::report(target, new.target_id, new.reporter_id);
        for _ in 0..REREADS {
            if let Some(report) = self
                .table
                .get(report_key.clone())
                .await?
                .as_ref()
                .and_then(report_of)
            {
                return Ok(ReportWrite::Existing(report));
            }
            let now = self.clock.timestamp();
            let group = self
                .table
                .get(keys::report_group(target, new.target_id))
                .await?;
            let (queue_sk, opened) = match group.as_ref().and_then(|g| g.opt_string("queueSk")) {
                Some(sk) => (sk, false),
                None => (format!("{now}#{target}#{}", new.target_id), true),
            };
            let mut row = report_key.clone();
            row.extend([
                ("targetType".to_string(), s(target)),
                ("targetId".to_string(), s(new.target_id)),
                ("reporterId".to_string(), s(new.reporter_id)),
                ("reason".to_string(), s(new.reason.as_str())),
                ("createdAt".to_string(), s(&now)),
            ]);
            if let Some(text) = new.text {
                row.insert("text".to_string(), s(text));
            }
            let mut tx = Transaction::new(&self.table);
            tx.put(row, Some("attribute_not_exists(pk)"))?;
            let group_update = tx
                .update_builder(keys::report_group(target, new.target_id))
                .update_expression("SET queueSk = :q ADD #count :one")
                .expression_attribute_names("#count", "count")
                .expression_attribute_values(":q", s(&queue_sk))
                .expression_attribute_values(":one", n(1));
            let group_update = if opened {
                group_update.condition_expression("attribute_not_exists(pk)")
            } else {
                group_update.condition_expression("queueSk = :q")
            };
            tx.update(group_update)?;
            let mut queue = tx
                .update_builder(keys::report_queue(&queue_sk))
                .update_expression(
                    "SET targetType = :t, targetId = :id, postId = :post, authorId = :author, \
                     excerpt = if_not_exists(excerpt, :excerpt), \
                     openedAt = if_not_exists(openedAt, :now), latestAt = :now \
                     ADD #count :one, #reason :one",
                )
                .expression_attribute_names("#count", "count")
                .expression_attribute_names("#reason", new.reason.counter())
                .expression_attribute_values(":t", s(target))
                .expression_attribute_values(":id", s(new.target_id))
                .expression_attribute_values(":post", s(new.post_id))
                .expression_attribute_values(":author", s(new.author_id))
                .expression_attribute_values(":excerpt", s(new.excerpt))
                .expression_attribute_values(":now", s(&now))
                .expression_attribute_values(":one", n(1));
            if let Some(text) = new.text {
                queue = queue
                    .update_expression(
                        "SET targetType = :t, targetId = :id, postId = :post, authorId = :author, \
                         excerpt = if_not_exists(excerpt, :excerpt), \
                         openedAt = if_not_exists(openedAt, :now), latestAt = :now, \
                         latestText = :text ADD #count :one, #reason :one",
                    )
                    .expression_attribute_values(":text", s(text));
            }
            tx.update(queue)?;
            match tx.commit_retrying().await {
                Ok(()) => {
                    return Ok(ReportWrite::Created(Report {
                        target_type: new.target,
                        target_id: new.target_id.to_string(),
                        reason: new.reason,
                        text: new.text.map(str::to_string),
                        created_at: now,
                        outcome: None,
                    }))
                }
                // Made meanwhile (the same member twice at once), or the group opened or
                // closed since it was read: read again.
                Err(TransactionError::Condition { .. } | TransactionError::Conflict) => continue,
                Err(TransactionError::Dynamo(e)) => return Err(e),
            }
        }
        Err(self.table.corrupt("the report's group stayed contended"))
    }

    /// A page of the open groups, newest first, and the next page's sort key.
    pub async fn report_queue(
        &self,
        limit: usize,
        after: Option<&str>,
    ) -> Result<(Vec<ReportGroup>, Option<String>), DynamoError> {
        let mut query = self
            .table
            .query()
            .expression_attribute_values(":pk", s(keys::REPORT_QUEUE_PK))
            .scan_index_forward(false)
            .limit(i32::try_from(limit + 1).unwrap_or(i32::MAX));
        query = match after {
            Some(after) => query
                .key_condition_expression("pk = :pk AND sk < :after")
                .expression_attribute_values(":after", s(after)),
            None => query.key_condition_expression("pk = :pk"),
        };
        let mut rows = self.table.query_all(query, Some(limit + 1)).await?;
        let more = rows.len() > limit;
        rows.truncate(limit);
        let next = if more {
            rows.last().and_then(|r| r.opt_string("sk"))
        } else {
            None
        };
        Ok((rows.iter().filter_map(group_of).collect(), next))
    }

    /// The target's open group and its reporters; `None` when it has no open reports.
    pub async fn open_reports(
        &self,
        target: ReportTarget,
        target_id: &str,
    ) -> Result<Option<OpenReports>, DynamoError> {
        let t = target.as_str();
        let Some(open) = self.table.get(keys::report_group(t, target_id)).await? else {
            return Ok(None);
        };
        let Some(queue_sk) = open.opt_string("queueSk") else {
            return Ok(None);
        };
        let group_count = count(&open, "count");
        let Some(group) = self
            .table
            .get(keys::report_queue(&queue_sk))
            .await?
            .as_ref()
            .and_then(group_of)
        else {
            return Ok(None);
        };
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :by)")
            .filter_expression("attribute_not_exists(outcome)")
            .expression_attribute_values(":pk", s(keys::reports_pk(t, target_id)))
            .expression_attribute_values(":by", s(keys::REPORT_PREFIX))
            .projection_expression("reporterId");
        let reporters = self
            .table
            .query_all(query, None)
            .await?
            .iter()
            .filter_map(|r| r.opt_string("reporterId"))
            .collect();
        Ok(Some(OpenReports {
            group,
            queue_sk,
            group_count,
            reporters,
        }))
    }

    /// Closes a target's open group as read (false when it changed since: a report came in,
    /// or another admin resolved it) and marks each of its reports with `outcome`.
    pub async fn close_reports(
        &self,
        open: &OpenReports,
        outcome: ReportOutcome,
    ) -> Result<bool, DynamoError> {
        let t = open.group.target_type.as_str();
        let target_id = open.group.target_id.as_str();
        let deleted = self
            .table
            .delete_item()
            .set_key(Some(keys::report_group(t, target_id)))
            .condition_expression("queueSk = :q AND #count = :n")
            .expression_attribute_names("#count", "count")
            .expression_attribute_values(":q", s(&open.queue_sk))
            .expression_attribute_values(
                ":n",
                n(i64::try_from(open.group_count).unwrap_or(i64::MAX)),
            )
            .send()
            .await;
        match deleted {
            Ok(_) => {}
            Err(e) if platform::dynamo::is_condition_failed(&e) => return Ok(false),
            Err(e) => return Err(self.table.fail("DeleteItem", &e)),
        }
        self.table
            .delete_item()
            .set_key(Some(keys::report_queue(&open.queue_sk)))
            .send()
            .await
            .map_err(|e| self.table.fail("DeleteItem", &e))?;
        let now = self.clock.timestamp();
        let updates: Vec<_> = open
            .reporters
            .iter()
            .map(|reporter| (keys::report(t, target_id, reporter), now.clone()))
            .collect();
        futures::stream::iter(updates)
            .map(|(key, now)| async move {
                self.table
                    .update_item()
                    .set_key(Some(key))
                    .update_expression("SET outcome = :o, resolvedAt = :now")
                    .expression_attribute_values(":o", s(outcome.as_str()))
                    .expression_attribute_values(":now", s(&now))
                    .send()
                    .await
                    .map_err(|e| self.table.fail("UpdateItem", &e))
            })
            .buffer_unordered(10)
            .try_collect::<Vec<_>>()
            .await?;
        Ok(true)
    }
}
