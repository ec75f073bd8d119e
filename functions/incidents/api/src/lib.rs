//! The incidents function: the incident platform apart from ingestion, as the
//! API gateway routes it: the timeline (`GET` and `DELETE /api/v1/logs`,
//! `DELETE /api/v1/logs/{id}`), alert rules and alerts (`/api/v1/alerts`), incidents
//! (`/api/v1/incidents`, their status counts), the operators they may be assigned to
//! (`/api/v1/operators`), the logbook (`/api/v1/logbook`), the ingest keys
//! (`/api/v1/ingest/keys`), notification channels and silences (`/api/v1/silences`). Every
//! route needs an OPERATOR or ADMIN token (401 without a valid one, 403 for a plain USER);
//! purging the timeline, deleting an alert rule and managing ingest keys need ADMIN.
//!
//! Each handler parses its input with `incidents::input` and makes one call on
//! [`incidents::Incidents`] (its `store` module documents the table's keys; the purge's steps
//! go through its ingest queue); handlers answer `ApiError`, which the domain's errors convert
//! into (`impl From<IncidentsError> for ApiError`), in the detailed error body. A timeline deletion
//! that names filters is queued (`incidents-processor` deletes it in steps) and answered 204.
//! The handlers live by resource: [`logs`], [`alerts`] (rules and alerts), [`incident`],
//! [`logbook`], [`keys`] (ingest keys), [`channels`] (notification channels) and
//! [`silences`].

mod alerts;
mod channels;
mod incident;
mod keys;
mod logbook;
mod logs;
mod operators;
mod silences;

use std::sync::Arc;

use axum::extract::FromRef;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use incidents::email::EmailTopic;
use incidents::keys::{IngestKey, IngestKeys, IssuedIngestKey, KeyRateLimit, DEFAULT_RATE_LIMIT};
use incidents::model::{
    Alert, AlertRule, AlertStatus, Incident, IncidentDetail, IncidentEvent, IncidentStatus, Log,
    LogbookEntry, LogbookKind, Occurrence, Severity,
};
use incidents::service::Actor;
use incidents::Incidents;
use platform::auth::AuthUser;
use platform::aws::AwsClients;
use platform::http::DEFAULT_BODY_LIMIT;
use platform::openapi::{ErrorBody, SecuritySchemes, TableUnavailable};
use platform::tokens::TokenVerifier;
use platform::{ApiError, BoxError, Clock, Env, ErrorStyle};
use utoipa::OpenApi;

/// The header that carries the timeline's next cursor.
pub const NEXT_CURSOR_HEADER: &str = "x-next-cursor";
/// The list bounds of incidents, alerts and logbook entries.
pub const MAX_LIST: usize = 100;
pub const DEFAULT_LIST: usize = 50;

#[derive(Clone)]
pub struct AppState {
    incidents: Arc<Incidents>,
    keys: IngestKeys,
    verifier: Arc<TokenVerifier>,
    email: EmailTopic,
    roster: operators::Roster,
}

impl FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

/// Builds the function's router from its environment (`INCIDENTS_TABLE`,
/// `INGEST_QUEUE_URL`, `EMAIL_TOPIC_ARN`): what a cold start does.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let incidents = Incidents::from_env(&env, &aws)?;
    let verifier = TokenVerifier::for_function(&env, &aws)?;
    let email = EmailTopic::from_env(&env, &aws)?;
    let keys = IngestKeys::new(
        incidents.table().clone(),
        Clock::system(),
        default_key_limit(&env)?,
    );
    app(Arc::new(incidents), keys, verifier, email)
}

/// `INGEST_KEY_RATE_LIMIT` (`COUNT/SECONDS`): the limit of a key issued without one.
pub fn default_key_limit(env: &Env) -> Result<KeyRateLimit, platform::ConfigError> {
    KeyRateLimit::parse(
        env.get("INGEST_KEY_RATE_LIMIT")
            .unwrap_or(DEFAULT_RATE_LIMIT),
    )
    .map_err(|reason| platform::ConfigError::Invalid {
        name: "INGEST_KEY_RATE_LIMIT".to_string(),
        reason,
    })
}

/// The router over given services.
pub fn app(
    incidents: Arc<Incidents>,
    keys: IngestKeys,
    verifier: TokenVerifier,
    email: EmailTopic,
) -> Result<Router, BoxError> {
    let state = AppState {
        incidents,
        keys,
        verifier: Arc::new(verifier),
        email,
        roster: operators::Roster::default(),
    };
    let routes = Router::new()
        .merge(logs::routes())
        .merge(alerts::routes())
        .merge(incident::routes())
        .merge(logbook::routes())
        .merge(keys::routes())
        .merge(channels::routes())
        .merge(operators::routes())
        .merge(silences::routes())
        .with_state(state)
        .layer(axum::middleware::map_response(allow_ingestion));
    Ok(platform::http::finish(
        routes,
        ErrorStyle::Detailed { strip_prefix: "" },
        DEFAULT_BODY_LIMIT,
    ))
}

