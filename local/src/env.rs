//! Each function's environment, layered the way SAM and Lambda layer it.
//!
//! 1. the template's variables (`Globals` merged with the function's own), resolved;
//! 2. what Lambda itself provides (region, function name, credentials), plus the emulator's
//!    endpoint so the function's AWS clients reach it;
//! 3. the env file in `sam local --env-vars` format: `Parameters` for every function, then the
//!    function's own section; like SAM, only variables the template declares are overridden;
//! 4. optionally, declared variables present in the process environment (so a developer can
//!    `export LLM_API_KEY=...` before starting the stack).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use platform::Env;
use serde_json::Value as Json;

use crate::aws::ProcessCredentials;
use crate::error::StackError;
use crate::intrinsics::json_text;

/// An env file in SAM's `--env-vars` format.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnvFile {
    /// `Parameters`: applies to every function.
    pub all: BTreeMap<String, String>,
    /// Sections keyed by function logical id.
    pub per_function: BTreeMap<String, BTreeMap<String, String>>,
}

impl EnvFile {
    pub fn load(path: &Path) -> Result<Self, StackError> {
        let fail = |reason: String| StackError::EnvFile {
            path: path.display().to_string(),
            reason,
        };
        let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
        Self::parse(&text).map_err(fail)
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let root: Json = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let Json::Object(sections) = root else {
            return Err("the file must hold a JSON object of sections".into());
        };
        let mut file = Self::default();
        for (section, vars) in sections {
            let Json::Object(vars) = vars else {
                return Err(format!("section {section} must be an object of variables"));
            };
            let mut values = BTreeMap::new();
            for (name, value) in vars {
                let value = json_text(&value)
                    .map_err(|_| format!("{section}.{name} must be a string, number or boolean"))?;
                values.insert(name, value);
            }
            if section == "Parameters" {
                file.all = values;
            } else {
                file.per_function.insert(section, values);
            }
        }
        Ok(file)
    }
}

/// The variables Lambda sets for every function, plus the emulator endpoint.
pub fn lambda_variables(
    function: &str,
    region: &str,
    endpoint: &str,
    credentials: &ProcessCredentials,
) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::from([
        ("AWS_REGION".to_string(), region.to_string()),
        ("AWS_DEFAULT_REGION".to_string(), region.to_string()),
        ("AWS_LAMBDA_FUNCTION_NAME".to_string(), function.to_string()),
        ("AWS_ENDPOINT_URL".to_string(), endpoint.to_string()),
        (
            "AWS_ACCESS_KEY_ID".to_string(),
            credentials.access_key_id.clone(),
        ),
        (
            "AWS_SECRET_ACCESS_KEY".to_string(),
            credentials.secret_access_key.clone(),
        ),
    ]);
    if let Some(token) = &credentials.session_token {
        vars.insert("AWS_SESSION_TOKEN".to_string(), token.clone());
    }
    vars
}

/// One function's layers, lowest first.
pub struct Layers<'a> {
    pub function: &'a str,
    /// Every variable name the template declares for the function (even if it resolved to
    /// `AWS::NoValue`): the only names the env file and the process may override.
    pub declared: &'a BTreeSet<String>,
    pub template: &'a BTreeMap<String, String>,
    pub lambda: &'a BTreeMap<String, String>,
    pub env_file: Option<&'a EnvFile>,
    pub process: Option<&'a BTreeMap<String, String>>,
}

impl Layers<'_> {
    pub fn compose(&self) -> Env {
        let mut env: BTreeMap<String, String> = self.template.clone();
        env.extend(self.lambda.iter().map(|(k, v)| (k.clone(), v.clone())));

        let declared = |(k, _): &(&String, &String)| self.declared.contains(k.as_str());
        if let Some(file) = self.env_file {
            let own = file.per_function.get(self.function);
            for (k, v) in file.all.iter().chain(own.into_iter().flatten()) {
                if declared(&(k, v)) {
                    env.insert(k.clone(), v.clone());
                }
            }
        }
        if let Some(process) = self.process {
            for (k, v) in process.iter().filter(declared) {
                env.insert(k.clone(), v.clone());
            }
        }
        env.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn parses_sam_env_vars_format() {
        let file =
            EnvFile::parse(r#"{"Parameters": {"A": "1", "N": 5, "B": true}, "Fn": {"A": "fn"}}"#)
                .expect("parse");
        assert_eq!(file.all, map(&[("A", "1"), ("N", "5"), ("B", "true")]));
        assert_eq!(file.per_function["Fn"], map(&[("A", "fn")]));
        assert!(EnvFile::parse(r#"{"Parameters": {"A": [1]}}"#).is_err());
        assert!(EnvFile::parse("[]").is_err());
    }

    #[test]
    fn layers_apply_in_order_and_only_to_declared_variables() {
        let declared: BTreeSet<String> = ["A", "B", "C", "D", "GONE"]
            .into_iter()
            .map(String::from)
            .collect();
        let template = map(&[("A", "t"), ("B", "t"), ("C", "t"), ("D", "t")]);
        let creds = ProcessCredentials {
            access_key_id: "ak".into(),
            secret_access_key: "sk".into(),
            session_token: None,
        };
        let lambda = lambda_variables("Fn", "eu-west-1", "http://emu", &creds);
        let file = EnvFile {
            all: map(&[
                ("B", "all"),
                ("C", "all"),
                ("UNDECLARED", "x"),
                ("GONE", "back"),
            ]),
            per_function: BTreeMap::from([
                ("Fn".to_string(), map(&[("C", "fn")])),
                ("Other".to_string(), map(&[("D", "other")])),
            ]),
        };
        let process = map(&[("D", "proc"), ("PATH", "/bin"), ("AWS_REGION", "x")]);
        let layers = Layers {
            function: "Fn",
            declared: &declared,
            template: &template,
            lambda: &lambda,
            env_file: Some(&file),
            process: Some(&process),
        };
        let env = layers.compose();
        assert_eq!(env.get("A"), Some("t"));
        assert_eq!(env.get("B"), Some("all"));
        assert_eq!(env.get("C"), Some("fn"));
        assert_eq!(env.get("D"), Some("proc"));
        assert_eq!(env.get("GONE"), Some("back"));
        assert_eq!(env.get("UNDECLARED"), None);
        assert_eq!(env.get("PATH"), None);
        assert_eq!(env.get("AWS_REGION"), Some("eu-west-1"));
        assert_eq!(env.get("AWS_LAMBDA_FUNCTION_NAME"), Some("Fn"));
        assert_eq!(env.get("AWS_ENDPOINT_URL"), Some("http://emu"));
        assert_eq!(env.get("AWS_ACCESS_KEY_ID"), Some("ak"));
        assert_eq!(env.get("AWS_SESSION_TOKEN"), None);

        let without_overrides = Layers {
            env_file: None,
            process: None,
            ..layers
        };
        let env = without_overrides.compose();
        assert_eq!(env.get("B"), Some("t"));
        assert_eq!(env.get("D"), Some("t"));
    }
}
