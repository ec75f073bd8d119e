//! What `sam local start-api` and `sam local invoke` need beside the emulator (issue 45):
//!
//! - [`env_file`]: SAM's `--env-vars` file (`local/env.json`) giving every function, in its
//!   container, what `local/run` gives it: the emulator's endpoint as a container reaches the
//!   host, the table, queue, bucket, topic and bus names as provisioned, the development signing
//!   key, the local-only tokens and the model's address;
//! - [`cold_starts`]: each function's own cold start (the factory its `main` runs in Lambda) from
//!   a given environment, and which of its variables that start cannot do without, for
//!   `local/sam-local-check`.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use platform::Env;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value as Json};

use crate::invoke;
use crate::registry::Registry;
use crate::stack::Provisioned;

/// The variable the functions' AWS clients take the emulator's endpoint from. SAM passes a
/// container only the variables the template declares, so `Globals` declares it (empty when
/// deployed) and this file sets it.
pub const ENDPOINT_VARIABLE: &str = "AWS_ENDPOINT_URL";

/// Where a container reaches the host by default (Docker Desktop, and Docker Engine 20.10+ on
/// Linux given `--add-host host.docker.internal:host-gateway`, which SAM CLI does not add).
pub const DEFAULT_CONTAINER_HOST: &str = "host.docker.internal";

/// Where `sam local start-api` serves by default.
pub const DEFAULT_SAM_API_URL: &str = "http://127.0.0.1:3000";

/// The section of the file that says what it is (SAM reads a section per function; no
/// function has this name, so SAM and the local stack ignore it).
pub const NOTE_SECTION: &str = "_LocalOnly";

/// Hosts that mean "this machine" in a value; in a container they mean the container.
const LOOPBACK_HOSTS: &[&str] = &["127.0.0.1", "localhost", "[::1]", "0.0.0.0"];

/// The env file for `sam local`: every variable each function declares, with its value as
/// provisioned, a loopback host in any URL turned into `container_host` (unless that is itself
/// loopback: `--docker-network host`), and [`ENDPOINT_VARIABLE`] set to `container_endpoint`.
/// A variable with one value in every function declaring it goes in `Parameters` (SAM applies
/// it to every function that declares it); the others in the function's own section.
pub fn env_file(provisioned: &Provisioned, container_host: &str, container_endpoint: &str) -> Json {
    let mut per_function: BTreeMap<&str, BTreeMap<&str, String>> = BTreeMap::new();
    for function in &provisioned.functions {
        let vars = per_function.entry(&function.logical_id).or_default();
        for (name, value) in &function.variables {
            vars.insert(name, to_container(value, container_host));
        }
        if function.declared.contains(ENDPOINT_VARIABLE) {
            vars.insert(ENDPOINT_VARIABLE, container_endpoint.to_string());
        }
    }
    // One value everywhere it is declared: `Parameters`; else per function. A declaration
    // without a value (`AWS::NoValue`) counts as another value, so none is given to it.
    let mut values: BTreeMap<&str, BTreeSet<Option<&str>>> = BTreeMap::new();
    for function in &provisioned.functions {
        let vars = per_function.get(function.logical_id.as_str());
        for name in &function.declared {
            let value = vars.and_then(|v| v.get(name.as_str())).map(String::as_str);
            values.entry(name).or_default().insert(value);
        }
    }
    let shared: BTreeSet<&str> = values
        .iter()
        .filter(|(_, v)| v.len() == 1)
        .map(|(name, _)| *name)
        .collect();
    let mut parameters = Map::new();
    let mut sections = Map::new();
    for (function, vars) in &per_function {
        let mut own = Map::new();
        for (name, value) in vars {
            if shared.contains(name) {
                parameters.insert((*name).to_string(), Json::String(value.clone()));
            } else {
                own.insert((*name).to_string(), Json::String(value.clone()));
            }
        }
        if !own.is_empty() {
            sections.insert((*function).to_string(), Json::Object(own));
        }
    }
    let mut file = Map::new();
    file.insert(
        NOTE_SECTION.to_string(),
        json!({
            "GeneratedBy": "local/provision (local-stack provision): do not edit, run it again",
            "Warning": "LOCAL-ONLY values (a development signing key, local tokens and \
                        passwords): never use them in a deployed stack",
            "ContainerEndpoint": container_endpoint,
        }),
    );
    file.insert("Parameters".to_string(), Json::Object(parameters));
    file.extend(sections);
    Json::Object(file)
}

