//! Logs and alarms: every function's own retained log group, its Errors and Throttles alarms,
//! and a depth alarm on every dead-letter queue.

use std::collections::{BTreeMap, BTreeSet};

use serde_yaml::Value;

use crate::template::{
    get_att_of, intrinsic, named_resources, prop, ref_of, text, Doc, ALARM, FUNCTION_TYPES,
    LOG_GROUP, QUEUE,
};

/// The dimension `name` of an alarm, unresolved.
fn dimension<'a>(alarm: &'a Value, name: &str) -> Option<&'a Value> {
    prop(alarm, &["Dimensions"])?
        .as_sequence()?
        .iter()
        .find(|d| d.get("Name").and_then(Value::as_str) == Some(name))?
        .get("Value")
}

/// Why an alarm does not fire on "more than zero in five minutes" or does not notify the
/// topic; `None` when it is right.
fn alarm_fault(id: &str, alarm: &Value) -> Option<String> {
    let expect = [
        (&["Threshold"][..], "0"),
        (&["ComparisonOperator"][..], "GreaterThanThreshold"),
        (&["EvaluationPeriods"][..], "1"),
    ];
    for (path, want) in expect {
        let got = text(alarm, path);
        if got.as_deref() != Some(want) {
            return Some(format!("{id}: {} is {got:?}, expected {want}", path[0]));
        }
    }
    for actions in ["AlarmActions", "OKActions"] {
        let notifies = prop(alarm, &[actions])
            .and_then(|v| intrinsic(v, "If"))
            .and_then(Value::as_sequence)
            .is_some_and(|args| match args.as_slice() {
                [condition, topics, otherwise] => {
                    condition.as_str() == Some("AlarmsNotify")
                        && topics
                            .as_sequence()
                            .is_some_and(|t| t.len() == 1 && ref_of(&t[0]) == Some("AlarmTopicArn"))
                        && ref_of(otherwise) == Some("AWS::NoValue")
                }
                _ => false,
            });
        if !notifies {
            return Some(format!(
                "{id}: {actions} must be !If [AlarmsNotify, [!Ref AlarmTopicArn], !Ref AWS::NoValue]"
            ));
        }
    }
    None
}

/// The alarms on `namespace`/`metric` whose `dimension` matches `target`.
fn alarms_on(
    doc: &Doc,
    namespace: &str,
    metric: &str,
    dimension_name: &str,
    target: impl Fn(&Value) -> bool,
) -> Vec<(String, Value)> {
    doc.resources_of(&[ALARM])
        .into_iter()
        .filter(|(_, alarm)| {
            text(alarm, &["Namespace"]).as_deref() == Some(namespace)
                && text(alarm, &["MetricName"]).as_deref() == Some(metric)
                && dimension(alarm, dimension_name).is_some_and(&target)
        })
        .collect()
}

/// What is wrong with the template's log groups (empty when nothing is).
pub(crate) fn log_group_faults(doc: &Doc) -> Vec<String> {
    let groups = doc.resources_of(&[LOG_GROUP]);
    let functions = doc.resources_of(FUNCTION_TYPES);
    let mut faults = Vec::new();
    let mut used = BTreeMap::new();
    for id in functions.keys() {
        let function = &functions[id];
        let Some(group) = prop(function, &["LoggingConfig", "LogGroup"]).and_then(ref_of) else {
            faults.push(format!(
                "{id}: LoggingConfig.LogGroup must be !Ref of its own AWS::Logs::LogGroup"
            ));
            continue;
        };
        let Some(resource) = groups.get(group) else {
            faults.push(format!("{id}: {group} is not an AWS::Logs::LogGroup"));
            continue;
        };
        if prop(resource, &["RetentionInDays"]).and_then(ref_of) != Some("LogRetentionDays") {
            faults.push(format!(
                "{group}: RetentionInDays must be !Ref LogRetentionDays"
            ));
        }
        if let Some(other) = used.insert(group.to_string(), id.clone()) {
            faults.push(format!("{id} and {other} share the log group {group}"));
        }
    }
    faults
}

pub(crate) fn function_alarm_faults(doc: &Doc) -> Vec<String> {
    let mut faults = Vec::new();
    for id in doc.resources_of(FUNCTION_TYPES).keys() {
        for metric in ["Errors", "Throttles"] {
            let alarms = alarms_on(doc, "AWS/Lambda", metric, "FunctionName", |v| {
                ref_of(v) == Some(id.as_str())
            });
            if alarms.is_empty() {
                faults.push(format!(
                    "{id}: no AWS/Lambda {metric} alarm with FunctionName !Ref {id}"
                ));
            }
            faults.extend(alarms.iter().filter_map(|(a, alarm)| alarm_fault(a, alarm)));
        }
    }
    faults
}

/// The queues that receive what other resources gave up on: named by a `deadLetter...`,
/// `DeadLetterQueue` or `DeadLetterConfig` property, or called a dead-letter queue.
pub(crate) fn dead_letter_queues(doc: &Doc) -> BTreeSet<String> {
    fn walk(value: &Value, inside: bool, out: &mut BTreeSet<String>) {
        if inside {
            named_resources(value, out);
            return;
        }
        match value {
            Value::Mapping(map) => {
                for (key, v) in map {
                    let dead_letter = key
                        .as_str()
                        .is_some_and(|k| k.to_ascii_lowercase().contains("deadletter"));
                    walk(v, dead_letter, out);
                }
            }
            Value::Sequence(items) => items.iter().for_each(|v| walk(v, false, out)),
            Value::Tagged(tagged) => walk(&tagged.value, false, out),
            _ => {}
        }
    }
    let queues = doc.resources_of(&[QUEUE]);
    let mut named = BTreeSet::new();
    walk(&Value::Mapping(doc.section("Resources")), false, &mut named);
    queues
        .keys()
        .filter(|id| {
            let lower = id.to_ascii_lowercase();
            named.contains(*id) || lower.contains("deadletter") || lower.ends_with("dlq")
        })
        .cloned()
        .collect()
}

pub(crate) fn dead_letter_alarm_faults(doc: &Doc) -> Vec<String> {
    let mut faults = Vec::new();
    for queue in dead_letter_queues(doc) {
        let alarms = alarms_on(
            doc,
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            "QueueName",
            |v| get_att_of(v) == Some((queue.clone(), "QueueName".to_string())),
        );
        if alarms.is_empty() {
            faults.push(format!(
                "{queue}: no AWS/SQS ApproximateNumberOfMessagesVisible alarm with \
                 QueueName !GetAtt {queue}.QueueName"
            ));
        }
        faults.extend(alarms.iter().filter_map(|(a, alarm)| alarm_fault(a, alarm)));
    }
    faults
}
