//! The incident metrics function: the incident platform's "metrics server" and "dashboard server".
//!
//! - `GET /prometheus`: the platform's metrics in Prometheus's text exposition format 0.0.4;
//! - `GET /grafana`: a dashboard page whose charts (log volume by severity, incidents by
//!   status, LLM latency, time to acknowledge and to resolve) are drawn in the browser from
//! - `GET /grafana/api/metrics`: the same figures as JSON.
//!
//! All three need HTTP Basic auth (`METRICS_USERNAME`, `METRICS_PASSWORD`, compared in
//! constant time); anything else is a 401 with `WWW-Authenticate: Basic`. No password
//! configured refuses everyone. The password is a secret worth guessing, so every request is
//! counted per client address (`METRICS_RATE_LIMIT_PER_ADDRESS`) before it is checked: a
//! spent limit is a 429 with `Retry-After`. Each answer is one snapshot of the metrics table
//! (`incidents_metrics`): its `SHARDS` partitions, one strongly consistent Query each, in
//! parallel. The function keeps no figure itself.

mod dashboard;

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use incidents_metrics::exposition::{
    self, HistogramBucket, MetricFamily, MetricSeries, MetricsReport,
};
use incidents_metrics::Metrics;
use platform::aws::AwsClients;
use platform::http::DEFAULT_BODY_LIMIT;
use platform::openapi::{ErrorBody, TableUnavailable};
use platform::ratelimit::{self, ClientKey, Limit, RateLimiter, WhenUnavailable};
use platform::{ApiError, BoxError, Clock, Env, ErrorStyle};
use ring::digest::{digest, SHA256};
use subtle::ConstantTimeEq;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::OpenApi;

pub use dashboard::{dashboard_csp, DASHBOARD_HTML};

/// The exposition's path.
pub const PROMETHEUS: &str = "/prometheus";
/// The dashboard page's path.
pub const GRAFANA: &str = "/grafana";
/// The JSON the dashboard draws.
pub const GRAFANA_METRICS: &str = "/grafana/api/metrics";
/// The OpenAPI name of the Basic auth scheme.
pub const METRICS_BASIC: &str = "metricsBasic";
/// The username when `METRICS_USERNAME` is unset.
pub const DEFAULT_USERNAME: &str = "metrics";
/// The challenge of a 401.
pub const CHALLENGE: &str = "Basic realm=\"metrics\", charset=\"UTF-8\"";
/// The requests one address may make (template parameter `MetricsRateLimitPerAddress`): a
/// scrape every 15 s is 4 a minute; a guesser gets 2,000 tries an hour.
pub const DEFAULT_PER_ADDRESS: &str = "60/60,2000/3600";

/// The credentials a request must present, kept as digests: comparing digests of equal
/// length in constant time leaks neither the secret nor its length.
#[derive(Clone)]
struct Credentials {
    username: [u8; 32],
    password: [u8; 32],
    /// No password configured: nobody gets in.
    configured: bool,
}

fn sha256(text: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(digest(&SHA256, text.as_bytes()).as_ref());
    out
}

impl Credentials {
    fn new(username: &str, password: &str) -> Self {
        Self {
            username: sha256(username),
            password: sha256(password),
            configured: !password.is_empty() && !username.is_empty(),
        }
    }

    /// True when `headers` carry these credentials by HTTP Basic auth.
    fn admit(&self, headers: &HeaderMap) -> bool {
        let Some((username, password)) = basic_credentials(headers) else {
            return false;
        };
        let user_ok = self.username.ct_eq(&sha256(&username));
        let password_ok = self.password.ct_eq(&sha256(&password));
        self.configured && bool::from(user_ok & password_ok)
    }
}

/// The user and password of an `Authorization: Basic` header (RFC 7617: base64 of
/// `user:password`, UTF-8).
fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = String::from_utf8(STANDARD.decode(encoded.trim()).ok()?).ok()?;
    let (user, password) = decoded.split_once(':')?;
    Some((user.to_string(), password.to_string()))
}

