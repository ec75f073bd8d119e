//! OAuth2 client-credentials clients, from configuration (`SERVICE_CLIENTS`).

use platform::{ConfigError, Env};
use subtle::ConstantTimeEq;

/// A client's id and secret, as presented at the token endpoint.
pub struct ClientCredentials {
    pub id: String,
    pub secret: String,
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ClientCredentials({}, ***)", self.id)
    }
}

/// The scopes a token request asks for: `None` (absent or blank) means all the client's.
pub fn requested_scopes(raw: Option<&str>) -> Option<Vec<String>> {
    raw.filter(|r| !r.trim().is_empty())
        .map(|r| r.split_whitespace().map(str::to_string).collect())
}

#[derive(Debug, Clone)]
pub struct ServiceClient {
    pub id: String,
    secret: String,
    pub scopes: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct ServiceClients(Vec<ServiceClient>);

impl ServiceClients {
    /// Entries `id:secret:scope scope` separated by `;`. The secret may contain `:`.
    pub fn parse(raw: &str) -> Result<Self, ConfigError> {
        let invalid = |reason: String| ConfigError::Invalid {
            name: "SERVICE_CLIENTS".into(),
            reason,
        };
        let mut clients = Vec::new();
        for entry in raw.split(';').map(str::trim).filter(|e| !e.is_empty()) {
            let (id, rest) = entry.split_once(':').ok_or_else(|| {
                invalid(format!("entry '{}' needs id:secret:scopes", redact(entry)))
            })?;
            let (secret, scopes) = rest.rsplit_once(':').ok_or_else(|| {
                invalid(format!("entry for client '{id}' needs id:secret:scopes"))
            })?;
            if id.is_empty() || secret.is_empty() {
                return Err(invalid(format!("client '{id}' needs an id and a secret")));
            }
            clients.push(ServiceClient {
                id: id.to_string(),
                secret: secret.to_string(),
                scopes: scopes.split_whitespace().map(str::to_string).collect(),
            });
        }
        Ok(Self(clients))
    }

    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        Self::parse(env.get_or("SERVICE_CLIENTS", ""))
    }

    /// The client when `id` and `secret` match; compares every secret in constant time.
    pub fn authenticate(&self, id: &str, secret: &str) -> Option<&ServiceClient> {
        let mut found = None;
        for client in &self.0 {
            let id_ok = client.id.as_bytes().ct_eq(id.as_bytes());
            let secret_ok = client.secret.as_bytes().ct_eq(secret.as_bytes());
            if bool::from(id_ok & secret_ok) {
                found = Some(client);
            }
        }
        found
    }
}

fn redact(entry: &str) -> String {
    entry.chars().take(4).collect::<String>() + "…"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_authenticates() {
        let c = ServiceClients::parse("a:s:e:c:r:source.write other; b:x:").expect("parse");
        let a = c.authenticate("a", "s:e:c:r").expect("a");
        assert_eq!(a.scopes, vec!["source.write", "other"]);
        assert!(c.authenticate("a", "s").is_none());
        assert!(c
            .authenticate("b", "x")
            .is_some_and(|b| b.scopes.is_empty()));
        assert!(c.authenticate("zz", "x").is_none());
        assert!(ServiceClients::parse("nocolon").is_err());
        assert_eq!(requested_scopes(Some("  ")), None);
        assert_eq!(
            requested_scopes(Some("a  b")),
            Some(vec!["a".into(), "b".into()])
        );
        assert!(ServiceClients::parse("")
            .expect("empty")
            .authenticate("", "")
            .is_none());
    }
}
