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
use stack_tests::contract::{self, API_LAYER_DIR, CONTRACT_FILE};

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
    let files = apigen::generate(&json).unwrap_or_else(|e| panic!("generating failed: {e}"));
    for (name, js) in &files {
        check_committed(&format!("{API_LAYER_DIR}/{name}"), js);
    }
    // A generated module the contract no longer makes (a product's tag gone) is removed.
    let dir = contract::path(API_LAYER_DIR);
    for entry in std::fs::read_dir(&dir).expect("the client folder") {
        let name = entry.expect("a client file").file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".gen.js") && !files.contains_key(name.as_ref()) {
            if updating() {
                std::fs::remove_file(dir.join(name.as_ref()))
                    .unwrap_or_else(|e| panic!("remove {name}: {e}"));
            } else {
                panic!(
                    "{API_LAYER_DIR}/{name} is not generated from the contract any more.\n\
                     Remove it with: UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract"
                );
            }
        }
    }
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

/// Every operation says how it is authenticated: a scheme, several, or `[]` for none (an
/// operation without `security` is what Redocly's `security-defined` rule reports, and a new
/// route must not forget it). Each scheme named is defined.
#[test]
fn every_operation_declares_its_security() {
    let text = contract::contract_text().unwrap_or_else(|e| panic!("merging failed:\n{e}"));
    let json: Value = serde_json::from_str(&text).expect("contract is JSON");
    assert!(
        json.get("security").is_none(),
        "the contract has a global security list: each operation states its own"
    );
    let schemes = json["components"]["securitySchemes"]
        .as_object()
        .expect("security schemes");
    let mut public = 0;
    for (method, path, operation) in contract::operations(&json) {
        let id = operation["operationId"].as_str().unwrap_or("");
        let requirements = operation
            .get("security")
            .and_then(Value::as_array)
            .unwrap_or_else(|| {
                panic!(
                    "{method} {path} ({id}) declares no `security`: add `security(())` to its \
                     utoipa path when it needs no credentials, or its scheme"
                )
            });
        if requirements.is_empty() {
            public += 1;
        }
        assert!(
            requirements != &[serde_json::json!({})],
            "{method} {path} ({id}): an operation needing no credentials is `security: []`"
        );
        for requirement in requirements {
            for scheme in requirement
                .as_object()
                .expect("a requirement object")
                .keys()
            {
                assert!(
                    schemes.contains_key(scheme),
                    "{method} {path} ({id}) names the undefined scheme {scheme}"
                );
            }
        }
    }
    assert!(public >= 20, "only {public} operations need no credentials");
}

/// The community's request strings: the contract's `pattern`, `minLength` and `maxLength`
/// accept exactly what the domain's `parse` accepts (the rule of `local/fuzz`: a rule the code
/// enforces is in the schema, so schema-valid data is never refused and the fuzz config needs
/// no allowance). Patterns are read as ECMA reads them (`$` is the end of the string), which
/// Rust's `regex` shares for these.
#[test]
fn patterns_state_what_the_code_accepts() {
    use community::input::CommentText;
    use community::input::SearchText;
    use community::input::{Content, Excerpt, Title, TopicName, WebUrl};

    let text = contract::contract_text().unwrap_or_else(|e| panic!("merging failed:\n{e}"));
    let json: Value = serde_json::from_str(&text).expect("contract is JSON");
    let schemas = &json["components"]["schemas"];
    let search = json["paths"]["/api/v1/posts/search"]["get"]["parameters"]
        .as_array()
        .expect("search parameters")
        .iter()
        .find(|p| p["name"] == "q")
        .expect("q")["schema"]
        .clone();
    // PATCH and PUT state the same rules.
    for field in [
        "title",
        "content",
        "excerpt",
        "coverImageUrl",
        "sourceUrl",
        "topics",
    ] {
        let put = &schemas["PostRequest"]["properties"][field];
        let patch = &schemas["PostPatchRequest"]["properties"][field];
        for key in [
            "pattern",
            "minLength",
            "maxLength",
            "$ref",
            "items",
            "maxItems",
        ] {
            assert_eq!(put.get(key), patch.get(key), "{field}.{key}");
        }
    }
    assert_eq!(
        schemas["CommentRequest"]["properties"]["text"]["pattern"],
        schemas["CommentEditRequest"]["properties"]["text"]["pattern"]
    );
    // Nulls the code refuses are not in the PATCH schema: omitting keeps the field.
    for field in ["title", "content", "status"] {
        let schema = &schemas["PostPatchRequest"]["properties"][field];
        assert!(
            !schema.to_string().contains("\"null\""),
            "PostPatchRequest.{field} is nullable: {schema}"
        );
    }
    assert_eq!(
        schemas["PostRequest"]["properties"]["sourceUrl"]["items"]["$ref"],
        "#/components/schemas/WebUrlText"
    );
    assert_eq!(
        schemas["PostRequest"]["properties"]["topics"]["items"]["$ref"],
        "#/components/schemas/TopicNameText"
    );

    type Parse = fn(&str) -> bool;
    let fields: [(&str, &Value, Parse); 10] = [
        ("LabelNameSchema", &schemas["LabelNameSchema"], |s| {
            news::input::reader::LabelName::parse("label", s).is_ok()
        }),
        ("MarkIdSchema", &schemas["MarkIdSchema"], |s| {
            news::input::reader::MarkIds::parse("ids", vec![s.to_string()]).is_ok()
        }),
        (
            "PostRequest.title",
            &schemas["PostRequest"]["properties"]["title"],
            |s| Title::parse(s).is_ok(),
        ),
        (
            "PostRequest.content",
            &schemas["PostRequest"]["properties"]["content"],
            |s| Content::parse(s).is_ok(),
        ),
        (
            "PostRequest.excerpt",
            &schemas["PostRequest"]["properties"]["excerpt"],
            |s| Excerpt::parse(s).is_ok(),
        ),
        ("WebUrlText", &schemas["WebUrlText"], |s| {
            WebUrl::parse("sourceUrl", s).is_ok()
        }),
        ("TopicNameText", &schemas["TopicNameText"], |s| {
            TopicName::parse("topics", s).is_ok()
        }),
        (
            "CommentRequest.text",
            &schemas["CommentRequest"]["properties"]["text"],
            |s| CommentText::parse(Some(s)).is_ok(),
        ),
        ("searchPosts q", &search, |s| {
            SearchText::parse(Some(s)).is_ok()
        }),
        (
            "CommentEditRequest.text",
            &schemas["CommentEditRequest"]["properties"]["text"],
            |s| CommentText::parse(Some(s)).is_ok(),
        ),
    ];
    for (name, schema, parse) in fields {
        let pattern = schema["pattern"]
            .as_str()
            .unwrap_or_else(|| panic!("{name} has no pattern: {schema}"));
        let regex = regex::Regex::new(pattern).unwrap_or_else(|e| panic!("{name}: {e}"));
        let min = schema["minLength"].as_u64().unwrap_or(0);
        let max = schema["maxLength"].as_u64().unwrap_or(u64::MAX);
        let mut checked = 0;
        for sample in samples() {
            let chars = sample.chars().count() as u64;
            let schema_valid = (min..=max).contains(&chars) && regex.is_match(&sample);
            assert_eq!(
                schema_valid,
                parse(&sample),
                "{name}: the schema {} {sample:?}, the code does not",
                if schema_valid { "accepts" } else { "refuses" }
            );
            checked += 1;
        }
        assert!(checked > 10_000, "{name}: {checked} samples");
    }
}