/// The brake on password guessing: every request counted per client address.
struct Brake {
    limiter: Option<RateLimiter>,
    per_address: Limit,
}

impl Brake {
    /// `RATE_LIMIT_TABLE` (unset: no brake, logged), `METRICS_RATE_LIMIT_PER_ADDRESS`.
    fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, platform::ConfigError> {
        let limiter = RateLimiter::from_env(env, aws);
        if limiter.is_none() {
            tracing::warn!("RATE_LIMIT_TABLE is unset: the metrics have no rate limit");
        }
        Ok(Self {
            limiter,
            per_address: Limit::from_env(
                env,
                "METRICS_RATE_LIMIT_PER_ADDRESS",
                "metrics-address",
                DEFAULT_PER_ADDRESS,
            )?,
        })
    }

    /// Counts one request of the request's client (outside API Gateway, in a test's router,
    /// every caller is one). When the limits table fails the request goes on (logged):
    /// refusing would blind the monitoring over a side table.
    async fn admit(&self, extensions: &axum::http::Extensions) -> Result<(), ApiError> {
        match &self.limiter {
            None => Ok(()),
            Some(limiter) => {
                let address = platform::http::client_address(extensions);
                let key = ClientKey::address(address.as_deref().unwrap_or("unknown"));
                ratelimit::enforce(limiter, &[(&self.per_address, key)], WhenUnavailable::Allow)
                    .await
            }
        }
    }
}

#[derive(Clone)]
struct AppState {
    metrics: Metrics,
    brake: Arc<Brake>,
    credentials: Arc<Credentials>,
    clock: Clock,
    /// The dashboard page's Content-Security-Policy.
    csp: HeaderValue,
}

/// Builds the function's router from its environment (`INCIDENT_METRICS_TABLE`,
/// `METRICS_USERNAME`, `METRICS_PASSWORD`, `RATE_LIMIT_TABLE`,
/// `METRICS_RATE_LIMIT_PER_ADDRESS`): what a cold start does.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let brake = Brake::from_env(&env, &aws)?;
    app(Metrics::from_env(&env, &aws)?, brake, &env)
}

/// The router over a given metrics table.
fn app(metrics: Metrics, brake: Brake, env: &Env) -> Result<Router, BoxError> {
    let username = env.get_or("METRICS_USERNAME", DEFAULT_USERNAME).trim();
    let password = env.get("METRICS_PASSWORD").unwrap_or("");
    let credentials = Credentials::new(username, password);
    if !credentials.configured {
        tracing::warn!("METRICS_USERNAME or METRICS_PASSWORD is empty: every request is refused");
    }
    let state = AppState {
        metrics,
        brake: Arc::new(brake),
        credentials: Arc::new(credentials),
        clock: Clock::system(),
        csp: HeaderValue::from_str(&dashboard_csp())?,
    };
    let routes = Router::new()
        .route(PROMETHEUS, get(prometheus))
        .route(GRAFANA, get(grafana))
        .route(GRAFANA_METRICS, get(grafana_metrics))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            require_credentials,
        ))
        .with_state(state)
        .layer(axum::middleware::map_response(private_answers));
    Ok(platform::http::finish(
        routes,
        ErrorStyle::Detailed { strip_prefix: "" },
        DEFAULT_BODY_LIMIT,
    ))
}

/// Every route needs the metrics credentials: a 401 challenging for Basic auth otherwise,
/// once the request is counted against its address's limit (a 429 when spent).
async fn require_credentials(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    if let Err(refused) = state.brake.admit(request.extensions()).await {
        return refused.into_response();
    }
    if state.credentials.admit(request.headers()) {
        next.run(request).await
    } else {
        ApiError::unauthorized("The metrics need their username and password (HTTP Basic auth)")
            .with_challenge(CHALLENGE)
            .into_response()
    }
}

