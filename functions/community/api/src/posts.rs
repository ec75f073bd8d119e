//! Posts: `GET` and `POST /posts`, `GET /posts/cards`, `GET`, `PUT`, `PATCH` and `DELETE
//! /posts/{id}` (the delete in [`crate::moderation`]).

use axum::extract::{Path, State};
use axum::http::{header, Extensions, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use community::input::{CardIds, PostId, PostInput, PostPatch, RawPatch, RawPost};
use community::model::{Post, PostCard, PostPage};
use platform::auth::{AuthUser, MaybeUser};
use platform::http::{Json, Query};
use platform::openapi::ReasonErrorBody;
use platform::ratelimit::ClientKey;
use platform::ApiError;
use serde::{Deserialize, Deserializer};
use utoipa::{IntoParams, ToSchema};

use crate::brake::{self, TooManyWrites};
use crate::{maybe_user_id, moderation, page_request, schema, user_id, Answer, AppState, PREFIX};

/// The post routes, relative to `/api/v1`.
/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router
        .route("/posts", get(list_posts).post(create_post))
        .route("/posts/cards", get(post_cards))
        .route(
            "/posts/{id}",
            get(get_post)
                .put(replace_post)
                .patch(patch_post)
                .delete(moderation::delete_post),
        )
}

/// The query of a list of posts.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ListQuery {
    /// From 0 to 49 (default 0).
    #[param(value_type = Option<i32>, minimum = 0, maximum = 49)]
    page: Option<String>,
    /// From 1 to 20 (default 10).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 20)]
    size: Option<String>,
    /// The `nextCursor` of the previous page: the page after it (a `page` beside it is ignored).
    #[param(max_length = 400, pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    cursor: Option<String>,
    /// A topic name, matched exactly by its slug (`Public Transport` is `public-transport`).
    topic: Option<String>,
}

/// Published posts, newest first: of one topic, or of all.
#[utoipa::path(
    get,
    path = "/api/v1/posts",
    operation_id = "listPosts",
    tag = "community",
    params(ListQuery),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of published posts, newest first", body = PostPage),
        (status = 400, description = "page or size out of bounds, or a cursor this service could not have given out", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
    )
)]
pub(crate) async fn list_posts(
    State(state): State<AppState>,
    user: MaybeUser,
    Query(query): Query<ListQuery>,
) -> Answer<PostPage> {
    let page = page_request(query.page, query.size, query.cursor)?;
    let caller = maybe_user_id(&user)?;
    let topic = query.topic.as_deref().filter(|t| !t.trim().is_empty());
    let mut page = state.community.posts(topic, page).await?;
    page.content = state
        .community
        .mark_posts(page.content, caller.as_ref())
        .await?;
    Ok(axum::Json(page))
}

/// A post to create, or the whole new state of one.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct PostRequest {
    /// 5 to 100 characters once trimmed, without control characters.
    #[schema(
        required = true,
        value_type = String,
        min_length = 5,
        pattern = "^[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u001f\\u007f-\\u009f]{3,98}[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*$"
    )]
    title: Option<String>,
    /// 1 to 50,000 characters, not blank; no control characters but line breaks and tabs.
    #[schema(
        required = true,
        value_type = String,
        min_length = 1,
        max_length = 50000,
        pattern = "^[\\t\\n\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$"
    )]
    content: Option<String>,
    /// At most 500 characters, no control characters but line breaks and tabs; generated from
    /// the content when omitted.
    #[schema(
        max_length = 500,
        pattern = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$"
    )]
    excerpt: Option<String>,
    /// An absolute http(s) URI, or null.
    #[schema(value_type = Option<schema::WebUrlText>)]
    cover_image_url: Option<String>,
    /// At most 10 http(s) URIs.
    #[schema(value_type = Option<Vec<schema::WebUrlText>>, max_items = 10)]
    source_url: Option<Vec<String>>,
    /// At most 10 topic names; unknown names are created.
    #[schema(value_type = Option<Vec<schema::TopicNameText>>, max_items = 10)]
    topics: Option<Vec<String>>,
    /// `DRAFT` or `PUBLISHED` (default).
    #[schema(value_type = Option<schema::PostStatusName>, example = "PUBLISHED")]
    status: Option<String>,
}

