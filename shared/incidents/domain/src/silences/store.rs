//! The silences' items: created under the cap of live silences, expired by hand, read by
//! every notification, and released when they end (each still-open incident they held
//! notifies once, exactly once however many sweeps run).

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use platform::dynamo::{
    key, n, s, AttributeValue, Attributes, DynamoError, Item, Table, Transaction, TransactionError,
};

use super::{
    Matchers, Silence, SilenceInput, SilenceState, Subject, EXPIRED_RETENTION_DAYS, MAX_LIVE,
};
use crate::events::{outbox_row_keyed, Change, EventKind};
use crate::input::format_time;
use crate::model::{IncidentStatus, Severity};

const LIVE: &str = "SILENCES#LIVE";
const EXPIRED: &str = "SILENCES#EXPIRED";
const COUNT_PK: &str = "SILENCES";
const COUNT_SK: &str = "#COUNT";
const META: &str = "META";
/// Held incidents one release round takes.
const RELEASE_ROUND: usize = 100;

/// The silences, in the incidents table.
#[derive(Clone, Debug)]
pub struct Silences {
    table: Table,
}

#[derive(Debug, thiserror::Error)]
pub enum SilencesError {
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
    #[error("at most {MAX_LIVE} pending or active silences")]
    Full,
    #[error("not found")]
    NotFound,
}

impl From<TransactionError> for SilencesError {
    fn from(e: TransactionError) -> Self {
        match e {
            TransactionError::Dynamo(e) => Self::Dynamo(e),
            _ => Self::Dynamo(DynamoError::Conflict {
                table: "incidents".into(),
                attempts: platform::dynamo::RetryPolicy::CONFLICTS.attempts,
            }),
        }
    }
}

/// 400 when the silences are full, 404, else as the incidents table's failure.
impl From<SilencesError> for platform::ApiError {
    fn from(error: SilencesError) -> Self {
        match error {
            SilencesError::Full => Self::field(
                "body",
                format!("at most {MAX_LIVE} pending or active silences; expire one first"),
            ),
            SilencesError::NotFound => Self::not_found("Silence not found"),
            SilencesError::Dynamo(e) => crate::IncidentsError::Store(e).into(),
        }
    }
}

/// What releasing an ended silence did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Released {
    /// The incidents that notify now (their `Incident Unsilenced` event is in the outbox).
    pub notified: Vec<String>,
    /// The held incidents let go without a notification (closed, or still held by another
    /// active silence).
    pub dropped: usize,
    /// Whether every held incident was taken and the silence moved to the expired ones.
    pub done: bool,
}

fn silence_key(id: &str) -> Item {
    key(format!("SILENCE#{id}"), META)
}

fn held_key(silence_id: &str, incident_id: &str) -> Item {
    key(
        format!("SILENCE#{silence_id}"),
        format!("HELD#{incident_id}"),
    )
}

/// The event id of incident `incident_id`'s notification when silence `silence_id` ends:
/// the same on every attempt, so consumers dedupe it like any other.
pub fn unsilenced_event_id(silence_id: &str, incident_id: &str) -> String {
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        format!("unsilenced/{silence_id}/{incident_id}").as_bytes(),
    );
    digest
        .as_ref()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a silence is matched against, from an incident's `META` item; `severity` (the
/// event's) when the item has none.
pub fn subject_of(meta: &Item, severity: Option<Severity>) -> Subject {
    let labels = match meta.get("attributes") {
        Some(AttributeValue::M(map)) => map
            .iter()
            .filter_map(|(k, v)| v.as_s().ok().map(|v| (k.clone(), v.clone())))
            .collect(),
        _ => BTreeMap::new(),
    };
    Subject {
        service: meta.opt_string("serviceName").unwrap_or_default(),
        log_type: meta.opt_string("type").unwrap_or_default(),
        severity: meta
            .opt_string("severity")
            .as_deref()
            .and_then(Severity::parse)
            .or(severity),
        labels,
    }
}

impl Silences {
    pub fn new(table: Table) -> Self {
        Self { table }
    }

