//! The resource every export describes (`service.name`, the instance, the cloud) and the
//! `key=value,...` lists of the `OTEL_*` variables.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::export::attr;
use super::hex;
use super::trace::random_trace_id;
use super::SCOPE_NAME;
use crate::config::Env;

/// `service.name` (`OTEL_SERVICE_NAME` wins over `OTEL_RESOURCE_ATTRIBUTES`), the extra
/// attributes, and what identifies this instance.
pub(super) fn resource_attributes(env: &Env, default_service_name: &str) -> Value {
    let mut attributes: BTreeMap<String, String> =
        key_values(env.get("OTEL_RESOURCE_ATTRIBUTES").unwrap_or(""))
            .into_iter()
            .collect();
    let service = env
        .get("OTEL_SERVICE_NAME")
        .map(str::trim)
        .map(str::to_string)
        .or_else(|| attributes.get("service.name").cloned())
        .unwrap_or_else(|| default_service_name.to_string());
    attributes.insert("service.name".into(), service);
    attributes
        .entry("service.instance.id".into())
        .or_insert_with(|| hex(&random_trace_id()));
    attributes.insert("telemetry.sdk.name".into(), SCOPE_NAME.into());
    attributes.insert("telemetry.sdk.language".into(), "rust".into());
    if let Some(name) = env.get("AWS_LAMBDA_FUNCTION_NAME") {
        attributes
            .entry("faas.name".into())
            .or_insert_with(|| name.to_string());
        attributes
            .entry("cloud.provider".into())
            .or_insert_with(|| "aws".into());
    }
    if let Some(region) = env.get("AWS_REGION") {
        attributes
            .entry("cloud.region".into())
            .or_insert_with(|| region.to_string());
    }
    let list: Vec<Value> = attributes.iter().map(|(k, v)| attr(k, v)).collect();
    json!({ "attributes": list })
}

/// `k=v,k2=v2` with percent-encoded values (the OTEL_* list format); malformed entries are
/// skipped.
pub(super) fn key_values(raw: &str) -> Vec<(String, String)> {
    raw.split(',')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            let k = k.trim();
            (!k.is_empty()).then(|| (k.to_string(), percent_decode(v.trim())))
        })
        .collect()
}

/// `%XX` escapes decoded; a `%` not followed by two hex digits is kept as is.
fn percent_decode(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len());
    let mut rest = s.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        let escaped = (byte == b'%')
            .then(|| tail.split_at_checked(2))
            .flatten()
            .and_then(|(pair, after)| Some((hex_byte(pair)?, after)));
        match escaped {
            Some((decoded, after)) => {
                out.push(decoded);
                rest = after;
            }
            None => {
                out.push(byte);
                rest = tail;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_byte(pair: &[u8]) -> Option<u8> {
    u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_has_service_and_extra_attributes() {
        let env = Env::new()
            .with(
                "OTEL_RESOURCE_ATTRIBUTES",
                "deployment.environment=test, team=news%20desk,bad",
            )
            .with("AWS_LAMBDA_FUNCTION_NAME", "GenAi");
        let resource = resource_attributes(&env, "gen-ai");
        let get = |key: &str| {
            resource["attributes"]
                .as_array()
                .and_then(|a| a.iter().find(|x| x["key"] == key))
                .map(|x| x["value"]["stringValue"].clone())
        };
        assert_eq!(get("service.name"), Some(json!("gen-ai")));
        assert_eq!(get("deployment.environment"), Some(json!("test")));
        assert_eq!(get("team"), Some(json!("news desk")));
        assert_eq!(get("faas.name"), Some(json!("GenAi")));
        assert!(get("service.instance.id").is_some());
        let named = resource_attributes(
            &Env::new()
                .with("OTEL_SERVICE_NAME", "other")
                .with("OTEL_RESOURCE_ATTRIBUTES", "service.name=ignored"),
            "gen-ai",
        );
        assert!(named["attributes"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["value"]["stringValue"] == "other")));
    }

    #[test]
    fn percent_decoding_keeps_broken_escapes() {
        assert_eq!(percent_decode("a%20b%2"), "a b%2");
        assert_eq!(percent_decode("%zz%41%"), "%zzA%");
        assert_eq!(percent_decode("caf%C3%A9"), "café");
    }
}
