//! The parts of a SAM template the local stack needs, read straight from the YAML.
//!
//! Values stay as `serde_yaml::Value`, tags (`!Ref`, `!Sub`, ...) included, because intrinsic
//! functions can only be resolved once physical names, queue URLs and the local base URL are
//! known; [`crate::intrinsics`] does that late. This module only knows the template's shape.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_yaml::Value;

/// Lambda's default timeout when neither the function nor `Globals` sets one.
const DEFAULT_TIMEOUT_SECS: u64 = 3;

pub const SERVERLESS_FUNCTION: &str = "AWS::Serverless::Function";

#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("cannot read template {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("template is not valid YAML: {0}")]
    Yaml(#[from] serde_yaml::Error),
    #[error("template: {0}")]
    Invalid(String),
}

/// A declared template parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParameterDecl {
    /// CloudFormation type (`String`, `Number`, `CommaDelimitedList`, `List<...>`, ...).
    pub kind: String,
    /// The `Default`, as the string CloudFormation would pass (numbers rendered as text).
    pub default: Option<String>,
}

impl ParameterDecl {
    /// List-typed parameters resolve to a list under `!Ref`, not a string.
    pub fn is_list(&self) -> bool {
        self.kind == "CommaDelimitedList" || self.kind.starts_with("List<")
    }
}

/// One entry of `Resources`.
#[derive(Clone, Debug)]
pub struct Resource {
    pub kind: String,
    pub properties: Value,
    pub metadata: Value,
    /// Name of the `Conditions` entry that decides whether the resource exists.
    pub condition: Option<String>,
}

impl Resource {
    pub fn property(&self, key: &str) -> Option<&Value> {
        self.properties.get(key).filter(|v| !v.is_null())
    }
}

/// A parsed template.
#[derive(Clone, Debug)]
pub struct Template {
    pub parameters: BTreeMap<String, ParameterDecl>,
    pub mappings: Value,
    pub conditions: BTreeMap<String, Value>,
    pub resources: BTreeMap<String, Resource>,
    globals_function: Value,
}

/// An `AWS::Serverless::Function` as the local stack runs it.
#[derive(Clone, Debug)]
pub struct FunctionDecl {
    pub logical_id: String,
    /// `Metadata.BuildProperties.Binary`: the key into the function registry.
    pub binary: String,
    /// `Globals.Function.Environment.Variables` merged with the function's own (unresolved).
    pub variables: BTreeMap<String, Value>,
    pub timeout: Duration,
    pub events: Vec<EventDecl>,
    pub condition: Option<String>,
    /// The function has a `FunctionUrlConfig`: it is also reachable on its own URL.
    pub function_url: bool,
    /// That URL's `Cors`, unresolved (intrinsics included); resolved with the stack's
    /// parameters by [`crate::cors::UrlCors::resolve`] and answered as Lambda does.
    pub function_url_cors: Option<Value>,
    /// `AutoPublishAlias` (its own or `Globals.Function`'s): each deployment publishes a new
    /// version behind this alias.
    pub auto_publish_alias: Option<String>,
}

/// One entry of a function's `Events`.
#[derive(Clone, Debug)]
pub struct EventDecl {
    pub name: String,
    /// `HttpApi`, `SQS`, `Schedule`, `ScheduleV2`, ...
    pub kind: String,
    /// Unresolved `Properties` (`Null` when absent).
    pub properties: Value,
}

impl Template {
    pub fn load(path: &Path) -> Result<Self, TemplateError> {
        let text = std::fs::read_to_string(path).map_err(|source| TemplateError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text)
    }

