//! The template, read as YAML, and what its values name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_yaml::{Mapping, Value};

pub(crate) const FUNCTION_TYPES: &[&str] = &["AWS::Serverless::Function", "AWS::Lambda::Function"];
pub(crate) const QUEUE: &str = "AWS::SQS::Queue";
pub(crate) const LOG_GROUP: &str = "AWS::Logs::LogGroup";
pub(crate) const ALARM: &str = "AWS::CloudWatch::Alarm";

/// The local crate's directory in the checkout under test, found when the test runs:
/// `CARGO_MANIFEST_DIR` as cargo (and local/run-tests) sets it, or the directory it runs in,
/// never the build-time path (cargo reuses a binary built in another checkout).
pub(crate) fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}

pub(crate) fn template_text() -> String {
    let path = manifest_dir().join("..").join("template.yaml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The template's `Resources` and `Parameters`, read as YAML (tags kept).
pub(crate) struct Doc {
    root: Value,
}

impl Doc {
    pub(crate) fn parse(text: &str) -> Self {
        Self {
            root: serde_yaml::from_str(text).expect("template.yaml is YAML"),
        }
    }

    pub(crate) fn section(&self, name: &str) -> Mapping {
        self.root
            .get(name)
            .and_then(Value::as_mapping)
            .cloned()
            .unwrap_or_default()
    }

    /// Logical id → resource, for every resource of one of `types`.
    pub(crate) fn resources_of(&self, types: &[&str]) -> BTreeMap<String, Value> {
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
pub(crate) fn intrinsic<'a>(value: &'a Value, name: &str) -> Option<&'a Value> {
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
pub(crate) fn ref_of(value: &Value) -> Option<&str> {
    intrinsic(value, "Ref").and_then(Value::as_str)
}

/// `!GetAtt X.Attr` (or the list form) → (X, Attr).
pub(crate) fn get_att_of(value: &Value) -> Option<(String, String)> {
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
pub(crate) fn named_resources(value: &Value, out: &mut BTreeSet<String>) {
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

pub(crate) fn prop<'a>(resource: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter()
        .try_fold(resource.get("Properties")?, |v, key| v.get(*key))
}

pub(crate) fn text(resource: &Value, path: &[&str]) -> Option<String> {
    match prop(resource, path)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}
