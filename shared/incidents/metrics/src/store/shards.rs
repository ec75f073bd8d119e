//! A series' shard items (`SHARD#{n}` / the series): the updates that add to them.

use std::collections::HashMap;

use platform::dynamo::request::Update;
use platform::dynamo::{key, n, s, AttributeValue};

use super::{Metrics, SHARDS, SHARD_PK};
use crate::catalog::{bucket_index, Metric};
use crate::series::Series;

impl Metrics {
    fn series_update(&self, metric: &Metric, values: &[&str], shard: u32) -> Update {
        let series = Series::new(metric, values);
        let labels: HashMap<String, AttributeValue> = metric
            .labels
            .iter()
            .zip(values)
            .map(|(name, value)| (name.to_string(), s(*value)))
            .collect();
        Update::default()
            .table_name(self.table.name())
            .set_key(Some(key(
                format!("{SHARD_PK}{}", shard % SHARDS),
                series.key(metric.labels),
            )))
            .expression_attribute_names("#metric", "metric")
            .expression_attribute_names("#labels", "labels")
            .expression_attribute_values(":metric", s(metric.name))
            .expression_attribute_values(":labels", AttributeValue::M(labels))
    }

    /// Adds `delta` to a counter or gauge series, in shard `shard`.
    pub fn add(&self, metric: &Metric, values: &[&str], delta: i64, shard: u32) -> Update {
        self.series_update(metric, values, shard)
            .update_expression("SET #metric = :metric, #labels = :labels ADD #value :delta")
            .expression_attribute_names("#value", "value")
            .expression_attribute_values(":delta", n(delta))
    }

    /// Observes `ms` milliseconds into a histogram series, in shard `shard`.
    pub fn observe(&self, metric: &Metric, values: &[&str], ms: u64, shard: u32) -> Update {
        let bucket = bucket_index(metric.buckets_ms, ms);
        self.series_update(metric, values, shard)
            .update_expression(
                "SET #metric = :metric, #labels = :labels ADD #bucket :one, #sum :ms",
            )
            .expression_attribute_names("#bucket", format!("b{bucket}"))
            .expression_attribute_names("#sum", "sumMs")
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":ms", AttributeValue::N(ms.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use platform::dynamo::{n, s, AttributeValue};

    use crate::catalog::{LOGS_INGESTED, TIME_TO_ACKNOWLEDGE};
    use crate::store::tests::metrics;
    use crate::store::SHARDS;

    #[test]
    fn updates_name_their_series_and_shard() {
        let m = metrics();
        let update = m.add(&LOGS_INGESTED, &["api", "ERROR"], 3, SHARDS + 3);
        assert_eq!(update.get_table_name().as_deref(), Some("m"));
        assert_eq!(
            update.get_key().as_ref().unwrap().get("pk"),
            Some(&s("SHARD#3"))
        );
        assert_eq!(
            update.get_key().as_ref().unwrap().get("sk"),
            Some(&s(
                r#"incident_logs_ingested_total{service="api",severity="ERROR"}"#
            ))
        );
        assert_eq!(
            update
                .get_expression_attribute_values()
                .as_ref()
                .unwrap()
                .get(":delta"),
            Some(&n(3))
        );
        let observed = m.observe(&TIME_TO_ACKNOWLEDGE, &[], 4_000, 0);
        assert_eq!(
            observed
                .get_expression_attribute_names()
                .as_ref()
                .unwrap()
                .get("#bucket"),
            Some(&"b1".to_string()),
            "4 s is in the le=5 bucket"
        );
        let marker = m.marker("logs:x:0");
        assert_eq!(
            marker.get_condition_expression().as_deref(),
            Some("attribute_not_exists(pk)")
        );
        assert!(
            matches!(marker.get_key().as_ref().unwrap().get("pk"), Some(AttributeValue::S(pk)) if pk.len() == 8 + 64)
        );
    }
}
