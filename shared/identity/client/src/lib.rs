//! The identity product as the other products call it: the answers of its routes for the
//! platform's own services ([`directory`], [`recipes`]), the types identity's handlers
//! serialize, and [`IdentityClient`], which calls them.
//!
//! - `GET /api/users/internal/users/{id}` and `GET /api/users/internal/users?cursor=&limit=`,
//!   with the internal service token (the community's authors, the digests' users);
//! - `GET /api/recipes/users/me` and `GET /api/users/users/me`, with the caller's own token
//!   (the recipes' preferences, news's check that a submitter's account exists);
//! - the [`reader`] routes, with the internal service token: an app's `Auth` value exchanged
//!   for a user token, and subscribing a person (the Google Reader API, the OPML import).
//!
//! Failures are [`CallError`]s; each caller answers them as its port says.

use std::time::Duration;

pub use platform::call::CallError;
use platform::call::{read_json, send, INTERNAL_TOKEN_HEADER};

pub mod directory;
pub mod reader;
pub mod recipes;

pub use directory::{InternalUser, InternalUserIds, Role};
pub use reader::{ReaderSession, ReaderSessionRequest, SubscriptionAnswer};
pub use recipes::{RecipeLanguage, RecipeTheme, RecipeUser, UserPreferences};

/// The HTTP client and the internal service token, built once per cold start.
#[derive(Clone, Debug)]
pub struct IdentityClient {
    http: reqwest::Client,
    token: Option<String>,
}

impl IdentityClient {
    /// A client whose calls, connecting included, end after `timeout`; `token` is
    /// `INTERNAL_SERVICE_TOKEN`.
    pub fn new(timeout: Duration, token: Option<String>) -> Result<Self, reqwest::Error> {
        let http = platform::tls::http_client()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()?;
        Ok(Self::with_http(http, token))
    }

    /// A client on an HTTP client the caller already holds for other products.
    pub fn with_http(http: reqwest::Client, token: Option<String>) -> Self {
        Self { http, token }
    }

    /// Identity behind the API at `base` (`None`: it cannot be located, and every call fails
    /// with [`CallError::NoBase`]).
    pub fn at(&self, base: Option<String>) -> IdentityApi<'_> {
        IdentityApi { client: self, base }
    }
}

/// Identity for one request or one job.
#[derive(Debug)]
pub struct IdentityApi<'a> {
    client: &'a IdentityClient,
    base: Option<String>,
}

impl<'a> IdentityApi<'a> {
    fn base(&self) -> Result<&str, CallError> {
        self.base.as_deref().ok_or(CallError::NoBase)
    }

    /// GETs `url` with the internal token; `Ok(None)` on a 404.
    async fn internal<T: serde::de::DeserializeOwned>(
        &self,
        url: reqwest::Url,
    ) -> Result<Option<T>, CallError> {
        let token = self.client.token.as_deref().ok_or(CallError::NoToken)?;
        let response = send(
            self.client
                .http
                .get(url)
                .header(reqwest::header::ACCEPT, "application/json")
                .header(INTERNAL_TOKEN_HEADER, token),
        )
        .await?;
        match response.status() {
            s if s.is_success() => read_json(response).await.map(Some),
            reqwest::StatusCode::NOT_FOUND => Ok(None),
            s => Err(CallError::Status(s)),
        }
    }

    /// `GET /api/users/internal/users/{id}`: the user; `None` when there is no such account.
    pub async fn internal_user(&self, id: &str) -> Result<Option<InternalUser>, CallError> {
        let url = url(
            &format!("{}/api/users/internal/users/{id}", self.base()?),
            &[],
        )?;
        self.internal(url).await
    }

    /// `GET /api/users/internal/usernames/{username}`: the user of that username (any case);
    /// `None` when there is none.
    pub async fn internal_user_by_username(
        &self,
        username: &str,
    ) -> Result<Option<InternalUser>, CallError> {
        let mut url = url(
            &format!("{}/api/users/internal/usernames", self.base()?),
            &[],
        )?;
        url.path_segments_mut()
            .map_err(|()| CallError::BadUrl("not a base URL".into()))?
            .push(username);
        self.internal(url).await
    }

