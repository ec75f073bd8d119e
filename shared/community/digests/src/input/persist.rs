//! The deprecated persist's input: every field checked, each problem named.

use chrono::Utc;
use platform::validation::{FieldError, FieldErrors, Invalid};

use super::{bounds, DigestDate, DigestType, UserId};
use crate::model::{Event, TopicRef};

/// The deprecated persist input as received (every field optional, so that each missing
/// one is named).
#[derive(Debug, Clone, Default)]
pub struct RawPersist {
    pub digest_type: Option<String>,
    pub target_user_id: Option<String>,
    pub digest_date: Option<String>,
    pub subtitle: Option<String>,
    pub summary: Option<String>,
    pub events: Option<Vec<Event>>,
    pub topics: Option<Vec<TopicRef>>,
    pub model: Option<String>,
    pub generated_at: Option<String>,
}

/// A digest to persist, valid.
#[derive(Debug, Clone)]
pub struct PersistInput {
    pub digest_type: DigestType,
    /// The PERSONAL digest's user; `None` for PUBLIC.
    pub target_user: Option<UserId>,
    pub date: DigestDate,
    pub subtitle: Option<String>,
    pub summary: Option<String>,
    pub events: Vec<Event>,
    pub topics: Vec<TopicRef>,
    pub model: Option<String>,
    pub generated_at: Option<String>,
}

/// Events a persisted digest may hold (more than a generated one: existing callers may send
/// more; what does not fit DynamoDB's item limit is cut, see `store`).
pub const MAX_PERSISTED_EVENTS: usize = 50;

impl PersistInput {
    /// `digestType` required; `targetUserId` a uuid when PERSONAL and null when PUBLIC;
    /// `digestDate` required; `events` required (at most 50), each within [`bounds`];
    /// `topics` uuids (at most 20); texts within their bounds.
    pub fn parse(raw: RawPersist) -> Result<Self, Invalid> {
        let mut errors = FieldErrors::new();
        let (digest_type, target_user) = digest_type_and_target(
            &mut errors,
            raw.digest_type.as_deref(),
            raw.target_user_id.as_deref(),
        );
        let date = match raw.digest_date.as_deref() {
            None => {
                errors.add("digestDate", "is required");
                None
            }
            Some(d) => errors.check(DigestDate::parse("digestDate", d)),
        };
        let subtitle = errors.check(text("subtitle", raw.subtitle, bounds::SUBTITLE_CHARS));
        let summary = errors.check(text("summary", raw.summary, bounds::SUMMARY_CHARS));
        let model = errors.check(text("model", raw.model, bounds::MODEL_CHARS));
        let events = persisted_events(&mut errors, raw.events);
        let topics = raw.topics.unwrap_or_default();
        check_topics(&mut errors, &topics);
        let generated_at = generated_at(&mut errors, raw.generated_at);
        errors.finish()?;
        match (digest_type, date, events) {
            (Some(digest_type), Some(date), Some(events)) => Ok(Self {
                digest_type,
                target_user,
                date,
                subtitle: subtitle.flatten(),
                summary: summary.flatten(),
                events,
                topics,
                model: model.flatten(),
                generated_at,
            }),
            _ => Err(Invalid::field(
                "body",
                "digestType, digestDate and events are required",
            )),
        }
    }
}

/// `digestType` (required) and `targetUserId`: a PERSONAL digest's user, none for PUBLIC.
fn digest_type_and_target(
    errors: &mut FieldErrors,
    digest_type: Option<&str>,
    target_user_id: Option<&str>,
) -> (Option<DigestType>, Option<UserId>) {
    let digest_type = match digest_type {
        None => {
            errors.add("digestType", "is required");
            None
        }
        Some(t) => errors.check(DigestType::parse("digestType", t)),
    };
    let target_user = match (digest_type, target_user_id) {
        (Some(DigestType::Personal), None) => {
            errors.add("targetUserId", "is required for a PERSONAL digest");
            None
        }
        (Some(DigestType::Personal), Some(id)) => errors.check(UserId::parse("targetUserId", id)),
        (Some(DigestType::Public), Some(_)) => {
            errors.add("targetUserId", "must be null for a PUBLIC digest");
            None
        }
        _ => None,
    };
    (digest_type, target_user)
}

