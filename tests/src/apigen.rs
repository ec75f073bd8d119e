//! Generates the web client's typed API layer from the contract, one module per product
//! (the operations' OpenAPI tag) so a page loads only its product's calls:
//! `functions/web/client/api-<tag>.gen.js` holds one function per operation of the tag a
//! browser user can call, each going through `request()` of the hand-written `http.js`;
//! `api-types.gen.js` holds a JSDoc typedef per schema (types only: no page loads it).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::Value;

use crate::contract::operations;

/// The security scheme of user tokens (see `platform::openapi`).
const BEARER_JWT: &str = "bearerJwt";
/// A body the browser sends as a `FormData` (an image upload).
const FORM_DATA: &str = "multipart/form-data";
/// The module of the schemas' typedefs.
pub const TYPES_FILE: &str = "api-types.gen.js";

/// Every generated file's first lines.
const HEADER: &str =
    "// Generated from functions/web/openapi.json by tests/src/apigen.rs: do not edit.\n\
     // After changing a handler or the contract, regenerate both with\n\
     //   UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract\n";

/// The generated modules for `contract` (an OpenAPI 3.1 document as JSON), by file name in
/// `functions/web/client/`.
pub fn generate(contract: &Value) -> Result<BTreeMap<String, String>, String> {
    let mut skipped = Vec::new();
    // Per tag: its functions and the schemas they name.
    let mut products: BTreeMap<String, (String, BTreeSet<String>)> = BTreeMap::new();
    for (method, path, operation) in operations(contract) {
        let id = operation["operationId"]
            .as_str()
            .ok_or_else(|| format!("{method} {path} has no operationId"))?;
        if let Some(reason) = skip_reason(&path, &operation) {
            skipped.push(format!("{id} ({reason})"));
            continue;
        }
        let tag = operation
            .pointer("/tags/0")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{method} {path} ({id}) has no tag"))?;
        if !tag
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(format!("{id}: tag {tag:?} cannot name a file"));
        }
        let (functions, schemas) = products.entry(tag.to_string()).or_default();
        functions.push_str(&operation_function(id, &method, &path, &operation)?);
        schemas.extend(named_schemas(&operation));
    }

    let mut files = BTreeMap::new();
    for (tag, (functions, schemas)) in products {
        let mut out = String::from(HEADER);
        out.push_str(
            "\nimport { request } from \"./http.js\";\n\n\
             /** @typedef {import(\"./http.js\").RequestOptions} RequestOptions */\n",
        );
        for name in schemas {
            let _ = writeln!(
                out,
                "/** @typedef {{import(\"./{TYPES_FILE}\").{name}}} {name} */"
            );
        }
        out.push_str(&functions);
        files.insert(format!("api-{tag}.gen.js"), out);
    }

    let mut types = String::from(HEADER);
    if !skipped.is_empty() {
        types.push_str("//\n// Operations without a function (not for browser users):\n");
        for s in &skipped {
            let _ = writeln!(types, "//   {s}");
        }
    }
    // A module, so that its typedefs are exported.
    types.push_str("\nexport {};\n");
    if let Some(schemas) = contract
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    {
        for (name, schema) in schemas {
            types.push('\n');
            types.push_str(&typedef(name, schema));
        }
    }
    files.insert(TYPES_FILE.to_string(), types);
    Ok(files)
}

/// The schemas an operation's generated function names: its parameters', body's and 2xx
/// answers' `$ref`s.
fn named_schemas(operation: &Value) -> BTreeSet<String> {
    fn refs(value: &Value, found: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                if let Some(name) = map
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/components/schemas/"))
                {
                    found.insert(name.to_string());
                }
                map.values().for_each(|v| refs(v, found));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, found)),
            _ => {}
        }
    }
    let mut found = BTreeSet::new();
    for key in ["parameters", "requestBody"] {
        if let Some(part) = operation.get(key) {
            refs(part, &mut found);
        }
    }
    if let Some(responses) = operation.get("responses").and_then(Value::as_object) {
        for (status, response) in responses {
            if status.starts_with('2') {
                refs(response, &mut found);
            }
        }
    }
    found
}