    /// `GET /api/users/internal/users?cursor=&limit=`: a page of the user directory; `None`
    /// when the route answers 404.
    pub async fn internal_user_ids(
        &self,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<Option<InternalUserIds>, CallError> {
        let mut query = vec![("limit", limit.to_string())];
        if let Some(c) = cursor {
            query.push(("cursor", c.to_string()));
        }
        let url = url(
            &format!("{}/api/users/internal/users", self.base()?),
            &query,
        )?;
        self.internal(url).await
    }

    /// `POST /api/users/internal/reader-sessions`: the person whose app password the
    /// `ClientLogin` `Auth` value `auth` carries, with a short-lived user token of theirs;
    /// `None` when identity refuses `auth` (unknown, revoked, or its sessions ended).
    pub async fn reader_session(&self, auth: &str) -> Result<Option<ReaderSession>, CallError> {
        let url = url(
            &format!("{}/api/users/internal/reader-sessions", self.base()?),
            &[],
        )?;
        let token = self.client.token.as_deref().ok_or(CallError::NoToken)?;
        let response = send(
            self.client
                .http
                .post(url)
                .header(reqwest::header::ACCEPT, "application/json")
                .header(INTERNAL_TOKEN_HEADER, token)
                .json(&ReaderSessionRequest {
                    auth: auth.to_string(),
                }),
        )
        .await?;
        match response.status() {
            s if s.is_success() => read_json(response).await.map(Some),
            // The auth refused, not the internal token (whose 401 challenges for that header).
            reqwest::StatusCode::UNAUTHORIZED if challenges_google_login(&response) => Ok(None),
            // An auth identity cannot even read is one it refuses.
            reqwest::StatusCode::BAD_REQUEST => Ok(None),
            s => Err(CallError::Status(s)),
        }
    }

    /// `POST /api/users/internal/users/{id}/subscriptions/{sourceId}`: subscribes the person
    /// (identity's own flow: the content service's subscribers and the person's
    /// `enabledSourceIds`). Idempotent.
    pub async fn subscribe_user(
        &self,
        user_id: &str,
        source_id: &str,
    ) -> Result<SubscriptionAnswer, CallError> {
        self.change_subscription(reqwest::Method::POST, user_id, source_id)
            .await
    }

    /// `DELETE /api/users/internal/users/{id}/subscriptions/{sourceId}`: unsubscribes the
    /// person; the last subscriber leaving deletes the source. Idempotent.
    pub async fn unsubscribe_user(
        &self,
        user_id: &str,
        source_id: &str,
    ) -> Result<SubscriptionAnswer, CallError> {
        self.change_subscription(reqwest::Method::DELETE, user_id, source_id)
            .await
    }

    async fn change_subscription(
        &self,
        method: reqwest::Method,
        user_id: &str,
        source_id: &str,
    ) -> Result<SubscriptionAnswer, CallError> {
        let mut url = url(&format!("{}/api/users/internal/users", self.base()?), &[])?;
        url.path_segments_mut()
            .map_err(|()| CallError::BadUrl("the base URL cannot take a path".into()))?
            .extend([user_id, "subscriptions", source_id]);
        let token = self.client.token.as_deref().ok_or(CallError::NoToken)?;
        let response = send(
            self.client
                .http
                .request(method, url)
                .header(reqwest::header::ACCEPT, "application/json")
                .header(INTERNAL_TOKEN_HEADER, token),
        )
        .await?;
        match response.status() {
            reqwest::StatusCode::NO_CONTENT => Ok(SubscriptionAnswer::SourceDeleted),
            s if s.is_success() => read_json(response).await.map(SubscriptionAnswer::Source),
            reqwest::StatusCode::NOT_FOUND => Ok(SubscriptionAnswer::NotFound),
            s => Err(CallError::Status(s)),
        }
    }

    /// The routes that answer the caller `authorization` (their own `Authorization` header)
    /// names.
    pub fn caller(self, authorization: Option<String>) -> Caller<'a> {
        Caller {
            api: self,
            authorization,
        }
    }
}

