//! `POST /posts/preview`: a post's Markdown rendered as its page will show it (the writing
//! view's Preview tab), by the same renderer as a post's `contentHtml`; nothing is stored.

use axum::extract::State;
use axum::routing::post;
use axum::Router;
use community::input::Content;
use platform::auth::AuthUser;
use platform::http::Json;
use platform::openapi::ReasonErrorBody;
use platform::ratelimit::ClientKey;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::brake::{self, TooManyWrites};
use crate::{user_id, Answer, AppState};

/// The preview route, relative to `/api/v1`.
/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router.route("/posts/preview", post(preview))
}

/// A post's text to preview.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PreviewRequest {
    /// The post's content as it would be saved: 1 to 50,000 characters of CommonMark, not
    /// blank; no control characters but line breaks and tabs.
    #[schema(
        required = true,
        value_type = String,
        min_length = 1,
        max_length = 50000,
        pattern = "^[\\t\\n\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$"
    )]
    content: Option<String>,
}

/// The rendering of a preview.
#[derive(Serialize, ToSchema)]
pub(crate) struct PostPreview {
    /// The safe HTML a post with this content answers as `contentHtml`.
    html: String,
}

/// Renders a post's Markdown as the post's page will show it; stores nothing.
#[utoipa::path(
    post,
    path = "/api/v1/posts/preview",
    operation_id = "previewPost",
    tag = "community",
    security(("bearerJwt" = [])),
    request_body = PreviewRequest,
    responses(
        (status = 200, description = "The content's safe HTML", body = PostPreview),
        (status = 400, description = "content is missing, blank, over 50,000 characters or holds control characters (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "No valid user token", body = ReasonErrorBody),
        (status = 415, description = "Not JSON", body = ReasonErrorBody),
        TooManyWrites,
    )
)]
pub(crate) async fn preview(
    State(state): State<AppState>,
    user: AuthUser,
    Json(body): Json<PreviewRequest>,
) -> Answer<PostPreview> {
    let caller = user_id(&user)?;
    let content = Content::parse(body.content.as_deref().unwrap_or_default())?;
    state
        .brake
        .admit(&brake::PREVIEWS, ClientKey::user(caller.as_str()))
        .await?;
    Ok(axum::Json(PostPreview {
        html: community::markdown::to_html(content.as_str()),
    }))
}
