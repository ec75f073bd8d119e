//! Whether a JSON value is what a schema of the committed OpenAPI contract describes: the
//! products' client crates check samples of their wire types with it, so a field renamed on
//! either side of a cross-product call fails a test.
//!
//! Stricter than JSON Schema where a rename would slip through: an object may hold no key its
//! schema does not name. It reads the subset of schemas utoipa writes (`$ref`, `type`, `enum`,
//! `properties`, `required`, `items`, `oneOf`, `allOf`).

use serde::Serialize;
use serde_json::Value;

/// The committed contract, `functions/web/openapi.json` (the web function serves it).
pub fn committed() -> Result<Value, String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../functions/web/openapi.json"
    );
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
}

/// `sample`, serialized, against the component `name` of `document`.
pub fn check_sample(document: &Value, name: &str, sample: &impl Serialize) -> Result<(), String> {
    let value = serde_json::to_value(sample).map_err(|e| format!("{name}: {e}"))?;
    check_component(document, name, &value).map_err(|e| format!("{e}\n{value:#}"))
}

/// `value` against the component `name` of `document` (an OpenAPI document); `Err` names
/// the first place they disagree.
pub fn check_component(document: &Value, name: &str, value: &Value) -> Result<(), String> {
    let schema = component(document, name)?;
    check(document, schema, value, name)
}

/// The schema of the 200 answer of `method path` must be the component `name`.
pub fn check_answer(document: &Value, method: &str, path: &str, name: &str) -> Result<(), String> {
    let reference = document
        .pointer(&format!(
            "/paths/{}/{method}/responses/200/content/application~1json/schema/$ref",
            path.replace('~', "~0").replace('/', "~1")
        ))
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{method} {path} has no JSON 200 answer with a $ref"))?;
    let expected = format!("#/components/schemas/{name}");
    if reference == expected {
        Ok(())
    } else {
        Err(format!(
            "{method} {path} answers {reference}, not {expected}"
        ))
    }
}

fn component<'a>(document: &'a Value, name: &str) -> Result<&'a Value, String> {
    document
        .pointer(&format!("/components/schemas/{name}"))
        .ok_or_else(|| format!("no component schema {name}"))
}

fn check(document: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference
            .strip_prefix("#/components/schemas/")
            .ok_or_else(|| format!("{at}: unsupported $ref {reference}"))?;
        return check(document, component(document, name)?, value, at);
    }
    if let Some(options) = schema.get("oneOf").and_then(Value::as_array) {
        let errors: Vec<String> = options
            .iter()
            .filter_map(|option| check(document, option, value, at).err())
            .collect();
        return if errors.len() < options.len() {
            Ok(())
        } else {
            Err(format!(
                "{at}: matches no oneOf option ({})",
                errors.join("; ")
            ))
        };
    }
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        for part in parts {
            check(document, part, value, at)?;
        }
    }
    if let Some(types) = schema.get("type") {
        let names: Vec<&str> = match types {
            Value::String(name) => vec![name.as_str()],
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            _ => return Err(format!("{at}: unsupported type {types}")),
        };
        if !names.iter().any(|name| is_type(name, value)) {
            return Err(format!("{at}: {value} is not {}", names.join(" or ")));
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            return Err(format!("{at}: {value} is not one of {allowed:?}"));
        }
    }
    if let (Some(items), Some(values)) = (schema.get("items"), value.as_array()) {
        for (i, item) in values.iter().enumerate() {
            check(document, items, item, &format!("{at}[{i}]"))?;
        }
    }
    if let Some(object) = value.as_object() {
        let properties = schema.get("properties").and_then(Value::as_object);
        if let Some(properties) = properties {
            for (key, field) in object {
                let property = properties
                    .get(key)
                    .ok_or_else(|| format!("{at}: the schema names no field {key}"))?;
                check(document, property, field, &format!("{at}.{key}"))?;
            }
        }
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !object.contains_key(key) {
                return Err(format!("{at}: the required field {key} is missing"));
            }
        }
    }
    Ok(())
}

fn is_type(name: &str, value: &Value) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn document() -> Value {
        json!({
            "paths": {"/a/{id}": {"get": {"responses": {"200": {"content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/A"}}}}}}}},
            "components": {"schemas": {
                "A": {"type": "object", "required": ["id", "kind"], "properties": {
                    "id": {"type": "string"},
                    "kind": {"$ref": "#/components/schemas/Kind"},
                    "next": {"type": ["string", "null"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "b": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/B"}]}
                }},
                "B": {"type": "object", "properties": {"n": {"type": "integer"}}},
                "Kind": {"type": "string", "enum": ["X", "Y"]}
            }}
        })
    }

    #[test]
    fn a_value_as_described_conforms() {
        let doc = document();
        let ok = json!({"id": "1", "kind": "X", "next": null, "tags": ["t"], "b": {"n": 2}});
        assert_eq!(check_component(&doc, "A", &ok), Ok(()));
        assert_eq!(check_answer(&doc, "get", "/a/{id}", "A"), Ok(()));
    }

    #[test]
    fn a_renamed_missing_or_mistyped_field_does_not() {
        let doc = document();
        for bad in [
            json!({"id": "1", "kind": "X", "tag": ["t"]}),
            json!({"id": "1"}),
            json!({"id": 1, "kind": "X"}),
            json!({"id": "1", "kind": "Z"}),
            json!({"id": "1", "kind": "X", "b": {"m": 2}}),
        ] {
            assert!(check_component(&doc, "A", &bad).is_err(), "{bad}");
        }
        assert!(check_answer(&doc, "get", "/a/{id}", "B").is_err());
    }
}
