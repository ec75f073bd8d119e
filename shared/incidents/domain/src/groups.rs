//! Grouping applied once per fingerprint per batch: the logs of a processor batch (many
//! messages) that match an alert rule are split by fingerprint; each fingerprint's share is
//! then written as one incident count, a window row and a few samples, never a row per log
//! (the store's `groups`, which says how and why).

use std::collections::{BTreeMap, HashMap};

use crate::fingerprint::{
    client_fingerprint, fingerprint, incident_id, normalize, GROUPED_BY, GROUPED_BY_CLIENT,
};
use crate::model::{AlertRule, Log};

/// Grouped logs kept from an incident's start (its first logs ever).
pub const FIRST_SAMPLES: usize = 10;
/// Batches whose newest log is kept as a sample (a ring: the latest batches' newest logs).
pub const LATEST_SAMPLES: usize = 10;
/// Log times of one severity a window row keeps (the newest): a rule's threshold is at most
/// [`crate::input::MAX_THRESHOLD`] (this many; a unit test holds them equal), so more could
/// never change whether one is met.
pub const WINDOW_TIMES: usize = 1_000;

/// One message's logs within a [`Group`].
#[derive(Clone, Debug)]
pub struct Part<'a> {
    /// The message's key (`incidents_metrics::store::batch_key` of its log ids): the same
    /// however SQS delivers it.
    pub message: String,
    pub logs: Vec<&'a Log>,
}

/// One fingerprint's logs of a batch, by message, each log with the rules it matched.
#[derive(Clone, Debug)]
pub struct Group<'a> {
    pub incident_id: String,
    pub fingerprint: String,
    pub normalized: String,
    /// How its logs were grouped, in words ([`GROUPED_BY`] or [`GROUPED_BY_CLIENT`]).
    pub grouped_by: &'static str,
    pub parts: Vec<Part<'a>>,
    /// The rule ids each log matched, by log id.
    pub rule_ids: HashMap<String, Vec<String>>,
}

impl Group<'_> {
    /// Every log of the group (each once), oldest first.
    pub fn logs(&self) -> Vec<&Log> {
        let mut logs: Vec<&Log> = self.parts.iter().flat_map(|p| p.logs.clone()).collect();
        logs.sort_by(|a, b| a.id.cmp(&b.id));
        logs.dedup_by(|a, b| a.id == b.id);
        logs
    }
}

/// The logs of `messages` (each `(message key, logs)`) that match a rule, grouped by
/// fingerprint: a message given twice, or a log given twice, counts once.
pub fn group<'a>(messages: &[(String, &'a [Log])], rules: &[AlertRule]) -> Vec<Group<'a>> {
    let mut groups: BTreeMap<String, Group<'a>> = BTreeMap::new();
    let mut seen_messages = std::collections::HashSet::new();
    let mut seen_logs = std::collections::HashSet::new();
    for (message, logs) in messages {
        if !seen_messages.insert(message.as_str()) {
            continue;
        }
        for log in logs.iter() {
            if !seen_logs.insert(log.id.as_str()) {
                continue;
            }
            let matched: Vec<String> = rules
                .iter()
                .filter(|r| r.matches(log))
                .map(|r| r.id.clone())
                .collect();
            if matched.is_empty() {
                continue;
            }
            let normalized = normalize(&log.log_content);
            let (fp, grouped_by) = match &log.fingerprint {
                Some(key) => (
                    client_fingerprint(&log.service_name, key),
                    GROUPED_BY_CLIENT,
                ),
                None => (
                    fingerprint(&log.service_name, &log.log_type, &normalized),
                    GROUPED_BY,
                ),
            };
            let id = incident_id(&fp);
            let group = groups.entry(id.clone()).or_insert_with(|| Group {
                incident_id: id,
                fingerprint: fp,
                normalized,
                grouped_by,
                parts: Vec::new(),
                rule_ids: HashMap::new(),
            });
            group.rule_ids.insert(log.id.clone(), matched);
            if log.source.is_integration() {
                // An integration's event is counted once by its own id, whichever message
                // carries it: a re-sent Alertmanager alert has the id it had.
                group.parts.push(Part {
                    message: event_key(&log.id),
                    logs: vec![log],
                });
                continue;
            }
            match group.parts.last_mut() {
                Some(part) if part.message == *message => part.logs.push(log),
                _ => group.parts.push(Part {
                    message: message.clone(),
                    logs: vec![log],
                }),
            }
        }
    }
    groups.into_values().collect()
}

