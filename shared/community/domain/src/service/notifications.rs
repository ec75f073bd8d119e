//! Notifications: what notifies whom, the queue between the write and the inbox, and the
//! inbox itself (see `crate::store::notifications` for its keys).
//!
//! A write that notifies (a comment, a published post with `@mentions`, an admin's removal,
//! a resolved report) commits, then sends one [`NotificationEvent`] to the notification
//! queue; the worker (`community-views`) calls [`Community::deliver`], which works out the
//! recipients and puts each one's row only when absent, under an id made of the event's time
//! and a hash of the event, recipient and kind: a redelivered message writes nothing twice.
//! The send is best effort (a failure is logged): a notification is not worth failing the
//! comment that caused it.

use std::collections::HashSet;

use crate::error::CommunityError;
use crate::identity::Identity;
use crate::input::{mentions, InboxPage, NotificationIds, UserId};
use crate::model::notifications::{
    Notification, NotificationActor, NotificationKind, NotificationPage, ReportOutcome, UnreadCount,
};
use crate::model::Post;
use crate::queues::{NotificationEvent, MAX_MENTIONS};
use crate::store::notifications::NewNotification;

use super::Community;

/// The most characters of a notification's excerpt.
pub const EXCERPT_CHARS: usize = 140;

/// The first [`EXCERPT_CHARS`] characters of `text`, on one line.
pub(crate) fn excerpt(text: &str) -> String {
    let line: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(EXCERPT_CHARS)
        .collect();
    line
}

/// A notification's id: the event's milliseconds (13 digits), then 16 hex digits of the
/// SHA-256 of the event's key, the recipient and the kind.
pub(crate) fn notification_id(
    millis: i64,
    key: &str,
    recipient: &str,
    kind: NotificationKind,
) -> String {
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        format!("{key}|{recipient}|{}", kind.as_str()).as_bytes(),
    );
    let hex: String = digest
        .as_ref()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{:013}-{hex}", millis.max(0))
}

/// The unread count of a page: the two queries run side by side, so a notification delivered
/// between them can be in the page but not the count; a page never shows more unread than it
/// counts.
fn at_least_shown(counted: u64, content: &[Notification]) -> u64 {
    let shown = content.iter().filter(|n| !n.read).count();
    counted.max(u64::try_from(shown).unwrap_or(u64::MAX))
}

impl Community {
    /// A page of the caller's inbox, newest first, with their unread count.
    pub async fn notifications(
        &self,
        caller: &UserId,
        page: &InboxPage,
    ) -> Result<NotificationPage, CommunityError> {
        let store = self.store();
        let watermark = store.inbox_watermark(caller.as_str()).await?;
        let ((content, next_cursor), unread_count) = futures::try_join!(
            store.inbox_page(caller.as_str(), page, watermark.as_deref()),
            store.unread_count(caller.as_str(), watermark.as_deref())
        )?;
        Ok(NotificationPage {
            unread_count: at_least_shown(unread_count, &content),
            content,
            next_cursor,
        })
    }

    /// Marks the caller's notifications `ids` read (ids of none are skipped).
    pub async fn mark_notifications_read(
        &self,
        caller: &UserId,
        ids: &NotificationIds,
    ) -> Result<UnreadCount, CommunityError> {
        self.store()
            .mark_read(caller.as_str(), ids.as_slice())
            .await?;
        self.unread(caller).await
    }

    /// Marks everything in the caller's inbox read: one write, whatever it holds.
    pub async fn mark_all_notifications_read(
        &self,
        caller: &UserId,
    ) -> Result<UnreadCount, CommunityError> {
        self.store().mark_all_read(caller.as_str()).await?;
        self.unread(caller).await
    }

    async fn unread(&self, caller: &UserId) -> Result<UnreadCount, CommunityError> {
        let store = self.store();
        let watermark = store.inbox_watermark(caller.as_str()).await?;
        Ok(UnreadCount {
            unread_count: store
                .unread_count(caller.as_str(), watermark.as_deref())
                .await?,
        })
    }

    /// Sends a notification event; a failure is only logged (see the module).
    pub(crate) async fn notify(&self, event: NotificationEvent) {
        let Some(queue) = &self.queues.notifications else {
            return;
        };
        if let Err(error) = queue.send(&event).await {
            tracing::warn!(%error, "notification event not sent; its notifications are lost");
        }
    }

    /// The ids of the members the first [`MAX_MENTIONS`] `@username`s of `text` name, the
    /// author left out; a name nobody holds, or a lookup that fails, notifies nobody.
    pub(crate) async fn mentioned(
        &self,
        identity: &impl Identity,
        text: &str,
        author_id: &str,
    ) -> Vec<String> {
        let names = mentions(text, MAX_MENTIONS);
        let found = futures::future::join_all(names.iter().map(|name| async move {
            match identity.user_by_username(name).await {
                Ok(found) => found.map(|p| p.id),
                Err(error) => {
                    tracing::warn!(%error, name, "mention not resolved; not notified");
                    None
                }
            }
        }))
        .await;
        let mut ids: Vec<String> = Vec::new();
        for id in found.into_iter().flatten() {
            if id != author_id && !ids.contains(&id) {
                ids.push(id);
            }
        }
        ids
    }

