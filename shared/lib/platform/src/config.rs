//! Configuration from an explicit environment map.
//!
//! In Lambda the map is the process environment; in the local stack it is the function's
//! `Environment` from `template.yaml`. Code below the function's entry point never reads the
//! process environment, which is what lets many functions share one process.

use std::collections::BTreeMap;
use std::str::FromStr;

/// A configuration problem found at start-up or at request time.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("configuration variable {0} is required")]
    Missing(String),
    #[error("configuration variable {name} is invalid: {reason}")]
    Invalid { name: String, reason: String },
}

/// The environment handed to one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Env(BTreeMap<String, String>);

impl Env {
    pub fn new() -> Self {
        Self::default()
    }

    /// The process environment: what a Lambda function receives.
    pub fn from_process() -> Self {
        Self(std::env::vars().collect())
    }

    pub fn with(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.0.insert(key.into(), value.into());
        self
    }

    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.0.insert(key.into(), value.into());
    }

    /// The value of `key`, treating an empty string as unset (CloudFormation parameters
    /// cannot be absent, only empty).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    pub fn get_or<'a>(&'a self, key: &str, default: &'a str) -> &'a str {
        self.get(key).unwrap_or(default)
    }

    pub fn require(&self, key: &str) -> Result<&str, ConfigError> {
        self.get(key)
            .ok_or_else(|| ConfigError::Missing(key.to_string()))
    }

    /// Parses `key` when set, else returns `default`.
    pub fn parse_or<T>(&self, key: &str, default: T) -> Result<T, ConfigError>
    where
        T: FromStr,
        T::Err: std::fmt::Display,
    {
        match self.get(key) {
            None => Ok(default),
            Some(raw) => raw
                .trim()
                .parse()
                .map_err(|e: T::Err| ConfigError::Invalid {
                    name: key.to_string(),
                    reason: e.to_string(),
                }),
        }
    }

    /// A comma-separated list, trimmed, empty entries dropped.
    pub fn list(&self, key: &str) -> Vec<String> {
        self.get(key)
            .map(|raw| {
                raw.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

impl FromIterator<(String, String)> for Env {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        Self(iter.into_iter().collect())
    }
}

/// A rate written `COUNT/SECONDS` (`10/60`): a count and a window of at least 1 each; the
/// caller bounds them further.
pub fn count_per_seconds(raw: &str) -> Result<(u32, u64), String> {
    let (count, seconds) = raw
        .trim()
        .split_once('/')
        .ok_or_else(|| format!("{raw:?} is not COUNT/SECONDS"))?;
    let count = count
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|c| *c > 0)
        .ok_or_else(|| format!("{count:?} is not a count of at least 1"))?;
    let seconds = seconds
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|s| *s > 0)
        .ok_or_else(|| format!("{seconds:?} is not a number of seconds of at least 1"))?;
    Ok((count, seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_values_count_as_unset() {
        let env = Env::new().with("A", "").with("B", "x");
        assert_eq!(env.get("A"), None);
        assert_eq!(env.get("B"), Some("x"));
        assert!(matches!(env.require("A"), Err(ConfigError::Missing(_))));
    }

    #[test]
    fn parses_and_lists() {
        let env = Env::new().with("N", " 42 ").with("L", "a, b,,c ");
        assert_eq!(env.parse_or("N", 0u32).ok(), Some(42));
        assert_eq!(env.parse_or("M", 7u32).ok(), Some(7));
        assert_eq!(env.list("L"), vec!["a", "b", "c"]);
        assert!(env.with("N", "x").parse_or("N", 0u32).is_err());
    }
}
