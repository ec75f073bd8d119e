//! `DigestsTable`: digests, who was given which digest on which day, generation jobs and the
//! daily schedule's progress. Keys `pk`/`sk`, one index `gsi1` (keys only).
//!
//! | pk | sk | holds | access pattern |
//! |---|---|---|---|
//! | `DIGEST#{id}` | `DIGEST` | the whole digest: `summaryJson` (the Digest summary), `eventsJson`, `model`, `digestType`, `digestDate`, `targetUserId`; PUBLIC ones also `gsi1pk = PUBLIC`, `gsi1sk = {date}#{createdAt}` | by id: GetItem; lists: BatchGetItem projecting `summaryJson` (never the events) |
//! | `USER#{u}` | `DAY#{date}` | the digest user `u` has for that day (`digestId`, `digestType`) | skip check: GetItem; "my digests": Query newest first, `(page+1)*size+1` rows at most by number (page 0-49, size 1-20: 1,001), `size+2` by cursor (the days before the cursor's) |
//! | `USER#{u}` | `META` | `days`: how many day rows `u` has | the page envelope's total: GetItem |
//! | `JOB#{id}` | `JOB` | a generation job | GetItem; claim and finish: conditional UpdateItem |
//! | `SCHEDULE#{date}` | `RUN` | the daily schedule's progress over the users (`cursor`, `done`, `jobs`) | GetItem, PutItem |
//! | `PUBLICCLAIM#{date}` | `CLAIM` | which worker generates the day's PUBLIC digest (`claimId`, `claimedAt`; one small row a day, kept) | conditional PutItem (absent or stale), DeleteItem on failure |
//! | gsi1 `PUBLIC` | `{date}#{createdAt}` | every PUBLIC digest | latest public: Query newest first dated up to tomorrow (`gsi1sk < {tomorrow}$`), limit 1, then GetItem |
//!
//! A PUBLIC digest's id is name-based on its day ([`crate::input::DigestId::named`]), so the
//! day's one PUBLIC digest is a conditional put (`attribute_not_exists`): two concurrent
//! generations store one, the loser reads the winner's. A generation writes the digest, the
//! user's day row and the `days` counter in one transaction, conditional on the day row being
//! as read (absent, or naming the digest it replaces), so concurrent runs for one user and
//! day leave one row and an exact count; a forced PERSONAL digest deletes the one it replaces
//! in the same transaction. No Scan anywhere.
//!
//! Item size: a digest item is measured as DynamoDB does (`platform::dynamo::item_size`) and
//! its last events are dropped (counts recomputed) until it is at most
//! [`MAX_DIGEST_ITEM_BYTES`], under DynamoDB's 400 KB.

use platform::dynamo::{
    item_size, key, n, s, AttributeValue, Attributes, DynamoError, Item, Table, Transaction,
    TransactionError,
};
use platform::Clock;

use crate::input::{DigestDate, DigestId, DigestType, PageRequest, UserId};
use crate::model::{DigestDetail, DigestGenerationJob, DigestSummary, Event};

/// The largest digest item written: DynamoDB allows 400 KB (409,600 bytes); the margin
/// covers the attributes' overhead estimates.
pub const MAX_DIGEST_ITEM_BYTES: usize = 380_000;
const PUBLIC_INDEX: &str = "PUBLIC";
/// The summary attributes read by lists (the events stay on the item).
const SUMMARY_PROJECTION: &str = "summaryJson, targetUserId";

fn digest_key(id: &str) -> Item {
    key(format!("DIGEST#{id}"), "DIGEST")
}

fn day_key(user: &str, date: &str) -> Item {
    key(format!("USER#{user}"), format!("DAY#{date}"))
}

fn meta_key(user: &str) -> Item {
    key(format!("USER#{user}"), "META")
}

fn job_key(id: &str) -> Item {
    key(format!("JOB#{id}"), "JOB")
}

fn public_claim_key(date: &str) -> Item {
    key(format!("PUBLICCLAIM#{date}"), "CLAIM")
}

/// A claim older than this is taken to have died with its worker (the worker's timeout is
/// 3 minutes).
pub const PUBLIC_CLAIM_STALE_SECONDS: i64 = 300;

fn schedule_key(date: &str) -> Item {
    key(format!("SCHEDULE#{date}"), "RUN")
}

/// The digest a user has for a day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayRow {
    pub digest_id: String,
    pub digest_type: String,
}