/// `events`: required, at most [`MAX_PERSISTED_EVENTS`], each checked.
fn persisted_events(errors: &mut FieldErrors, events: Option<Vec<Event>>) -> Option<Vec<Event>> {
    match events {
        None => {
            errors.add("events", "is required");
            None
        }
        Some(events) if events.len() > MAX_PERSISTED_EVENTS => {
            errors.add(
                "events",
                format!("must hold at most {MAX_PERSISTED_EVENTS} events"),
            );
            None
        }
        Some(events) => {
            for (i, event) in events.iter().enumerate() {
                check_event(errors, &format!("events[{i}]"), event);
            }
            Some(events)
        }
    }
}

/// `topics`: at most [`bounds::TOPICS`], each a uuid and a name of 1 to 100 characters.
fn check_topics(errors: &mut FieldErrors, topics: &[TopicRef]) {
    if topics.len() > bounds::TOPICS {
        errors.add(
            "topics",
            format!("must hold at most {} topics", bounds::TOPICS),
        );
    }
    for (i, topic) in topics.iter().enumerate() {
        if uuid::Uuid::parse_str(&topic.id).is_err() || topic.id.len() > 36 {
            errors.add(format!("topics[{i}].id"), "must be a UUID");
        }
        if topic.name.trim().is_empty() || topic.name.chars().count() > 100 {
            errors.add(format!("topics[{i}].name"), "must be 1 to 100 characters");
        }
    }
}

/// `generatedAt`: an RFC 3339 date-time, written back in UTC.
fn generated_at(errors: &mut FieldErrors, raw: Option<String>) -> Option<String> {
    match raw {
        Some(at) if chrono::DateTime::parse_from_rfc3339(at.trim()).is_err() => {
            errors.add("generatedAt", "must be an RFC 3339 date-time");
            None
        }
        Some(at) => chrono::DateTime::parse_from_rfc3339(at.trim())
            .ok()
            .map(|t| platform::clock::rfc3339(t.with_timezone(&Utc))),
        None => None,
    }
}

/// An optional text of at most `max` characters; blank is `None`.
fn text(field: &str, raw: Option<String>, max: usize) -> Result<Option<String>, FieldError> {
    match raw {
        None => Ok(None),
        Some(t) if t.chars().count() > max => Err(FieldError::new(
            field,
            format!("must be at most {max} characters"),
        )),
        Some(t) => Ok(Some(t.trim().to_string()).filter(|t| !t.is_empty())),
    }
}

fn check_event(errors: &mut FieldErrors, at: &str, event: &Event) {
    let chars = |s: &str| s.chars().count();
    if event.headline.trim().is_empty() || chars(&event.headline) > bounds::HEADLINE_CHARS {
        errors.add(
            format!("{at}.headline"),
            format!("must be 1 to {} characters", bounds::HEADLINE_CHARS),
        );
    }
    if event.summary_bullets.len() > bounds::BULLETS_PER_EVENT
        || event
            .summary_bullets
            .iter()
            .any(|b| chars(b) > bounds::BULLET_CHARS)
    {
        errors.add(
            format!("{at}.summaryBullets"),
            format!(
                "must hold at most {} bullets of at most {} characters",
                bounds::BULLETS_PER_EVENT,
                bounds::BULLET_CHARS
            ),
        );
    }
    if event.topic_ids.len() > bounds::TOPICS
        || event
            .topic_ids
            .iter()
            .any(|t| t.len() > 36 || uuid::Uuid::parse_str(t).is_err())
    {
        errors.add(
            format!("{at}.topicIds"),
            format!("must hold at most {} UUIDs", bounds::TOPICS),
        );
    }
    if event.sources.len() > bounds::SOURCES_PER_EVENT {
        errors.add(
            format!("{at}.sources"),
            format!("must hold at most {} sources", bounds::SOURCES_PER_EVENT),
        );
    }
    for (j, source) in event.sources.iter().enumerate() {
        let bad = |s: &str| chars(s) > bounds::SOURCE_TEXT_CHARS;
        if bad(&source.source_name) || bad(&source.provider) || bad(&source.title) {
            errors.add(
                format!("{at}.sources[{j}]"),
                format!(
                    "sourceName, provider and title must be at most {} characters",
                    bounds::SOURCE_TEXT_CHARS
                ),
            );
        }
        if let Some(at_time) = &source.published_at {
            if chrono::DateTime::parse_from_rfc3339(at_time).is_err() {
                errors.add(
                    format!("{at}.sources[{j}].publishedAt"),
                    "must be an RFC 3339 date-time",
                );
            }
        }
    }
}
