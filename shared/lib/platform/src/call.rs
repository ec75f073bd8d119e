//! One call to another product's route, as the products' client crates make it: the answer
//! read as JSON up to a size cap, and why a call failed, kept apart so each caller answers a
//! busy product, an unreachable one and an unreadable answer as its port says.

use serde::de::DeserializeOwned;

/// The header that carries the internal service token (`INTERNAL_SERVICE_TOKEN`).
pub const INTERNAL_TOKEN_HEADER: &str = "x-internal-service-token";

/// The largest answer read from another product.
pub const MAX_ANSWER_BYTES: usize = 8 * 1024 * 1024;

/// Why a call to another product did not give a value.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// Nowhere to send it: no `INTERNAL_API_URL`, and the request did not come through the API.
    #[error("INTERNAL_API_URL is not set and the request did not come through API Gateway")]
    NoBase,
    /// The route needs the internal service token and there is none.
    #[error("INTERNAL_SERVICE_TOKEN is not set")]
    NoToken,
    /// The route answers the caller's own user and the request carried no token.
    #[error("no Authorization header")]
    NoAuthorization,
    /// The base URL and the route make no URL.
    #[error("bad URL: {0}")]
    BadUrl(String),
    /// The request was not sent or not answered (unreachable, or past the client's timeout).
    #[error("{0}")]
    Send(reqwest::Error),
    /// An answer with a status the route's client does not turn into a value.
    #[error("HTTP {0}")]
    Status(reqwest::StatusCode),
    /// The answer's body stopped before its end.
    #[error("the answer was cut off")]
    CutOff(reqwest::Error),
    /// The answer is larger than [`MAX_ANSWER_BYTES`].
    #[error("the answer is too large")]
    TooLarge,
    /// The answer is not the route's JSON.
    #[error("unreadable answer: {0}")]
    Unreadable(serde_json::Error),
}

impl CallError {
    /// The product answered that it cannot serve now (503, 429): a caller may retry shortly.
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            Self::Status(
                reqwest::StatusCode::SERVICE_UNAVAILABLE | reqwest::StatusCode::TOO_MANY_REQUESTS
            )
        )
    }

    /// Sent and not answered within the client's timeout.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::Send(e) if e.is_timeout())
    }
}

/// Sends `request`; an error when it was not answered.
pub async fn send(request: reqwest::RequestBuilder) -> Result<reqwest::Response, CallError> {
    request.send().await.map_err(CallError::Send)
}

/// The answer's body, at most [`MAX_ANSWER_BYTES`], read as `T`.
pub async fn read_json<T: DeserializeOwned>(
    mut response: reqwest::Response,
) -> Result<T, CallError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(CallError::CutOff)? {
        if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(CallError::TooLarge);
        }
        bytes.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&bytes).map_err(CallError::Unreadable)
}
