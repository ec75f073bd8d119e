//! The platform's one OpenAPI contract, merged from every HTTP function's own `openapi()`,
//! and the checks that keep it, the committed file and `template.yaml` in agreement.
//!
//! `functions/web/openapi.json` is the committed contract (the web function serves it at
//! `/v3/api-docs`), and `functions/web/client/api-*.gen.js` are the client's API layer generated
//! from it (one module per product). `UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract` rewrites both.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use http::Method;
use local_stack::routes::{Route, RouteTable};
use local_stack::template::Template;
use serde_json::Value;
use utoipa::openapi::{InfoBuilder, OpenApi, OpenApiBuilder, ServerBuilder};

use crate::repo_root;

/// The committed contract, relative to the repository root.
pub const CONTRACT_FILE: &str = "functions/web/openapi.json";
/// The folder of the client's generated API layer (`api-*.gen.js`), relative to the
/// repository root.
pub const API_LAYER_DIR: &str = "functions/web/client";
/// The contract's version: the API as a whole, not any one function's crate.
pub const API_VERSION: &str = "1.0.0";

/// Every HTTP function's document with the template's logical id of the function that
/// serves it, in the contract's fixed order.
pub fn documents() -> Vec<(&'static str, OpenApi)> {
    vec![
        ("WebFunction", web_function::openapi()),
        ("IdentityFunction", identity_function::openapi()),
        ("NewsFunction", news_function::openapi()),
        ("NewsIntakeFunction", news_intake_function::openapi()),
        ("GreaderFunction", news_greader_function::openapi()),
        ("AssistantFunction", assistant_function::openapi()),
        ("CommunityFunction", community_function::openapi()),
        (
            "CommunityUploadsFunction",
            community_uploads_function::openapi(),
        ),
        (
            "CommunityDigestsFunction",
            community_digests_function::openapi(),
        ),
        ("RecipesFunction", recipes_function::openapi()),
        (
            "IncidentsIngestFunction",
            incidents_ingest_function::openapi(),
        ),
        ("IncidentsFunction", incidents_function::openapi()),
        (
            "IncidentsMetricsFunction",
            incidents_metrics_function::openapi(),
        ),
        (
            "IncidentsIntelligenceFunction",
            incidents_intelligence_function::openapi(),
        ),
    ]
}

/// The merged contract: one OpenAPI 3.1 document for every route of every system. Fails
/// when two functions define a component of the same name differently or reuse an
/// operation id, since merging would silently keep only one of them.
pub fn merged() -> Result<OpenApi, String> {
    let mut problems = Vec::new();
    let mut schemas: BTreeMap<String, (String, Value)> = BTreeMap::new();
    let mut operation_ids: BTreeMap<String, String> = BTreeMap::new();
    let mut contract = OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("News platform API")
                .version(API_VERSION)
                .description(Some(
                    "Every route of the platform behind one HTTP API: the news reader \
                     (users, content, GenAI), and the platform surface (health, this \
                     contract, its docs UI and the web client). Errors of the news reader, \
                     recipe and incident systems use the ErrorBody schema; the community \
                     system's use ReasonErrorBody.",
                ))
                .build(),
        )
        .servers(Some([ServerBuilder::new()
            .url("/")
            .description(Some("The API's public base URL"))
            .build()]))
        .build();
    for (function, document) in documents() {
        let json = serde_json::to_value(&document).map_err(|e| e.to_string())?;
        if let Some(own) = json
            .pointer("/components/schemas")
            .and_then(Value::as_object)
        {
            for (name, schema) in own {
                match schemas.get(name) {
                    Some((other, existing)) if existing != schema => problems.push(format!(
                        "schema {name} differs between {other} and {function}"
                    )),
                    Some(_) => {}
                    None => {
                        schemas.insert(name.clone(), (function.to_string(), schema.clone()));
                    }
                }
            }
        }
        for (method, path, operation) in operations(&json) {
            let id = operation["operationId"].as_str().unwrap_or("").to_string();
            if id.is_empty() {
                problems.push(format!("{method} {path} of {function} has no operationId"));
            } else if let Some(other) =
                operation_ids.insert(id.clone(), format!("{function}: {method} {path}"))
            {
                problems.push(format!(
                    "operationId {id} is used by {other} and {function}: {method} {path}"
                ));
            }
        }
        contract.merge(document);
    }
    public_operations_say_so(&mut contract);
    if problems.is_empty() {
        Ok(contract)
    } else {
        Err(problems.join("\n"))
    }
}

