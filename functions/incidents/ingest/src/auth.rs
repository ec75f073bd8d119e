//! An ingest key as integrations send it: `X-Api-Key`, `Authorization: Bearer KEY`
//! (Alertmanager's `http_config.authorization`), or Basic auth with the key as the password
//! (any username; Alertmanager's `basic_auth`).

use axum::http::{header, HeaderMap};
use base64::Engine;
use incidents::keys::KeyHolder;
use platform::ApiError;

use crate::{AppState, API_KEY_HEADER};

/// The key the request presents, if any.
pub(crate) fn presented_key(headers: &HeaderMap) -> Option<String> {
    let given = |v: &str| Some(v.trim().to_string()).filter(|k| !k.is_empty());
    if let Some(key) = headers
        .get(API_KEY_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(given)
    {
        return Some(key);
    }
    let authorization = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, credentials) = authorization.split_once(' ')?;
    if scheme.eq_ignore_ascii_case("bearer") {
        return given(credentials);
    }
    if scheme.eq_ignore_ascii_case("basic") {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(credentials.trim())
            .ok()?;
        let pair = String::from_utf8(decoded).ok()?;
        let (_, password) = pair.split_once(':')?;
        return given(password);
    }
    None
}

/// The holder of the key the request presents, counted against its limit: 401 without a
/// known key, 429 over its limit.
pub(crate) async fn admitted(state: &AppState, headers: &HeaderMap) -> Result<KeyHolder, ApiError> {
    let refused = || {
        ApiError::unauthorized(
            "An ingest key is required: Authorization: Bearer KEY, Basic auth with the key as the password, or X-Api-Key",
        )
    };
    let presented = presented_key(headers).ok_or_else(refused)?;
    let holder = state.holder(&presented).await?.ok_or_else(refused)?;
    state.admit(&holder).await?;
    Ok(holder)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with(name: header::HeaderName, value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(name, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn a_key_is_taken_as_each_client_sends_it() {
        assert_eq!(
            presented_key(&with(header::AUTHORIZATION, "Bearer ik_a_b")).as_deref(),
            Some("ik_a_b")
        );
        // Alertmanager's basic_auth: any username, the key as the password.
        let basic = base64::engine::general_purpose::STANDARD.encode("alertmanager:ik_a:b");
        assert_eq!(
            presented_key(&with(header::AUTHORIZATION, &format!("Basic {basic}"))).as_deref(),
            Some("ik_a:b")
        );
        assert_eq!(
            presented_key(&with(header::HeaderName::from_static("x-api-key"), " k ")).as_deref(),
            Some("k")
        );
        assert_eq!(
            presented_key(&with(header::AUTHORIZATION, "Bearer  ")),
            None
        );
        assert_eq!(
            presented_key(&with(header::AUTHORIZATION, "Digest x")),
            None
        );
        assert_eq!(presented_key(&HeaderMap::new()), None);
    }
}
