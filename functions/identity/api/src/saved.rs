//! The articles the signed-in user saved, which follow the account across devices.

use axum::extract::{Path, State};
use axum::routing::{get, put};
use axum::Router;
use identity::input::SavedArticleIdsMerge;
use identity::model::{SavedArticleId, SavedArticleIds, UserId};
use platform::http::Json;
use platform::openapi::ErrorBody;
use platform::ApiError;
use utoipa::OpenApi;

use crate::responses::{NeedsLiveUser, NeedsUser};
use crate::{AppState, Me};

/// This resource's routes, under the function's prefix.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/users/me/saved", get(saved).post(merge_saved))
        .route(
            "/users/me/saved/{article_id}",
            put(save_article).delete(unsave_article),
        )
}

#[derive(OpenApi)]
#[openapi(
    paths(saved, merge_saved, save_article, unsave_article),
    components(schemas(SavedArticleIds, SavedArticleIdsMerge))
)]
pub(crate) struct SavedApi;

/// The user's saved articles (ids; `POST /api/content/articles/saved` gets the articles).
#[utoipa::path(
    get,
    path = "/api/users/users/me/saved",
    operation_id = "getMySavedArticles",
    tag = "users",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "Saved article ids, newest first", body = SavedArticleIds),
        NeedsUser,
    )
)]
async fn saved(
    State(state): State<AppState>,
    Me(me): Me,
) -> Result<axum::Json<SavedArticleIds>, ApiError> {
    let saved = state.identity.saved_articles(&me).await?;
    Ok(axum::Json(saved))
}

/// Adds articles to the saved ones (those already saved are skipped, the others kept after
/// them): how a browser's own list joins the account at login.
#[utoipa::path(
    post,
    path = "/api/users/users/me/saved",
    operation_id = "mergeMySavedArticles",
    tag = "users",
    security(("bearerJwt" = [])),
    request_body = SavedArticleIdsMerge,
    responses(
        (status = 200, description = "Saved article ids after the merge", body = SavedArticleIds),
        (status = 400, description = "`ids` is missing, has an invalid id, or the account would keep more than 100", body = ErrorBody),
        NeedsLiveUser,
    )
)]
async fn merge_saved(
    State(state): State<AppState>,
    Me(me): Me,
    Json(input): Json<SavedArticleIdsMerge>,
) -> Result<axum::Json<SavedArticleIds>, ApiError> {
    let ids = input.parse()?;
    let saved = state.identity.merge_saved_articles(&me, &ids).await?;
    Ok(axum::Json(saved))
}

/// What a write on one saved article does.
enum SavedChange {
    Save,
    Unsave,
}

/// Saves or forgets the article named by the path (a 400 naming an invalid id); the saved ids
/// after the change.
async fn change_saved(
    state: &AppState,
    me: &UserId,
    raw_id: &str,
    change: SavedChange,
) -> Result<axum::Json<SavedArticleIds>, ApiError> {
    let article = SavedArticleId::parse("articleId", raw_id)?;
    let saved = match change {
        SavedChange::Save => state.identity.save_article(me, &article).await?,
        SavedChange::Unsave => state.identity.unsave_article(me, &article).await?,
    };
    Ok(axum::Json(saved))
}

/// Saves an article for the user, on every device (idempotent).
#[utoipa::path(
    put,
    path = "/api/users/users/me/saved/{articleId}",
    operation_id = "saveArticle",
    tag = "users",
    security(("bearerJwt" = [])),
    params(("articleId" = String, Path, description = "The article's id", max_length = 64, pattern = "^[A-Za-z0-9_-]+$")),
    responses(
        (status = 200, description = "Saved article ids, this one first", body = SavedArticleIds),
        (status = 400, description = "The id is invalid, or 100 articles are saved already", body = ErrorBody),
        NeedsLiveUser,
    )
)]
async fn save_article(
    State(state): State<AppState>,
    Me(me): Me,
    Path(article_id): Path<String>,
) -> Result<axum::Json<SavedArticleIds>, ApiError> {
    change_saved(&state, &me, &article_id, SavedChange::Save).await
}

/// Forgets a saved article (idempotent).
#[utoipa::path(
    delete,
    path = "/api/users/users/me/saved/{articleId}",
    operation_id = "unsaveArticle",
    tag = "users",
    security(("bearerJwt" = [])),
    params(("articleId" = String, Path, description = "The article's id", max_length = 64, pattern = "^[A-Za-z0-9_-]+$")),
    responses(
        (status = 200, description = "Saved article ids without this one", body = SavedArticleIds),
        (status = 400, description = "The id is invalid", body = ErrorBody),
        NeedsLiveUser,
    )
)]
async fn unsave_article(
    State(state): State<AppState>,
    Me(me): Me,
    Path(article_id): Path<String>,
) -> Result<axum::Json<SavedArticleIds>, ApiError> {
    change_saved(&state, &me, &article_id, SavedChange::Unsave).await
}