/// Why an operation gets no function, if it gets none.
fn skip_reason(path: &str, operation: &Value) -> Option<&'static str> {
    if !path.starts_with("/api/") {
        return Some("platform surface, not an API call");
    }
    if let Some(requirements) = operation.get("security").and_then(Value::as_array) {
        let user_callable = requirements.iter().any(|r| {
            r.as_object()
                .is_some_and(|r| r.is_empty() || r.contains_key(BEARER_JWT))
        });
        if !requirements.is_empty() && !user_callable {
            return Some("service or internal credentials only");
        }
    }
    if let Some(content) = operation
        .pointer("/requestBody/content")
        .and_then(Value::as_object)
    {
        if !content.contains_key("application/json") && !content.contains_key(FORM_DATA) {
            return Some("not a JSON or multipart request body");
        }
    }
    None
}

/// `"required"`, `"optional"` or `None`: how the operation uses the user's token.
fn auth_mode(operation: &Value) -> Option<&'static str> {
    let requirements = operation.get("security").and_then(Value::as_array)?;
    let bearer = requirements.iter().any(|r| r.get(BEARER_JWT).is_some());
    let anonymous = requirements
        .iter()
        .any(|r| r.as_object().is_some_and(|o| o.is_empty()));
    match (bearer, anonymous) {
        (true, false) => Some("required"),
        (true, true) => Some("optional"),
        _ => None,
    }
}

fn operation_function(
    id: &str,
    method: &str,
    path: &str,
    operation: &Value,
) -> Result<String, String> {
    let parameters: Vec<&Value> = operation
        .get("parameters")
        .and_then(Value::as_array)
        .map(|p| p.iter().collect())
        .unwrap_or_default();
    let in_ = |p: &&Value, place: &str| p["in"].as_str() == Some(place);
    let path_params: Vec<&Value> = parameters
        .iter()
        .copied()
        .filter(|p| in_(p, "path"))
        .collect();
    let query_params: Vec<&Value> = parameters
        .iter()
        .copied()
        .filter(|p| in_(p, "query"))
        .collect();

    let mut doc = String::from("\n/**\n");
    let summary = operation["summary"].as_str().unwrap_or("");
    let description = operation["description"].as_str().unwrap_or("");
    for text in [summary, description] {
        if !text.is_empty() {
            for line in comment_text(text).lines() {
                doc.push_str(format!(" * {line}").trim_end());
                doc.push('\n');
            }
            doc.push_str(" *\n");
        }
    }
    let _ = writeln!(doc, " * `{method} {path}`");

    let mut args = Vec::new();
    let mut url = String::new();
    for segment in path.split('/').skip(1) {
        url.push('/');
        // A parameter may fill a whole segment or its start (`{slug}.rss`).
        match segment.strip_prefix('{').and_then(|s| s.split_once('}')) {
            Some((name, suffix)) => {
                let param = path_params
                    .iter()
                    .find(|p| p["name"].as_str() == Some(name))
                    .ok_or_else(|| format!("{id}: path parameter {name} is not declared"))?;
                let js = camel(name);
                let _ = writeln!(
                    doc,
                    " * @param {{{}}} {js}{}",
                    ts_type(&param["schema"]),
                    param_description(param)
                );
                let _ = write!(url, "${{encodeURIComponent({js})}}{suffix}");
                args.push(js);
            }
            None => url.push_str(segment),
        }
    }

    let mut call = vec!["...options".to_string()];
    if let Some(body) = operation.get("requestBody") {
        let required = body["required"].as_bool().unwrap_or(false);
        match body["content"].get("application/json") {
            Some(json) => {
                let name = if required { "body" } else { "[body]" };
                let _ = writeln!(doc, " * @param {{{}}} {name}", ts_type(&json["schema"]));
                args.push("body".to_string());
                call.push("body".to_string());
            }
            None => {
                // A multipart body: the fields of its schema, in a FormData.
                let schema = &body["content"][FORM_DATA]["schema"];
                let name = if required { "form" } else { "[form]" };
                let _ = writeln!(
                    doc,
                    " * @param {{FormData}} {name} Sent as {FORM_DATA}: the fields of `{}`.",
                    ts_type(schema)
                );
                args.push("form".to_string());
                call.push("form".to_string());
            }
        }
    }
    if !query_params.is_empty() {
        let fields: Vec<String> = query_params
            .iter()
            .map(|p| {
                let name = p["name"].as_str().unwrap_or("");
                let optional = if p["required"].as_bool() == Some(true) {
                    ""
                } else {
                    "?"
                };
                format!(
                    "{}{optional}: {}",
                    property_key(name),
                    ts_type(&p["schema"])
                )
            })
            .collect();
        let all_optional = query_params
            .iter()
            .all(|p| p["required"].as_bool() != Some(true));
        let name = if all_optional { "[query]" } else { "query" };
        let _ = writeln!(doc, " * @param {{{{{}}}}} {name}", fields.join(", "));
        args.push(if all_optional { "query = {}" } else { "query" }.to_string());
        call.push("query".to_string());
    }
    if let Some(mode) = auth_mode(operation) {
        call.push(format!("auth: {mode:?}"));
    }
    doc.push_str(" * @param {RequestOptions} [options]\n");
    args.push("options = {}".to_string());
    let _ = writeln!(doc, " * @returns {{Promise<{}>}}", success_type(operation));
    doc.push_str(" */\n");

    let _ = writeln!(
        doc,
        "export function {id}({}) {{\n  return request({method:?}, `{url}`, {{ {} }});\n}}",
        args.join(", "),
        call.join(", ")
    );
    Ok(doc)
}

