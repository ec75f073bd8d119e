//! The operations rules of `template.yaml`, checked on the template itself so that a function,
//! a dead-letter queue or a secret added later without them fails CI:
//!
//! - every function logs to its own `AWS::Logs::LogGroup` with a retention
//!   (`LoggingConfig.LogGroup`), so no log group is created unbounded by Lambda;
//! - every function has an Errors and a Throttles alarm, every dead-letter queue a depth alarm
//!   (`ApproximateNumberOfMessagesVisible > 0`), and every alarm notifies `AlarmTopicArn` when
//!   it is given (`AlarmsNotify`);
//! - every secret (a `NoEcho` parameter) has a `<Name>From` parameter, and every function reads
//!   it as `!If [<Name>FromStore, !Sub "{{resolve:${<Name>From}}}", !Ref <Name>]`;
//! - the security review's fixes stay (local/test runs checkov itself): every function a
//!   schedule invokes (asynchronously) has a `DeadLetterQueue`, every SQS event source of a
//!   function without reserved concurrency has a `MaximumConcurrency`, every HTTP function that
//!   calls the model has reserved concurrency, the API writes an access log to a retained log
//!   group, and every `Metadata.checkov.skip` names a check and says why.
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

/// Event types whose invocations are asynchronous (Lambda retries, then drops the event unless
/// the function has somewhere to put it).
const ASYNC_EVENTS: &[&str] = &[
    "Schedule",
    "ScheduleV2",
    "EventBridgeRule",
    "CloudWatchEvent",
    "S3",
    "SNS",
];

