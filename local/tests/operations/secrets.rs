//! Secrets: every `NoEcho` parameter can come from a store.

use std::collections::BTreeSet;

use serde_yaml::Value;

use crate::template::{intrinsic, ref_of, Doc};

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
pub(crate) fn secret_faults(doc: &Doc) -> Vec<String> {
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