/// Figures behind a password are nobody's cache's to keep.
async fn private_answers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// The 401 of every route.
#[derive(utoipa::IntoResponses)]
#[response(
    status = 401,
    description = "No or wrong credentials; `WWW-Authenticate: Basic` asks for them",
    headers(("WWW-Authenticate" = String, description = "Basic realm=\"metrics\""))
)]
#[allow(dead_code)]
struct CredentialsRequired(ErrorBody);

/// The 429 of every route.
struct TooManyRequests;

impl utoipa::IntoResponses for TooManyRequests {
    fn responses() -> std::collections::BTreeMap<
        String,
        utoipa::openapi::RefOr<utoipa::openapi::response::Response>,
    > {
        std::collections::BTreeMap::from([platform::openapi::too_many_requests(
            "Too many requests from this address (METRICS_RATE_LIMIT_PER_ADDRESS); retry after Retry-After seconds",
            "ErrorBody",
        )])
    }
}

struct MetricsBasicScheme;

impl utoipa::Modify for MetricsBasicScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            METRICS_BASIC,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Basic)
                    .description(Some(
                        "The metrics username and password (METRICS_USERNAME, METRICS_PASSWORD).",
                    ))
                    .build(),
            ),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    paths(prometheus, grafana, grafana_metrics),
    components(schemas(MetricsReport, MetricFamily, MetricSeries, HistogramBucket, ErrorBody)),
    modifiers(&MetricsBasicScheme, &TABLE_UNAVAILABLE),
    tags((name = "metrics", description = "The incident platform: Prometheus metrics and the dashboard"))
)]
struct MetricsApi;

const TABLE_UNAVAILABLE: TableUnavailable = TableUnavailable {
    except: &["incidentsDashboard"],
};

/// The metrics function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    MetricsApi::openapi()
}

/// The incident-log platform's metrics in Prometheus's text exposition format 0.0.4: logs
/// ingested by service and severity, incidents by status, alerts fired, time to acknowledge
/// and to resolve, analyses and LLM latency.
#[utoipa::path(
    get,
    path = "/prometheus",
    operation_id = "prometheusMetrics",
    tag = "metrics",
    security(("metricsBasic" = [])),
    responses(
        (status = 200, description = "The exposition (`text/plain; version=0.0.4`): `# HELP` and `# TYPE` lines, counters ending in `_total`, histograms as cumulative `_bucket{le}` series ending at `+Inf`, `_sum` (seconds) and `_count`", content_type = "text/plain", body = String),
        CredentialsRequired,
        TooManyRequests,
    )
)]
async fn prometheus(State(state): State<AppState>) -> Result<Response, ApiError> {
    let snapshot = state.metrics.snapshot().await.map_err(unavailable)?;
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(exposition::CONTENT_TYPE),
        )],
        exposition::render(&snapshot),
    )
        .into_response())
}

/// The dashboard: charts of log volume by severity, incidents by status, LLM latency, and
/// time to acknowledge and to resolve, drawn in the browser from `/grafana/api/metrics`.
#[utoipa::path(
    get,
    path = "/grafana",
    operation_id = "incidentsDashboard",
    tag = "metrics",
    security(("metricsBasic" = [])),
    responses(
        (status = 200, description = "The dashboard page (self-contained HTML, no outside resources)", content_type = "text/html", body = String),
        CredentialsRequired,
        TooManyRequests,
    )
)]
async fn grafana(State(state): State<AppState>) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CONTENT_SECURITY_POLICY, state.csp.clone()),
        ],
        DASHBOARD_HTML,
    )
        .into_response()
}

/// The figures of `GET /prometheus` as JSON, for the dashboard: every family, series and
/// value, histogram buckets cumulative.
#[utoipa::path(
    get,
    path = "/grafana/api/metrics",
    operation_id = "dashboardMetrics",
    tag = "metrics",
    security(("metricsBasic" = [])),
    responses(
        (status = 200, description = "The metrics", body = MetricsReport),
        CredentialsRequired,
        TooManyRequests,
    )
)]
async fn grafana_metrics(
    State(state): State<AppState>,
) -> Result<axum::Json<MetricsReport>, ApiError> {
    let snapshot = state.metrics.snapshot().await.map_err(unavailable)?;
    Ok(axum::Json(exposition::report(
        &snapshot,
        platform::clock::rfc3339(state.clock.now()),
    )))
}

