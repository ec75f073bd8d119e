//! Feeds a person adds by URL (`quickadd`, `subscription/edit` with `feed/{url}`): submitted to
//! the intake function's `POST /api/content/sources` as the person, with their user token. The
//! intake counts the submission against the person's `SourceSubmissionRateLimit`, checks the
//! account, fetches and parses the feed; this function links no feed parser.

use std::time::Duration;

use news::model::Source;
use platform::ApiError;
use reqwest::StatusCode;
use serde::Deserialize;

/// How long a submission may take: the intake fetches the feed (or a page and its candidate
/// feeds) before it answers, within its own 30 s.
const SUBMIT_TIMEOUT: Duration = Duration::from_secs(28);

/// Why a feed was not submitted.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The URL cannot be fetched or serves no feed (the intake's reasons, `url: ` taken off).
    Feed(String),
    Other(ApiError),
}

impl From<Refused> for ApiError {
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::Feed(reason) => ApiError::field("s", reason),
            Refused::Other(error) => error,
        }
    }
}

impl From<ApiError> for Refused {
    fn from(error: ApiError) -> Self {
        Self::Other(error)
    }
}

/// The intake's error answer: the part read here.
#[derive(Deserialize)]
struct ErrorAnswer {
    #[serde(default)]
    details: Vec<String>,
    #[serde(default)]
    message: String,
}

/// Submits `url` at the API at `base` as the person whose `Authorization` is `bearer`: the
/// source (new or known), or why not.
pub(crate) async fn submit(
    http: &reqwest::Client,
    base: Option<&str>,
    bearer: &str,
    url: &str,
) -> Result<Source, Refused> {
    let base = base.ok_or_else(|| {
        ApiError::bad_gateway("The feed intake cannot be located")
            .caused_by("no INTERNAL_API_URL and no request base")
    })?;
    let response = http
        .post(format!("{base}/api/content/sources"))
        .header(reqwest::header::AUTHORIZATION, bearer)
        .json(&serde_json::json!({ "url": url }))
        .timeout(SUBMIT_TIMEOUT)
        .send()
        .await
        .map_err(|e| unreachable(&e))?;
    let status = response.status();
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let body = response.bytes().await.map_err(|e| unreachable(&e))?;
    answer(status, retry_after, &body)
}

/// The intake's answer as the submission's outcome.
fn answer(status: StatusCode, retry_after: Option<u64>, body: &[u8]) -> Result<Source, Refused> {
    if status.is_success() {
        return serde_json::from_slice(body).map_err(|e| {
            Refused::Other(
                ApiError::bad_gateway("The feed intake answered unreadably")
                    .caused_by(format!("submission answer: {e}")),
            )
        });
    }
    let error: Option<ErrorAnswer> = serde_json::from_slice(body).ok();
    Err(Refused::Other(match status {
        StatusCode::BAD_REQUEST => {
            let reasons: Vec<String> = error
                .map(|e| e.details)
                .unwrap_or_default()
                .iter()
                .map(|d| d.strip_prefix("url: ").unwrap_or(d).to_string())
                .collect();
            return Err(Refused::Feed(if reasons.is_empty() {
                "the feed could not be added".to_string()
            } else {
                reasons.join("; ")
            }));
        }
        StatusCode::UNAUTHORIZED => {
            ApiError::unauthorized("The account of this app password no longer exists")
        }
        StatusCode::TOO_MANY_REQUESTS => ApiError::too_many_requests(retry_after.unwrap_or(60)),
        StatusCode::SERVICE_UNAVAILABLE => {
            ApiError::unavailable("Feeds cannot be added right now, try again")
        }
        other => ApiError::bad_gateway("The feed intake failed").caused_by(format!(
            "submission answered {other}: {}",
            error.map(|e| e.message).unwrap_or_default()
        )),
    }))
}

fn unreachable(error: &reqwest::Error) -> Refused {
    Refused::Other(
        ApiError::bad_gateway("The feed intake could not be reached")
            .caused_by(format!("submission failed: {error}")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::ErrorKind;

    fn err(status: u16, body: &str, retry: Option<u64>) -> Refused {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::IM_A_TEAPOT);
        match answer(status, retry, body.as_bytes()) {
            Err(refused) => refused,
            Ok(source) => Refused::Other(ApiError::field("unexpected", source.id)),
        }
    }

    #[test]
    fn a_refused_url_is_the_intakes_reasons_without_the_field() {
        let body = r#"{"timestamp":"t","code":400,"message":"Validation failed","details":["url: no feed found at this address"],"path":"/sources"}"#;
        assert!(matches!(
            err(400, body, None),
            Refused::Feed(reason) if reason == "no feed found at this address"
        ));
    }

    #[test]
    fn limits_and_outages_keep_their_meaning() {
        let kind = |r: Refused| match r {
            Refused::Other(e) => Some((e.kind, e.retry_after)),
            Refused::Feed(_) => None,
        };
        assert_eq!(
            kind(err(429, "{}", Some(42))),
            Some((ErrorKind::TooManyRequests, Some(42)))
        );
        assert_eq!(
            kind(err(503, "", None)).map(|k| k.0),
            Some(ErrorKind::ServiceUnavailable)
        );
        assert_eq!(
            kind(err(401, "{}", None)).map(|k| k.0),
            Some(ErrorKind::Unauthorized)
        );
        assert_eq!(
            kind(err(500, "oops", None)).map(|k| k.0),
            Some(ErrorKind::BadGateway)
        );
    }

    #[test]
    fn a_new_source_is_read_from_the_answer() {
        let body = r#"{"id":"abc","url":"https://example.com/feed.xml","title":"Example","siteUrl":null,"description":null,"subscriberCount":0,"lastFetchedAt":null,"createdAt":"2026-12-03T00:00:00.000Z","fullText":"auto"}"#;
        let source = answer(StatusCode::CREATED, None, body.as_bytes()).map_err(|_| ());
        assert_eq!(source.map(|s| s.id), Ok("abc".to_string()));
        assert!(matches!(
            answer(StatusCode::OK, None, b"not json"),
            Err(Refused::Other(_))
        ));
    }
}
