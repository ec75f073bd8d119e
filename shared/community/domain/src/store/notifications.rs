//! Members' inboxes: `INBOX#{u}`, one partition per member, holding their notifications
//! (`N#{id}`, the id time-ordered: milliseconds and a hash of the event, recipient and kind)
//! and its state (`STATE`: `readAllBefore`, the read-all watermark).
//!
//! - Delivery puts a row only when absent, so a redelivered event writes nothing twice.
//! - A notification is unread while it has no `readAt` and its id is after the watermark:
//!   "mark all read" is one write whatever the inbox holds; "mark read" sets `readAt` on each.
//! - The unread count reads the rows after the watermark (keys and `readAt` only), at most
//!   1,000 counted.
//! - Rows expire 180 days after they are written (`expiresAt`, the table's TTL).
//!
//! Rates at target: a member's inbox is written once per notification of theirs: a post
//! commented on 100 times a second writes its author's partition 100 units a second (10%);
//! see docs/community-notifications.md.

use futures::{StreamExt, TryStreamExt};
use platform::dynamo::{n, s, Attributes, DynamoError, Item};

use super::Store;
use crate::input::InboxPage;
use crate::keys;
use crate::model::notifications::{
    Notification, NotificationActor, NotificationKind, ReportOutcome,
};

/// The most unread notifications counted.
pub const UNREAD_COUNT_CAP: usize = 1_000;
/// How long a notification is kept.
const KEPT_SECONDS: i64 = 180 * 24 * 3600;
/// Above every id's sort key (`~` sorts after digits and `-`).
const AFTER_EVERY_ID: &str = "N#~";

/// A notification to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewNotification {
    pub recipient: String,
    pub id: String,
    pub kind: NotificationKind,
    pub actor: Option<NotificationActor>,
    pub post_id: String,
    pub comment_id: Option<String>,
    pub excerpt: String,
    pub reason: Option<String>,
    pub outcome: Option<ReportOutcome>,
    pub created_at: String,
    /// Seconds since the epoch when it was created.
    pub created_epoch: i64,
}

/// The lowest sort key of a notification after the watermark `before` (13 digits).
fn unread_from(before: Option<&str>) -> String {
    match before {
        Some(wm) => format!("{}{wm}-~", keys::NOTIFICATION_PREFIX),
        None => keys::NOTIFICATION_PREFIX.to_string(),
    }
}

fn notification_of(row: &Item, watermark: Option<&str>) -> Option<Notification> {
    let id = row.opt_string("id")?;
    // The watermark is milliseconds: a notification of that very millisecond is read.
    let after_watermark = watermark.is_none_or(|wm| id.get(..13).is_some_and(|m| m > wm));
    let actor = match (row.opt_string("actorId"), row.opt_string("actorUsername")) {
        (Some(id), Some(username)) => Some(NotificationActor { id, username }),
        _ => None,
    };
    Some(Notification {
        kind: NotificationKind::parse(&row.opt_string("kind")?)?,
        actor,
        post_id: row.opt_string("postId")?,
        comment_id: row.opt_string("commentId"),
        excerpt: row.opt_string("excerpt").unwrap_or_default(),
        reason: row.opt_string("reason"),
        outcome: row
            .opt_string("outcome")
            .and_then(|o| ReportOutcome::parse(&o)),
        read: row.contains_key("readAt") || !after_watermark,
        created_at: row.opt_string("createdAt")?,
        id,
    })
}

