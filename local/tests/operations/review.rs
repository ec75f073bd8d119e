//! The security review's fixes: dead-letter queues for asynchronous invocations, bounded
//! queue consumers, deliberate recursive loops, capped model callers, the API's access log and
//! reasoned checkov skips.

use std::collections::BTreeSet;

use serde_yaml::Value;

use crate::template::{
    get_att_of, named_resources, prop, ref_of, text, Doc, FUNCTION_TYPES, LOG_GROUP,
};

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
pub(crate) fn async_dead_letter_faults(doc: &Doc) -> Vec<String> {
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
pub(crate) fn unbounded_queue_consumer_faults(doc: &Doc) -> Vec<String> {
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
pub(crate) fn recursive_loop_faults(doc: &Doc) -> Vec<String> {
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
pub(crate) fn uncapped_model_caller_faults(doc: &Doc) -> Vec<String> {
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
pub(crate) fn access_log_faults(doc: &Doc) -> Vec<String> {
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
pub(crate) fn checkov_skip_faults(doc: &Doc) -> Vec<String> {
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
