//! The operations rules of `template.yaml`, checked on the template itself so that a function,
//! a dead-letter queue or a secret added later without them fails CI:
//!
//! - every function logs to its own `AWS::Logs::LogGroup` with a retention
//!   (`LoggingConfig.LogGroup`), so no log group is created unbounded by Lambda;
//! - every function has an Errors and a Throttles alarm, every dead-letter queue a depth alarm
//!   (`ApproximateNumberOfMessagesVisible > 0`), and every alarm notifies `AlarmTopicArn` when
//!   it is given (`AlarmsNotify`);
//! - every secret (a `NoEcho` parameter) has a `<Name>From` parameter, and every function reads
//!   it as `!If [<Name>FromStore, !Sub "{{resolve:${<Name>From}}}", !Ref <Name>]`.
//!
//! Needs no emulator.

// Test code: a failed unwrap or an out-of-range index is a failed test, which is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_yaml::{Mapping, Value};

const FUNCTION_TYPES: &[&str] = &["AWS::Serverless::Function", "AWS::Lambda::Function"];
const QUEUE: &str = "AWS::SQS::Queue";
const LOG_GROUP: &str = "AWS::Logs::LogGroup";
const ALARM: &str = "AWS::CloudWatch::Alarm";

fn template_text() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("template.yaml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The template's `Resources` and `Parameters`, read as YAML (tags kept).
struct Doc {
    root: Value,
}

impl Doc {
    fn parse(text: &str) -> Self {
        Self {
            root: serde_yaml::from_str(text).expect("template.yaml is YAML"),
        }
    }

    fn section(&self, name: &str) -> Mapping {
        self.root
            .get(name)
            .and_then(Value::as_mapping)
            .cloned()
            .unwrap_or_default()
    }

    /// Logical id → resource, for every resource of one of `types`.
    fn resources_of(&self, types: &[&str]) -> BTreeMap<String, Value> {
        self.section("Resources")
            .into_iter()
            .filter_map(|(id, res)| {
                let kind = res.get("Type")?.as_str()?;
                types
                    .contains(&kind)
                    .then(|| (id.as_str().unwrap_or_default().to_string(), res))
            })
            .collect()
    }
}

/// Strips a YAML tag: `!Ref X` and `{Ref: X}` are the same function; `name` without `Fn::`.
fn intrinsic<'a>(value: &'a Value, name: &str) -> Option<&'a Value> {
    match value {
        Value::Tagged(tagged) if tagged.tag == name => Some(&tagged.value),
        Value::Mapping(map) if map.len() == 1 => {
            let long = if name == "Ref" || name == "Condition" {
                name.to_string()
            } else {
                format!("Fn::{name}")
            };
            map.get(long.as_str())
        }
        _ => None,
    }
}

/// `!Ref X` → X.
fn ref_of(value: &Value) -> Option<&str> {
    intrinsic(value, "Ref").and_then(Value::as_str)
}

/// `!GetAtt X.Attr` (or the list form) → (X, Attr).
fn get_att_of(value: &Value) -> Option<(String, String)> {
    match intrinsic(value, "GetAtt")? {
        Value::String(s) => s
            .split_once('.')
            .map(|(r, a)| (r.to_string(), a.to_string())),
        Value::Sequence(items) => match items.as_slice() {
            [r, a] => Some((r.as_str()?.to_string(), a.as_str()?.to_string())),
            _ => None,
        },
        _ => None,
    }
}

/// Every resource a value names with `!Ref` or `!GetAtt`, at any depth.
fn named_resources(value: &Value, out: &mut BTreeSet<String>) {
    if let Some(name) = ref_of(value) {
        out.insert(name.to_string());
    }
    if let Some((name, _)) = get_att_of(value) {
        out.insert(name);
    }
    match value {
        Value::Tagged(tagged) => named_resources(&tagged.value, out),
        Value::Sequence(items) => items.iter().for_each(|v| named_resources(v, out)),
        Value::Mapping(map) => map.values().for_each(|v| named_resources(v, out)),
        _ => {}
    }
}

fn prop<'a>(resource: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter()
        .try_fold(resource.get("Properties")?, |v, key| v.get(*key))
}

