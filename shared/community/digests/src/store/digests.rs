//! Digest items: written, read, and the day's PUBLIC digest with its generation claim.

use platform::dynamo::{item_size, s, Attributes, DynamoError, Item};

use super::{
    digest_key, public_claim_key, recount, DigestStore, StoredDigest, MAX_DIGEST_ITEM_BYTES,
    PUBLIC_CLAIM_STALE_SECONDS, PUBLIC_INDEX,
};
use crate::input::{DigestDate, DigestId, DigestType};
use crate::model::{DigestDetail, DigestSummary, Event};

impl DigestStore {
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

    pub(super) fn read_digest(&self, item: &Item) -> Result<StoredDigest, DynamoError> {
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

    /// Gives up this worker's claim on `date`'s PUBLIC digest (it wrote none), so
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