impl From<PostRequest> for RawPost {
    fn from(r: PostRequest) -> Self {
        RawPost {
            title: r.title,
            content: r.content,
            excerpt: r.excerpt,
            cover_image_url: r.cover_image_url,
            source_url: r.source_url,
            topics: r.topics,
            status: r.status,
        }
    }
}

/// Creates a post by the caller.
#[utoipa::path(
    post,
    path = "/api/v1/posts",
    operation_id = "createPost",
    tag = "community",
    security(("bearerJwt" = [])),
    request_body = PostRequest,
    responses(
        (status = 201, description = "The new post; `Location` is its URL", body = Post),
        (status = 400, description = "A field is invalid (`message` names it)", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 415, description = "Not JSON", body = ReasonErrorBody),
        TooManyWrites,
        (status = 502, description = "The identity service could not be reached", body = ReasonErrorBody),
        (status = 503, description = "The limits table cannot be reached, or the identity service is busy: retry later (`Retry-After`)", body = ReasonErrorBody),
    )
)]
pub(crate) async fn create_post(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
    Json(body): Json<PostRequest>,
) -> Result<Response, ApiError> {
    let caller = user_id(&user)?;
    let input = PostInput::parse(body.into())?;
    state
        .brake
        .admit(&brake::POSTS, ClientKey::user(caller.as_str()))
        .await?;
    let base = platform::http::internal_api_base(state.internal_api_url.as_deref(), &extensions);
    let post = state
        .community
        .create_post(&state.users.at(base), &caller, input)
        .await?;
    let location = HeaderValue::from_str(&format!("{PREFIX}/posts/{}", post.id))
        .map_err(|e| ApiError::internal("location", e))?;
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        axum::Json(post),
    )
        .into_response())
}

/// The query of a cards request.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct CardsQuery {
    /// 1 to 50 comma-separated post ids.
    #[param(
        required = true,
        pattern = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(,[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})*$"
    )]
    ids: Option<String>,
}

/// Cards (no body) of these posts, in the order of `ids`; unknown and draft posts left out.
#[utoipa::path(
    get,
    path = "/api/v1/posts/cards",
    operation_id = "postCards",
    tag = "community",
    params(CardsQuery),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "The cards, in the order asked", body = Vec<PostCard>),
        (status = 400, description = "ids missing, more than 50, or not UUIDs", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
    )
)]
pub(crate) async fn post_cards(
    State(state): State<AppState>,
    user: MaybeUser,
    Query(query): Query<CardsQuery>,
) -> Answer<Vec<PostCard>> {
    let ids = CardIds::parse(query.ids.as_deref())?;
    let caller = maybe_user_id(&user)?;
    let cards = state.community.cards(&ids).await?;
    Ok(axum::Json(
        state.community.mark_cards(cards, caller.as_ref()).await?,
    ))
}

/// One post. A draft is visible to its author only; a view by anyone else is counted.
#[utoipa::path(
    get,
    path = "/api/v1/posts/{id}",
    operation_id = "getPost",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "The post", body = Post),
        (status = 400, description = "id is not a UUID", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
        (status = 404, description = "No such post, or another author's draft", body = ReasonErrorBody),
    )
)]
pub(crate) async fn get_post(
    State(state): State<AppState>,
    user: MaybeUser,
    Path(id): Path<String>,
) -> Answer<Post> {
    let id = PostId::parse("id", &id)?;
    let caller = maybe_user_id(&user)?;
    Ok(axum::Json(
        state.community.post(&id, caller.as_ref()).await?,
    ))
}

