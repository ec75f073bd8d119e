//! Who a request is: its `Authorization: GoogleLogin auth=…` exchanged with identity for the
//! person and a short-lived user token of theirs, kept per auth value for at most
//! [`SESSION_SECONDS`] (so a revoked app password stops working within that time).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;
use identity_client::ReaderSession;
use news::UserId;
use platform::ratelimit::ClientKey;
use platform::ApiError;

use crate::protocol::google_login_auth;
use crate::AppState;

/// How long an exchanged session is reused: far less than the user token's life, short
/// enough that revoking an app password (or ending the account's sessions) ends its apps
/// within a minute.
pub const SESSION_SECONDS: u64 = 60;
/// The most auth values one warm function keeps; past it, the cache starts over.
const MAX_SESSIONS: usize = 10_000;
/// The longest auth value identity makes (`identity::app_passwords::MAX_AUTH_CHARS`); longer
/// ones are refused before any call.
pub const MAX_AUTH_CHARS: usize = 260;

/// The person a request authenticates.
#[derive(Debug, Clone)]
pub struct Person {
    pub user: UserId,
    pub username: String,
    /// The auth value: also the action token `T` (as Miniflux's).
    pub auth: String,
    /// `Bearer {user token}`, for calls to identity as the person.
    pub bearer: String,
    /// Where identity is called for this request.
    pub identity_base: Option<String>,
}

#[derive(Debug)]
struct Cached {
    person: Person,
    until: Instant,
}

/// Exchanged sessions by auth value, shared by the function's requests.
#[derive(Debug, Clone, Default)]
pub struct Sessions(Arc<Mutex<HashMap<String, Cached>>>);

impl Sessions {
    fn get(&self, auth: &str) -> Option<Person> {
        let map = self.0.lock().ok()?;
        map.get(auth)
            .filter(|c| c.until > Instant::now())
            .map(|c| c.person.clone())
    }

    fn put(&self, person: &Person, expires_in: i64) {
        // Kept shorter than the token: a call made with it must not meet an expired token.
        let life = u64::try_from(expires_in.saturating_sub(30))
            .unwrap_or(0)
            .min(SESSION_SECONDS);
        if life == 0 {
            return;
        }
        if let Ok(mut map) = self.0.lock() {
            let now = Instant::now();
            if map.len() >= MAX_SESSIONS {
                map.retain(|_, c| c.until > now);
                if map.len() >= MAX_SESSIONS {
                    map.clear();
                }
            }
            map.insert(
                person.auth.clone(),
                Cached {
                    person: person.clone(),
                    until: now + Duration::from_secs(life),
                },
            );
        }
    }
}

/// The answer to a request without a good `GoogleLogin` header (rendered as the servers'
/// `Unauthorized!` by the router's last layer).
pub fn unauthorized() -> ApiError {
    ApiError::unauthorized("Unauthorized!").with_challenge("GoogleLogin")
}

impl FromRequestParts<AppState> for Person {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let auth = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(google_login_auth)
            .filter(|a| a.len() <= MAX_AUTH_CHARS)
            .ok_or_else(unauthorized)?
            .to_string();
        let base =
            platform::http::internal_api_base(state.internal_api_url.as_deref(), &parts.extensions);
        let mut person = match state.sessions.get(&auth) {
            Some(person) => person,
            None => exchange(parts, state, auth, base.clone()).await?,
        };
        person.identity_base.clone_from(&base);
        state
            .brake
            .admit(&crate::REQUESTS, ClientKey::user(person.user.as_str()))
            .await?;
        // What identity held before the reader (saved articles, subscriptions) comes over on
        // the person's first call, whichever app or page makes it.
        let caller = state.identity.at(base).caller(Some(person.bearer.clone()));
        state.reader.import_once(&person.user, &caller).await?;
        Ok(person)
    }
}

/// The person of `auth`, asked of identity (and kept for the next requests).
async fn exchange(
    parts: &Parts,
    state: &AppState,
    auth: String,
    base: Option<String>,
) -> Result<Person, ApiError> {
    // Each exchange is a call to identity: a client guessing auth values is slowed down
    // by its address before identity sees them.
    if let Some(address) = platform::http::client_address(&parts.extensions) {
        state
            .brake
            .admit(&crate::EXCHANGES, ClientKey::address(&address))
            .await?;
    }
    let session: ReaderSession = state
        .identity
        .at(base)
        .reader_session(&auth)
        .await
        .map_err(|e| {
            ApiError::bad_gateway("The users service could not be reached")
                .caused_by(format!("reader session exchange failed: {e}"))
        })?
        .ok_or_else(unauthorized)?;
    let user = UserId::parse("userId", session.user_id.clone())
        .map_err(|_| ApiError::bad_gateway("The users service answered an unreadable session"))?;
    let person = Person {
        user,
        username: session.username.clone(),
        auth,
        bearer: format!("Bearer {}", session.access_token),
        identity_base: None,
    };
    state.sessions.put(&person, session.expires_in);
    Ok(person)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(auth: &str) -> Person {
        Person {
            user: UserId::new("u1"),
            username: "alice".into(),
            auth: auth.into(),
            bearer: "Bearer t".into(),
            identity_base: None,
        }
    }

    #[test]
    fn sessions_are_kept_no_longer_than_a_minute_nor_the_token() {
        let sessions = Sessions::default();
        sessions.put(&person("a"), 900);
        assert_eq!(sessions.get("a").map(|p| p.username), Some("alice".into()));
        assert!(sessions.get("b").is_none());
        // A token about to expire is not kept at all.
        sessions.put(&person("c"), 20);
        assert!(sessions.get("c").is_none());
        let until = sessions
            .0
            .lock()
            .ok()
            .and_then(|m| m.get("a").map(|c| c.until));
        assert!(until.is_some_and(|u| u <= Instant::now() + Duration::from_secs(SESSION_SECONDS)));
    }
}
