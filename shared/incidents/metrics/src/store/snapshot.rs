//! The scrape: every series summed over its shards, in one [`Snapshot`].

use std::collections::BTreeMap;

use platform::dynamo::{s, AttributeValue, Attributes, DynamoError, Item};

use super::{Metrics, SHARDS, SHARD_PK};
use crate::catalog::{self, Kind, Metric};
use crate::series::Series;

/// One series' figures, summed over its shards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Figure {
    /// A counter's or gauge's value.
    Value(i64),
    /// A histogram: the count of each bucket alone (not cumulative; the last is above every
    /// bound) and the sum of the observations in milliseconds.
    Histogram { buckets: Vec<u64>, sum_ms: u64 },
}

/// Every series read by one scrape.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub series: BTreeMap<Series, Figure>,
}

impl Snapshot {
    /// The series of family `metric`, sorted by label values; the family's
    /// [`Metric::always`] series are there at zero when nothing was counted yet.
    pub fn family(&self, metric: &Metric) -> Vec<(Vec<String>, Figure)> {
        let mut out: BTreeMap<Vec<String>, Figure> = self
            .series
            .iter()
            .filter(|(s, _)| s.metric == metric.name)
            .map(|(s, f)| (s.values.clone(), f.clone()))
            .collect();
        for values in metric.always {
            let values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
            out.entry(values).or_insert_with(|| zero(metric));
        }
        out.into_iter().collect()
    }

    /// The value of a counter or gauge series (0 when absent).
    pub fn value(&self, metric: &Metric, values: &[&str]) -> i64 {
        match self.series.get(&Series::new(metric, values)) {
            Some(Figure::Value(v)) => *v,
            _ => 0,
        }
    }

    fn add(&mut self, series: Series, figure: Figure) {
        match (self.series.get_mut(&series), figure) {
            (Some(Figure::Value(total)), Figure::Value(v)) => *total = total.saturating_add(v),
            (
                Some(Figure::Histogram { buckets, sum_ms }),
                Figure::Histogram {
                    buckets: more,
                    sum_ms: more_ms,
                },
            ) => {
                for (total, v) in buckets.iter_mut().zip(more) {
                    *total = total.saturating_add(v);
                }
                *sum_ms = sum_ms.saturating_add(more_ms);
            }
            (_, figure) => {
                self.series.insert(series, figure);
            }
        }
    }
}

fn zero(metric: &Metric) -> Figure {
    match metric.kind {
        Kind::Histogram => Figure::Histogram {
            buckets: vec![0; metric.buckets_ms.len() + 1],
            sum_ms: 0,
        },
        Kind::Counter | Kind::Gauge => Figure::Value(0),
    }
}

impl Metrics {
    /// Every series, summed over its shards: [`SHARDS`] strongly consistent Queries, in
    /// parallel.
    pub async fn snapshot(&self) -> Result<Snapshot, DynamoError> {
        let reads = (0..SHARDS).map(|shard| {
            let query = self
                .table
                .query()
                .key_condition_expression("pk = :pk")
                .expression_attribute_values(":pk", s(format!("{SHARD_PK}{shard}")))
                .consistent_read(true);
            self.table.query_all(query, None)
        });
        let shards = futures::future::try_join_all(reads).await?;
        let mut snapshot = Snapshot::default();
        for item in shards.iter().flatten() {
            if let Some((series, figure)) = self.figure_of(item)? {
                snapshot.add(series, figure);
            }
        }
        Ok(snapshot)
    }

    /// A shard item's series and figure; `None` for a family this version does not know
    /// (written by a newer one).
    fn figure_of(&self, item: &Item) -> Result<Option<(Series, Figure)>, DynamoError> {
        let t = self.table.name();
        let name = item.string(t, "metric")?;
        let Some(metric) = catalog::find(&name) else {
            tracing::warn!(metric = %name, "unknown metric family in the metrics table");
            return Ok(None);
        };
        let labels = match item.get("labels") {
            Some(AttributeValue::M(map)) => map,
            _ => return Err(self.table.corrupt(format!("{name}: labels"))),
        };
        let mut values = Vec::with_capacity(metric.labels.len());
        for label in metric.labels {
            match labels.get(*label) {
                Some(AttributeValue::S(v)) => values.push(v.clone()),
                _ => return Err(self.table.corrupt(format!("{name}: label {label}"))),
            }
        }
        let figure = match metric.kind {
            Kind::Counter | Kind::Gauge => Figure::Value(item.counter(t, "value")?),
            Kind::Histogram => {
                let mut buckets = Vec::with_capacity(metric.buckets_ms.len() + 1);
                for i in 0..=metric.buckets_ms.len() {
                    let count = item.counter(t, &format!("b{i}"))?;
                    buckets.push(u64::try_from(count).unwrap_or(0));
                }
                let sum_ms = u64::try_from(item.counter(t, "sumMs")?).unwrap_or(0);
                Figure::Histogram { buckets, sum_ms }
            }
        };
        Ok(Some((
            Series {
                metric: metric.name,
                values,
            },
            figure,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{LOGS_INGESTED, TIME_TO_ACKNOWLEDGE};

    #[test]
    fn shards_sum_into_one_figure() {
        let mut snapshot = Snapshot::default();
        let series = Series::new(&LOGS_INGESTED, &["api", "INFO"]);
        snapshot.add(series.clone(), Figure::Value(2));
        snapshot.add(series.clone(), Figure::Value(3));
        assert_eq!(snapshot.value(&LOGS_INGESTED, &["api", "INFO"]), 5);
        let h = Series::new(&TIME_TO_ACKNOWLEDGE, &[]);
        let empty = vec![0; TIME_TO_ACKNOWLEDGE.buckets_ms.len() + 1];
        let mut one = empty.clone();
        one[2] = 1;
        snapshot.add(
            h.clone(),
            Figure::Histogram {
                buckets: one.clone(),
                sum_ms: 10_000,
            },
        );
        snapshot.add(
            h.clone(),
            Figure::Histogram {
                buckets: one,
                sum_ms: 12_000,
            },
        );
        let mut two = empty;
        two[2] = 2;
        assert_eq!(
            snapshot.series.get(&h),
            Some(&Figure::Histogram {
                buckets: two,
                sum_ms: 22_000
            })
        );
        // The incidents gauge shows its three statuses before anything is counted.
        let gauge = Snapshot::default().family(&crate::catalog::INCIDENTS);
        assert_eq!(gauge.len(), 3);
    }
}
