//! The [`Accounts`] port over HTTP: the users service's `GET /api/users/users/me`, called
//! through the public API with the caller's own user token. The users service stays the only
//! reader of its table; a submission, which fetches a feed anyway, pays one more call.

use std::time::Duration;

use news::{Accounts, AccountsError};

/// The HTTP client, built once per cold start.
#[derive(Clone)]
pub struct UsersService {
    http: reqwest::Client,
}

impl UsersService {
    pub fn new(timeout: Duration) -> Result<Self, reqwest::Error> {
        let http = platform::tls::http_client()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()?;
        Ok(Self { http })
    }

    /// The users service behind the API at `base` (`None` when it cannot be located: the
    /// check then fails), asked with `authorization`, the caller's own header.
    pub fn caller(&self, base: Option<String>, authorization: String) -> Caller<'_> {
        Caller {
            http: &self.http,
            base,
            authorization,
        }
    }
}

/// The users service for one request's caller.
pub struct Caller<'a> {
    http: &'a reqwest::Client,
    base: Option<String>,
    authorization: String,
}

impl Accounts for Caller<'_> {
    async fn caller_exists(&self) -> Result<bool, AccountsError> {
        let base = self.base.as_deref().ok_or_else(|| {
            AccountsError(
                "INTERNAL_API_URL is not set and the request did not come through API Gateway"
                    .into(),
            )
        })?;
        let response = self
            .http
            .get(format!("{base}/api/users/users/me"))
            .header(reqwest::header::AUTHORIZATION, &self.authorization)
            .send()
            .await
            .map_err(|e| AccountsError(e.to_string()))?;
        match response.status() {
            s if s.is_success() => Ok(true),
            // 404: the account is gone; 401: the users service no longer accepts the token.
            reqwest::StatusCode::NOT_FOUND | reqwest::StatusCode::UNAUTHORIZED => Ok(false),
            s => Err(AccountsError(format!("HTTP {s}"))),
        }
    }
}