    pub fn parse(text: &str) -> Result<Self, TemplateError> {
        let root: Value = serde_yaml::from_str(text)?;
        if !root.is_mapping() {
            return Err(TemplateError::Invalid(
                "the document is not a mapping".into(),
            ));
        }

        let mut parameters = BTreeMap::new();
        for (name, decl) in entries(root.get("Parameters"), "Parameters")? {
            let kind = decl
                .get("Type")
                .and_then(Value::as_str)
                .unwrap_or("String")
                .to_string();
            let default = decl
                .get("Default")
                .map(scalar_text)
                .transpose()
                .map_err(|e| {
                    TemplateError::Invalid(format!("parameter {name} has an invalid Default: {e}"))
                })?;
            parameters.insert(name, ParameterDecl { kind, default });
        }

        let conditions = entries(root.get("Conditions"), "Conditions")?
            .into_iter()
            .collect();

        let mut resources = BTreeMap::new();
        for (id, res) in entries(root.get("Resources"), "Resources")? {
            let kind = res
                .get("Type")
                .and_then(Value::as_str)
                .ok_or_else(|| TemplateError::Invalid(format!("resource {id} has no Type")))?
                .to_string();
            let condition = res
                .get("Condition")
                .and_then(Value::as_str)
                .map(str::to_string);
            resources.insert(
                id,
                Resource {
                    kind,
                    properties: res.get("Properties").cloned().unwrap_or(Value::Null),
                    metadata: res.get("Metadata").cloned().unwrap_or(Value::Null),
                    condition,
                },
            );
        }

        let globals_function = root
            .get("Globals")
            .and_then(|g| g.get("Function"))
            .cloned()
            .unwrap_or(Value::Null);

        Ok(Self {
            parameters,
            mappings: root.get("Mappings").cloned().unwrap_or(Value::Null),
            conditions,
            resources,
            globals_function,
        })
    }

    /// Every `AWS::Serverless::Function`, with `Globals` applied.
    pub fn functions(&self) -> Result<Vec<FunctionDecl>, TemplateError> {
        let global_vars = environment_variables(&self.globals_function, "Globals.Function")?;
        let global_timeout = timeout_of(&self.globals_function, "Globals.Function")?;

        let mut out = Vec::new();
        for (id, res) in &self.resources {
            if res.kind != SERVERLESS_FUNCTION {
                continue;
            }
            let binary = res
                .metadata
                .get("BuildProperties")
                .and_then(|b| b.get("Binary"))
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    TemplateError::Invalid(format!(
                        "function {id} has no Metadata.BuildProperties.Binary, so the local \
                         stack cannot tell which handler it runs"
                    ))
                })?
                .to_string();

            let mut variables = global_vars.clone();
            variables.extend(environment_variables(&res.properties, id)?);

            let timeout = timeout_of(&res.properties, id)?
                .or(global_timeout)
                .unwrap_or(DEFAULT_TIMEOUT_SECS);

            let events = entries(res.properties.get("Events"), &format!("{id}.Events"))?
                .into_iter()
                .map(|(name, event)| {
                    let kind = event
                        .get("Type")
                        .and_then(Value::as_str)
                        .ok_or_else(|| {
                            TemplateError::Invalid(format!("event {id}.{name} has no Type"))
                        })?
                        .to_string();
                    Ok(EventDecl {
                        name,
                        kind,
                        properties: event.get("Properties").cloned().unwrap_or(Value::Null),
                    })
                })
                .collect::<Result<Vec<_>, TemplateError>>()?;

            out.push(FunctionDecl {
                logical_id: id.clone(),
                binary,
                variables,
                timeout: Duration::from_secs(timeout),
                events,
                condition: res.condition.clone(),
                function_url: res.property("FunctionUrlConfig").is_some(),
                function_url_cors: res
                    .property("FunctionUrlConfig")
                    .and_then(|config| config.get("Cors"))
                    .filter(|cors| !cors.is_null())
                    .cloned(),
                auto_publish_alias: res
                    .property("AutoPublishAlias")
                    .or_else(|| self.globals_function.get("AutoPublishAlias"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
            });
        }
        Ok(out)
    }
}

impl Template {
    /// A property of a resource, or for a function without it, the one in `Globals.Function`.
    pub fn function_property(&self, logical_id: &str, key: &str) -> Option<&Value> {
        let own = self.resources.get(logical_id)?;
        own.property(key).or_else(|| {
            (own.kind == SERVERLESS_FUNCTION)
                .then(|| self.globals_function.get(key).filter(|v| !v.is_null()))
                .flatten()
        })
    }
}