/// Identity asked about one caller, with their own token.
#[derive(Debug)]
pub struct Caller<'a> {
    api: IdentityApi<'a>,
    authorization: Option<String>,
}

impl Caller<'_> {
    async fn get(&self, path: &str) -> Result<reqwest::Response, CallError> {
        let base = self.api.base()?;
        let authorization = self
            .authorization
            .as_deref()
            .ok_or(CallError::NoAuthorization)?;
        send(
            self.api
                .client
                .http
                .get(format!("{base}{path}"))
                .header(reqwest::header::AUTHORIZATION, authorization),
        )
        .await
    }

    /// `GET /api/recipes/users/me`: the caller as the recipe service sees them; `None` when
    /// the account no longer exists.
    pub async fn recipe_user(&self) -> Result<Option<RecipeUser>, CallError> {
        let response = self.get("/api/recipes/users/me").await?;
        match response.status() {
            s if s.is_success() => read_json(response).await.map(Some),
            reqwest::StatusCode::NOT_FOUND => Ok(None),
            s => Err(CallError::Status(s)),
        }
    }

    /// `GET /api/users/users/me`: whether the caller's account exists (404: it is gone; 401:
    /// identity no longer accepts the token).
    pub async fn account_exists(&self) -> Result<bool, CallError> {
        let response = self.get("/api/users/users/me").await?;
        match response.status() {
            s if s.is_success() => Ok(true),
            reqwest::StatusCode::NOT_FOUND | reqwest::StatusCode::UNAUTHORIZED => Ok(false),
            s => Err(CallError::Status(s)),
        }
    }
}

/// True when a 401 challenges for a Google Reader `Auth` value (`WWW-Authenticate: GoogleLogin`).
fn challenges_google_login(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("GoogleLogin"))
}

/// `{ids}`: a person's saved article ids, as `GET /api/users/users/me/saved` answers.
#[derive(serde::Deserialize)]
struct SavedIds {
    ids: Vec<String>,
}

/// `{sourceIds}`: a person's subscriptions, as `GET /api/users/users/me/subscriptions` answers.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct SubscribedIds {
    source_ids: Vec<String>,
}

impl Caller<'_> {
    /// `GET /api/users/users/me/saved`: the caller's saved article ids, newest first; `None`
    /// when identity does not accept the token or the account is gone (the news reader imports
    /// them once as starred articles).
    pub async fn saved_article_ids(&self) -> Result<Option<Vec<String>>, CallError> {
        let response = self.get("/api/users/users/me/saved").await?;
        match response.status() {
            s if s.is_success() => read_json::<SavedIds>(response).await.map(|s| Some(s.ids)),
            reqwest::StatusCode::NOT_FOUND | reqwest::StatusCode::UNAUTHORIZED => Ok(None),
            s => Err(CallError::Status(s)),
        }
    }

    /// `GET /api/users/users/me/subscriptions`: the caller's subscribed source ids; `None` as
    /// for [`Caller::saved_article_ids`].
    pub async fn subscribed_source_ids(&self) -> Result<Option<Vec<String>>, CallError> {
        let response = self.get("/api/users/users/me/subscriptions").await?;
        match response.status() {
            s if s.is_success() => read_json::<SubscribedIds>(response)
                .await
                .map(|s| Some(s.source_ids)),
            reqwest::StatusCode::NOT_FOUND | reqwest::StatusCode::UNAUTHORIZED => Ok(None),
            s => Err(CallError::Status(s)),
        }
    }
}

/// `raw` with `query` (none: no `?` at all).
fn url(raw: &str, query: &[(&str, String)]) -> Result<reqwest::Url, CallError> {
    if query.is_empty() {
        reqwest::Url::parse(raw)
    } else {
        reqwest::Url::parse_with_params(raw, query)
    }
    .map_err(|e| CallError::BadUrl(e.to_string()))
}
