//! What the bootstraps must not link (issue 11: each cost megabytes or milliseconds of every
//! cold start). Checked for every function `template.yaml` builds, so a new function is
//! covered too: its dependency tree, resolved as `sam build` / cargo-lambda resolve it (that
//! package alone), must not contain these crates.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::BTreeMap;
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
        "aws-sdk-dynamodb",
        "the AWS SDK (~0.8 MB and ~0.3 ms of every call): platform::aws's own JSON-protocol client",
    ),
    ("aws-sdk-sqs", "the AWS SDK: platform::aws::Sqs"),
    (
        "aws-smithy-runtime",
        "the SDK's orchestrator: platform::aws::json",
    ),
    ("aws-sigv4", "the SDK's signer: platform::aws::sigv4"),
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
