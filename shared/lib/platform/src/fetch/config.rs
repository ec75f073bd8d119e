//! How feeds are fetched: deadline, size cap, private networks, user agent.

use std::time::Duration;

/// Default total time for one fetch.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default largest body accepted, in bytes (5 MiB).
pub const DEFAULT_MAX_BYTES: usize = 5 * 1024 * 1024;
/// Default number of a feed's newest entries stored per fetch.
pub const DEFAULT_MAX_ENTRIES: usize = 100;
/// Default `User-Agent`.
pub const DEFAULT_USER_AGENT: &str =
    concat!("NewsReader/", env!("CARGO_PKG_VERSION"), " (feed fetcher)");

/// How feeds are fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchConfig {
    /// Total time for one fetch, redirects and body included.
    pub timeout: Duration,
    /// Largest body accepted, in bytes.
    pub max_bytes: usize,
    /// Whether loopback, private and other reserved addresses may be fetched (local stacks and
    /// tests only).
    pub allow_private_networks: bool,
    pub user_agent: String,
    /// How many of a feed's newest entries one fetch stores; older ones are left out.
    pub max_entries: usize,
}

impl Default for FetchConfig {
    fn default() -> Self {
        Self {
            timeout: DEFAULT_TIMEOUT,
            max_bytes: DEFAULT_MAX_BYTES,
            allow_private_networks: false,
            user_agent: DEFAULT_USER_AGENT.to_string(),
            max_entries: DEFAULT_MAX_ENTRIES,
        }
    }
}

impl FetchConfig {
    /// Reads `FEED_FETCH_TIMEOUT_SECONDS` (seconds, fractions allowed; default 10),
    /// `FEED_MAX_BYTES` (default 5 MiB), `FEED_ALLOW_PRIVATE_NETWORKS` (`true`/`false`, default
    /// false), `FEED_USER_AGENT` (optional) and `FEED_MAX_ENTRIES` (default 100).
    pub fn from_env(env: &crate::Env) -> Result<Self, crate::ConfigError> {
        let invalid = |name: &str, reason: &str| crate::ConfigError::Invalid {
            name: name.to_string(),
            reason: reason.to_string(),
        };
        let defaults = Self::default();

        let timeout = match env.get("FEED_FETCH_TIMEOUT_SECONDS") {
            None => defaults.timeout,
            Some(raw) => {
                let secs: f64 = raw
                    .trim()
                    .parse()
                    .map_err(|_| invalid("FEED_FETCH_TIMEOUT_SECONDS", "not a number"))?;
                if !(secs > 0.0 && secs <= 3600.0) {
                    return Err(invalid(
                        "FEED_FETCH_TIMEOUT_SECONDS",
                        "must be more than 0 and at most 3600",
                    ));
                }
                Duration::from_secs_f64(secs)
            }
        };

        let max_bytes: usize = env.parse_or("FEED_MAX_BYTES", defaults.max_bytes)?;
        if max_bytes == 0 {
            return Err(invalid("FEED_MAX_BYTES", "must be more than 0"));
        }

        let allow_private_networks = match env.get("FEED_ALLOW_PRIVATE_NETWORKS") {
            None => false,
            Some(raw) => match raw.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" => true,
                "false" | "0" | "no" => false,
                _ => {
                    return Err(invalid(
                        "FEED_ALLOW_PRIVATE_NETWORKS",
                        "must be true or false",
                    ))
                }
            },
        };

        let user_agent = env
            .get("FEED_USER_AGENT")
            .map(str::to_string)
            .unwrap_or(defaults.user_agent);

        let max_entries: usize = env.parse_or("FEED_MAX_ENTRIES", defaults.max_entries)?;
        if max_entries == 0 {
            return Err(invalid("FEED_MAX_ENTRIES", "must be more than 0"));
        }

        Ok(Self {
            timeout,
            max_bytes,
            allow_private_networks,
            user_agent,
            max_entries,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_from_env() {
        let env = crate::Env::new();
        assert_eq!(FetchConfig::from_env(&env).unwrap(), FetchConfig::default());

        let env = crate::Env::new()
            .with("FEED_FETCH_TIMEOUT_SECONDS", "2.5")
            .with("FEED_MAX_BYTES", "1024")
            .with("FEED_ALLOW_PRIVATE_NETWORKS", "TRUE")
            .with("FEED_USER_AGENT", "test-agent")
            .with("FEED_MAX_ENTRIES", "7");
        let config = FetchConfig::from_env(&env).unwrap();
        assert_eq!(config.timeout, Duration::from_millis(2500));
        assert_eq!(config.max_bytes, 1024);
        assert!(config.allow_private_networks);
        assert_eq!(config.user_agent, "test-agent");
        assert_eq!(config.max_entries, 7);

        for (key, value) in [
            ("FEED_FETCH_TIMEOUT_SECONDS", "0"),
            ("FEED_FETCH_TIMEOUT_SECONDS", "-1"),
            ("FEED_FETCH_TIMEOUT_SECONDS", "soon"),
            ("FEED_FETCH_TIMEOUT_SECONDS", "NaN"),
            ("FEED_MAX_BYTES", "0"),
            ("FEED_MAX_BYTES", "lots"),
            ("FEED_ALLOW_PRIVATE_NETWORKS", "maybe"),
            ("FEED_MAX_ENTRIES", "0"),
            ("FEED_MAX_ENTRIES", "-3"),
        ] {
            let env = crate::Env::new().with(key, value);
            assert!(
                FetchConfig::from_env(&env).is_err(),
                "{key}={value} should be refused"
            );
        }
    }
}