/// A stored digest and who it belongs to.
#[derive(Debug, Clone)]
pub struct StoredDigest {
    pub detail: DigestDetail,
    /// The PERSONAL digest's user.
    pub target_user_id: Option<String>,
}

/// Why a write did not happen.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A condition failed: the day row or the digest changed since it was read.
    #[error("changed since read")]
    Changed,
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
}

impl From<TransactionError> for WriteError {
    fn from(e: TransactionError) -> Self {
        match e {
            TransactionError::Dynamo(d) => Self::Dynamo(d),
            TransactionError::Conflict | TransactionError::Condition { .. } => Self::Changed,
        }
    }
}

/// The schedule's progress for one day.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScheduleRun {
    pub cursor: Option<String>,
    pub done: bool,
    pub jobs: i64,
}

/// The digests table and the clock.
#[derive(Clone, Debug)]
pub struct DigestStore {
    table: Table,
    clock: Clock,
}

/// Event count, distinct sources, reading time and preview headlines of `events`.
pub fn recount(summary: &mut DigestSummary, events: &[Event]) {
    summary.event_count = i64::try_from(events.len()).unwrap_or(i64::MAX);
    let mut sources: Vec<(&str, &str)> = Vec::new();
    for source in events.iter().flat_map(|e| e.sources.iter()) {
        let k = (source.source_name.as_str(), source.provider.as_str());
        if !sources.contains(&k) {
            sources.push(k);
        }
    }
    summary.source_count = i64::try_from(sources.len()).unwrap_or(i64::MAX);
    let words: usize = events
        .iter()
        .map(|e| {
            e.headline.split_whitespace().count()
                + e.summary_bullets
                    .iter()
                    .map(|b| b.split_whitespace().count())
                    .sum::<usize>()
        })
        .sum::<usize>()
        + summary
            .summary
            .as_deref()
            .map_or(0, |s| s.split_whitespace().count());
    // 200 words a minute, at least one minute.
    summary.read_time_minutes = i64::try_from(words.div_ceil(200).max(1)).unwrap_or(1);
    summary.preview_headlines = events.iter().take(3).map(|e| e.headline.clone()).collect();
}