fn text(resource: &Value, path: &[&str]) -> Option<String> {
    match prop(resource, path)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

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
fn log_group_faults(doc: &Doc) -> Vec<String> {
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

fn function_alarm_faults(doc: &Doc) -> Vec<String> {
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
fn dead_letter_queues(doc: &Doc) -> BTreeSet<String> {
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

fn dead_letter_alarm_faults(doc: &Doc) -> Vec<String> {
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

/// `!If [<P>FromStore, !Sub "{{resolve:${<P>From}}}", !Ref <P>]` for a secret `P`.
fn secret_from_store(value: &Value) -> Option<String> {
    let args = intrinsic(value, "If")?.as_sequence()?;
    let [condition, stored, plain] = args.as_slice() else {
        return None;
    };
    let secret = ref_of(plain)?;
    let sub = intrinsic(stored, "Sub")?.as_str()?;
    (condition.as_str()? == format!("{secret}FromStore")
        && sub == format!("{{{{resolve:${{{secret}From}}}}}}"))
    .then(|| secret.to_string())
}

/// Secrets read by resources other than through [`secret_from_store`], and secrets read that
/// way whose condition is missing.
fn secret_faults(doc: &Doc) -> Vec<String> {
    fn walk(
        at: &str,
        value: &Value,
        secrets: &BTreeSet<String>,
        stored: &mut BTreeSet<String>,
        faults: &mut Vec<String>,
    ) {
        if let Some(secret) = secret_from_store(value) {
            stored.insert(secret);
            return;
        }
        if let Some(name) = ref_of(value).filter(|n| secrets.contains(*n)) {
            faults.push(format!(
                "{at}: !Ref {name} alone; use !If [{name}FromStore, \
                 !Sub \"{{{{resolve:${{{name}From}}}}}}\", !Ref {name}]"
            ));
        }
        match value {
            Value::Tagged(tagged) => walk(at, &tagged.value, secrets, stored, faults),
            Value::Sequence(items) => {
                for v in items {
                    walk(at, v, secrets, stored, faults);
                }
            }
            Value::Mapping(map) => {
                for (k, v) in map {
                    let key = k.as_str().unwrap_or("?");
                    walk(&format!("{at}.{key}"), v, secrets, stored, faults);
                }
            }
            _ => {}
        }
    }
    let parameters = doc.section("Parameters");
    let secrets: BTreeSet<String> = parameters
        .iter()
        .filter(|(_, decl)| decl.get("NoEcho").and_then(Value::as_bool) == Some(true))
        .filter_map(|(name, _)| name.as_str().map(str::to_string))
        .collect();
    let mut faults = Vec::new();
    for secret in &secrets {
        let from = format!("{secret}From");
        let pattern = parameters
            .get(from.as_str())
            .and_then(|d| d.get("AllowedPattern"))
            .and_then(Value::as_str);
        if pattern != Some("^$|^(secretsmanager|ssm):[^{}]+$") {
            faults.push(format!(
                "secret parameter {secret}: needs a parameter {from} with AllowedPattern \
                 \"^$|^(secretsmanager|ssm):[^{{}}]+$\""
            ));
        }
    }
    let mut stored = BTreeSet::new();
    for (id, resource) in doc
        .section("Resources")
        .iter()
        .chain(doc.section("Globals").iter())
    {
        let id = id.as_str().unwrap_or("?");
        walk(id, resource, &secrets, &mut stored, &mut faults);
    }
    let conditions = doc.section("Conditions");
    for secret in stored {
        let condition = conditions.get(format!("{secret}FromStore").as_str());
        let holds_when_given = condition
            .and_then(|c| intrinsic(c, "Not"))
            .and_then(Value::as_sequence)
            .and_then(|s| s.first())
            .and_then(|c| intrinsic(c, "Equals"))
            .and_then(Value::as_sequence)
            .is_some_and(|args| match args.as_slice() {
                [r, empty] => {
                    ref_of(r) == Some(format!("{secret}From").as_str())
                        && empty.as_str() == Some("")
                }
                _ => false,
            });
        if !holds_when_given {
            faults.push(format!(
                "condition {secret}FromStore must be !Not [!Equals [!Ref {secret}From, \"\"]]"
            ));
        }
    }
    faults
}

#[test]
fn every_function_logs_to_its_own_retained_log_group() {
    let doc = Doc::parse(&template_text());
    assert!(
        doc.resources_of(FUNCTION_TYPES).len() >= 6,
        "the template's functions"
    );
    let faults = log_group_faults(&doc);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_function_has_errors_and_throttles_alarms() {
    let doc = Doc::parse(&template_text());
    let faults = function_alarm_faults(&doc);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_dead_letter_queue_has_a_depth_alarm() {
    let doc = Doc::parse(&template_text());
    let queues = dead_letter_queues(&doc);
    assert!(
        queues.contains("FeedDeadLetterQueue"),
        "the feed queue's DLQ is found by its RedrivePolicy: {queues:?}"
    );
    let faults = dead_letter_alarm_faults(&doc);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_secret_can_come_from_a_store() {
    let doc = Doc::parse(&template_text());
    let faults = secret_faults(&doc);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// The checks above on small templates: each catches what it is for.
mod the_checks_catch {
    use super::*;

    const FUNCTION: &str = r#"
Parameters:
  Key: {Type: String, NoEcho: true}
  KeyFrom: {Type: String, Default: "", AllowedPattern: "^$|^(secretsmanager|ssm):[^{}]+$"}
  AlarmTopicArn: {Type: String, Default: ""}
Conditions:
  AlarmsNotify: !Not [!Equals [!Ref AlarmTopicArn, ""]]
  KeyFromStore: !Not [!Equals [!Ref KeyFrom, ""]]
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy: {deadLetterTargetArn: !GetAtt Spill.Arn, maxReceiveCount: 5}
  Spill:
    Type: AWS::SQS::Queue
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      LoggingConfig: {LogGroup: !Ref FnLogGroup}
      Environment:
        Variables:
          KEY: !If [KeyFromStore, !Sub "{{resolve:${KeyFrom}}}", !Ref Key]
  FnLogGroup:
    Type: AWS::Logs::LogGroup
    Properties: {RetentionInDays: !Ref LogRetentionDays}
"#;

    fn alarm(id: &str, namespace: &str, metric: &str, dim: &str, value: &str) -> String {
        format!(
            r#"
  {id}:
    Type: AWS::CloudWatch::Alarm
    Properties:
      Namespace: {namespace}
      MetricName: {metric}
      Dimensions: [{{Name: {dim}, Value: {value}}}]
      Threshold: 0
      EvaluationPeriods: 1
      ComparisonOperator: GreaterThanThreshold
      AlarmActions: !If [AlarmsNotify, [!Ref AlarmTopicArn], !Ref AWS::NoValue]
      OKActions: !If [AlarmsNotify, [!Ref AlarmTopicArn], !Ref AWS::NoValue]
"#
        )
    }

    fn complete() -> String {
        FUNCTION.to_string()
            + &alarm("E", "AWS/Lambda", "Errors", "FunctionName", "!Ref Fn")
            + &alarm("T", "AWS/Lambda", "Throttles", "FunctionName", "!Ref Fn")
            + &alarm(
                "D",
                "AWS/SQS",
                "ApproximateNumberOfMessagesVisible",
                "QueueName",
                "!GetAtt Spill.QueueName",
            )
    }

    fn all_faults(text: &str) -> Vec<String> {
        let doc = Doc::parse(text);
        [
            log_group_faults(&doc),
            function_alarm_faults(&doc),
            dead_letter_alarm_faults(&doc),
            secret_faults(&doc),
        ]
        .concat()
    }

    #[test]
    fn nothing_in_a_complete_template() {
        assert_eq!(all_faults(&complete()), Vec::<String>::new());
    }

    #[test]
    fn a_function_without_a_log_group_or_alarms() {
        let text =
            complete() + "  Another:\n    Type: AWS::Serverless::Function\n    Properties: {}\n";
        let faults = all_faults(&text).join("\n");
        assert!(
            faults.contains("Another: LoggingConfig.LogGroup"),
            "{faults}"
        );
        assert!(
            faults.contains("Another: no AWS/Lambda Errors alarm"),
            "{faults}"
        );
        assert!(
            faults.contains("Another: no AWS/Lambda Throttles alarm"),
            "{faults}"
        );
    }

    #[test]
    fn an_unbounded_log_group() {
        let text = complete().replace("RetentionInDays: !Ref LogRetentionDays", "Tags: []");
        let faults = all_faults(&text).join("\n");
        assert!(faults.contains("FnLogGroup: RetentionInDays"), "{faults}");
    }

    #[test]
    fn a_dead_letter_queue_without_a_depth_alarm() {
        let text = complete() + "  SweepDLQ:\n    Type: AWS::SQS::Queue\n";
        let faults = all_faults(&text).join("\n");
        assert!(faults.contains("SweepDLQ: no AWS/SQS"), "{faults}");
        assert!(!faults.contains("Queue: no AWS/SQS"), "{faults}");
        let unalarmed = FUNCTION.to_string();
        let faults = all_faults(&unalarmed).join("\n");
        assert!(faults.contains("Spill: no AWS/SQS"), "{faults}");
    }

    #[test]
    fn an_alarm_that_notifies_nobody_or_fires_late() {
        let text = complete().replacen(
            "AlarmActions: !If [AlarmsNotify, [!Ref AlarmTopicArn], !Ref AWS::NoValue]",
            "AlarmActions: []",
            1,
        );
        assert!(all_faults(&text).join("\n").contains("E: AlarmActions"));
        let text = complete().replacen("Threshold: 0", "Threshold: 5", 1);
        assert!(all_faults(&text).join("\n").contains("E: Threshold"));
    }

    #[test]
    fn a_secret_read_plainly_or_without_its_from_parameter() {
        let text = complete().replace(
            r#"!If [KeyFromStore, !Sub "{{resolve:${KeyFrom}}}", !Ref Key]"#,
            "!Ref Key",
        );
        let faults = all_faults(&text).join("\n");
        assert!(
            faults.contains("Fn.Properties.Environment.Variables.KEY: !Ref Key alone"),
            "{faults}"
        );
        let text = complete().replace("  KeyFrom: {", "  KeyOrigin: {");
        let faults = all_faults(&text).join("\n");
        assert!(faults.contains("needs a parameter KeyFrom"), "{faults}");
        let text = complete().replace("  KeyFromStore: ", "  KeyFromElsewhere: ");
        let faults = all_faults(&text).join("\n");
        assert!(faults.contains("condition KeyFromStore"), "{faults}");
    }
}