/// The counting key of an integration's event (log `id`): its grouped marker.
pub fn event_key(id: &str) -> String {
    format!("event-{id}")
}

/// What a committed batch of a group wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counted {
    /// The messages newly counted (the others were counted before).
    pub messages: Vec<String>,
    /// Their logs.
    pub logs: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Severity;

    fn log(id: u32, service: &str, severity: Severity, message: &str) -> Log {
        Log {
            id: format!("1732486400000-{id:032x}"),
            service_name: service.into(),
            log_type: "APP".into(),
            severity,
            log_content: message.into(),
            timestamp: "2024-11-24T22:13:20.000Z".into(),
            received_at: "2024-11-24T22:13:20.000Z".into(),
            fingerprint: None,
            attributes: Default::default(),
            trace_id: None,
            span_id: None,
            source: Default::default(),
            action: Default::default(),
        }
    }

    #[test]
    fn a_batch_is_one_group_per_fingerprint_with_each_log_once() {
        let rules = vec![crate::store::Store::default_rule("t")];
        let a = vec![
            log(1, "api", Severity::Error, "timeout after 30 ms"),
            log(2, "api", Severity::Error, "timeout after 45 ms"),
            log(3, "api", Severity::Info, "served in 3 ms"),
            log(4, "db", Severity::Error, "timeout after 30 ms"),
        ];
        let b = vec![log(5, "api", Severity::Fatal, "timeout after 9 ms")];
        let messages = vec![
            ("m1".to_string(), a.as_slice()),
            ("m1".to_string(), a.as_slice()),
            ("m2".to_string(), b.as_slice()),
        ];
        let groups = group(&messages, &rules);
        assert_eq!(groups.len(), 2, "api's timeouts and db's");
        let api = groups
            .iter()
            .find(|g| g.parts[0].logs[0].service_name == "api")
            .unwrap();
        assert_eq!(api.parts.len(), 2, "by message");
        assert_eq!(api.logs().len(), 3, "the INFO log matched no rule");
        assert_eq!(api.rule_ids.len(), 3);
    }

    #[test]
    fn a_client_key_groups_as_given() {
        let rules = vec![crate::store::Store::default_rule("t")];
        let keyed = |id, message: &str, key: &str| Log {
            fingerprint: Some(key.into()),
            ..log(id, "api", Severity::Error, message)
        };
        let logs = vec![
            keyed(1, "card declined for order 1", "checkout:declined"),
            keyed(2, "payment provider said no", "checkout:declined"),
            keyed(3, "card declined for order 1", "checkout:fraud"),
            log(4, "api", Severity::Error, "card declined for order 1"),
        ];
        let messages = vec![("m1".to_string(), logs.as_slice())];
        let groups = group(&messages, &rules);
        assert_eq!(groups.len(), 3, "two keys and the default fingerprint");
        let declined = groups
            .iter()
            .find(|g| g.fingerprint == client_fingerprint("api", "checkout:declined"))
            .unwrap();
        assert_eq!(declined.logs().len(), 2);
        assert_eq!(declined.grouped_by, GROUPED_BY_CLIENT);
    }

    #[test]
    fn integration_events_are_grouped_by_their_own_rule_each_counted_by_its_id() {
        use crate::model::{LogAction, LogSource};
        let rules = vec![
            crate::store::Store::default_rule("t"),
            AlertRule::integration("t"),
        ];
        let event = |id, action| Log {
            fingerprint: Some("db-1-disk".into()),
            source: LogSource::Pagerduty,
            action,
            ..log(id, "api", Severity::Warn, "disk full")
        };
        let logs = vec![
            event(1, LogAction::Trigger),
            event(2, LogAction::Trigger),
            event(3, LogAction::Resolve),
            log(4, "api", Severity::Error, "disk full"),
        ];
        let messages = vec![("m1".to_string(), logs.as_slice())];
        let groups = group(&messages, &rules);
        let keyed = groups
            .iter()
            .find(|g| g.fingerprint == client_fingerprint("api", "db-1-disk"))
            .unwrap();
        // A WARN trigger opens by the integration rule; the resolve is no occurrence.
        assert_eq!(keyed.logs().len(), 2);
        assert_eq!(keyed.rule_ids[&logs[0].id], ["integration"]);
        let parts: Vec<&str> = keyed.parts.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(parts, [event_key(&logs[0].id), event_key(&logs[1].id)]);
        let plain = groups.iter().find(|g| g.grouped_by == GROUPED_BY).unwrap();
        assert_eq!(plain.rule_ids[&logs[3].id], ["default"]);
    }
}