/// The union of what the operation's 2xx responses carry (`null` for no body).
fn success_type(operation: &Value) -> String {
    let mut types = BTreeSet::new();
    if let Some(responses) = operation.get("responses").and_then(Value::as_object) {
        for (status, response) in responses {
            if !status.starts_with('2') {
                continue;
            }
            match response.pointer("/content/application~1json/schema") {
                Some(schema) => types.insert(ts_type(schema)),
                None => types.insert("null".to_string()),
            };
        }
    }
    match types.len() {
        0 => "unknown".to_string(),
        1 => types.into_iter().next().unwrap_or_default(),
        _ => types.into_iter().collect::<Vec<_>>().join("|"),
    }
}

fn typedef(name: &str, schema: &Value) -> String {
    let mut out = String::from("/**\n");
    if let Some(description) = schema["description"].as_str() {
        for line in comment_text(description).lines() {
            out.push_str(format!(" * {line}").trim_end());
            out.push('\n');
        }
    }
    match schema.get("properties").and_then(Value::as_object) {
        Some(properties) if schema["type"] == "object" || schema.get("type").is_none() => {
            let _ = writeln!(out, " * @typedef {{Object}} {name}");
            let required = required_set(schema);
            for (key, property) in properties {
                let key_text = if required.contains(key) {
                    key.clone()
                } else {
                    format!("[{key}]")
                };
                let description = property["description"]
                    .as_str()
                    .map(|d| format!(" {}", comment_text(d).replace('\n', " ")))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    " * @property {{{}}} {key_text}{description}",
                    ts_type(property)
                );
            }
        }
        _ => {
            let _ = writeln!(out, " * @typedef {{{}}} {name}", ts_type(schema));
        }
    }
    out.push_str(" */\n");
    out
}