/// `POST /api/v1/logs` is the ingestion function's (the gateway routes it there): a 405 on
/// the path names it among the allowed methods all the same.
async fn allow_ingestion(uri: axum::http::Uri, mut response: Response) -> Response {
    if response.status() == StatusCode::METHOD_NOT_ALLOWED && uri.path() == "/api/v1/logs" {
        response.headers_mut().insert(
            axum::http::header::ALLOW,
            HeaderValue::from_static("GET,HEAD,DELETE,POST"),
        );
    }
    response
}

#[derive(OpenApi)]
#[openapi(
    paths(
        logs::timeline,
        logs::purge,
        logs::delete_log,
        alerts::rules,
        alerts::create_rule,
        alerts::rule,
        alerts::replace_rule,
        alerts::delete_rule,
        alerts::alerts,
        alerts::patch_alert,
        incident::list_incidents,
        incident::incident_counts,
        operators::list_operators,
        incident::incident,
        incident::merge_incident,
        incident::patch_incident,
        logbook::entries,
        logbook::create_entry,
        logbook::entry,
        logbook::replace_entry,
        logbook::delete_entry,
        keys::issue_key,
        keys::list_keys,
        keys::revoke_key
    ),
    components(schemas(
        Log,
        Severity,
        AlertRule,
        alerts::RuleRequest,
        Alert,
        AlertStatus,
        alerts::AlertPatchRequest,
        Incident,
        IncidentStatus,
        IncidentDetail,
        IncidentEvent,
        Occurrence,
        incident::IncidentPatchRequest,
        incident::IncidentMergeRequest,
        incident::IncidentCounts,
        operators::Operator,
        LogbookEntry,
        LogbookKind,
        logbook::LogbookRequest,
        logbook::LogbookReplaceRequest,
        IngestKey,
        IssuedIngestKey,
        KeyRateLimit,
        keys::IngestKeyRequest,
        ErrorBody
    )),
    modifiers(&SecuritySchemes, &TABLE_UNAVAILABLE),
    tags((name = "incidents", description = "The incident platform: logs, incidents, alerts, logbook"))
)]
struct IncidentsApi;

const TABLE_UNAVAILABLE: TableUnavailable = TableUnavailable { except: &[] };

/// The incidents function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let mut api = IncidentsApi::openapi();
    api.merge(channels::ChannelsApi::openapi());
    api.merge(silences::SilencesApi::openapi());
    use utoipa::Modify;
    SecuritySchemes.modify(&mut api);
    TABLE_UNAVAILABLE.modify(&mut api);
    api
}

type Answer<T> = Result<axum::Json<T>, ApiError>;

fn actor(user: &AuthUser) -> Actor {
    Actor {
        id: user.id.clone(),
        username: user.username.clone(),
        admin: user.is_admin(),
    }
}

fn list_limit(raw: Option<&str>) -> Result<usize, ApiError> {
    match raw.map(str::trim) {
        None => Ok(DEFAULT_LIST),
        Some(s) => match s.parse::<usize>() {
            Ok(n) if (1..=MAX_LIST).contains(&n) => Ok(n),
            _ => Err(ApiError::field(
                "limit",
                format!("must be an integer from 1 to {MAX_LIST}"),
            )),
        },
    }
}

/// The index key a list's `cursor` names (any text the contract's pattern allows).
fn list_cursor(raw: Option<&str>) -> Result<Option<String>, ApiError> {
    raw.map(|c| {
        platform::cursor::decode_cursor(c)
            .ok_or_else(|| ApiError::field("cursor", "is not a cursor this service gave out"))
    })
    .transpose()
}

/// A page of a list as a bare array, with the next page's cursor in `X-Next-Cursor`.
fn paged<T: serde::Serialize>(rows: Vec<T>, next: Option<String>) -> Response {
    let mut response = axum::Json(rows).into_response();
    if let Some(cursor) = next.and_then(|c| HeaderValue::from_str(&c).ok()) {
        response.headers_mut().insert(NEXT_CURSOR_HEADER, cursor);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_documents_401_and_the_role_of_its_403() {
        let doc = serde_json::to_value(openapi()).expect("json");
        let admin_only = [
            "deleteLogs",
            "deleteAlertRule",
            "issueIngestKey",
            "listIngestKeys",
            "revokeIngestKey",
        ];
        let mut operations = 0;
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("item") {
                operations += 1;
                assert!(!op["security"].is_null(), "{method} {path}");
                assert!(op["responses"]["401"].is_object(), "{method} {path}");
                let forbidden = op["responses"]["403"]["description"]
                    .as_str()
                    .unwrap_or_default();
                let admin = admin_only.iter().any(|id| op["operationId"] == *id);
                let role = if admin {
                    "the ADMIN role is required"
                } else {
                    "OPERATOR"
                };
                assert!(forbidden.contains(role), "{method} {path}: {forbidden}");
            }
        }
        assert_eq!(operations, 33);
    }
}