impl Store {
    /// Puts a notification unless its row exists; true when this call wrote it.
    pub async fn put_notification(&self, new: &NewNotification) -> Result<bool, DynamoError> {
        let mut item = keys::notification(&new.recipient, &new.id);
        item.extend([
            ("id".to_string(), s(&new.id)),
            ("kind".to_string(), s(new.kind.as_str())),
            ("postId".to_string(), s(&new.post_id)),
            ("excerpt".to_string(), s(&new.excerpt)),
            ("createdAt".to_string(), s(&new.created_at)),
            ("expiresAt".to_string(), n(new.created_epoch + KEPT_SECONDS)),
        ]);
        if let Some(actor) = &new.actor {
            item.insert("actorId".to_string(), s(&actor.id));
            item.insert("actorUsername".to_string(), s(&actor.username));
        }
        for (name, value) in [
            ("commentId", new.comment_id.as_deref()),
            ("reason", new.reason.as_deref()),
            ("outcome", new.outcome.map(ReportOutcome::as_str)),
        ] {
            if let Some(value) = value {
                item.insert(name.to_string(), s(value));
            }
        }
        let result = self
            .table
            .put_item()
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await;
        match result {
            Ok(_) => Ok(true),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("PutItem", &e)),
        }
    }

    /// The member's read-all watermark (13 digits of milliseconds), if they ever set one.
    pub async fn inbox_watermark(&self, user_id: &str) -> Result<Option<String>, DynamoError> {
        Ok(self
            .table
            .get(keys::inbox_state(user_id))
            .await?
            .and_then(|row| row.opt_string("readAllBefore")))
    }

    /// A page of the member's notifications, newest first, and the next page's cursor.
    pub async fn inbox_page(
        &self,
        user_id: &str,
        page: &InboxPage,
        watermark: Option<&str>,
    ) -> Result<(Vec<Notification>, Option<String>), DynamoError> {
        let low = if page.unread_only {
            unread_from(watermark)
        } else {
            keys::NOTIFICATION_PREFIX.to_string()
        };
        let high = page
            .after
            .clone()
            .unwrap_or_else(|| AFTER_EVERY_ID.to_string());
        let wanted = page.limit.saturating_add(1);
        let mut query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND sk BETWEEN :low AND :high")
            .expression_attribute_values(":pk", s(keys::inbox_pk(user_id)))
            .expression_attribute_values(":low", s(low))
            .expression_attribute_values(":high", s(&high))
            .scan_index_forward(false)
            // A member reads their inbox right after marking it: it shows their marks.
            .consistent_read(true)
            .limit(i32::try_from(wanted).unwrap_or(i32::MAX));
        if page.unread_only {
            query = query.filter_expression("attribute_not_exists(readAt)");
        }
        let mut rows = self.table.query_all(query, Some(wanted + 1)).await?;
        // BETWEEN includes the cursor's own row: it was the last of the page before.
        rows.retain(|r| r.opt_string("sk").as_deref() != Some(high.as_str()));
        let more = rows.len() > page.limit;
        rows.truncate(page.limit);
        let next = if more {
            rows.last()
                .and_then(|r| r.opt_string("sk"))
                .map(|sk| platform::cursor::encode_cursor(&sk))
        } else {
            None
        };
        let content = rows
            .iter()
            .filter_map(|r| notification_of(r, watermark))
            .collect();
        Ok((content, next))
    }

    /// The member's unread notifications, counted up to [`UNREAD_COUNT_CAP`].
    pub async fn unread_count(
        &self,
        user_id: &str,
        watermark: Option<&str>,
    ) -> Result<u64, DynamoError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND sk BETWEEN :low AND :high")
            .expression_attribute_values(":pk", s(keys::inbox_pk(user_id)))
            .expression_attribute_values(":low", s(unread_from(watermark)))
            .expression_attribute_values(":high", s(AFTER_EVERY_ID))
            .filter_expression("attribute_not_exists(readAt)")
            .projection_expression("sk")
            // Answered right after a mark: counted from what the mark wrote.
            .consistent_read(true);
        let rows = self.table.query_all(query, Some(UNREAD_COUNT_CAP)).await?;
        Ok(u64::try_from(rows.len()).unwrap_or(u64::MAX))
    }

    /// Marks the member's notifications `ids` read (ids that name none are skipped).
    pub async fn mark_read(&self, user_id: &str, ids: &[String]) -> Result<(), DynamoError> {
        let now = self.clock.timestamp();
        let updates: Vec<_> = ids.iter().cloned().map(|id| (id, now.clone())).collect();
        futures::stream::iter(updates)
            .map(|(id, now)| async move {
                let result = self
                    .table
                    .update_item()
                    .set_key(Some(keys::notification(user_id, &id)))
                    .update_expression("SET readAt = :now")
                    .condition_expression("attribute_exists(pk) AND attribute_not_exists(readAt)")
                    .expression_attribute_values(":now", s(&now))
                    .send()
                    .await;
                match result {
                    Ok(_) => Ok(()),
                    Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(()),
                    Err(e) => Err(self.table.fail("UpdateItem", &e)),
                }
            })
            .buffer_unordered(10)
            .try_collect::<Vec<()>>()
            .await?;
        Ok(())
    }

    /// Marks every notification of the member up to now read: one write of the watermark,
    /// which never moves back.
    pub async fn mark_all_read(&self, user_id: &str) -> Result<(), DynamoError> {
        let watermark = format!("{:013}", self.clock.now().timestamp_millis());
        let result = self
            .table
            .update_item()
            .set_key(Some(keys::inbox_state(user_id)))
            .update_expression("SET readAllBefore = :wm")
            .condition_expression("attribute_not_exists(readAllBefore) OR readAllBefore < :wm")
            .expression_attribute_values(":wm", s(watermark))
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table.fail("UpdateItem", &e)),
        }
    }
}