fn required_set(schema: &Value) -> BTreeSet<String> {
    schema["required"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A JSON Schema as a TypeScript type (as JSDoc and `tsc --checkJs` read it).
pub fn ts_type(schema: &Value) -> String {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return reference
            .rsplit('/')
            .next()
            .unwrap_or("unknown")
            .to_string();
    }
    if let Some(constant) = schema.get("const") {
        return constant.to_string();
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return union(values.iter().map(Value::to_string));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(members) = schema.get(key).and_then(Value::as_array) {
            return union(members.iter().map(ts_type));
        }
    }
    if let Some(members) = schema.get("allOf").and_then(Value::as_array) {
        let parts: Vec<String> = members.iter().map(ts_type).collect();
        return match parts.len() {
            1 => parts[0].clone(),
            _ => format!("({})", parts.join(" & ")),
        };
    }
    match schema.get("type") {
        Some(Value::Array(kinds)) => union(kinds.iter().map(|kind| {
            let mut single = schema.clone();
            single["type"] = kind.clone();
            ts_type(&single)
        })),
        Some(Value::String(kind)) => match kind.as_str() {
            "string" => "string".to_string(),
            "integer" | "number" => "number".to_string(),
            "boolean" => "boolean".to_string(),
            "null" => "null".to_string(),
            "array" => format!("Array<{}>", ts_type(&schema["items"])),
            "object" => object_type(schema),
            _ => "unknown".to_string(),
        },
        _ if schema.get("properties").is_some() => object_type(schema),
        _ => "unknown".to_string(),
    }
}

fn object_type(schema: &Value) -> String {
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        let required = required_set(schema);
        let fields: Vec<String> = properties
            .iter()
            .map(|(key, property)| {
                let optional = if required.contains(key) { "" } else { "?" };
                format!("{}{optional}: {}", property_key(key), ts_type(property))
            })
            .collect();
        return format!("{{{}}}", fields.join(", "));
    }
    match schema.get("additionalProperties") {
        Some(Value::Object(_)) => {
            format!(
                "Object<string, {}>",
                ts_type(&schema["additionalProperties"])
            )
        }
        _ => "Object<string, unknown>".to_string(),
    }
}

fn union(members: impl Iterator<Item = String>) -> String {
    let mut seen = Vec::new();
    for member in members {
        if !seen.contains(&member) {
            seen.push(member);
        }
    }
    match seen.len() {
        0 => "never".to_string(),
        1 => seen.remove(0),
        _ => format!("({})", seen.join("|")),
    }
}

fn property_key(key: &str) -> String {
    let identifier = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        key.to_string()
    } else {
        format!("{key:?}")
    }
}

fn param_description(param: &Value) -> String {
    param["description"]
        .as_str()
        .map(|d| format!(" {}", comment_text(d).replace('\n', " ")))
        .unwrap_or_default()
}