    /// Tells the members a just-created published post mentions.
    pub(crate) async fn notify_post_mentions(&self, identity: &impl Identity, post: &Post) {
        if post.status != "PUBLISHED" || !post.content.contains('@') {
            return;
        }
        let mentions = self
            .mentioned(identity, &post.content, &post.author.id)
            .await;
        if mentions.is_empty() {
            return;
        }
        self.notify(NotificationEvent::Post {
            post_id: post.id.clone(),
            actor_id: post.author.id.clone(),
            actor_username: post.author.username.clone(),
            excerpt: excerpt(&post.title),
            at: post.created_at.clone(),
            mentions,
        })
        .await;
    }

    /// The worker's call: writes the event's notifications, each once; answers how many
    /// this call wrote (0 for a redelivery).
    pub async fn deliver(&self, event: &NotificationEvent) -> Result<u64, CommunityError> {
        let store = self.store();
        let mut targets: Vec<(String, NotificationKind)> = Vec::new();
        let add = |targets: &mut Vec<(String, NotificationKind)>, id: String, kind| {
            if !targets.iter().any(|(t, _)| *t == id) {
                targets.push((id, kind));
            }
        };
        let (key, actor, post_id, comment_id, excerpt, reason, outcome, at) = match event {
            NotificationEvent::Comment {
                comment_id,
                post_id,
                parent_id,
                actor_id,
                actor_username,
                excerpt,
                at,
                mentions,
            } => {
                let Some(post) = store.post(post_id).await?.filter(|p| p.is_public()) else {
                    return Ok(0);
                };
                if let Some(parent) = parent_id {
                    if let Some(parent) = store.live_comment_by_id(parent).await? {
                        add(&mut targets, parent.author.id, NotificationKind::Reply);
                    }
                }
                add(&mut targets, post.author_id, NotificationKind::Comment);
                for id in mentions {
                    add(&mut targets, id.clone(), NotificationKind::Mention);
                }
                targets.retain(|(t, _)| t != actor_id);
                (
                    format!("comment:{comment_id}"),
                    Some(NotificationActor {
                        id: actor_id.clone(),
                        username: actor_username.clone(),
                    }),
                    post_id,
                    Some(comment_id.clone()),
                    excerpt,
                    None,
                    None,
                    at,
                )
            }
            NotificationEvent::Post {
                post_id,
                actor_id,
                actor_username,
                excerpt,
                at,
                mentions,
            } => {
                if !store.post(post_id).await?.is_some_and(|p| p.is_public()) {
                    return Ok(0);
                }
                for id in mentions {
                    add(&mut targets, id.clone(), NotificationKind::Mention);
                }
                targets.retain(|(t, _)| t != actor_id);
                (
                    format!("post:{post_id}"),
                    Some(NotificationActor {
                        id: actor_id.clone(),
                        username: actor_username.clone(),
                    }),
                    post_id,
                    None,
                    excerpt,
                    None,
                    None,
                    at,
                )
            }
            NotificationEvent::Direct {
                key,
                kind,
                recipients,
                post_id,
                comment_id,
                excerpt,
                reason,
                outcome,
                at,
            } => {
                let kind = NotificationKind::parse(kind).unwrap_or(NotificationKind::Removed);
                for id in recipients {
                    add(&mut targets, id.clone(), kind);
                }
                (
                    key.clone(),
                    None,
                    post_id,
                    comment_id.clone(),
                    excerpt,
                    reason.clone(),
                    outcome.as_deref().and_then(ReportOutcome::parse),
                    at,
                )
            }
        };
        let created = chrono::DateTime::parse_from_rfc3339(at)
            .map_err(|e| store.table.corrupt(format!("event time {at:?}: {e}")))?;
        let millis = created.timestamp_millis();
        let mut written = 0;
        let mut seen = HashSet::new();
        for (recipient, kind) in targets {
            if !seen.insert(recipient.clone()) {
                continue;
            }
            let new = NewNotification {
                id: notification_id(millis, &key, &recipient, kind),
                recipient,
                kind,
                actor: actor.clone(),
                post_id: post_id.clone(),
                comment_id: comment_id.clone(),
                excerpt: excerpt.clone(),
                reason: reason.clone(),
                outcome,
                created_at: at.clone(),
                created_epoch: created.timestamp(),
            };
            if store.put_notification(&new).await? {
                written += 1;
            }
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_time_ordered_and_stable_per_event_recipient_and_kind() {
        let a = notification_id(1_764_745_200_123, "comment:c", "u", NotificationKind::Reply);
        assert_eq!(
            a,
            notification_id(1_764_745_200_123, "comment:c", "u", NotificationKind::Reply)
        );
        assert_ne!(
            a,
            notification_id(1_764_745_200_123, "comment:c", "v", NotificationKind::Reply)
        );
        assert!(crate::input::is_notification_id(&a), "{a}");
        assert!(a < notification_id(1_764_745_200_124, "comment:a", "u", NotificationKind::Reply));
        assert_eq!(excerpt("  a\n b  "), "a b");
    }

    #[test]
    fn a_page_counts_at_least_the_unread_it_shows() {
        let shown = |read: bool| Notification {
            id: "1764745200123-0011223344556677".to_string(),
            kind: NotificationKind::Comment,
            actor: None,
            post_id: "p".to_string(),
            comment_id: None,
            excerpt: String::new(),
            reason: None,
            outcome: None,
            read,
            created_at: "2026-12-03T00:00:00Z".to_string(),
        };
        let page = [shown(false), shown(true), shown(false)];
        assert_eq!(at_least_shown(1, &page), 2);
        assert_eq!(at_least_shown(7, &page), 7);
        assert_eq!(at_least_shown(0, &[]), 0);
    }
}
