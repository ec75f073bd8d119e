//! The backfill of a source's rows of each topic (`T#{topicId}#ART#...` in the source's
//! partition, and the source's count of them): articles stored before the lists were sharded
//! have their source row (with its topic ids) but not these, so the list of one source's
//! articles of a topic missed them. Sources created since are marked done on creation
//! ([`TOPIC_ROWS`] on the counters item); the scheduler's walk enqueues the others, and each
//! step writes the missing rows of a bounded page of the source's rows, in order.
//!
//! Each row is one transaction: its put, conditional on the row not existing, the count's +1,
//! and a check that the source is not retired. A row already there (written with its article,
//! or by an earlier step: a redelivered message) fails its condition and counts nothing, so
//! steps are safe to repeat and to run twice at once.

use platform::dynamo::{is_condition_failed, n, s, Attributes, Transaction};

use super::items::{
    counts_key, list_row, source_pk, source_topic_count_key, source_topic_prefix, ARTICLE_ROW,
    RETIRED_AT, TOPIC_ROWS, TOPIC_ROWS_DONE,
};
use super::{ContentStore, StoreError};

/// What one backfill step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackfillStep {
    /// Wrote this many missing rows; the next step goes on after the source row `next`.
    Filled { rows: usize, next: String },
    /// Every row of the source is there (its counters say so now), or the source is retired.
    Finished { rows: usize },
}

impl ContentStore {
    /// One step of the backfill of `source_id`'s topic rows: the missing rows of at most
    /// `batch` of its article rows after the source row `after` (from the first when `None`).
    pub async fn backfill_step(
        &self,
        source_id: &str,
        after: Option<&str>,
        batch: usize,
    ) -> Result<BackfillStep, StoreError> {
        let table = self.table.name();
        let pk = source_pk(source_id);
        let wanted = batch.clamp(1, 1000);
        let query = self
            .table
            .query()
            .expression_attribute_values(":pk", s(&pk))
            .limit(i32::try_from(wanted).unwrap_or(1));
        let query = match after {
            // Source rows sort `ART#...`; the one after `after` and on to the last of them.
            Some(after) => query
                .key_condition_expression("pk = :pk AND sk BETWEEN :after AND :end")
                .expression_attribute_values(":after", s(format!("{after}\u{1}")))
                .expression_attribute_values(":end", s(format!("{ARTICLE_ROW}~"))),
            None => query
                .key_condition_expression("pk = :pk AND begins_with(sk, :rows)")
                .expression_attribute_values(":rows", s(ARTICLE_ROW)),
        };
        let rows = self.table.query_all(query, Some(wanted)).await?;
        let mut written = 0;
        for row in &rows {
            let sk = row.string(table, "sk")?;
            let article_id = row.string(table, "articleId")?;
            for topic in row.strings(table, "topicIds")? {
                let mut tx = Transaction::new(&self.table);
                tx.put(
                    list_row(
                        pk.clone(),
                        format!("{}{sk}", source_topic_prefix(&topic)),
                        &article_id,
                    ),
                    Some("attribute_not_exists(pk)"),
                )?;
                let count = tx
                    .update_builder(source_topic_count_key(source_id, &topic))
                    .update_expression("ADD articleCount :one")
                    .expression_attribute_values(":one", n(1));
                tx.update(count)?;
                tx.check(
                    counts_key(source_id),
                    &format!("attribute_exists(pk) AND attribute_not_exists({RETIRED_AT})"),
                )?;
                match tx.commit_retrying().await {
                    Ok(()) => written += 1,
                    // The source retired (or gone): its sweep removes every row.
                    Err(e) if e.failed_at(2) => {
                        return Ok(BackfillStep::Finished { rows: written })
                    }
                    // Already there: written with its article, or by an earlier step.
                    Err(e) if e.failed_at(0) => {}
                    Err(e) => return Err(e.into()),
                }
            }
        }
        match rows.last() {
            Some(last) if rows.len() == wanted => Ok(BackfillStep::Filled {
                rows: written,
                next: last.string(table, "sk")?,
            }),
            _ => {
                self.mark_topic_rows_done(source_id).await?;
                Ok(BackfillStep::Finished { rows: written })
            }
        }
    }

    /// Marks every topic row of `source_id` written (a gone source: nothing to mark).
    async fn mark_topic_rows_done(&self, source_id: &str) -> Result<(), StoreError> {
        let result = self
            .table
            .update_item()
            .set_key(Some(counts_key(source_id)))
            .update_expression("SET #rows = :done")
            .condition_expression("attribute_exists(pk)")
            .expression_attribute_names("#rows", TOPIC_ROWS)
            .expression_attribute_values(":done", s(TOPIC_ROWS_DONE))
            .send()
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }
}
