//! Every series the incident platform exposes: its name, help, type, labels and (for
//! histograms) fixed buckets. `/prometheus`, the dashboard's JSON and the shipped Grafana
//! dashboard all read these names.

/// A metric family's Prometheus type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Only ever increases (its name ends in `_total`).
    Counter,
    /// Goes up and down.
    Gauge,
    /// Observations counted into fixed buckets, with their sum.
    Histogram,
}

impl Kind {
    /// The word of the exposition's `# TYPE` line.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
        }
    }
}

/// One metric family.
#[derive(Debug, PartialEq, Eq)]
pub struct Metric {
    pub name: &'static str,
    pub help: &'static str,
    pub kind: Kind,
    /// Label names, in the order series print them.
    pub labels: &'static [&'static str],
    /// A histogram's upper bounds in milliseconds, ascending (`+Inf` follows them).
    pub buckets_ms: &'static [u64],
    /// Label values (in `labels` order) whose series is shown at zero before anything is
    /// counted, so a dashboard has its lines from the start.
    pub always: &'static [&'static [&'static str]],
}

/// Time to acknowledge and to resolve: 1 s to 7 days.
pub const DURATION_BUCKETS_MS: &[u64] = &[
    1_000,
    5_000,
    15_000,
    30_000,
    60_000,
    120_000,
    300_000,
    600_000,
    900_000,
    1_800_000,
    3_600_000,
    7_200_000,
    14_400_000,
    28_800_000,
    43_200_000,
    86_400_000,
    172_800_000,
    345_600_000,
    604_800_000,
];

/// A model call: 50 ms to 120 s.
pub const LATENCY_BUCKETS_MS: &[u64] = &[
    50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000,
];

pub const LOGS_INGESTED: Metric = Metric {
    name: "incident_logs_ingested_total",
    help: "Logs stored by the incident processor, by service and severity (services beyond the first 100 seen are counted as service=\"other\").",
    kind: Kind::Counter,
    labels: &["service", "severity"],
    buckets_ms: &[],
    always: &[],
};

pub const INCIDENTS: Metric = Metric {
    name: "incident_incidents",
    help: "Incidents by status (ACTIVE and ACKNOWLEDGED are the open ones).",
    kind: Kind::Gauge,
    labels: &["status"],
    buckets_ms: &[],
    always: &[&["ACTIVE"], &["ACKNOWLEDGED"], &["RESOLVED"]],
};

pub const ALERTS_FIRED: Metric = Metric {
    name: "incident_alerts_fired_total",
    help: "Alerts raised by the alert rules, by the severity of the log that raised them.",
    kind: Kind::Counter,
    labels: &["severity"],
    buckets_ms: &[],
    always: &[],
};

pub const TIME_TO_ACKNOWLEDGE: Metric = Metric {
    name: "incident_time_to_acknowledge_seconds",
    help: "Time from an incident opening (or reopening) to its acknowledgement.",
    kind: Kind::Histogram,
    labels: &[],
    buckets_ms: DURATION_BUCKETS_MS,
    always: &[&[]],
};

pub const TIME_TO_RESOLVE: Metric = Metric {
    name: "incident_time_to_resolve_seconds",
    help: "Time from an incident opening (or reopening) to its resolution.",
    kind: Kind::Histogram,
    labels: &[],
    buckets_ms: DURATION_BUCKETS_MS,
    always: &[&[]],
};

pub const ANALYSES: Metric = Metric {
    name: "incident_analyses_total",
    help: "Log analyses asked of a model, by mode, provider and outcome (ok or error).",
    kind: Kind::Counter,
    labels: &["mode", "provider", "outcome"],
    buckets_ms: &[],
    always: &[],
};

pub const LLM_LATENCY: Metric = Metric {
    name: "incident_llm_latency_seconds",
    help: "How long the model took to answer a log analysis, by mode and provider.",
    kind: Kind::Histogram,
    labels: &["mode", "provider"],
    buckets_ms: LATENCY_BUCKETS_MS,
    always: &[],
};

/// Every family, in the order the exposition prints them.
pub const ALL: [&Metric; 7] = [
    &LOGS_INGESTED,
    &INCIDENTS,
    &ALERTS_FIRED,
    &TIME_TO_ACKNOWLEDGE,
    &TIME_TO_RESOLVE,
    &ANALYSES,
    &LLM_LATENCY,
];

/// The family named `name`.
pub fn find(name: &str) -> Option<&'static Metric> {
    ALL.into_iter().find(|m| m.name == name)
}

/// The bucket an observation of `ms` milliseconds falls in: the first bound at or above it
/// (Prometheus's `le`), or `buckets_ms.len()` for the `+Inf` bucket alone.
pub fn bucket_index(buckets_ms: &[u64], ms: u64) -> usize {
    buckets_ms.partition_point(|&bound| bound < ms)
}

/// Milliseconds as the exposition's seconds: `50` is `0.05`, `604800000` is `604800`.
pub fn seconds(ms: u64) -> String {
    let whole = ms / 1000;
    let fraction = ms % 1000;
    if fraction == 0 {
        whole.to_string()
    } else {
        let digits = format!("{fraction:03}");
        format!("{whole}.{}", digits.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_prometheus_conventions() {
        let mut seen = std::collections::HashSet::new();
        for metric in ALL {
            assert!(seen.insert(metric.name), "{} twice", metric.name);
            assert!(metric
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_'));
            assert_eq!(
                metric.kind == Kind::Counter,
                metric.name.ends_with("_total"),
                "{}",
                metric.name
            );
            if metric.kind == Kind::Histogram {
                assert!(metric.name.ends_with("_seconds"));
                assert!(!metric.buckets_ms.is_empty());
                assert!(metric.buckets_ms.windows(2).all(|w| w[0] < w[1]));
                assert!(!metric.labels.contains(&"le"));
            } else {
                assert!(metric.buckets_ms.is_empty());
            }
            for values in metric.always {
                assert_eq!(values.len(), metric.labels.len(), "{}", metric.name);
            }
            assert_eq!(find(metric.name), Some(metric));
        }
        assert_eq!(DURATION_BUCKETS_MS.first(), Some(&1_000));
        assert_eq!(DURATION_BUCKETS_MS.last(), Some(&(7 * 86_400_000)));
        assert_eq!(LATENCY_BUCKETS_MS.first(), Some(&50));
        assert_eq!(LATENCY_BUCKETS_MS.last(), Some(&120_000));
    }

    #[test]
    fn an_observation_falls_in_the_first_bucket_at_or_above_it() {
        let b = LATENCY_BUCKETS_MS;
        assert_eq!(bucket_index(b, 0), 0);
        assert_eq!(bucket_index(b, 50), 0, "le is inclusive");
        assert_eq!(bucket_index(b, 51), 1);
        assert_eq!(bucket_index(b, 100), 1);
        assert_eq!(bucket_index(b, 119_999), b.len() - 1);
        assert_eq!(bucket_index(b, 120_000), b.len() - 1);
        assert_eq!(bucket_index(b, 120_001), b.len(), "+Inf only");
        assert_eq!(bucket_index(b, u64::MAX), b.len());
    }

    #[test]
    fn milliseconds_print_as_seconds() {
        assert_eq!(seconds(50), "0.05");
        assert_eq!(seconds(100), "0.1");
        assert_eq!(seconds(250), "0.25");
        assert_eq!(seconds(1_000), "1");
        assert_eq!(seconds(2_500), "2.5");
        assert_eq!(seconds(1_001), "1.001");
        assert_eq!(seconds(0), "0");
        assert_eq!(seconds(604_800_000), "604800");
    }
}