/// Functions with an asynchronous event source and neither a `DeadLetterQueue` nor an
/// on-failure destination.
fn async_dead_letter_faults(doc: &Doc) -> Vec<String> {
    let mut faults = Vec::new();
    for (id, function) in doc.resources_of(FUNCTION_TYPES) {
        let Some(events) = prop(&function, &["Events"]).and_then(Value::as_mapping) else {
            continue;
        };
        let asynchronous: Vec<&str> = events
            .iter()
            .filter(|(_, e)| {
                e.get("Type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| ASYNC_EVENTS.contains(&t))
            })
            .filter_map(|(name, _)| name.as_str())
            .collect();
        let kept = prop(&function, &["DeadLetterQueue", "TargetArn"]).is_some()
            || prop(
                &function,
                &["EventInvokeConfig", "DestinationConfig", "OnFailure"],
            )
            .is_some();
        if !asynchronous.is_empty() && !kept {
            faults.push(format!(
                "{id}: invoked asynchronously ({}) but has no DeadLetterQueue",
                asynchronous.join(", ")
            ));
        }
    }
    faults
}

/// SQS event sources without `ScalingConfig.MaximumConcurrency` on functions without
/// `ReservedConcurrentExecutions`: nothing would bound how many run at once.
fn unbounded_queue_consumer_faults(doc: &Doc) -> Vec<String> {
    let mut faults = Vec::new();
    for (id, function) in doc.resources_of(FUNCTION_TYPES) {
        if prop(&function, &["ReservedConcurrentExecutions"]).is_some() {
            continue;
        }
        let Some(events) = prop(&function, &["Events"]).and_then(Value::as_mapping) else {
            continue;
        };
        for (name, event) in events {
            let is_sqs = event.get("Type").and_then(Value::as_str) == Some("SQS");
            let bounded = event
                .get("Properties")
                .and_then(|p| p.get("ScalingConfig"))
                .and_then(|c| c.get("MaximumConcurrency"))
                .is_some();
            if is_sqs && !bounded {
                faults.push(format!(
                    "{id}: SQS event {} has no ScalingConfig.MaximumConcurrency",
                    name.as_str().unwrap_or("?")
                ));
            }
        }
    }
    faults
}

/// The queues a function's SQS event sources consume.
fn consumed_queues(function: &Value) -> BTreeSet<String> {
    let mut queues = BTreeSet::new();
    if let Some(events) = prop(function, &["Events"]).and_then(Value::as_mapping) {
        for event in events.values() {
            if event.get("Type").and_then(Value::as_str) == Some("SQS") {
                if let Some(queue) = event.get("Properties").and_then(|p| p.get("Queue")) {
                    named_resources(queue, &mut queues);
                }
            }
        }
    }
    queues
}

/// The queues a function's policies let it send to.
fn sent_to_queues(function: &Value) -> BTreeSet<String> {
    let mut queues = BTreeSet::new();
    let policies = prop(function, &["Policies"]).and_then(Value::as_sequence);
    for policy in policies.into_iter().flatten() {
        let statements = policy.get("Statement").and_then(Value::as_sequence);
        for statement in statements.into_iter().flatten() {
            let actions: Vec<&str> = match statement.get("Action") {
                Some(Value::String(a)) => vec![a.as_str()],
                Some(Value::Sequence(items)) => items.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if actions.iter().any(|a| a.starts_with("sqs:SendMessage")) {
                if let Some(resource) = statement.get("Resource") {
                    named_resources(resource, &mut queues);
                }
            }
        }
    }
    queues
}

/// A function that queues itself (sends to a queue it consumes) must say `RecursiveLoop:
/// Allow` deliberately, or Lambda stops its chains after 16 hops; one that does not queue
/// itself must not turn the detection off.
fn recursive_loop_faults(doc: &Doc) -> Vec<String> {
    let mut faults = Vec::new();
    for (id, function) in doc.resources_of(FUNCTION_TYPES) {
        let loops: Vec<String> = consumed_queues(&function)
            .intersection(&sent_to_queues(&function))
            .cloned()
            .collect();
        let allowed = text(&function, &["RecursiveLoop"]).as_deref() == Some("Allow");
        if !loops.is_empty() && !allowed {
            faults.push(format!(
                "{id}: queues itself through {} without RecursiveLoop: Allow",
                loops.join(", ")
            ));
        }
        if loops.is_empty() && allowed {
            faults.push(format!(
                "{id}: RecursiveLoop: Allow, but it queues nothing it consumes"
            ));
        }
    }
    faults
}

/// HTTP functions that call the model (an `LLM_BASE_URL` in their environment) without
/// `ReservedConcurrentExecutions`: a flood of requests would be a flood of paid model calls.
fn uncapped_model_caller_faults(doc: &Doc) -> Vec<String> {
    let mut faults = Vec::new();
    for (id, function) in doc.resources_of(FUNCTION_TYPES) {
        let calls_model = prop(&function, &["Environment", "Variables", "LLM_BASE_URL"]).is_some();
        let serves_http = prop(&function, &["Events"])
            .and_then(Value::as_mapping)
            .is_some_and(|events| {
                events
                    .values()
                    .any(|e| e.get("Type").and_then(Value::as_str) == Some("HttpApi"))
            });
        if calls_model
            && serves_http
            && prop(&function, &["ReservedConcurrentExecutions"]).is_none()
        {
            faults.push(format!(
                "{id}: calls the model from HTTP requests but has no ReservedConcurrentExecutions"
            ));
        }
    }
    faults
}

/// Every HTTP API logs each request to a log group of the template with the retention.
fn access_log_faults(doc: &Doc) -> Vec<String> {
    let groups = doc.resources_of(&[LOG_GROUP]);
    let mut faults = Vec::new();
    for (id, api) in doc.resources_of(&["AWS::Serverless::HttpApi"]) {
        let group = prop(&api, &["AccessLogSettings", "DestinationArn"])
            .and_then(get_att_of)
            .filter(|(_, attribute)| attribute == "Arn")
            .map(|(group, _)| group);
        let Some(group) = group else {
            faults.push(format!(
                "{id}: AccessLogSettings.DestinationArn must be !GetAtt <LogGroup>.Arn"
            ));
            continue;
        };
        match groups.get(&group) {
            None => faults.push(format!("{id}: {group} is not an AWS::Logs::LogGroup")),
            Some(g)
                if prop(g, &["RetentionInDays"]).and_then(ref_of) != Some("LogRetentionDays") =>
            {
                faults.push(format!(
                    "{group}: RetentionInDays must be !Ref LogRetentionDays"
                ))
            }
            Some(_) => {}
        }
        let format = text(&api, &["AccessLogSettings", "Format"]).unwrap_or_default();
        if serde_json::from_str::<serde_json::Value>(&format).is_err() {
            faults.push(format!(
                "{id}: AccessLogSettings.Format must be one JSON object"
            ));
        }
    }
    faults
}

/// checkov skips (`Metadata.checkov.skip`) without a check id or without a reason.
fn checkov_skip_faults(doc: &Doc) -> Vec<String> {
    let mut faults = Vec::new();
    for (id, resource) in doc.section("Resources") {
        let id = id.as_str().unwrap_or("?");
        let Some(skips) = resource
            .get("Metadata")
            .and_then(|m| m.get("checkov"))
            .and_then(|c| c.get("skip"))
        else {
            continue;
        };
        let Some(skips) = skips.as_sequence() else {
            faults.push(format!("{id}: Metadata.checkov.skip must be a list"));
            continue;
        };
        let mut seen = BTreeSet::new();
        for skip in skips {
            let check = skip.get("id").and_then(Value::as_str).unwrap_or_default();
            let known = check
                .strip_prefix("CKV_AWS_")
                .or_else(|| check.strip_prefix("CKV2_AWS_"))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            if !known {
                faults.push(format!(
                    "{id}: checkov skip {check:?} is not a CKV_AWS_/CKV2_AWS_ id"
                ));
            }
            if !seen.insert(check.to_string()) {
                faults.push(format!("{id}: {check} is skipped twice"));
            }
            let comment = skip
                .get("comment")
                .and_then(Value::as_str)
                .unwrap_or_default();
            // A reason is a sentence about this resource, not a placeholder.
            if comment.split_whitespace().count() < 8 {
                faults.push(format!(
                    "{id}: checkov skip {check} needs its reason as comment"
                ));
            }
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

#[test]
fn every_scheduled_function_keeps_its_failed_events() {
    let doc = Doc::parse(&template_text());
    assert!(
        doc.resources_of(FUNCTION_TYPES)
            .values()
            .any(|f| prop(f, &["DeadLetterQueue"]).is_some()),
        "the schedulers have dead-letter queues"
    );
    let faults = async_dead_letter_faults(&doc);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_queue_consumer_is_bounded() {
    let doc = Doc::parse(&template_text());
    let faults = unbounded_queue_consumer_faults(&doc);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_function_that_queues_itself_allows_it_deliberately() {
    let doc = Doc::parse(&template_text());
    let faults = recursive_loop_faults(&doc);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
    let allowed = doc
        .resources_of(FUNCTION_TYPES)
        .values()
        .filter(|f| text(f, &["RecursiveLoop"]).as_deref() == Some("Allow"))
        .count();
    assert!(allowed >= 6, "only {allowed} functions queue themselves");
}

/// The deploy build: every function of the template is built by the Makefile's one
/// cargo-lambda build (`BuildMethod: makefile`), under the binary its `BuildProperties` name.
#[test]
fn the_makefile_builds_every_function_as_the_template_names_it() {
    let doc = Doc::parse(&template_text());
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("Makefile");
    let makefile = std::fs::read_to_string(&path).expect("Makefile");
    let made: BTreeMap<String, String> = makefile
        .lines()
        .filter_map(|l| l.strip_prefix("BINARY_"))
        .filter_map(|l| l.split_once(":="))
        .map(|(id, binary)| (id.trim().to_string(), binary.trim().to_string()))
        .collect();
    let mut expected = BTreeMap::new();
    for (id, function) in doc.resources_of(FUNCTION_TYPES) {
        let metadata = function.get("Metadata");
        let method = metadata
            .and_then(|m| m.get("BuildMethod"))
            .and_then(Value::as_str);
        assert_eq!(method, Some("makefile"), "{id}: BuildMethod");
        let binary = metadata
            .and_then(|m| m.get("BuildProperties"))
            .and_then(|p| p.get("Binary"))
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("{id}: no BuildProperties.Binary"));
        expected.insert(id, binary.to_string());
    }
    assert!(expected.len() >= 20, "{} functions", expected.len());
    assert_eq!(made, expected);
}

#[test]
fn every_http_function_calling_the_model_is_capped() {
    let doc = Doc::parse(&template_text());
    let faults = uncapped_model_caller_faults(&doc);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn the_api_writes_an_access_log() {
    let doc = Doc::parse(&template_text());
    assert!(!doc.resources_of(&["AWS::Serverless::HttpApi"]).is_empty());
    let faults = access_log_faults(&doc);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_checkov_skip_says_why() {
    let doc = Doc::parse(&template_text());
    let faults = checkov_skip_faults(&doc);
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
            async_dead_letter_faults(&doc),
            unbounded_queue_consumer_faults(&doc),
            uncapped_model_caller_faults(&doc),
            recursive_loop_faults(&doc),
            access_log_faults(&doc),
            checkov_skip_faults(&doc),
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
    fn a_function_that_queues_itself_without_saying_so() {
        let looping = "    Properties:\n      Events:\n        Work:\n          Type: SQS\n          Properties: {Queue: !GetAtt Work.Arn}\n      Policies:\n        - Statement:\n            - Effect: Allow\n              Action: sqs:SendMessage\n              Resource: !GetAtt Work.Arn\n";
        let text = complete() + "  Sweeper:\n    Type: AWS::Serverless::Function\n" + looping;
        let faults = recursive_loop_faults(&Doc::parse(&text)).join("\n");
        assert!(
            faults.contains("Sweeper: queues itself through Work without RecursiveLoop"),
            "{faults}"
        );
        let allowed = text.replace(
            "    Properties:\n      Events:",
            "    Properties:\n      RecursiveLoop: Allow\n      Events:",
        );
        assert_eq!(
            recursive_loop_faults(&Doc::parse(&allowed)),
            Vec::<String>::new()
        );
        let needless = complete().replace(
            "      LoggingConfig:",
            "      RecursiveLoop: Allow\n      LoggingConfig:",
        );
        let faults = recursive_loop_faults(&Doc::parse(&needless)).join("\n");
        assert!(faults.contains("Fn: RecursiveLoop: Allow, but"), "{faults}");
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

    /// `complete()` with a schedule on `Fn` (after `Properties:`) and `extra` in its properties.
    fn scheduled(extra: &str) -> String {
        complete().replacen(
            "      LoggingConfig: {LogGroup: !Ref FnLogGroup}\n",
            &format!(
                "      LoggingConfig: {{LogGroup: !Ref FnLogGroup}}\n{extra}      Events:\n        \
                 Tick: {{Type: Schedule, Properties: {{Schedule: rate(5 minutes)}}}}\n"
            ),
            1,
        )
    }

    #[test]
    fn a_scheduled_function_without_a_dead_letter_queue() {
        let faults = all_faults(&scheduled("")).join("\n");
        assert!(
            faults.contains("Fn: invoked asynchronously (Tick)"),
            "{faults}"
        );
        let kept = scheduled("      DeadLetterQueue: {Type: SQS, TargetArn: !GetAtt Spill.Arn}\n");
        assert_eq!(all_faults(&kept), Vec::<String>::new());
    }

    #[test]
    fn a_queue_consumer_without_a_bound() {
        let consumer =
            "      Events:\n        Jobs: {Type: SQS, Properties: {Queue: !GetAtt Queue.Arn}}\n";
        let text = complete().replacen(
            "      LoggingConfig: {LogGroup: !Ref FnLogGroup}\n",
            &format!("      LoggingConfig: {{LogGroup: !Ref FnLogGroup}}\n{consumer}"),
            1,
        );
        let faults = all_faults(&text).join("\n");
        assert!(
            faults.contains("Fn: SQS event Jobs has no ScalingConfig.MaximumConcurrency"),
            "{faults}"
        );
        let reserved = text.replacen(
            "      Events:\n",
            "      ReservedConcurrentExecutions: 2\n      Events:\n",
            1,
        );
        assert_eq!(all_faults(&reserved), Vec::<String>::new());
    }

    #[test]
    fn a_model_caller_without_a_cap() {
        let http =
            "      Events:\n        Api: {Type: HttpApi, Properties: {Path: /x, Method: ANY}}\n";
        let text = complete().replacen(
            "          KEY: !If",
            "          LLM_BASE_URL: https://model.example/v1\n          KEY: !If",
            1,
        );
        let text = text.replacen(
            "      LoggingConfig: {LogGroup: !Ref FnLogGroup}\n",
            &format!("      LoggingConfig: {{LogGroup: !Ref FnLogGroup}}\n{http}"),
            1,
        );
        let faults = all_faults(&text).join("\n");
        assert!(
            faults.contains("Fn: calls the model from HTTP requests"),
            "{faults}"
        );
        let capped = text.replacen(
            "      Events:\n",
            "      ReservedConcurrentExecutions: 5\n      Events:\n",
            1,
        );
        assert_eq!(all_faults(&capped), Vec::<String>::new());
    }

    #[test]
    fn an_api_without_an_access_log() {
        let api = r#"
  Api:
    Type: AWS::Serverless::HttpApi
    Properties:
      AccessLogSettings:
        DestinationArn: !GetAtt ApiLogGroup.Arn
        Format: '{"requestId":"$context.requestId","status":"$context.status"}'
  ApiLogGroup:
    Type: AWS::Logs::LogGroup
    Properties: {RetentionInDays: !Ref LogRetentionDays}
"#;
        let logged = complete() + api;
        assert_eq!(all_faults(&logged), Vec::<String>::new());
        let unlogged =
            complete() + "  Api:\n    Type: AWS::Serverless::HttpApi\n    Properties: {}\n";
        let faults = all_faults(&unlogged).join("\n");
        assert!(
            faults.contains("Api: AccessLogSettings.DestinationArn"),
            "{faults}"
        );
        let not_json = logged.replace(r#"'{"requestId""#, r#"'{requestId""#);
        let faults = all_faults(&not_json).join("\n");
        assert!(faults.contains("Api: AccessLogSettings.Format"), "{faults}");
    }

    #[test]
    fn a_checkov_skip_without_its_reason() {
        let skip = |id: &str, comment: &str| {
            complete().replacen(
                "  Spill:\n    Type: AWS::SQS::Queue\n",
                &format!(
                    "  Spill:\n    Type: AWS::SQS::Queue\n    Metadata:\n      checkov:\n        \
                     skip:\n          - id: {id}\n            comment: {comment}\n"
                ),
                1,
            )
        };
        let reasoned = skip(
            "CKV_AWS_27",
            "Encrypted with SQS-managed keys, which this check does not recognise at all.",
        );
        assert_eq!(all_faults(&reasoned), Vec::<String>::new());
        let faults = all_faults(&skip("CKV_AWS_27", "ok")).join("\n");
        assert!(
            faults.contains("Spill: checkov skip CKV_AWS_27 needs its reason"),
            "{faults}"
        );
        let faults = all_faults(&skip(
            "AWS_27",
            "a reason long enough to pass the words test here",
        ))
        .join("\n");
        assert!(
            faults.contains("is not a CKV_AWS_/CKV2_AWS_ id"),
            "{faults}"
        );
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
