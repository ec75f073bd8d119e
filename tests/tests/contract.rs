//! The contract is the single source of truth: the committed `functions/web/openapi.json`
//! must be what the handlers' own annotations produce, it must agree with `template.yaml` in
//! both directions, and the client's API layer must be generated from it.
//!
//! `UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract` rewrites the committed
//! contract and the API layer from the code.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use serde_json::Value;
use stack_tests::apigen;
use stack_tests::contract::{self, API_LAYER_FILE, CONTRACT_FILE};

fn updating() -> bool {
    std::env::var("UPDATE_CONTRACT").is_ok_and(|v| v == "1")
}

/// Compares `from_code` with the committed `file`, or rewrites the file when updating.
fn check_committed(file: &str, from_code: &str) {
    let path = contract::path(file);
    if updating() {
        std::fs::write(&path, from_code).unwrap_or_else(|e| panic!("write {file}: {e}"));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == from_code,
        "{file} does not match the code ({}).\nRegenerate it with: \
         UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract",
        contract::first_difference(from_code, &committed)
    );
}

#[test]
fn committed_contract_is_what_the_code_documents() {
    let text = contract::contract_text().unwrap_or_else(|e| panic!("merging failed:\n{e}"));
    let json: Value = serde_json::from_str(&text).expect("contract is JSON");
    assert_eq!(json["openapi"], "3.1.0");
    assert_eq!(json["servers"][0]["url"], "/");
    check_committed(CONTRACT_FILE, &text);
}

/// The GenAI function serves its own `/docs/openapi.json` from a committed file (no document
/// built at cold start): it must be what the annotations produce.
#[test]
fn genai_service_document_is_what_the_code_documents() {
    let doc = assistant_function::service_openapi();
    let text = serde_json::to_string_pretty(&doc).expect("document is JSON") + "\n";
    check_committed(assistant_function::SERVICE_DOCUMENT_FILE, &text);
}

/// The intelligence function serves its own `/docs/openapi.json` from a committed file too.
#[test]
fn intelligence_service_document_is_what_the_code_documents() {
    let doc = incidents_intelligence_function::service_openapi();
    let text = serde_json::to_string_pretty(&doc).expect("document is JSON") + "\n";
    check_committed(
        incidents_intelligence_function::SERVICE_DOCUMENT_FILE,
        &text,
    );
}

#[test]
fn contract_and_template_agree_both_ways() {
    if let Err(problems) = contract::check_against_template() {
        panic!("the contract and template.yaml disagree:\n{problems}");
    }
}

#[test]
fn api_layer_is_generated_from_the_contract() {
    let text = contract::contract_text().unwrap_or_else(|e| panic!("merging failed:\n{e}"));
    let json: Value = serde_json::from_str(&text).expect("contract is JSON");
    let js = apigen::generate(&json).unwrap_or_else(|e| panic!("generating failed: {e}"));
    check_committed(API_LAYER_FILE, &js);
}

#[test]
fn every_operation_documents_its_errors_and_identity() {
    let text = contract::contract_text().unwrap_or_else(|e| panic!("merging failed:\n{e}"));
    let json: Value = serde_json::from_str(&text).expect("contract is JSON");
    for (method, path, operation) in contract::operations(&json) {
        let id = operation["operationId"].as_str().unwrap_or("");
        let summary = operation["summary"].as_str().unwrap_or("");
        assert!(!summary.is_empty(), "{method} {path} ({id}) has no summary");
        let responses = operation["responses"].as_object();
        assert!(
            responses.is_some_and(|r| !r.is_empty()),
            "{method} {path} documents no responses"
        );
        // Protected operations say what a missing token answers.
        if operation["security"].as_array().is_some_and(|s| {
            !s.is_empty()
                && s.iter()
                    .all(|r| r.as_object().is_some_and(|o| !o.is_empty()))
        }) {
            assert!(
                responses.is_some_and(|r| r.contains_key("401")),
                "{method} {path} ({id}) is protected but documents no 401"
            );
        }
    }
}

#[test]
fn every_reference_resolves() {
    fn refs(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    found.push(target.clone());
                }
                map.values().for_each(|v| refs(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, found)),
            _ => {}
        }
    }
    let text = contract::contract_text().unwrap_or_else(|e| panic!("merging failed:\n{e}"));
    let json: Value = serde_json::from_str(&text).expect("contract is JSON");
    let mut found = Vec::new();
    refs(&json, &mut found);
    assert!(!found.is_empty());
    for target in found {
        let pointer = target
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("{target} points outside the contract"));
        assert!(json.pointer(pointer).is_some(), "{target} names nothing");
    }
}