impl DigestStore {
    pub fn new(table: Table, clock: Clock) -> Self {
        Self { table, clock }
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The item of `detail`, its last events dropped until it fits
    /// [`MAX_DIGEST_ITEM_BYTES`]; the digest as stored comes back with it.
    pub fn digest_item(
        &self,
        mut detail: DigestDetail,
        target_user: Option<&str>,
    ) -> Result<(Item, DigestDetail), DynamoError> {
        loop {
            let item = self.build_item(&detail, target_user)?;
            if item_size(&item) <= MAX_DIGEST_ITEM_BYTES {
                return Ok((item, detail));
            }
            if detail.events.pop().is_none() {
                return Err(self
                    .table
                    .invalid("PutItem", "a digest without events is still too large"));
            }
            let events = std::mem::take(&mut detail.events);
            recount(&mut detail.summary, &events);
            detail.events = events;
        }
    }

    fn build_item(&self, d: &DigestDetail, target_user: Option<&str>) -> Result<Item, DynamoError> {
        let json = |v: &dyn erased::Json| v.json().map_err(|e| self.table.invalid("PutItem", e));
        let sm = &d.summary;
        let mut item = digest_key(&sm.id);
        item.insert("id".into(), s(&sm.id));
        item.insert("digestType".into(), s(&sm.digest_type));
        item.insert("digestDate".into(), s(&sm.digest_date));
        item.insert("createdAt".into(), s(&sm.created_at));
        item.insert("summaryJson".into(), s(json(sm)?));
        item.insert("eventsJson".into(), s(json(&d.events)?));
        if let Some(v) = &d.model {
            item.insert("model".into(), s(v));
        }
        if let Some(u) = target_user {
            item.insert("targetUserId".into(), s(u));
        }
        if sm.digest_type == DigestType::Public.as_str() {
            item.insert("gsi1pk".into(), s(PUBLIC_INDEX));
            item.insert(
                "gsi1sk".into(),
                s(format!("{}#{}", sm.digest_date, sm.created_at)),
            );
        }
        Ok(item)
    }

    fn read_digest(&self, item: &Item) -> Result<StoredDigest, DynamoError> {
        let t = self.table.name();
        let summary: DigestSummary = serde_json::from_str(&item.string(t, "summaryJson")?)
            .map_err(|e| self.table.corrupt(format!("summaryJson: {e}")))?;
        let events: Vec<Event> = match item.opt_string("eventsJson") {
            Some(json) => serde_json::from_str(&json)
                .map_err(|e| self.table.corrupt(format!("eventsJson: {e}")))?,
            None => Vec::new(),
        };
        Ok(StoredDigest {
            detail: DigestDetail {
                summary,
                events,
                model: item.opt_string("model"),
            },
            target_user_id: item.opt_string("targetUserId"),
        })
    }

    /// A digest by id (consistent read).
    pub async fn digest(&self, id: &str) -> Result<Option<StoredDigest>, DynamoError> {
        self.table
            .get(digest_key(id))
            .await?
            .map(|item| self.read_digest(&item))
            .transpose()
    }

    /// The newest PUBLIC digest dated `latest` or before (by day, then creation).
    pub async fn latest_public(
        &self,
        latest: DigestDate,
    ) -> Result<Option<StoredDigest>, DynamoError> {
        // `{date}#{createdAt}` sorts below `{date}$` for every time of that day.
        let query = self
            .table
            .query()
            .index_name("gsi1")
            .key_condition_expression("gsi1pk = :pk AND gsi1sk < :upper")
            .expression_attribute_values(":pk", s(PUBLIC_INDEX))
            .expression_attribute_values(":upper", s(format!("{latest}$")))
            .scan_index_forward(false)
            .limit(1);
        let rows = self.table.query_all(query, Some(1)).await?;
        let Some(id) = rows.first().and_then(|r| r.opt_string("pk")) else {
            return Ok(None);
        };
        let id = id.trim_start_matches("DIGEST#").to_string();
        self.digest(&id).await
    }

    /// The digest `user` has for `date`.
    pub async fn day_row(
        &self,
        user: &UserId,
        date: DigestDate,
    ) -> Result<Option<DayRow>, DynamoError> {
        let t = self.table.name();
        match self
            .table
            .get(day_key(user.as_str(), &date.to_string()))
            .await?
        {
            None => Ok(None),
            Some(item) => Ok(Some(DayRow {
                digest_id: item.string(t, "digestId")?,
                digest_type: item.string(t, "digestType")?,
            })),
        }
    }

    /// Gives `user` the digest `digest` (already stored, or `new_item` written in the same
    /// transaction) for its day, in place of `previous` (what the day row held when read); a
    /// replaced PERSONAL digest is deleted.
    pub async fn assign(
        &self,
        user: &UserId,
        date: DigestDate,
        digest_id: &str,
        digest_type: DigestType,
        new_item: Option<Item>,
        previous: Option<&DayRow>,
    ) -> Result<(), WriteError> {
        let mut tx = Transaction::new(&self.table);
        if let Some(item) = new_item {
            tx.put(item, Some("attribute_not_exists(pk)"))?;
        }
        let mut row = day_key(user.as_str(), &date.to_string());
        row.insert("digestId".into(), s(digest_id));
        row.insert("digestType".into(), s(digest_type.as_str()));
        row.insert("digestDate".into(), s(date.to_string()));
        row.insert("assignedAt".into(), s(self.clock.timestamp()));
        match previous {
            None => {
                tx.put(row, Some("attribute_not_exists(pk)"))?;
                tx.add(meta_key(user.as_str()), "days", 1, None)?;
            }
            Some(prev) => {
                tx.put_if(
                    row,
                    "digestId = :read",
                    Item::from([(":read".to_string(), s(&prev.digest_id))]),
                )?;
                if prev.digest_type == DigestType::Personal.as_str() && prev.digest_id != digest_id
                {
                    tx.delete(digest_key(&prev.digest_id), None)?;
                }
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// Stores a PUBLIC digest unless its day has one; `false` when it had.
    pub async fn put_public(&self, item: Item) -> Result<bool, DynamoError> {
        match self
            .table
            .put_item()
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
        {
            Ok(_) => Ok(true),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("PutItem", &e)),
        }
    }

    /// Claims the generation of `date`'s PUBLIC digest for this worker: the claim's id, or
    /// `None` while another worker's live claim holds it.
    pub async fn claim_public(&self, date: DigestDate) -> Result<Option<String>, DynamoError> {
        let now = self.clock.now();
        let stale =
            platform::clock::rfc3339(now - chrono::Duration::seconds(PUBLIC_CLAIM_STALE_SECONDS));
        let claim = DigestId::generate().to_string();
        let mut item = public_claim_key(&date.to_string());
        item.insert("claimId".into(), s(&claim));
        item.insert("claimedAt".into(), s(platform::clock::rfc3339(now)));
        match self
            .table
            .put_item()
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk) OR claimedAt < :stale")
            .expression_attribute_values(":stale", s(stale))
            .send()
            .await
        {
            Ok(_) => Ok(Some(claim)),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(None),
            Err(e) => Err(self.table.fail("PutItem", &e)),
        }
    }

    /// Gives up this worker's claim on `date`'s PUBLIC digest (its generation failed), so
    /// that a waiting worker takes it now rather than once it is stale.
    pub async fn release_public(&self, date: DigestDate, claim: &str) -> Result<(), DynamoError> {
        match self
            .table
            .delete_item()
            .set_key(Some(public_claim_key(&date.to_string())))
            .condition_expression("claimId = :claim")
            .expression_attribute_values(":claim", s(claim))
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table.fail("DeleteItem", &e)),
        }
    }

