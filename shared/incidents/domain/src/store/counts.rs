//! Incidents by status, counted in the transactions that move them: `INCCOUNTS` /
//! `SHARD#{0..COUNT_SHARDS}` hold `ACTIVE`, `ACKNOWLEDGED`, `RESOLVED` deltas, and `SEED` the
//! incidents that were there before the counts existed. A read is one strongly consistent
//! Query of that partition (17 small items, about 1 RCU), whatever the number of incidents.
//!
//! A change adds to one shard item, chosen by hashing the incident and the change's time, so a
//! burst of openings or a bulk acknowledge spreads over [`COUNT_SHARDS`] items (transactions
//! touching one item conflict) rather than queueing on one.

use platform::dynamo::request::Update;
use platform::dynamo::{key, n, s, Attributes, DynamoError, Item, Transaction};

use super::Store;
use crate::model::IncidentStatus;

/// The items a count is spread over.
pub const COUNT_SHARDS: u32 = 16;
const COUNTS_PK: &str = "INCCOUNTS";
const SEED_SK: &str = "SEED";

/// How many incidents have each status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatusCounts {
    pub active: i64,
    pub acknowledged: i64,
    pub resolved: i64,
}

impl StatusCounts {
    fn add(&mut self, item: &Item, table: &str) -> Result<(), DynamoError> {
        self.active = self.active.saturating_add(item.counter(table, "ACTIVE")?);
        self.acknowledged = self
            .acknowledged
            .saturating_add(item.counter(table, "ACKNOWLEDGED")?);
        self.resolved = self
            .resolved
            .saturating_add(item.counter(table, "RESOLVED")?);
        Ok(())
    }

    fn get(&self, status: IncidentStatus) -> i64 {
        match status {
            IncidentStatus::Active => self.active,
            IncidentStatus::Acknowledged => self.acknowledged,
            IncidentStatus::Resolved => self.resolved,
        }
    }

    fn set(&mut self, status: IncidentStatus, value: i64) {
        match status {
            IncidentStatus::Active => self.active = value,
            IncidentStatus::Acknowledged => self.acknowledged = value,
            IncidentStatus::Resolved => self.resolved = value,
        }
    }
}

/// FNV-1a: any shard is right, the hash only spreads the writes.
fn shard_of(seed: &str) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in seed.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash % COUNT_SHARDS
}

impl Store {
    /// The count update of incident `id` moving from `from` (none: opening) to `to` at `at`,
    /// for the transaction that moves it.
    pub(crate) fn status_count(
        &self,
        id: &str,
        at: &str,
        from: Option<IncidentStatus>,
        to: IncidentStatus,
    ) -> Update {
        let shard = shard_of(&format!("{id}/{at}/{}", to.as_str()));
        let mut update = Update::default()
            .table_name(self.table.name())
            .set_key(Some(key(COUNTS_PK, format!("SHARD#{shard}"))))
            .expression_attribute_names("#to", to.as_str())
            .expression_attribute_values(":one", n(1));
        match from {
            Some(from) if from != to => {
                update = update
                    .update_expression("ADD #to :one, #from :minus")
                    .expression_attribute_names("#from", from.as_str())
                    .expression_attribute_values(":minus", n(-1));
            }
            _ => update = update.update_expression("ADD #to :one"),
        }
        update
    }

    /// Adds [`Self::status_count`] to `tx`.
    pub(crate) fn status_count_in(
        &self,
        tx: &mut Transaction,
        id: &str,
        at: &str,
        from: Option<IncidentStatus>,
        to: IncidentStatus,
    ) -> Result<(), DynamoError> {
        Self::count_in(tx, vec![self.status_count(id, at, from, to)])
    }

    /// Incidents by status. The first read after the counts were introduced counts the
    /// incidents already there (a Query of each status's index partition, once) into `SEED`,
    /// less what the shards had counted of them by then.
    pub async fn status_counts(&self) -> Result<StatusCounts, DynamoError> {
        let (seeded, shards) = self.count_rows().await?;
        if seeded {
            return Ok(shards);
        }
        let mut seed = StatusCounts::default();
        for status in IncidentStatus::ALL {
            let indexed = self.indexed(status).await?;
            seed.set(status, indexed.saturating_sub(shards.get(status)));
        }
        let mut item = key(COUNTS_PK, SEED_SK);
        for status in IncidentStatus::ALL {
            item.insert(status.as_str().into(), n(seed.get(status)));
        }
        item.insert(
            "seededAt".into(),
            s(crate::input::format_time(chrono::Utc::now())),
        );
        let put = self
            .table
            .put_item()
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await;
        if let Err(e) = put {
            // Another reader seeded first: its seed stands.
            let conditional = e
                .as_service_error()
                .is_some_and(|e| e.is_conditional_check_failed_exception());
            if !conditional {
                return Err(self.table.fail("PutItem", &e));
            }
        }
        Ok(self.count_rows().await?.1)
    }

    /// The counts' rows summed, and whether the seed is among them.
    async fn count_rows(&self) -> Result<(bool, StatusCounts), DynamoError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(COUNTS_PK))
            .consistent_read(true);
        let rows = self.table.query_all(query, None).await?;
        let mut counts = StatusCounts::default();
        let mut seeded = false;
        for row in &rows {
            seeded |= row.opt_string("sk").as_deref() == Some(SEED_SK);
            counts.add(row, self.table.name())?;
        }
        Ok((seeded, counts))
    }

    /// The incidents in `status`'s index partition, counted (the seed's one-off read).
    async fn indexed(&self, status: IncidentStatus) -> Result<i64, DynamoError> {
        let mut total: i64 = 0;
        let mut start = None;
        loop {
            let out = self
                .table
                .query()
                .index_name("gsi1")
                .key_condition_expression("gsi1pk = :pk")
                .expression_attribute_values(":pk", s(format!("INCIDENTS#{}", status.as_str())))
                .select(aws_sdk_dynamodb::types::Select::Count)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| self.table.fail("Query", &e))?;
            total = total.saturating_add(i64::from(out.count));
            match out.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => return Ok(total),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_spread_and_stay_in_range() {
        let shards: std::collections::BTreeSet<u32> = (0..200)
            .map(|i| shard_of(&format!("{i:032x}/2026-12-03T07:00:00.000Z/ACKNOWLEDGED")))
            .collect();
        assert!(shards.iter().all(|s| *s < COUNT_SHARDS));
        assert_eq!(shards.len(), COUNT_SHARDS as usize);
    }
}
