//! Notification channels (`/api/v1/notifications/channels`): operators list, add, read and
//! delete webhooks and e-mail channels, and read each one's delivery log. A channel's secret
//! is write-only; an e-mail channel is an SNS subscription made on create, removed on delete.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::Router;
use incidents::channels::ChannelsError;
use incidents::channels::{
    parse_channel, Channel, ChannelRequest, ChannelWithSecret, Channels, Delivery, Target,
    MAX_DELIVERIES,
};
use incidents::model::Severity;
use platform::auth::OperatorUser;
use platform::http::{Json, Query};
use platform::openapi::ErrorBody;
use platform::{ApiError, Clock};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, OpenApi};

use crate::AppState;

pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/api/v1/notifications/channels",
            get(list_channels).post(create_channel),
        )
        .route(
            "/api/v1/notifications/channels/{id}",
            get(channel).delete(delete_channel),
        )
        .route(
            "/api/v1/notifications/channels/{id}/deliveries",
            get(deliveries),
        )
}

#[derive(OpenApi)]
#[openapi(
    paths(list_channels, create_channel, channel, delete_channel, deliveries),
    components(schemas(Channel, ChannelRequest, Delivery, Severity, ErrorBody))
)]
pub(crate) struct ChannelsApi;

fn channels(state: &AppState) -> Channels {
    Channels::new(state.incidents.table().clone())
}

/// The channel as shown: an e-mail channel with SNS's word on its confirmation.
async fn shown(state: &AppState, stored: ChannelWithSecret) -> Channel {
    let mut channel = stored.channel;
    if let Some(arn) = &stored.subscription_arn {
        channel.pending_confirmation = state.email.pending_confirmation(arn).await;
    }
    channel
}

/// A channel id is a uuid; anything else names no channel.
fn channel_id(raw: &str) -> Result<(), ApiError> {
    uuid::Uuid::parse_str(raw)
        .map(|_| ())
        .map_err(|_| ApiError::not_found("Notification channel not found"))
}

/// The notification channels.
#[utoipa::path(
    get,
    path = "/api/v1/notifications/channels",
    operation_id = "listNotificationChannels",
    tag = "incidents",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The channels (secrets are never returned)", body = Vec<Channel>),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
    )
)]
async fn list_channels(
    State(state): State<AppState>,
    _user: OperatorUser,
) -> Result<axum::Json<Vec<Channel>>, ApiError> {
    let all = channels(&state).all().await.map_err(ChannelsError::from)?;
    let shown = futures::future::join_all(all.into_iter().map(|c| shown(&state, c))).await;
    Ok(axum::Json(shown))
}

/// Adds a webhook or e-mail channel (at most 20 in all); an e-mail address is mailed a
/// confirmation link by SNS and gets nothing until it follows it.
#[utoipa::path(
    post,
    path = "/api/v1/notifications/channels",
    operation_id = "createNotificationChannel",
    tag = "incidents",
    request_body = ChannelRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 201, description = "Created", body = Channel),
        (status = 400, description = "A bad field (a webhook needs url and secret, an email channel address and neither of those), an escalateTo naming no channel, or 20 channels exist (`details` name it)", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = ErrorBody),
        (status = 415, description = "Not JSON", body = ErrorBody),
        (status = 503, description = "SNS did not take an email channel's subscription; nothing was stored", body = ErrorBody),
    )
)]
async fn create_channel(
    State(state): State<AppState>,
    _user: OperatorUser,
    Json(body): Json<Value>,
) -> Result<(StatusCode, axum::Json<Channel>), ApiError> {
    let input = parse_channel(&body)?;
    let store = channels(&state);
    if let Some(to) = &input.escalate_to {
        if store.get(to).await.map_err(ChannelsError::from)?.is_none() {
            return Err(ApiError::field(
                "escalateTo",
                "names no notification channel",
            ));
        }
    }
    let id = uuid::Uuid::new_v4().to_string();
    let now = incidents::input::format_time(Clock::system().now());
    // The subscription filters on the channel's id, so it is made before the channel is stored.
    let subscription = match &input.target {
        Target::Email { address } => {
            Some(state.email.subscribe(&id, address).await.map_err(|error| {
                ApiError::unavailable("The e-mail service is unavailable; try again")
                    .caused_by(format!("SNS subscribe failed: {error}"))
            })?)
        }
        _ => None,
    };
    match store
        .create(&id, &input, subscription.as_deref(), &now)
        .await
    {
        Ok(channel) => Ok((StatusCode::CREATED, axum::Json(channel))),
        Err(error) => {
            if let Some(arn) = &subscription {
                unsubscribe(&state, arn).await;
            }
            Err(error.into())
        }
    }
}

