//! What the bootstraps link. Checked for every function `template.yaml` builds, so a new
//! function is covered too, on its dependency tree as `sam build` / cargo-lambda resolve it
//! (that package alone):
//! - the AWS SDK crate of every service its policy lets it call (DynamoDB, SQS, S3,
//!   EventBridge), and no hand-written signer or protocol anywhere in the functions' code;
//! - none of the crates that cost megabytes or milliseconds of every cold start for nothing.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;
use stack_tests::repo_root;

/// Crate, and why a function must not depend on it.
const FORBIDDEN: &[(&str, &str)] = &[
    (
        "aws-lc-sys",
        "a second crypto library (1.3 MB): functions use ring (platform::tls, platform::jwt)",
    ),
    (
        "aws-config",
        "the default credential chain and its STS client: platform::aws reads the environment",
    ),
    (
        "utoipa-swagger-ui",
        "Swagger UI's whole dist uncompressed (4.3 MB): serve a gzipped copy",
    ),
];

fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("run cargo");
    assert!(
        output.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8")
}

/// The package that builds each binary named in template.yaml (`BuildProperties: Binary`).
fn function_packages() -> BTreeMap<String, String> {
    let template = std::fs::read_to_string(repo_root().join("template.yaml")).expect("template");
    let binaries: Vec<&str> = template
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Binary:"))
        .map(str::trim)
        .collect();
    assert!(!binaries.is_empty(), "template.yaml builds no binary");
    let metadata: Value =
        serde_json::from_str(&cargo(&["metadata", "--no-deps", "--format-version", "1"]))
            .expect("cargo metadata");
    let mut packages = BTreeMap::new();
    for package in metadata["packages"].as_array().expect("packages") {
        for target in package["targets"].as_array().expect("targets") {
            let name = target["name"].as_str().expect("name");
            let is_bin = target["kind"]
                .as_array()
                .expect("kind")
                .iter()
                .any(|k| k == "bin");
            if is_bin && binaries.contains(&name) {
                packages.insert(
                    name.to_string(),
                    package["name"].as_str().expect("name").to_string(),
                );
            }
        }
    }
    for binary in &binaries {
        assert!(
            packages.contains_key(*binary),
            "no package builds the binary {binary}"
        );
    }
    packages
}

#[test]
fn no_function_links_what_the_size_and_start_budget_excludes() {
    let mut problems = Vec::new();
    for (binary, package) in function_packages() {
        let tree = cargo(&[
            "tree", "-p", &package, "-e", "normal", "--prefix", "none", "-f", "{p}",
        ]);
        let crates: Vec<&str> = tree
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        for (name, why) in FORBIDDEN {
            if crates.contains(name) {
                problems.push(format!("{binary} ({package}) depends on {name}: {why}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The SDK crate a policy's action prefix calls for; `None` for actions the function does
/// not perform itself (an SQS event source's receive and delete are Lambda's).
fn sdk_crate(action: &str) -> Option<&'static str> {
    let (service, operation) = action.split_once(':')?;
    match service {
        "dynamodb" => Some("aws-sdk-dynamodb"),
        "sqs" if operation.starts_with("SendMessage") => Some("aws-sdk-sqs"),
        "s3" => Some("aws-sdk-s3"),
        "events" if operation == "PutEvents" => Some("aws-sdk-eventbridge"),
        "sns" => Some("aws-sdk-sns"),
        _ => None,
    }
}

/// Every string under an `Action` key of `value`.
fn actions(value: &serde_yaml::Value, under_action: bool, out: &mut Vec<String>) {
    match value {
        serde_yaml::Value::String(s) if under_action => out.push(s.clone()),
        serde_yaml::Value::Sequence(items) => {
            for item in items {
                actions(item, under_action, out);
            }
        }
        serde_yaml::Value::Mapping(map) => {
            for (key, item) in map {
                actions(item, key.as_str() == Some("Action"), out);
            }
        }
        serde_yaml::Value::Tagged(tagged) => actions(&tagged.value, under_action, out),
        _ => {}
    }
}

/// Binary → the SDK crates its policies call for.
fn sdk_crates_by_binary() -> BTreeMap<String, BTreeSet<&'static str>> {
    let text = std::fs::read_to_string(repo_root().join("template.yaml")).expect("template");
    let template: serde_yaml::Value = serde_yaml::from_str(&text).expect("yaml");
    let mut out = BTreeMap::new();
    for (_, resource) in template["Resources"].as_mapping().expect("resources") {
        let Some(binary) = resource["Metadata"]["BuildProperties"]["Binary"].as_str() else {
            continue;
        };
        let mut found = Vec::new();
        actions(&resource["Properties"]["Policies"], false, &mut found);
        let crates: BTreeSet<&str> = found.iter().filter_map(|a| sdk_crate(a)).collect();
        out.insert(binary.to_string(), crates);
    }
    out
}

#[test]
fn every_function_calls_aws_through_the_sdk_of_each_service_its_policy_allows() {
    let packages = function_packages();
    let wanted = sdk_crates_by_binary();
    assert!(
        wanted.values().any(|c| c.contains("aws-sdk-s3")),
        "no function writes S3: the template is not read as it should be"
    );
    let mut problems = Vec::new();
    for (binary, crates) in &wanted {
        let package = packages.get(binary).expect("package");
        let tree = cargo(&[
            "tree", "-p", package, "-e", "normal", "--prefix", "none", "-f", "{p}",
        ]);
        let linked: BTreeSet<&str> = tree
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        for sdk in crates {
            if !linked.contains(sdk) {
                problems.push(format!(
                    "{binary} ({package}) may call {sdk} but does not link it"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A SigV4 signature or a service protocol written by hand: the algorithm's name, the JSON
/// protocols' target header, S3's payload hash header.
const HAND_WRITTEN: &[&str] = &["AWS4-HMAC-SHA256", "x-amz-target", "x-amz-content-sha256"];

#[test]
fn no_function_code_signs_or_speaks_an_aws_protocol_by_hand() {
    let mut problems = Vec::new();
    let mut files = 0;
    let mut pending = vec![repo_root().join("shared"), repo_root().join("functions")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files += 1;
                let source = std::fs::read_to_string(&path).expect("source");
                // What ships: a file's unit tests (its `#[cfg(test)]` module, last) may read
                // what the SDK sent.
                let shipped = source.split("#[cfg(test)]").next().unwrap_or_default();
                let text = shipped.to_ascii_lowercase();
                for marker in HAND_WRITTEN {
                    if text.contains(&marker.to_ascii_lowercase()) {
                        problems.push(format!("{}: {marker}", path.display()));
                    }
                }
            }
        }
    }
    assert!(files > 100, "only {files} source files read");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