/// An operation that needs no credentials declares `security(())` in its annotation, which
/// utoipa writes as `[{}]` (one requirement naming no scheme); the contract spells it `[]`,
/// the form Redocly's `security-defined` rule and every client read as "no authentication".
/// Operations taking a token optionally (`[{}, {"bearerJwt": []}]`) keep both requirements.
fn public_operations_say_so(contract: &mut OpenApi) {
    for item in contract.paths.paths.values_mut() {
        for operation in [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.options,
            &mut item.head,
            &mut item.patch,
            &mut item.trace,
        ]
        .into_iter()
        .flatten()
        {
            let anonymous_only = operation.security.as_ref().is_some_and(|requirements| {
                requirements.len() == 1
                    && serde_json::to_value(&requirements[..])
                        .is_ok_and(|v| v == serde_json::json!([{}]))
            });
            if anonymous_only {
                operation.security = Some(Vec::new());
            }
        }
    }
}

/// The contract as the committed file holds it.
pub fn contract_text() -> Result<String, String> {
    let contract = merged()?;
    serde_json::to_string_pretty(&contract)
        .map(|text| text + "\n")
        .map_err(|e| e.to_string())
}

pub fn path(relative: &str) -> PathBuf {
    repo_root().join(relative)
}

/// `(METHOD, path, operation)` of every operation of an OpenAPI document (as JSON).
pub fn operations(document: &Value) -> Vec<(String, String, Value)> {
    let mut found = Vec::new();
    let Some(paths) = document.get("paths").and_then(Value::as_object) else {
        return found;
    };
    for (path, item) in paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        for (method, operation) in item {
            if HTTP_METHODS.contains(&method.as_str()) {
                found.push((method.to_ascii_uppercase(), path.clone(), operation.clone()));
            }
        }
    }
    found
}

const HTTP_METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Every `HttpApi` route `template.yaml` declares, with the logical id of its function.
pub fn template_routes() -> Result<Vec<Route>, String> {
    let template = Template::load(&path("template.yaml")).map_err(|e| e.to_string())?;
    let mut routes = Vec::new();
    for function in template.functions().map_err(|e| e.to_string())? {
        for event in function.events.iter().filter(|e| e.kind == "HttpApi") {
            let text = |key: &str| {
                event
                    .properties
                    .get(key)
                    .and_then(|v| v.as_str())
                    .map(str::to_string)
            };
            let route = Route::parse(
                text("Method").as_deref(),
                text("Path").as_deref(),
                &function.logical_id,
            )?;
            routes.push(route);
        }
    }
    Ok(routes)
}

/// A concrete request path for a documented path template (`{id}` → a sample segment).
fn sample_path(template: &str) -> String {
    template
        .split('/')
        .map(|segment| {
            if segment.starts_with('{') && segment.ends_with('}') {
                "sample-1"
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Checks both directions: every documented operation reaches, through the template's
/// routes, the function that documents it; and every route the template declares is taken
/// by at least one operation its function documents. Returns every disagreement.
pub fn check_against_template() -> Result<(), String> {
    let routes = template_routes()?;
    let declared: Vec<(String, String)> = routes
        .iter()
        .map(|r| (r.to_string(), r.function.clone()))
        .collect();
    let table = RouteTable::new(routes)?;
    let mut problems = Vec::new();
    let mut covered = BTreeSet::new();
    for (function, document) in documents() {
        let json = serde_json::to_value(&document).map_err(|e| e.to_string())?;
        for (method, path, _) in operations(&json) {
            let verb = Method::from_bytes(method.as_bytes()).map_err(|e| e.to_string())?;
            match table.find(&verb, &sample_path(&path)) {
                None => problems.push(format!(
                    "{function} documents {method} {path}, but template.yaml routes it nowhere"
                )),
                Some(route) if route.function != function => problems.push(format!(
                    "{function} documents {method} {path}, but template.yaml routes it to {} \
                     ({route})",
                    route.function
                )),
                Some(route) => {
                    covered.insert((route.to_string(), route.function.clone()));
                }
            }
        }
    }
    for (route, function) in declared {
        if !covered.contains(&(route.clone(), function.clone())) {
            problems.push(format!(
                "template.yaml routes {route} to {function}, but no operation {function} \
                 documents is served by that route"
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// The first line where the code's text and the committed one differ, for a readable failure.
pub fn first_difference(from_code: &str, committed: &str) -> String {
    for (n, (ours, theirs)) in from_code.lines().zip(committed.lines()).enumerate() {
        if ours != theirs {
            return format!(
                "line {}:\n  committed: {theirs}\n  from code: {ours}",
                n + 1
            );
        }
    }
    format!(
        "the committed file has {} lines, the code produces {}",
        committed.lines().count(),
        from_code.lines().count()
    )
}