/// Strings at the edges of the community's rules: every string of up to 3 characters over
/// characters that matter (controls, whitespace of every kind, URI delimiters, letters of
/// several scripts, a symbol whose normal form is letters), then the same characters at the
/// ends and in the middle of strings at the length bounds, padded with whitespace, and URIs.
fn samples() -> Vec<String> {
    const CHARS: &[char] = &[
        'a', 'Z', 'é', '日', '😀', '1', '™', '!', '#', ' ', '\t', '\n', '\r', '\u{b}', '\u{c}',
        '\u{85}', '\u{a0}', '\u{3000}', '\u{2028}', '\u{7}', '\0', '\u{7f}', '\u{9f}', '\u{200b}',
        '\u{feff}', '/', ':', '@', '?', '[', ']', '\u{301}',
    ];
    let mut out = vec![String::new()];
    let mut shorter = vec![String::new()];
    for _ in 0..3 {
        let longer: Vec<String> = shorter
            .iter()
            .flat_map(|s| CHARS.iter().map(move |c| format!("{s}{c}")))
            .collect();
        out.extend(longer.iter().cloned());
        shorter = longer;
    }
    let pads = ["", " ", "\t\n", "\u{3000}\u{85}", "\u{7}"];
    for core in [
        1, 2, 4, 5, 48, 49, 50, 51, 98, 99, 100, 101, 199, 200, 201, 499, 500, 501,
    ] {
        for c in CHARS {
            let body = "w".repeat(core - 1);
            for (left, right) in pads.iter().flat_map(|l| pads.iter().map(move |r| (l, r))) {
                out.push(format!("{left}{c}{body}{right}"));
                out.push(format!("{left}{body}{c}{right}"));
                if core > 2 {
                    let (a, b) = body.split_at(core / 2);
                    out.push(format!("{left}{a}{c}{b}{right}"));
                }
            }
        }
    }
    let hosts = [
        "", "a", "a:", "a:80", ":80", "a:b", "[::1]", "[::1]:x", "]:1", "u@", "u@a", "u@:1",
        "a@b@c",
    ];
    for scheme in [
        "http://", "https://", "HTTPS://", "hTtP://", "ftp://", "http:/", "https:", "//",
    ] {
        for host in hosts {
            for rest in ["", "/", "/p?q#f", "?x", "#", "/a b", "/é", "/\u{7}"] {
                out.push(format!("{scheme}{host}{rest}"));
            }
        }
    }
    out.push(format!("https://e.com/{}", "a".repeat(2048 - 14)));
    out.push(format!("https://e.com/{}", "a".repeat(2048 - 13)));
    out
}