    /// Stores (or replaces) a digest item as given.
    pub async fn put_digest(&self, item: Item) -> Result<(), DynamoError> {
        self.table
            .put_item()
            .set_item(Some(item))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("PutItem", &e))
    }

    /// A page of `user`'s digests, newest day first (by number, or the days before `before`),
    /// how many days they have, and whether more days follow the page.
    pub async fn user_digests(
        &self,
        user: &UserId,
        page: &PageRequest,
    ) -> Result<(Vec<DigestSummary>, u64, bool), DynamoError> {
        let t = self.table.name();
        // One row more than the page tells whether another follows.
        let skip = usize::try_from(page.page * page.size).unwrap_or(usize::MAX);
        let wanted = skip
            .saturating_add(usize::try_from(page.size).unwrap_or(1) + 1)
            // The cursor's own day is read too (the bound includes it) and left out.
            .saturating_add(usize::from(page.before.is_some()));
        let upper = match page.before {
            // Rows sort as `DAY#YYYY-MM-DD`: `DAY#{before}` and later are out, `DAY#` is the floor.
            Some(day) => format!("DAY#{day}"),
            None => "DAY#~".to_string(),
        };
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND sk BETWEEN :floor AND :upper")
            .expression_attribute_values(":pk", s(format!("USER#{user}")))
            .expression_attribute_values(":floor", s("DAY#"))
            .expression_attribute_values(":upper", s(upper.clone()))
            .scan_index_forward(false)
            .limit(i32::try_from(wanted.min(1_100)).unwrap_or(1_100));
        let (rows, meta) = futures::try_join!(
            self.table.query_all(query, Some(wanted)),
            self.table.get_eventual(meta_key(user.as_str()))
        )?;
        let total = meta.map(|m| m.counter(t, "days")).transpose()?.unwrap_or(0);
        let rows: Vec<&Item> = rows
            .iter()
            .filter(|r| r.opt_string("sk").as_deref() != Some(upper.as_str()))
            .skip(skip)
            .collect();
        let size = usize::try_from(page.size).unwrap_or(1);
        let more = rows.len() > size;
        let ids: Vec<String> = rows
            .iter()
            .take(size)
            .map(|r| r.string(t, "digestId"))
            .collect::<Result<_, _>>()?;
        let keys = ids.iter().map(|id| digest_key(id)).collect();
        let items = self
            .table
            .batch_get_all(keys, Some(SUMMARY_PROJECTION))
            .await?;
        let mut found: Vec<StoredDigest> = items
            .iter()
            .map(|i| self.read_digest(i))
            .collect::<Result<_, _>>()?;
        let mut out = Vec::with_capacity(ids.len());
        for id in &ids {
            if let Some(pos) = found.iter().position(|d| d.detail.summary.id == *id) {
                out.push(found.swap_remove(pos).detail.summary);
            }
        }
        Ok((out, u64::try_from(total.max(0)).unwrap_or(0), more))
    }

    /// Creates a job; `false` when one with this id exists.
    pub async fn create_job(&self, job: &DigestGenerationJob) -> Result<bool, DynamoError> {
        let mut item = job_key(&job.id);
        item.insert("id".into(), s(&job.id));
        item.insert("targetUserId".into(), s(&job.target_user_id));
        item.insert("digestDate".into(), s(&job.digest_date));
        item.insert("status".into(), s(&job.status));
        item.insert("force".into(), AttributeValue::Bool(job.force));
        item.insert("createdAt".into(), s(&job.created_at));
        if let Some(m) = &job.message {
            item.insert("message".into(), s(m));
        }
        match self
            .table
            .put_item()
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
        {
            Ok(_) => Ok(true),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("PutItem", &e)),
        }
    }

    /// A job by id.
    pub async fn job(&self, id: &str) -> Result<Option<DigestGenerationJob>, DynamoError> {
        let t = self.table.name();
        let Some(item) = self.table.get(job_key(id)).await? else {
            return Ok(None);
        };
        Ok(Some(DigestGenerationJob {
            id: item.string(t, "id")?,
            target_user_id: item.string(t, "targetUserId")?,
            digest_date: item.string(t, "digestDate")?,
            status: item.string(t, "status")?,
            message: item.opt_string("message"),
            force: item.opt_bool("force").unwrap_or(false),
            digest_id: item.opt_string("digestId"),
            created_at: item.string(t, "createdAt")?,
            finished_at: item.opt_string("finishedAt"),
        }))
    }

    /// Claims a job to run it: PENDING, or RUNNING since before `stale_before` (a run that
    /// died), becomes RUNNING. `false` when another run has it or it is finished.
    pub async fn claim_job(&self, id: &str, stale_before: &str) -> Result<bool, DynamoError> {
        let result = self
            .table
            .update_item()
            .set_key(Some(job_key(id)))
            .update_expression("SET #status = :running, startedAt = :now ADD attempts :one")
            .condition_expression(
                "attribute_exists(pk) AND (#status = :pending OR (#status = :running AND startedAt < :stale))",
            )
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":running", s("RUNNING"))
            .expression_attribute_values(":pending", s("PENDING"))
            .expression_attribute_values(":now", s(self.clock.timestamp()))
            .expression_attribute_values(":stale", s(stale_before))
            .expression_attribute_values(":one", n(1))
            .send()
            .await;
        match result {
            Ok(_) => Ok(true),
            Err(e) if platform::dynamo::is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("UpdateItem", &e)),
        }
    }

    /// Records a job's final status (`GENERATED`, `SKIPPED`, `FAILED`).
    pub async fn finish_job(
        &self,
        id: &str,
        status: &str,
        message: &str,
        digest_id: Option<&str>,
    ) -> Result<(), DynamoError> {
        let mut update = self
            .table
            .update_item()
            .set_key(Some(job_key(id)))
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":status", s(status))
            .expression_attribute_values(":message", s(message))
            .expression_attribute_values(":now", s(self.clock.timestamp()));
        update = match digest_id {
            Some(d) => update
                .update_expression("SET #status = :status, message = :message, finishedAt = :now, digestId = :digest")
                .expression_attribute_values(":digest", s(d)),
            None => update.update_expression("SET #status = :status, message = :message, finishedAt = :now"),
        };
        update
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("UpdateItem", &e))
    }

    /// The schedule's progress for `date`.
    pub async fn schedule_run(&self, date: DigestDate) -> Result<ScheduleRun, DynamoError> {
        let t = self.table.name();
        Ok(
            match self.table.get(schedule_key(&date.to_string())).await? {
                None => ScheduleRun::default(),
                Some(item) => ScheduleRun {
                    cursor: item.opt_string("cursor"),
                    done: item.opt_bool("done").unwrap_or(false),
                    jobs: item.counter(t, "jobs")?,
                },
            },
        )
    }

    /// Saves the schedule's progress for `date`.
    pub async fn save_schedule_run(
        &self,
        date: DigestDate,
        run: &ScheduleRun,
    ) -> Result<(), DynamoError> {
        let mut item = schedule_key(&date.to_string());
        if let Some(c) = &run.cursor {
            item.insert("cursor".into(), s(c));
        }
        item.insert("done".into(), AttributeValue::Bool(run.done));
        item.insert("jobs".into(), n(run.jobs));
        item.insert("updatedAt".into(), s(self.clock.timestamp()));
        self.table
            .put_item()
            .set_item(Some(item))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("PutItem", &e))
    }
}

/// A new id for a PERSONAL digest, or the day's PUBLIC id.
pub fn digest_id_for(kind: DigestType, date: DigestDate) -> DigestId {
    match kind {
        DigestType::Personal => DigestId::generate(),
        DigestType::Public => DigestId::named(&format!("digest:public:{date}")),
    }
}

mod erased {
    /// Serialises to JSON text behind a `dyn`.
    pub trait Json {
        fn json(&self) -> Result<String, serde_json::Error>;
    }

    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> Result<String, serde_json::Error> {
            serde_json::to_string(self)
        }
    }
}