/// Replaces every field of the caller's post; status defaults to PUBLISHED.
#[utoipa::path(
    put,
    path = "/api/v1/posts/{id}",
    operation_id = "replacePost",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security(("bearerJwt" = [])),
    request_body = PostRequest,
    responses(
        (status = 200, description = "The post as replaced", body = Post),
        (status = 400, description = "A field or the id is invalid", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 403, description = "Not the author", body = ReasonErrorBody),
        (status = 404, description = "No such post, or another author's draft", body = ReasonErrorBody),
        TooManyWrites,
        (status = 503, description = "The limits table cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
pub(crate) async fn replace_post(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Json(body): Json<PostRequest>,
) -> Answer<Post> {
    let id = PostId::parse("id", &id)?;
    let caller = user_id(&user)?;
    let input = PostInput::parse(body.into())?;
    state
        .brake
        .admit(&brake::POSTS, ClientKey::user(caller.as_str()))
        .await?;
    let post = state.community.replace_post(&id, &caller, input).await?;
    Ok(axum::Json(post))
}

/// A field that may be absent (unchanged) or null: `Some(None)` for null.
fn nullable<'de, D, T>(de: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(de).map(Some)
}

/// The fields of a post to change; absent ones are kept. `title`, `content` and `status` cannot
/// be removed, so they are not nullable (a JSON Merge Patch's null would remove them):
/// omit them to keep them.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct PostPatchRequest {
    /// 5 to 100 characters once trimmed, without control characters; not null.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(
        value_type = String,
        min_length = 5,
        pattern = "^[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u001f\\u007f-\\u009f]{3,98}[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*$"
    )]
    title: Option<Option<String>>,
    /// 1 to 50,000 characters, not blank; no control characters but line breaks and tabs;
    /// not null.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(
        value_type = String,
        min_length = 1,
        max_length = 50000,
        pattern = "^[\\t\\n\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$"
    )]
    content: Option<Option<String>>,
    /// At most 500 characters, no control characters but line breaks and tabs; null generates
    /// it from the content again.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(
        value_type = Option<String>,
        max_length = 500,
        pattern = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$"
    )]
    excerpt: Option<Option<String>>,
    /// An absolute http(s) URI; null clears it.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<schema::WebUrlText>)]
    cover_image_url: Option<Option<String>>,
    /// Replaces the source links (null: none).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Vec<schema::WebUrlText>>, max_items = 10)]
    source_url: Option<Option<Vec<String>>>,
    /// Replaces the post's topics (null: none).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Vec<schema::TopicNameText>>, max_items = 10)]
    topics: Option<Option<Vec<String>>>,
    /// `DRAFT` or `PUBLISHED`; no default; not null.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = schema::PostStatusName)]
    status: Option<Option<String>>,
}

/// Changes the given fields of the caller's post (author only).
#[utoipa::path(
    patch,
    path = "/api/v1/posts/{id}",
    operation_id = "patchPost",
    tag = "community",
    params(("id" = String, Path, format = "uuid", description = "The post's id")),
    security(("bearerJwt" = [])),
    request_body = PostPatchRequest,
    responses(
        (status = 200, description = "The post as changed", body = Post),
        (status = 400, description = "A field or the id is invalid", body = ReasonErrorBody),
        (status = 401, description = "No valid user token, or its account no longer exists", body = ReasonErrorBody),
        (status = 403, description = "Not the author", body = ReasonErrorBody),
        (status = 404, description = "No such post, or another author's draft", body = ReasonErrorBody),
        TooManyWrites,
        (status = 503, description = "The limits table cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
pub(crate) async fn patch_post(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Json(body): Json<PostPatchRequest>,
) -> Answer<Post> {
    let id = PostId::parse("id", &id)?;
    let caller = user_id(&user)?;
    let patch = PostPatch::parse(RawPatch {
        title: body.title,
        content: body.content,
        excerpt: body.excerpt,
        cover_image_url: body.cover_image_url,
        source_url: body.source_url,
        topics: body.topics,
        status: body.status,
    })?;
    state
        .brake
        .admit(&brake::POSTS, ClientKey::user(caller.as_str()))
        .await?;
    let post = state.community.patch_post(&id, &caller, patch).await?;
    Ok(axum::Json(post))
}
