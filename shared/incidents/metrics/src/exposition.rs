//! A [`Snapshot`] in Prometheus's text exposition format 0.0.4, and the same figures as the
//! dashboard's JSON ([`MetricsReport`]): both are rendered from one snapshot, so they agree.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;
use utoipa::ToSchema;

use crate::catalog::{self, seconds, Metric};
use crate::series::{escape_help, label_set};
use crate::store::{Figure, Snapshot};

/// The exposition's content type.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Every family of the catalog with its series: `# HELP` and `# TYPE` lines, then one line per
/// sample. A histogram's `_bucket` lines are cumulative and end with `le="+Inf"` (equal to
/// `_count`), then `_sum` (seconds) and `_count`.
pub fn render(snapshot: &Snapshot) -> String {
    let mut out = String::new();
    for metric in catalog::ALL {
        let _ = writeln!(out, "# HELP {} {}", metric.name, escape_help(metric.help));
        let _ = writeln!(out, "# TYPE {} {}", metric.name, metric.kind.as_str());
        for (values, figure) in snapshot.family(metric) {
            match figure {
                Figure::Value(v) => {
                    let _ = writeln!(
                        out,
                        "{}{} {v}",
                        metric.name,
                        label_set(metric.labels, &values, None)
                    );
                }
                Figure::Histogram { buckets, sum_ms } => {
                    let cumulative = cumulative(metric, &buckets);
                    for (le, count) in &cumulative {
                        let _ = writeln!(
                            out,
                            "{}_bucket{} {count}",
                            metric.name,
                            label_set(metric.labels, &values, Some(le))
                        );
                    }
                    let count = cumulative.last().map(|(_, c)| *c).unwrap_or(0);
                    let labels = label_set(metric.labels, &values, None);
                    let _ = writeln!(out, "{}_sum{labels} {}", metric.name, seconds(sum_ms));
                    let _ = writeln!(out, "{}_count{labels} {count}", metric.name);
                }
            }
        }
    }
    out
}

/// `(le, cumulative count)` of every bucket, `+Inf` last.
fn cumulative(metric: &Metric, buckets: &[u64]) -> Vec<(String, u64)> {
    let mut total = 0u64;
    let mut out = Vec::with_capacity(buckets.len());
    for (i, count) in buckets.iter().enumerate() {
        total = total.saturating_add(*count);
        let le = metric
            .buckets_ms
            .get(i)
            .map(|ms| seconds(*ms))
            .unwrap_or_else(|| "+Inf".to_string());
        out.push((le, total));
    }
    out
}

/// The platform's metrics, as the dashboard reads them: the same families, series and
/// figures as `GET /prometheus`.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricsReport {
    /// When the figures were read (RFC 3339, UTC).
    pub generated_at: String,
    pub metrics: Vec<MetricFamily>,
}

/// One metric family.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricFamily {
    #[schema(example = "incident_logs_ingested_total")]
    pub name: String,
    pub help: String,
    /// `counter`, `gauge` or `histogram`.
    #[serde(rename = "type")]
    #[schema(example = "counter")]
    pub kind: String,
    pub series: Vec<MetricSeries>,
}

/// One series: its labels and its value (counters, gauges) or buckets, sum and count
/// (histograms).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricSeries {
    #[schema(example = json!({"service": "payments", "severity": "ERROR"}))]
    pub labels: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
    /// Cumulative, as Prometheus's `_bucket` series; the last is `+Inf`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buckets: Option<Vec<HistogramBucket>>,
    /// The sum of the observations, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sum: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

/// A histogram bucket: observations at or below `le` seconds.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct HistogramBucket {
    /// The upper bound in seconds (`"0.05"`, ..., `"+Inf"`), as in the exposition.
    #[schema(example = "0.5")]
    pub le: String,
    pub count: u64,
}

