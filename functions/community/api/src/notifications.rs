//! A member's notifications: `GET /users/me/notifications` (newest first, with the unread
//! count), `POST /users/me/notifications/read {ids}` and `POST .../read-all`.

use axum::extract::State;
use axum::routing::{get, post};
use axum::Router;
use community::input::{InboxPage, NotificationIds};
use community::model::notifications::{NotificationPage, UnreadCount};
use platform::auth::AuthUser;
use platform::http::Json;
use platform::openapi::ReasonErrorBody;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::{user_id, Answer, AppState};

/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router
        .route("/users/me/notifications", get(list_notifications))
        .route("/users/me/notifications/read", post(mark_read))
        .route("/users/me/notifications/read-all", post(mark_all_read))
}

/// The query of a page of the inbox.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct InboxQuery {
    /// Notifications a page holds: 1 to 100 (default 20).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `nextCursor` of the previous page.
    #[param(pattern = "^4e23(?:3[0-9]){13}2d(?:3[0-9]|6[1-6]){16}$")]
    cursor: Option<String>,
    /// `true`: unread notifications only.
    #[param(value_type = Option<bool>)]
    unread: Option<String>,
}

/// A notification's id (`Notification.id`).
#[derive(ToSchema)]
#[schema(
    pattern = "^[0-9]{13}-[0-9a-f]{16}$",
    example = "1764745200123-0f3c1e5b0f3c1e5b"
)]
#[allow(dead_code)]
pub(crate) struct NotificationIdText(String);

/// The notifications to mark read.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MarkReadRequest {
    /// 1 to 100 of the caller's notification ids (ids of none are skipped).
    #[schema(required = true, value_type = Vec<NotificationIdText>, min_items = 1, max_items = 100)]
    ids: Option<Vec<String>>,
}

/// The caller's notifications, newest first: replies and comments to their posts and
/// comments, mentions, the moderation of their content, their reports' outcomes.
#[utoipa::path(
    get,
    path = "/api/v1/users/me/notifications",
    operation_id = "listNotifications",
    tag = "community",
    params(InboxQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of the inbox with the unread count", body = NotificationPage),
        (status = 400, description = "limit, cursor or unread is invalid (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "No valid user token", body = ReasonErrorBody),
    )
)]
pub(crate) async fn list_notifications(
    State(state): State<AppState>,
    user: AuthUser,
    platform::http::Query(query): platform::http::Query<InboxQuery>,
) -> Answer<NotificationPage> {
    let caller = user_id(&user)?;
    let page = InboxPage::parse(
        query.limit.as_deref(),
        query.cursor.as_deref(),
        query.unread.as_deref(),
    )?;
    Ok(axum::Json(
        state.community.notifications(&caller, &page).await?,
    ))
}

/// Marks some of the caller's notifications read.
#[utoipa::path(
    post,
    path = "/api/v1/users/me/notifications/read",
    operation_id = "markNotificationsRead",
    tag = "community",
    security(("bearerJwt" = [])),
    request_body = MarkReadRequest,
    responses(
        (status = 200, description = "Marked; the unread count after", body = UnreadCount),
        (status = 400, description = "ids is missing, empty, over 100, or holds something that is no notification id", body = ReasonErrorBody),
        (status = 401, description = "No valid user token", body = ReasonErrorBody),
    )
)]
pub(crate) async fn mark_read(
    State(state): State<AppState>,
    user: AuthUser,
    Json(body): Json<MarkReadRequest>,
) -> Answer<UnreadCount> {
    let caller = user_id(&user)?;
    let ids = NotificationIds::parse(body.ids)?;
    Ok(axum::Json(
        state
            .community
            .mark_notifications_read(&caller, &ids)
            .await?,
    ))
}

/// Marks every notification of the caller read (one write, whatever the inbox holds).
#[utoipa::path(
    post,
    path = "/api/v1/users/me/notifications/read-all",
    operation_id = "markAllNotificationsRead",
    tag = "community",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "Marked; the unread count after (notifications newer than the call)", body = UnreadCount),
        (status = 401, description = "No valid user token", body = ReasonErrorBody),
    )
)]
pub(crate) async fn mark_all_read(
    State(state): State<AppState>,
    user: AuthUser,
) -> Answer<UnreadCount> {
    let caller = user_id(&user)?;
    Ok(axum::Json(
        state.community.mark_all_notifications_read(&caller).await?,
    ))
}