/// `source_id` → `sourceId`; anything else not an identifier character becomes `_`.
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' || c == '-' {
            upper = !out.is_empty();
        } else if c.is_ascii_alphanumeric() {
            if upper {
                out.push(c.to_ascii_uppercase());
            } else {
                out.push(c);
            }
            upper = false;
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// Text safe inside a `/** */` comment.
fn comment_text(text: &str) -> String {
    text.replace("*/", "*\\/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schema_types() {
        assert_eq!(
            ts_type(&json!({"type": ["string", "null"]})),
            "(string|null)"
        );
        assert_eq!(
            ts_type(&json!({"type": "array", "items": {"$ref": "#/components/schemas/Source"}})),
            "Array<Source>"
        );
        assert_eq!(
            ts_type(&json!({"type": "string", "enum": ["short", "long"]})),
            "(\"short\"|\"long\")"
        );
        assert_eq!(
            ts_type(&json!({"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/A"}]})),
            "(null|A)"
        );
        assert_eq!(
            ts_type(
                &json!({"type": "object", "required": ["id"], "properties": {
                "id": {"type": "string"}, "deleted": {"type": "boolean"}}})
            ),
            "{deleted?: boolean, id: string}"
        );
        assert_eq!(
            ts_type(&json!({"type": "object", "additionalProperties": {"type": "integer"}})),
            "Object<string, number>"
        );
    }

    #[test]
    fn one_function_per_browser_operation() {
        let contract = json!({
            "paths": {
                "/api/content/articles/{id}": {"get": {
                    "operationId": "getArticle",
                    "tags": ["content"],
                    "summary": "One article",
                    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                    "responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Article"}}}}}
                }},
                "/api/content/sources/{id}/subscribers/{user_id}": {"post": {
                    "operationId": "addSourceSubscriber",
                    "tags": ["content"],
                    "security": [{"sourceWrite": ["source.write"]}],
                    "responses": {"200": {}}
                }},
                "/api/users/users/me/subscriptions/{sourceId}": {"delete": {
                    "operationId": "unsubscribeFromSource",
                    "tags": ["users"],
                    "security": [{"bearerJwt": []}],
                    "parameters": [{"name": "sourceId", "in": "path", "required": true, "schema": {"type": "string"}}],
                    "responses": {
                        "200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Source"}}}},
                        "204": {"description": "deleted"}
                    }
                }},
                "/api/v1/uploads/images": {"post": {
                    "operationId": "uploadImage",
                    "tags": ["community"],
                    "security": [{"bearerJwt": []}],
                    "requestBody": {"required": true, "content": {"multipart/form-data": {"schema": {"$ref": "#/components/schemas/ImageUpload"}}}},
                    "responses": {"201": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/UploadedImage"}}}}}
                }},
                "/api/users/oauth2/token": {"post": {
                    "operationId": "issueServiceToken",
                    "tags": ["users"],
                    "requestBody": {"required": true, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object"}}}},
                    "responses": {"200": {}}
                }},
                "/api/content/articles": {"get": {
                    "operationId": "listArticles",
                    "tags": ["content"],
                    "parameters": [{"name": "page", "in": "query", "schema": {"type": "integer"}}],
                    "responses": {"200": {"content": {"application/json": {"schema": {"type": "object"}}}}}
                }}
            },
            "components": {"schemas": {"Article": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}, "author": {"type": ["string", "null"]}}}}}
        });
        let files = generate(&contract).expect("generate");
        assert_eq!(
            files.keys().collect::<Vec<_>>(),
            [
                "api-community.gen.js",
                "api-content.gen.js",
                "api-types.gen.js",
                "api-users.gen.js"
            ],
        );
        let content = &files["api-content.gen.js"];
        assert!(content.contains("export function getArticle("), "{content}");
        assert!(
            content.contains("/** @typedef {import(\"./api-types.gen.js\").Article} Article */\n"),
            "{content}"
        );
        assert!(
            !content.contains("export function uploadImage("),
            "{content}"
        );
        let js: String = files.values().map(String::as_str).collect();
        assert!(js.contains("export function getArticle(id, options = {}) {\n  return request(\"GET\", `/api/content/articles/${encodeURIComponent(id)}`, { ...options });\n}"), "{js}");
        assert!(
            js.contains("export function listArticles(query = {}, options = {})"),
            "{js}"
        );
        assert!(js.contains(" * @param {{page?: number}} [query]"), "{js}");
        assert!(js.contains("{ ...options, auth: \"required\" }"), "{js}");
        assert!(js.contains("@returns {Promise<Source|null>}"), "{js}");
        assert!(
            js.contains("//   addSourceSubscriber (service or internal credentials only)"),
            "{js}"
        );
        assert!(!js.contains("export function addSourceSubscriber"), "{js}");
        assert!(js.contains(" * @param {FormData} form Sent as multipart/form-data: the fields of `ImageUpload`.\n"), "{js}");
        assert!(js.contains("export function uploadImage(form, options = {}) {\n  return request(\"POST\", `/api/v1/uploads/images`, { ...options, form, auth: \"required\" });\n}"), "{js}");
        assert!(
            js.contains("//   issueServiceToken (not a JSON or multipart request body)"),
            "{js}"
        );
        assert!(js.contains(" * @typedef {Object} Article\n * @property {(string|null)} [author]\n * @property {string} id\n"), "{js}");
    }

    #[test]
    fn camel_cases_parameter_names() {
        assert_eq!(camel("user_id"), "userId");
        assert_eq!(camel("sourceId"), "sourceId");
        assert_eq!(camel("1x"), "_1x");
    }
}
