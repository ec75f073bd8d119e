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
//!   group, every `Metadata.checkov.skip` names a check and says why, and no function URL
//!   answers every origin (`Cors.AllowOrigins` is never `*`).
//!
//! Needs no emulator.

// Test code: a failed unwrap or an out-of-range index is a failed test, which is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod monitoring;
mod review;
mod secrets;
mod template;

use std::collections::BTreeMap;

use serde_yaml::Value;

use monitoring::{
    dead_letter_alarm_faults, dead_letter_queues, function_alarm_faults, log_group_faults,
};
use review::{
    access_log_faults, async_dead_letter_faults, checkov_skip_faults, recursive_loop_faults,
    unbounded_queue_consumer_faults, uncapped_model_caller_faults,
};
use secrets::secret_faults;
use template::{prop, template_text, text, Doc, FUNCTION_TYPES};

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
    let path = template::manifest_dir().join("..").join("Makefile");
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

/// The assistant's function URL is public (`AuthType: NONE`) and every call on it is a paid
/// model call: no function URL lets every page call it (`AllowOrigins` never `*`), neither
/// with the defaults (a first deploy: no CORS at all, and the web page is not given the URL,
/// so it streams through the HTTP API) nor with origins named, which are then exactly those.
/// Resolved as the local stack and CloudFormation resolve the template's intrinsics.
#[test]
fn no_function_url_answers_every_origin() {
    use local_stack::cors::UrlCors;
    use local_stack::intrinsics::{Context, ResourceAttrs};

    let template = local_stack::template::Template::parse(&template_text()).expect("template");
    let functions = template.functions().expect("functions");
    let urls: Vec<_> = functions.iter().filter(|f| f.function_url).collect();
    assert!(
        urls.iter().any(|f| f.logical_id == "AssistantFunction"),
        "the assistant has a function URL"
    );
    let web = functions
        .iter()
        .find(|f| f.logical_id == "WebFunction")
        .expect("WebFunction");
    let named = "https://abc123.execute-api.us-east-1.amazonaws.com,https://news.example";
    for given in [None, Some(""), Some(named)] {
        let parameters = given
            .map(|o| BTreeMap::from([("AssistantStreamOrigins".to_string(), o.to_string())]))
            .unwrap_or_default();
        let mut ctx = Context::new(&template, "s", "us-east-1", &parameters);
        ctx.resources.insert(
            "AssistantFunctionUrl".to_string(),
            ResourceAttrs::new("AWS::Lambda::Url", "arn")
                .attr("FunctionUrl", "https://abc.lambda-url.us-east-1.on.aws/"),
        );
        for function in &urls {
            let cors = function
                .function_url_cors
                .as_ref()
                .map(|c| UrlCors::resolve(c, &ctx))
                .transpose()
                .unwrap_or_else(|e| panic!("{}: {e}", function.logical_id))
                .flatten();
            let origins = cors.map(|c| c.allow_origins);
            assert!(
                !origins.iter().flatten().any(|o| o.contains('*')),
                "{} with {given:?}: AllowOrigins {origins:?}",
                function.logical_id
            );
            if function.logical_id == "AssistantFunction" {
                let expected = given
                    .filter(|o| !o.is_empty())
                    .map(|o| o.split(',').map(str::to_string).collect::<Vec<_>>());
                assert_eq!(origins, expected, "AssistantFunction with {given:?}");
            }
        }
        let page_names = ctx
            .resolve_string(&web.variables["GENAI_FUNCTION_URL"])
            .expect("GENAI_FUNCTION_URL")
            .unwrap_or_default();
        let expected = match given {
            Some(o) if !o.is_empty() => "https://abc.lambda-url.us-east-1.on.aws/",
            _ => "",
        };
        assert_eq!(page_names, expected, "WebFunction with {given:?}");
    }
}

/// The checks above on small templates: each catches what it is for.
mod the_checks_catch;
