//! The rate limits as tests see them: requests from a chosen client address (the local
//! gateway takes it from `X-Forwarded-For` on loopback, as `sourceIp`), and the 429.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::{RequestBuilder, Response};
use serde_json::Value;

use crate::{assert_news_error, header};

/// Template parameters that take every rate limit out of the way: other tests send far more
/// than a reader would from one address. The limits' own tests set theirs over these.
pub const OUT_OF_THE_WAY: [(&str, &str); 18] = [
    ("AiRateLimitAnonymous", "100000/60"),
    ("AiRateLimitGlobal", "100000/60"),
    ("SourceSubmissionRateLimit", "100000/60"),
    ("AiRateLimitPerUser", "100000/60"),
    ("AiRateLimitPerAddress", "100000/60"),
    ("LoginRateLimitPerAddress", "100000/60"),
    ("LoginRateLimitPerUsername", "100000/60"),
    ("UploadRateLimitPerUser", "100000/60"),
    ("CommunityRateLimitPosts", "100000/60"),
    ("CommunityRateLimitComments", "100000/60"),
    ("CommunityRateLimitReactions", "100000/60"),
    ("CommunityRateLimitViews", "100000/60"),
    ("CommunityRateLimitPreviews", "100000/60"),
    ("RecipesAiRateLimitPerUser", "100000/60"),
    ("MetricsRateLimitPerAddress", "100000/60"),
    ("IncidentsAiRateLimitPerUser", "100000/60"),
    ("IncidentsRagRateLimitPerUser", "100000/60"),
    ("IngestKeyRateLimit", "100000/60"),
];

/// Waits, when the current fixed window of `window` seconds has less than `room` left, for
/// the next one: the limiter's windows start at multiples of `window` since the epoch, so a
/// test's burst started here counts in one window.
pub async fn in_one_window(window: u64, room: Duration) {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let window = Duration::from_secs(window);
    let into = Duration::from_nanos(
        u64::try_from(since_epoch.as_nanos() % window.as_nanos()).unwrap_or_default(),
    );
    let left = window.saturating_sub(into);
    if left < room {
        tokio::time::sleep(left + Duration::from_millis(50)).await;
    }
}

/// `request`, sent as if from client address `ip`.
pub fn from(request: RequestBuilder, ip: &str) -> RequestBuilder {
    request.header("x-forwarded-for", ip)
}

/// Asserts a 429 in the detailed error body for `path`, with a `Retry-After` of 1 to
/// `window` seconds; returns the body and the seconds.
pub async fn assert_rate_limited(response: Response, path: &str, window: u64) -> (Value, u64) {
    let retry_after = header(response.headers(), "retry-after").to_string();
    let body = assert_news_error(response, 429, path).await;
    let seconds: u64 = retry_after
        .parse()
        .unwrap_or_else(|_| panic!("Retry-After {retry_after:?} is not seconds: {body}"));
    assert!(
        (1..=window).contains(&seconds),
        "Retry-After {seconds}, window {window}"
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains(&seconds.to_string()),
        "{body}"
    );
    (body, seconds)
}