/// A metrics table failure: 503 when it cannot be reached, else 500.
fn unavailable(error: platform::dynamo::DynamoError) -> ApiError {
    if error.is_unavailable() {
        ApiError::unavailable("The metrics are unavailable, try again")
            .caused_by(format!("metrics table unavailable: {error}"))
    } else {
        ApiError::internal("metrics table", error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, value.parse().unwrap());
        headers
    }

    #[test]
    fn only_the_configured_credentials_get_in() {
        let credentials = Credentials::new("metrics", "local-metrics");
        let right = format!("Basic {}", STANDARD.encode("metrics:local-metrics"));
        assert!(credentials.admit(&basic(&right)));
        assert!(credentials.admit(&basic(&right.replace("Basic", "basic"))));
        for wrong in [
            format!("Basic {}", STANDARD.encode("metrics:local-metric")),
            format!("Basic {}", STANDARD.encode("metrics:local-metrics2")),
            format!("Basic {}", STANDARD.encode("other:local-metrics")),
            format!("Basic {}", STANDARD.encode("metrics")),
            format!("Bearer {}", STANDARD.encode("metrics:local-metrics")),
            "Basic !!!".to_string(),
            "Basic".to_string(),
        ] {
            assert!(!credentials.admit(&basic(&wrong)), "{wrong}");
        }
        assert!(!credentials.admit(&HeaderMap::new()));
        // A password may hold colons: only the first separates the user.
        let colons = Credentials::new("m", "a:b");
        assert!(colons.admit(&basic(&format!("Basic {}", STANDARD.encode("m:a:b")))));
        // Nothing configured: not even empty credentials get in.
        let none = Credentials::new("metrics", "");
        assert!(!none.admit(&basic(&format!("Basic {}", STANDARD.encode("metrics:")))));
    }

    /// The metric names a PromQL expression reads (`incident_...`).
    fn names_in(expr: &str) -> Vec<String> {
        let mut names = Vec::new();
        let mut rest = expr;
        while let Some(at) = rest.find("incident_") {
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
                .unwrap_or(tail.len());
            names.push(tail[..end].to_string());
            rest = &tail[end..];
        }
        names
    }

    #[test]
    fn the_grafana_dashboard_charts_the_exposed_families() {
        use incidents_metrics::catalog::{self, Kind};
        let dashboard: serde_json::Value =
            serde_json::from_str(include_str!("../grafana/incident-platform.json")).unwrap();
        let mut charted = std::collections::BTreeSet::new();
        for panel in dashboard["panels"].as_array().unwrap() {
            let targets = panel["targets"].as_array().unwrap();
            assert!(!targets.is_empty(), "{}", panel["title"]);
            for target in targets {
                assert_eq!(target["datasource"]["uid"], "${datasource}");
                let expr = target["expr"].as_str().unwrap();
                let names = names_in(expr);
                assert!(!names.is_empty(), "{expr}");
                for name in names {
                    let family = ["_bucket", "_sum", "_count"]
                        .iter()
                        .find_map(|suffix| {
                            name.strip_suffix(suffix)
                                .and_then(catalog::find)
                                .filter(|m| m.kind == Kind::Histogram)
                        })
                        .or_else(|| catalog::find(&name).filter(|m| m.kind != Kind::Histogram))
                        .unwrap_or_else(|| panic!("{name} in {expr:?} is no exposed series"));
                    charted.insert(family.name);
                }
            }
        }
        let all: std::collections::BTreeSet<&str> = catalog::ALL.iter().map(|m| m.name).collect();
        assert_eq!(charted, all, "every family has a panel");
        assert_eq!(
            names_in("rate(incident_a_total[5m]) / incident_b"),
            ["incident_a_total", "incident_b"]
        );
    }
}
