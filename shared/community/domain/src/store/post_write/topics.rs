//! A post write's topic items: the census, the day ring and the catalog keys.

use super::{checked_size, Plan, PostTx, Role, WriteError};
use crate::keys;
use crate::model::stats::Ring;
use crate::store::topics::{new_topic_item, ring_update, slug_item, ResolvedTopic, StoredTopic};
use platform::dynamo::{n, s, AttributeValue};

impl PostTx {
    /// Topics: the census (totalPostCount), on first publication the day ring, and the
    /// catalog keys that make a topic public once a published post carries it.
    pub(super) fn topics(&mut self, p: &Plan) -> Result<(), WriteError> {
        for topic in &p.state.topics {
            let newly_counted = p.published && !p.counted_before.contains(&topic.id);
            let ring_day = (p.published && p.first_publish).then_some(p.today);
            match &topic.existing {
                None => self.new_topic(p, topic, newly_counted, ring_day)?,
                Some(stored) => self.topic_update(p, &topic.id, stored, newly_counted, ring_day)?,
            }
        }
        let still_counted: &[String] = if p.published { &p.topic_ids } else { &[] };
        for gone in p
            .counted_before
            .iter()
            .filter(|t| !still_counted.contains(t))
        {
            self.tx.add(
                keys::topic(gone),
                "totalPostCount",
                -1,
                Some("attribute_exists(pk)"),
            )?;
            self.roles.push(Role::Topic);
        }
        Ok(())
    }

    /// A topic the write creates: its slug pointer and its META, both refused if they exist.
    fn new_topic(
        &mut self,
        p: &Plan,
        topic: &ResolvedTopic,
        newly_counted: bool,
        ring_day: Option<i64>,
    ) -> Result<(), WriteError> {
        let mut ring = Ring::default();
        if let Some(day) = ring_day {
            ring.record(day);
        }
        self.tx.put(
            slug_item(&topic.slug, &topic.id),
            Some("attribute_not_exists(pk)"),
        )?;
        self.roles.push(Role::Topic);
        let item = new_topic_item(
            &topic.id,
            &topic.name,
            &topic.slug,
            &p.now,
            i64::from(newly_counted),
            &ring,
            0,
            p.published,
        );
        self.bytes += checked_size(&item)?;
        self.tx.put(item, Some("attribute_not_exists(pk)"))?;
        self.roles.push(Role::Topic);
        Ok(())
    }

    /// A stored topic's census, ring and catalog keys, when the write moves any of them.
    fn topic_update(
        &mut self,
        p: &Plan,
        topic_id: &str,
        stored: &StoredTopic,
        newly_counted: bool,
        ring_day: Option<i64>,
    ) -> Result<(), WriteError> {
        // Idempotent and never undone, so a stale "not public" read only re-sets it.
        let goes_public = p.published && !stored.public;
        if !newly_counted && ring_day.is_none() && !goes_public {
            return Ok(());
        }
        let mut sets: Vec<String> = Vec::new();
        let mut condition = String::from("attribute_exists(pk)");
        let mut values: Vec<(String, AttributeValue)> = Vec::new();
        if let Some(day) = ring_day {
            let (set, cond, vals) = ring_update(&stored.ring, day);
            sets.push(set);
            condition.push_str(" AND ");
            condition.push_str(&cond);
            values.extend(vals);
        }
        if goes_public {
            let (gsi1pk, gsi1sk) = stored.catalog_keys();
            sets.push("gsi1pk = :tg1pk, gsi1sk = :tg1sk".into());
            values.push((":tg1pk".into(), s(gsi1pk)));
            values.push((":tg1sk".into(), s(gsi1sk)));
        }
        let mut expression = if sets.is_empty() {
            String::new()
        } else {
            format!("SET {}", sets.join(", "))
        };
        if newly_counted {
            expression.push_str(" ADD totalPostCount :delta");
            values.push((":delta".into(), n(1)));
        }
        let mut update = self
            .tx
            .update_builder(keys::topic(topic_id))
            .update_expression(expression.trim())
            .condition_expression(condition);
        for (k, v) in values {
            update = update.expression_attribute_values(k, v);
        }
        self.bytes += 300;
        self.tx.update(update)?;
        self.roles.push(Role::Topic);
        Ok(())
    }
}