/// One notification channel.
#[utoipa::path(
    get,
    path = "/api/v1/notifications/channels/{id}",
    operation_id = "getNotificationChannel",
    tag = "incidents",
    params(("id" = String, Path, max_length = 36, description = "A channel id (a uuid)")),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The channel", body = Channel),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such channel", body = ErrorBody),
    )
)]
async fn channel(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
) -> Result<axum::Json<Channel>, ApiError> {
    channel_id(&id)?;
    let stored = channels(&state)
        .get(&id)
        .await
        .map_err(ChannelsError::from)?
        .ok_or_else(|| ApiError::not_found("Notification channel not found"))?;
    Ok(axum::Json(shown(&state, stored).await))
}

/// A failed unsubscribe leaves a subscription no publication names any more (the notifier
/// publishes only for stored channels): logged, not fatal.
async fn unsubscribe(state: &AppState, arn: &str) {
    if let Err(error) = state.email.unsubscribe(arn).await {
        tracing::warn!(subscription = arn, %error, "SNS unsubscribe failed");
    }
}

/// Deletes a notification channel and an e-mail channel's subscription (its delivery log
/// expires with nothing pointing at it).
#[utoipa::path(
    delete,
    path = "/api/v1/notifications/channels/{id}",
    operation_id = "deleteNotificationChannel",
    tag = "incidents",
    params(("id" = String, Path, max_length = 36, description = "A channel id (a uuid)")),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such channel", body = ErrorBody),
    )
)]
async fn delete_channel(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    channel_id(&id)?;
    let store = channels(&state);
    let subscription = store
        .get(&id)
        .await
        .map_err(ChannelsError::from)?
        .and_then(|c| c.subscription_arn);
    store.delete(&id).await?;
    if let Some(arn) = &subscription {
        unsubscribe(&state, arn).await;
    }
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct DeliveriesQuery {
    /// Deliveries to show, newest event first (1 to 100; default 50).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
}

/// A channel's delivery log: one row per event, its attempts and last outcome.
#[utoipa::path(
    get,
    path = "/api/v1/notifications/channels/{id}/deliveries",
    operation_id = "listNotificationDeliveries",
    tag = "incidents",
    params(("id" = String, Path, max_length = 36, description = "A channel id (a uuid)"), DeliveriesQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The deliveries, newest event first", body = Vec<Delivery>),
        (status = 400, description = "A bad limit", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
        (status = 404, description = "No such channel", body = ErrorBody),
    )
)]
async fn deliveries(
    State(state): State<AppState>,
    _user: OperatorUser,
    Path(id): Path<String>,
    Query(query): Query<DeliveriesQuery>,
) -> Result<axum::Json<Vec<Delivery>>, ApiError> {
    channel_id(&id)?;
    let limit = match query.limit.as_deref().map(str::trim) {
        None => 50,
        Some(raw) => match raw.parse::<usize>() {
            Ok(n) if (1..=MAX_DELIVERIES).contains(&n) => n,
            _ => {
                return Err(ApiError::field(
                    "limit",
                    format!("must be an integer from 1 to {MAX_DELIVERIES}"),
                ))
            }
        },
    };
    let store = channels(&state);
    if store.get(&id).await.map_err(ChannelsError::from)?.is_none() {
        return Err(ApiError::not_found("Notification channel not found"));
    }
    Ok(axum::Json(
        store
            .deliveries(&id, limit)
            .await
            .map_err(ChannelsError::from)?,
    ))
}