/// The [`MetricsReport`] of `snapshot`, read at `generated_at`.
pub fn report(snapshot: &Snapshot, generated_at: String) -> MetricsReport {
    let metrics = catalog::ALL
        .into_iter()
        .map(|metric| MetricFamily {
            name: metric.name.to_string(),
            help: metric.help.to_string(),
            kind: metric.kind.as_str().to_string(),
            series: snapshot
                .family(metric)
                .into_iter()
                .map(|(values, figure)| {
                    let labels = metric
                        .labels
                        .iter()
                        .map(|l| l.to_string())
                        .zip(values)
                        .collect();
                    match figure {
                        Figure::Value(v) => MetricSeries {
                            labels,
                            value: Some(v),
                            buckets: None,
                            sum: None,
                            count: None,
                        },
                        Figure::Histogram { buckets, sum_ms } => {
                            let cumulative = cumulative(metric, &buckets);
                            let count = cumulative.last().map(|(_, c)| *c).unwrap_or(0);
                            MetricSeries {
                                labels,
                                value: None,
                                buckets: Some(
                                    cumulative
                                        .into_iter()
                                        .map(|(le, count)| HistogramBucket { le, count })
                                        .collect(),
                                ),
                                sum: seconds(sum_ms).parse().ok(),
                                count: Some(count),
                            }
                        }
                    }
                })
                .collect(),
        })
        .collect();
    MetricsReport {
        generated_at,
        metrics,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{
        ANALYSES, INCIDENTS, LATENCY_BUCKETS_MS, LLM_LATENCY, LOGS_INGESTED, TIME_TO_ACKNOWLEDGE,
    };
    use crate::series::Series;

    fn snapshot() -> Snapshot {
        let mut snapshot = Snapshot::default();
        snapshot.series.insert(
            Series::new(&LOGS_INGESTED, &["pay\"ments\\eu", "ERROR"]),
            Figure::Value(7),
        );
        snapshot.series.insert(
            Series::new(&LOGS_INGESTED, &["api", "INFO"]),
            Figure::Value(500),
        );
        snapshot
            .series
            .insert(Series::new(&INCIDENTS, &["ACTIVE"]), Figure::Value(2));
        let mut buckets = vec![0; LATENCY_BUCKETS_MS.len() + 1];
        buckets[0] = 1; // 40 ms
        buckets[4] = 2; // 0.6 s and 0.9 s
        buckets[LATENCY_BUCKETS_MS.len()] = 1; // 200 s
        snapshot.series.insert(
            Series::new(&LLM_LATENCY, &["local", "ollama"]),
            Figure::Histogram {
                buckets,
                sum_ms: 40 + 600 + 900 + 200_000,
            },
        );
        snapshot
    }

    #[test]
    fn the_exposition_has_help_type_and_samples() {
        let text = render(&snapshot());
        let expected_lines = [
            "# HELP incident_logs_ingested_total Logs stored by the incident processor, by service and severity (services beyond the first 100 seen are counted as service=\"other\").",
            "# TYPE incident_logs_ingested_total counter",
            "incident_logs_ingested_total{service=\"api\",severity=\"INFO\"} 500",
            "incident_logs_ingested_total{service=\"pay\\\"ments\\\\eu\",severity=\"ERROR\"} 7",
            "# TYPE incident_incidents gauge",
            "incident_incidents{status=\"ACKNOWLEDGED\"} 0",
            "incident_incidents{status=\"ACTIVE\"} 2",
            "incident_incidents{status=\"RESOLVED\"} 0",
            "# TYPE incident_alerts_fired_total counter",
            "# TYPE incident_time_to_acknowledge_seconds histogram",
            "incident_time_to_acknowledge_seconds_bucket{le=\"1\"} 0",
            "incident_time_to_acknowledge_seconds_bucket{le=\"604800\"} 0",
            "incident_time_to_acknowledge_seconds_bucket{le=\"+Inf\"} 0",
            "incident_time_to_acknowledge_seconds_sum 0",
            "incident_time_to_acknowledge_seconds_count 0",
            "# TYPE incident_llm_latency_seconds histogram",
            "incident_llm_latency_seconds_bucket{mode=\"local\",provider=\"ollama\",le=\"0.05\"} 1",
            "incident_llm_latency_seconds_bucket{mode=\"local\",provider=\"ollama\",le=\"0.5\"} 1",
            "incident_llm_latency_seconds_bucket{mode=\"local\",provider=\"ollama\",le=\"1\"} 3",
            "incident_llm_latency_seconds_bucket{mode=\"local\",provider=\"ollama\",le=\"120\"} 3",
            "incident_llm_latency_seconds_bucket{mode=\"local\",provider=\"ollama\",le=\"+Inf\"} 4",
            "incident_llm_latency_seconds_sum{mode=\"local\",provider=\"ollama\"} 201.54",
            "incident_llm_latency_seconds_count{mode=\"local\",provider=\"ollama\"} 4",
        ];
        let lines: Vec<&str> = text.lines().collect();
        for line in expected_lines {
            assert!(lines.contains(&line), "missing {line:?} in\n{text}");
        }
        // Every family is declared once, HELP before TYPE, before its samples.
        for metric in catalog::ALL {
            let help = format!("# HELP {} ", metric.name);
            let kind = format!("# TYPE {} ", metric.name);
            let h = lines.iter().position(|l| l.starts_with(&help)).unwrap();
            assert_eq!(lines[h + 1].split(' ').nth(2), Some(metric.name));
            assert!(lines[h + 1].starts_with(&kind));
            assert_eq!(lines.iter().filter(|l| l.starts_with(&kind)).count(), 1);
        }
        assert!(text.ends_with('\n'));
        // Counters without series print no sample (nothing invented).
        assert!(!lines.iter().any(|l| l.starts_with(ANALYSES.name)));
    }

    #[test]
    fn buckets_are_cumulative_and_inf_is_the_count() {
        let report = report(&snapshot(), "t".into());
        let latency = report
            .metrics
            .iter()
            .find(|f| f.name == LLM_LATENCY.name)
            .unwrap();
        let series = &latency.series[0];
        let buckets = series.buckets.as_ref().unwrap();
        assert_eq!(buckets.len(), LATENCY_BUCKETS_MS.len() + 1);
        assert!(buckets.windows(2).all(|w| w[0].count <= w[1].count));
        assert_eq!(buckets.last().unwrap().le, "+Inf");
        assert_eq!(buckets.last().unwrap().count, 4);
        assert_eq!(series.count, Some(4));
        assert_eq!(series.sum, Some(201.54));
        assert_eq!(series.labels.get("provider").unwrap(), "ollama");
        let ack = report
            .metrics
            .iter()
            .find(|f| f.name == TIME_TO_ACKNOWLEDGE.name)
            .unwrap();
        assert_eq!(
            ack.series.len(),
            1,
            "label-less histograms are always shown"
        );
        assert_eq!(ack.kind, "histogram");
        let logs = &report.metrics[0];
        assert_eq!(logs.series.len(), 2);
        assert_eq!(logs.series[0].value, Some(500));
    }
}
