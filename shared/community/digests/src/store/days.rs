//! Who has which digest on which day: day rows, their count, and "my digests".

use platform::dynamo::{s, Attributes, DynamoError, Item, Transaction};

use super::{
    day_key, digest_key, meta_key, DayRow, DigestStore, StoredDigest, WriteError,
    SUMMARY_PROJECTION,
};
use crate::input::{DigestDate, DigestType, PageRequest, UserId};
use crate::model::DigestSummary;

impl DigestStore {
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
}
