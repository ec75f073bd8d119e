//! The news sources the signed-in user subscribes to, through the content service.

use axum::extract::{Path, State};
use axum::http::{Extensions, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use identity::model::{SourceId, Subscriptions};
use identity::{IdentityError, SubscribedSource, Unsubscribed};
use platform::ApiError;
use utoipa::OpenApi;

use crate::responses::{NeedsLiveUser, NeedsUser, SubscriptionErrors};
use crate::{AppState, Me};

/// This resource's routes, under the function's prefix.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/users/me/subscriptions", get(subscriptions))
        .route(
            "/users/me/subscriptions/{source_id}",
            post(subscribe).delete(unsubscribe),
        )
}

#[derive(OpenApi)]
#[openapi(
    paths(subscriptions, subscribe, unsubscribe),
    components(schemas(Subscriptions))
)]
pub(crate) struct SubscriptionsApi;

/// A source id from the path; one that cannot name a source is an unknown source.
fn source_id(raw: &str) -> Result<SourceId, IdentityError> {
    SourceId::parse(raw).ok_or(IdentityError::SourceNotFound)
}

/// The sources the user subscribes to, enabled or not.
#[utoipa::path(
    get,
    path = "/api/users/users/me/subscriptions",
    operation_id = "getMySubscriptions",
    tag = "users",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The subscribed source ids", body = Subscriptions),
        NeedsUser,
    )
)]
async fn subscriptions(
    State(state): State<AppState>,
    Me(me): Me,
) -> Result<axum::Json<Subscriptions>, ApiError> {
    let subscriptions = state.identity.subscriptions(&me).await?;
    Ok(axum::Json(subscriptions))
}

/// Subscribes the user to a source (through the content service, with a `source.write`
/// service token) and enables it in the user's settings.
#[utoipa::path(
    post,
    path = "/api/users/users/me/subscriptions/{sourceId}",
    operation_id = "subscribeToSource",
    tag = "users",
    security(("bearerJwt" = [])),
    params(("sourceId" = String, Path, description = "The source's id")),
    responses(
        (status = 200, description = "The source, with its new subscriberCount (subscribing twice changes nothing)", body = ref("#/components/schemas/Source")),
        NeedsLiveUser,
        SubscriptionErrors,
    )
)]
async fn subscribe(
    State(state): State<AppState>,
    Me(me): Me,
    Path(source_id_raw): Path<String>,
    extensions: Extensions,
) -> Result<axum::Json<SubscribedSource>, ApiError> {
    let source = source_id(&source_id_raw)?;
    let content = state.content(&extensions);
    let subscribed = state.identity.subscribe(&content, &me, &source).await?;
    Ok(axum::Json(subscribed))
}

/// Unsubscribes the user from a source; the last subscriber leaving deletes the source and
/// its articles.
#[utoipa::path(
    delete,
    path = "/api/users/users/me/subscriptions/{sourceId}",
    operation_id = "unsubscribeFromSource",
    tag = "users",
    security(("bearerJwt" = [])),
    params(("sourceId" = String, Path, description = "The source's id")),
    responses(
        (status = 200, description = "The remaining source, with its new subscriberCount (unchanged when the user was not subscribed)", body = ref("#/components/schemas/Source")),
        (status = 204, description = "The user was the last subscriber: the source is deleted"),
        NeedsLiveUser,
        SubscriptionErrors,
    )
)]
async fn unsubscribe(
    State(state): State<AppState>,
    Me(me): Me,
    Path(source_id_raw): Path<String>,
    extensions: Extensions,
) -> Result<Response, ApiError> {
    let source = source_id(&source_id_raw)?;
    let content = state.content(&extensions);
    let outcome = state.identity.unsubscribe(&content, &me, &source).await?;
    Ok(match outcome {
        Unsubscribed::SourceRemains(source) => axum::Json(source).into_response(),
        Unsubscribed::SourceDeleted => StatusCode::NO_CONTENT.into_response(),
    })
}