/// `value` with every URL on a loopback host pointed at `container_host` instead.
pub fn to_container(value: &str, container_host: &str) -> String {
    if LOOPBACK_HOSTS.contains(&container_host) {
        return value.to_string();
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        let host_len = after
            .find([':', '/', ',', ' ', '?', '#'])
            .unwrap_or(after.len());
        let (host, tail) = after.split_at(host_len);
        out.push_str(if LOOPBACK_HOSTS.contains(&host) {
            container_host
        } else {
            host
        });
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// What `local/sam-local-check` asks: each function's binary and environment.
#[derive(Clone, Debug, Deserialize)]
pub struct ColdStartRequest {
    pub binary: String,
    pub env: BTreeMap<String, String>,
}

/// A function's cold start from the given environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ColdStartOutcome {
    /// `None`: it started; else why not.
    pub error: Option<String>,
    /// Each variable without which it does not start (tried one at a time), and what it says.
    pub requires: BTreeMap<String, String>,
}

/// Cold-starts every function with its environment, then once more without each of its
/// variables in turn: what fails without a variable reads it at start. Functions run side by
/// side, as Lambda would start them.
pub async fn cold_starts(
    requests: BTreeMap<String, ColdStartRequest>,
    registry: &Registry,
    timeout: Duration,
) -> BTreeMap<String, ColdStartOutcome> {
    let starts = requests.into_iter().map(|(function, request)| async move {
        let outcome = match registry.factory(&request.binary) {
            None => ColdStartOutcome {
                error: Some(format!(
                    "binary {:?} is not in the local stack's registry (local/src/registry.rs)",
                    request.binary
                )),
                requires: BTreeMap::new(),
            },
            Some(factory) => {
                let start = |env: BTreeMap<String, String>| {
                    let started = factory(env.into_iter().collect::<Env>());
                    async move {
                        invoke::guarded(started, timeout)
                            .await
                            .err()
                            .map(|e| e.to_string())
                    }
                };
                let error = start(request.env.clone()).await;
                let mut requires = BTreeMap::new();
                for name in request.env.keys() {
                    let mut without = request.env.clone();
                    without.remove(name);
                    if let Some(e) = start(without).await {
                        requires.insert(name.clone(), e);
                    }
                }
                ColdStartOutcome { error, requires }
            }
        };
        (function, outcome)
    });
    futures::future::join_all(starts)
        .await
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::ProvisionedFunction;

    #[test]
    fn loopback_urls_point_at_the_container_host() {
        let host = DEFAULT_CONTAINER_HOST;
        assert_eq!(
            to_container("http://127.0.0.1:3000", host),
            "http://host.docker.internal:3000"
        );
        assert_eq!(
            to_container("http://localhost:11434/v1", host),
            "http://host.docker.internal:11434/v1"
        );
        assert_eq!(
            to_container("http://localhost,https://x.localhost.example/", host),
            "http://host.docker.internal,https://x.localhost.example/"
        );
        assert_eq!(to_container("local-UsersTable", host), "local-UsersTable");
        assert_eq!(
            to_container("https://api.openai.com/v1", host),
            "https://api.openai.com/v1"
        );
        // --docker-network host: the container's loopback is the host's.
        assert_eq!(
            to_container("http://localhost:3000", "127.0.0.1"),
            "http://localhost:3000"
        );
    }

    #[test]
    fn shared_values_go_to_parameters_and_the_rest_per_function() {
        let function = |id: &str, vars: &[(&str, &str)], declared: &[&str]| ProvisionedFunction {
            logical_id: id.to_string(),
            binary: id.to_lowercase(),
            declared: declared.iter().map(|s| s.to_string()).collect(),
            variables: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        let provisioned = Provisioned {
            resources: BTreeMap::new(),
            functions: vec![
                function(
                    "A",
                    &[("T", "local-T"), ("U", "http://127.0.0.1:3000")],
                    &["T", "U", ENDPOINT_VARIABLE],
                ),
                function("B", &[("T", "local-T"), ("U", "x")], &["T", "U", "GONE"]),
            ],
        };
        let file = env_file(
            &provisioned,
            DEFAULT_CONTAINER_HOST,
            "http://host.docker.internal:4566",
        );
        assert_eq!(
            file["Parameters"],
            json!({"T": "local-T", "AWS_ENDPOINT_URL": "http://host.docker.internal:4566"})
        );
        assert_eq!(file["A"], json!({"U": "http://host.docker.internal:3000"}));
        assert_eq!(file["B"], json!({"U": "x"}));
        assert!(file[NOTE_SECTION]["Warning"]
            .as_str()
            .is_some_and(|w| w.contains("LOCAL-ONLY")));
        // The local stack reads it as SAM does.
        let parsed = crate::env::EnvFile::parse(&file.to_string()).expect("parse");
        assert_eq!(parsed.all["T"], "local-T");
    }
}
