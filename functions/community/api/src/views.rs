//! The view beacon: `POST /posts/{id}/views`, sent once by a post page when it opens. It
//! queues the view for the view counter (`community-views`) and writes nothing to the
//! community table, so a post read by thousands a second is not written on their requests.

use axum::extract::{Path, State};
use axum::http::{Extensions, StatusCode};
use axum::routing::post;
use axum::Router;
use community::input::PostId;
use community::queues::Reader;
use platform::auth::MaybeUser;
use platform::openapi::ReasonErrorBody;
use platform::ratelimit::ClientKey;
use platform::ApiError;

use crate::brake::{self, TooManyWrites};
use crate::{maybe_user_id, AppState};

/// The view routes, relative to `/api/v1`.
/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router.route("/posts/{id}/views", post(view))
}

/// Counts a view of a post by the caller (signed in or not), at most once per reader and
/// hour, shortly after (the count is applied in batches). A draft, a missing post or the
/// author's own view is accepted and not counted.
#[utoipa::path(
    post,
    path = "/api/v1/posts/{id}/views",
    operation_id = "viewPost",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 202, description = "The view is queued for counting"),
        (status = 400, description = "id is not a UUID", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
        TooManyWrites,
        (status = 503, description = "The view queue cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
pub(crate) async fn view(
    State(state): State<AppState>,
    user: MaybeUser,
    extensions: Extensions,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = PostId::parse("id", &id)?;
    let caller = maybe_user_id(&user)?;
    let (reader, client) = match &caller {
        Some(user) => (
            Reader::member(user.as_str()),
            ClientKey::user(user.as_str()),
        ),
        None => {
            // Outside API Gateway (a router in a test) every caller is one client.
            let address =
                platform::http::client_address(&extensions).unwrap_or_else(|| "unknown".into());
            (
                Reader::anonymous(&state.view_salt, &address),
                ClientKey::address(&address),
            )
        }
    };
    state.brake.admit(&brake::VIEWS, client).await?;
    state.community.view(&id, &reader).await?;
    Ok(StatusCode::ACCEPTED)
}