    /// Stores a new silence, counted against [`MAX_LIVE`] in the same transaction.
    pub async fn create(
        &self,
        id: &str,
        input: &SilenceInput,
        by: &str,
        now: DateTime<Utc>,
    ) -> Result<Silence, SilencesError> {
        let silence = Silence {
            id: id.to_string(),
            comment: input.comment.clone(),
            matchers: input.matchers.clone(),
            starts_at: format_time(input.starts_at),
            ends_at: format_time(input.ends_at),
            created_by: by.to_string(),
            created_at: format_time(now),
            state: SilenceState::Active,
            expired_by: None,
        }
        .at(now);
        let mut item = silence_key(id);
        item.insert("gsi1pk".into(), s(LIVE));
        item.insert("gsi1sk".into(), s(format!("{}#{id}", silence.ends_at)));
        item.insert("id".into(), s(id));
        item.insert("comment".into(), s(silence.comment.as_str()));
        item.insert(
            "matchers".into(),
            s(serde_json::to_string(&silence.matchers).unwrap_or_default()),
        );
        item.insert("startsAt".into(), s(silence.starts_at.as_str()));
        item.insert("endsAt".into(), s(silence.ends_at.as_str()));
        item.insert("createdBy".into(), s(by));
        item.insert("createdAt".into(), s(silence.created_at.as_str()));
        let mut tx = Transaction::new(&self.table);
        let count = tx
            .update_builder(key(COUNT_PK, COUNT_SK))
            .update_expression("ADD live :one")
            .condition_expression("attribute_not_exists(live) OR live < :max")
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":max", n(MAX_LIVE));
        tx.update(count)?;
        tx.put(item, Some("attribute_not_exists(pk)"))?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(silence),
            Err(e) if e.failed_at(0) => Err(SilencesError::Full),
            Err(e) => Err(e.into()),
        }
    }

    fn silence_of(&self, item: &Item, now: DateTime<Utc>) -> Result<Silence, DynamoError> {
        let t = self.table.name();
        let matchers: Matchers =
            serde_json::from_str(&item.string(t, "matchers")?).map_err(|e| {
                DynamoError::Corrupt {
                    table: t.to_string(),
                    reason: format!("a silence's matchers: {e}"),
                }
            })?;
        Ok(Silence {
            id: item.string(t, "id")?,
            comment: item.string(t, "comment")?,
            matchers,
            starts_at: item.string(t, "startsAt")?,
            ends_at: item.string(t, "endsAt")?,
            created_by: item.string(t, "createdBy")?,
            created_at: item.string(t, "createdAt")?,
            state: SilenceState::Active,
            expired_by: item.opt_string("expiredBy"),
        }
        .at(now))
    }

    /// Silence `id`, its state at `now`.
    pub async fn get(&self, id: &str, now: DateTime<Utc>) -> Result<Option<Silence>, DynamoError> {
        match self.table.get(silence_key(id)).await? {
            Some(item) => Ok(Some(self.silence_of(&item, now)?)),
            None => Ok(None),
        }
    }

    /// The live silences (pending, active, or ended and not yet released): one Query of
    /// their index partition, at most [`MAX_LIVE`] items.
    pub async fn live(&self, now: DateTime<Utc>) -> Result<Vec<Silence>, DynamoError> {
        let query = self
            .table
            .query()
            .index_name("gsi1")
            .key_condition_expression("gsi1pk = :live")
            .expression_attribute_values(":live", s(LIVE));
        let rows = self
            .table
            .query_all(query, Some(usize::try_from(MAX_LIVE).unwrap_or(100) * 2))
            .await?;
        rows.iter().map(|r| self.silence_of(r, now)).collect()
    }

    /// The silences active at `now`.
    pub async fn active(&self, now: DateTime<Utc>) -> Result<Vec<Silence>, DynamoError> {
        Ok(self
            .live(now)
            .await?
            .into_iter()
            .filter(|s| s.state == SilenceState::Active)
            .collect())
    }

    /// A page of the silences in `state` (absent: pending and active), at most `limit`,
    /// after the sort key `after`, with the next page's sort key. Active ones end soonest
    /// first, pending and live ones start soonest first, expired ones ended latest first.
    pub async fn list(
        &self,
        state: Option<SilenceState>,
        limit: usize,
        after: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(Vec<Silence>, Option<String>), DynamoError> {
        let live = self.live(now).await?;
        let sort_key = |s: &Silence| match state {
            Some(SilenceState::Active) | Some(SilenceState::Expired) => {
                format!("{}#{}", s.ends_at, s.id)
            }
            _ => format!("{}#{}", s.starts_at, s.id),
        };
        let mut rows: Vec<(String, Silence)> = match state {
            Some(SilenceState::Expired) => {
                let mut query = self
                    .table
                    .query()
                    .index_name("gsi1")
                    .key_condition_expression("gsi1pk = :expired")
                    .expression_attribute_values(":expired", s(EXPIRED))
                    .scan_index_forward(false)
                    .limit(i32::try_from(limit + 1).unwrap_or(101));
                if let Some(after) = after {
                    query = query
                        .key_condition_expression("gsi1pk = :expired AND gsi1sk < :after")
                        .expression_attribute_values(":after", s(after));
                }
                let expired = self.table.query_all(query, Some(limit + 1)).await?;
                let mut rows = Vec::new();
                for item in &expired {
                    let silence = self.silence_of(item, now)?;
                    rows.push((sort_key(&silence), silence));
                }
                // Ended, not yet released by the sweep: expired all the same.
                rows.extend(
                    live.into_iter()
                        .filter(|s| s.state == SilenceState::Expired)
                        .map(|s| (sort_key(&s), s))
                        .filter(|(k, _)| after.is_none_or(|a| k.as_str() < a)),
                );
                rows.sort_by(|a, b| b.0.cmp(&a.0));
                rows
            }
            _ => {
                let mut rows: Vec<(String, Silence)> = live
                    .into_iter()
                    .filter(|s| match state {
                        Some(want) => s.state == want,
                        None => s.state != SilenceState::Expired,
                    })
                    .map(|s| (sort_key(&s), s))
                    .filter(|(k, _)| after.is_none_or(|a| k.as_str() > a))
                    .collect();
                rows.sort_by(|a, b| a.0.cmp(&b.0));
                rows
            }
        };
        let next = if rows.len() > limit {
            rows.truncate(limit);
            rows.last().map(|(k, _)| k.clone())
        } else {
            None
        };
        Ok((rows.into_iter().map(|(_, s)| s).collect(), next))
    }

    /// Ends silence `id` now (a pending one is cancelled); it stays listed as expired. An
    /// expired one is left as it is.
    pub async fn expire(
        &self,
        id: &str,
        by: &str,
        now: DateTime<Utc>,
    ) -> Result<Silence, SilencesError> {
        let Some(silence) = self.get(id, now).await? else {
            return Err(SilencesError::NotFound);
        };
        if silence.state == SilenceState::Expired {
            return Ok(silence);
        }
        let at = format_time(now);
        let starts_at = silence.starts_at.clone().min(at.clone());
        match self
            .table
            .update_item()
            .set_key(Some(silence_key(id)))
            .update_expression(
                "SET endsAt = :now, startsAt = :start, gsi1sk = :gsk, expiredBy = :by",
            )
            .condition_expression("gsi1pk = :live AND endsAt > :now")
            .expression_attribute_values(":now", s(at.as_str()))
            .expression_attribute_values(":start", s(starts_at.as_str()))
            .expression_attribute_values(":gsk", s(format!("{at}#{id}")))
            .expression_attribute_values(":by", s(by))
            .expression_attribute_values(":live", s(LIVE))
            .send()
            .await
        {
            Ok(_) => {}
            // Ended meanwhile: expired all the same.
            Err(e) if platform::dynamo::is_condition_failed(&e) => {}
            Err(e) => return Err(self.table.fail("UpdateItem", &e).into()),
        }
        self.get(id, now).await?.ok_or(SilencesError::NotFound)
    }

    /// Records that `silences` (active at `now`) hold incident `incident_id`'s notifications:
    /// a held row each and the incident's `silencedBy`, only while the silence is still live
    /// and active (so a silence being released takes no new incident). The silences that
    /// held it.
    pub async fn hold(
        &self,
        silences: &[Silence],
        incident_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<String>, DynamoError> {
        let at = format_time(now);
        let mut held = Vec::new();
        for silence in silences {
            let mut tx = Transaction::new(&self.table);
            let mut values = Item::new();
            values.insert(":live".into(), s(LIVE));
            values.insert(":now".into(), s(at.as_str()));
            tx.check_if(
                silence_key(&silence.id),
                "gsi1pk = :live AND endsAt > :now AND startsAt <= :now",
                &[],
                values,
            )?;
            let mut row = held_key(&silence.id, incident_id);
            row.insert("incidentId".into(), s(incident_id));
            row.insert("heldAt".into(), s(at.as_str()));
            tx.put(row, None)?;
            let meta = tx
                .update_builder(key(format!("INC#{incident_id}"), META))
                .update_expression("ADD silencedBy :ids")
                .condition_expression("attribute_exists(pk)")
                .expression_attribute_values(":ids", AttributeValue::Ss(vec![silence.id.clone()]));
            tx.update(meta)?;
            match tx.commit_retrying().await {
                Ok(()) => held.push(silence.id.clone()),
                // Ended or expired meanwhile (or the incident is gone): it holds nothing.
                Err(TransactionError::Condition { .. }) => {}
                Err(e) if e.failed_at(0) || e.failed_at(2) => {}
                Err(TransactionError::Dynamo(e)) => return Err(e),
                Err(_) => {
                    return Err(DynamoError::Conflict {
                        table: self.table.name().to_string(),
                        attempts: platform::dynamo::RetryPolicy::CONFLICTS.attempts,
                    })
                }
            }
        }
        Ok(held)
    }

    /// The live silences that ended by `now` and are to be released.
    pub async fn ended(&self, now: DateTime<Utc>) -> Result<Vec<Silence>, DynamoError> {
        Ok(self
            .live(now)
            .await?
            .into_iter()
            .filter(|s| s.state == SilenceState::Expired)
            .collect())
    }

    /// Releases a round of the incidents ended silence `silence` held: each still open
    /// (ACTIVE or ACKNOWLEDGED) and held by no other of the `active` silences gets an
    /// `Incident Unsilenced` event (keyed by silence and incident) in the same transaction
    /// that deletes its held row, so a second sweep finds nothing to send again. Once none is
    /// left, the silence moves to the expired ones and leaves the cap.
    pub async fn release(
        &self,
        silence: &Silence,
        active: &[String],
        now: DateTime<Utc>,
    ) -> Result<Released, SilencesError> {
        let t = self.table.name().to_string();
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND begins_with(sk, :held)")
            .expression_attribute_values(":pk", s(format!("SILENCE#{}", silence.id)))
            .expression_attribute_values(":held", s("HELD#"));
        let rows = self.table.query_all(query, Some(RELEASE_ROUND)).await?;
        let mut released = Released::default();
        let at = format_time(now);
        let note = format!(
            "silence {} ended ({})",
            silence.id,
            silence.comment.chars().take(200).collect::<String>()
        );
        for row in &rows {
            let incident_id = row.string(&t, "incidentId")?;
            let meta = self
                .table
                .get(key(format!("INC#{incident_id}"), META))
                .await?;
            let mut tx = Transaction::new(&self.table);
            tx.delete(
                held_key(&silence.id, &incident_id),
                Some("attribute_exists(pk)"),
            )?;
            let mut notify = false;
            if let Some(meta) = &meta {
                let open = matches!(
                    meta.opt_string("status")
                        .as_deref()
                        .and_then(IncidentStatus::parse),
                    Some(IncidentStatus::Active | IncidentStatus::Acknowledged)
                );
                let others = meta.strings(&t, "silencedBy")?;
                let still_held = others
                    .iter()
                    .any(|o| o != &silence.id && active.contains(o));
                let update = tx
                    .update_builder(key(format!("INC#{incident_id}"), META))
                    .update_expression("DELETE silencedBy :ids")
                    .expression_attribute_values(
                        ":ids",
                        AttributeValue::Ss(vec![silence.id.clone()]),
                    );
                tx.update(update)?;
                if open && !still_held {
                    let severity = meta.opt_string("severity");
                    tx.put(
                        outbox_row_keyed(
                            &Change {
                                note: Some(&note),
                                severity: severity.as_deref(),
                                ..Change::system(EventKind::Unsilenced, &incident_id, &at)
                            },
                            &unsilenced_event_id(&silence.id, &incident_id),
                        ),
                        Some("attribute_not_exists(pk)"),
                    )?;
                    notify = true;
                }
            }
            match tx.commit_retrying().await {
                Ok(()) if notify => released.notified.push(incident_id),
                Ok(()) => released.dropped += 1,
                // Another sweep released it first.
                Err(e) if e.failed_at(0) => {}
                Err(e) => return Err(e.into()),
            }
        }
        if rows.len() < RELEASE_ROUND {
            let expires = (now + Duration::days(EXPIRED_RETENTION_DAYS)).timestamp();
            let mut tx = Transaction::new(&self.table);
            let moved = tx
                .update_builder(silence_key(&silence.id))
                .update_expression("SET gsi1pk = :expired, expiresAt = :ttl")
                .condition_expression("gsi1pk = :live")
                .expression_attribute_values(":expired", s(EXPIRED))
                .expression_attribute_values(":live", s(LIVE))
                .expression_attribute_values(":ttl", n(expires));
            tx.update(moved)?;
            tx.add(key(COUNT_PK, COUNT_SK), "live", -1, None)?;
            match tx.commit_retrying().await {
                Ok(()) => released.done = true,
                Err(e) if e.failed_at(0) => released.done = true,
                Err(e) => return Err(e.into()),
            }
        }
        Ok(released)
    }
}
