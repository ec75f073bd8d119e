//! The recipes domain's port to identity, over HTTP: the caller's recipe preferences from
//! `GET /api/recipes/users/me` (the identity function), asked with the caller's own token.

use std::time::Duration;

use recipes::{Preferences, PreferencesError, UserPreferences};
use serde::Deserialize;

/// The HTTP client, built once per cold start.
#[derive(Clone)]
pub struct Identity {
    http: reqwest::Client,
}

impl Identity {
    pub fn new(timeout: Duration) -> Result<Self, reqwest::Error> {
        let http = platform::tls::http_client()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()?;
        Ok(Self { http })
    }

    /// The caller (`authorization`, their own header) at the API `base`.
    pub fn caller(&self, base: Option<String>, authorization: Option<String>) -> Caller<'_> {
        Caller {
            identity: self,
            base,
            authorization,
        }
    }
}

pub struct Caller<'a> {
    identity: &'a Identity,
    base: Option<String>,
    authorization: Option<String>,
}

#[derive(Deserialize)]
struct RecipeUser {
    #[serde(default)]
    preferences: UserPreferences,
}

impl Preferences for Caller<'_> {
    async fn preferences(&self) -> Result<Option<UserPreferences>, PreferencesError> {
        let base = self.base.as_deref().ok_or_else(|| {
            PreferencesError(
                "INTERNAL_API_URL is not set and the request did not come through API Gateway"
                    .into(),
            )
        })?;
        let authorization = self
            .authorization
            .as_deref()
            .ok_or_else(|| PreferencesError("no Authorization header".into()))?;
        let response = self
            .identity
            .http
            .get(format!("{base}/api/recipes/users/me"))
            .header(reqwest::header::AUTHORIZATION, authorization)
            .send()
            .await
            .map_err(|e| PreferencesError(e.to_string()))?;
        match response.status() {
            s if s.is_success() => {
                let user: RecipeUser = response
                    .json()
                    .await
                    .map_err(|e| PreferencesError(format!("unreadable user: {e}")))?;
                Ok(Some(user.preferences))
            }
            reqwest::StatusCode::NOT_FOUND => Ok(None),
            status => Err(PreferencesError(format!(
                "GET /api/recipes/users/me answered {status}"
            ))),
        }
    }
}