/// The entries of a top-level section that must be a mapping of names to mappings.
fn entries(section: Option<&Value>, what: &str) -> Result<Vec<(String, Value)>, TemplateError> {
    match section {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Mapping(map)) => map
            .iter()
            .map(|(k, v)| {
                let key = k.as_str().ok_or_else(|| {
                    TemplateError::Invalid(format!("{what} has a non-string key {k:?}"))
                })?;
                Ok((key.to_string(), v.clone()))
            })
            .collect(),
        Some(_) => Err(TemplateError::Invalid(format!("{what} is not a mapping"))),
    }
}

fn environment_variables(
    properties: &Value,
    owner: &str,
) -> Result<BTreeMap<String, Value>, TemplateError> {
    let vars = properties
        .get("Environment")
        .and_then(|e| e.get("Variables"));
    Ok(entries(vars, &format!("{owner}.Environment.Variables"))?
        .into_iter()
        .collect())
}

fn timeout_of(properties: &Value, owner: &str) -> Result<Option<u64>, TemplateError> {
    match properties.get("Timeout") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => scalar_text(v)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .map(Some)
            .ok_or_else(|| TemplateError::Invalid(format!("{owner}.Timeout is not a number"))),
    }
}

/// The text CloudFormation would pass for a scalar (numbers and booleans as written).
pub fn scalar_text(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Ok(String::new()),
        Value::Sequence(items) => items
            .iter()
            .map(scalar_text)
            .collect::<Result<Vec<_>, _>>()
            .map(|parts| parts.join(",")),
        Value::Mapping(_) | Value::Tagged(_) => Err("expected a plain value".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = r#"
Parameters:
  Ttl:
    Type: Number
    Default: 3600
  Name:
    Type: String
Globals:
  Function:
    Timeout: 15
    Environment:
      Variables:
        A: global
        B: !Ref Name
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Metadata:
      BuildProperties:
        Binary: fn-bin
    Properties:
      Environment:
        Variables:
          A: own
      Events:
        Web:
          Type: HttpApi
          Properties:
            Path: /x
            Method: GET
        Default:
          Type: HttpApi
"#;

    #[test]
    fn reads_parameters_globals_and_events() {
        let t = Template::parse(TEMPLATE).expect("parse");
        assert_eq!(t.parameters["Ttl"].default.as_deref(), Some("3600"));
        assert_eq!(t.parameters["Name"].default, None);
        let fns = t.functions().expect("functions");
        assert_eq!(fns.len(), 1);
        let f = &fns[0];
        assert_eq!(f.binary, "fn-bin");
        assert_eq!(f.timeout, Duration::from_secs(15));
        assert_eq!(f.variables["A"], Value::String("own".into()));
        assert!(matches!(f.variables["B"], Value::Tagged(_)));
        assert_eq!(f.events.len(), 2);
        assert!(f
            .events
            .iter()
            .any(|e| e.name == "Default" && e.properties.is_null()));
    }

    #[test]
    fn reads_function_urls() {
        let t = Template::parse(
            "Resources:\n  A:\n    Type: AWS::Serverless::Function\n    Metadata: {BuildProperties: {Binary: a}}\n    Properties:\n      FunctionUrlConfig: {AuthType: NONE}\n  B:\n    Type: AWS::Serverless::Function\n    Metadata: {BuildProperties: {Binary: b}}\n    Properties: {}\n",
        )
        .expect("parse");
        let urls: Vec<(String, bool)> = t
            .functions()
            .expect("functions")
            .into_iter()
            .map(|f| (f.logical_id, f.function_url))
            .collect();
        assert_eq!(urls, [("A".to_string(), true), ("B".to_string(), false)]);
    }

    #[test]
    fn a_function_without_binary_is_an_error() {
        let t = Template::parse(
            "Resources:\n  F:\n    Type: AWS::Serverless::Function\n    Properties: {}\n",
        )
        .expect("parse");
        let err = t.functions().expect_err("no binary");
        assert!(err.to_string().contains("BuildProperties.Binary"));
    }
}
