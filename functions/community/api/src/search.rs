//! `GET /posts/search`: published posts ranked by relevance.

use axum::extract::State;
use axum::routing::get;
use axum::Router;
use community::input::SearchText;
use community::model::PostPage;
use platform::auth::MaybeUser;
use platform::openapi::ReasonErrorBody;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::{maybe_user_id, page_request, Answer, AppState};

/// Adds this module's routes to `router` (one insertion each, no merge).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router.route("/posts/search", get(search))
}

/// The query of a search.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct SearchQuery {
    /// The words to find, 1 to 200 characters once trimmed, not blank: every word must occur
    /// (case, accents and word endings do not matter: "Cafés running" finds "café" and "runs").
    #[param(
        required = true,
        value_type = String,
        min_length = 1,
        pattern = "^[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000](?:[\\s\\S]{0,198}[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000])?[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*$"
    )]
    q: Option<String>,
    /// From 0 to 49 (default 0).
    #[param(value_type = Option<i32>, minimum = 0, maximum = 49)]
    page: Option<String>,
    /// From 1 to 20 (default 10).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 20)]
    size: Option<String>,
    /// The `nextCursor` of the previous page: the ranks after it, past the 1,000 best too (a
    /// `page` beside it is ignored).
    #[param(max_length = 400, pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    cursor: Option<String>,
}

/// Published posts holding every word of `q`, best first: a word in the title counts more
/// than one in the body; ties go to the newer post. With a valid token, `isLikedByMe` and
/// `isBookmarkedByMe` are the caller's. Matches are ranked in segments of the 1,000 newest
/// (`totalElements` counts the current one); `nextCursor` continues the ranking, then the
/// next segment of older matches, so every page costs one bounded query.
#[utoipa::path(
    get,
    path = "/api/v1/posts/search",
    operation_id = "searchPosts",
    tag = "community",
    params(SearchQuery),
    security((), ("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of matching posts ranked by relevance, with `nextCursor` while more may follow (when the matches end exactly at a segment's edge, the last cursor gives one empty page)", body = PostPage),
        (status = 400, description = "q missing, blank, over 200 characters or over 8 distinct words; page or size out of bounds, or a cursor this service could not have given out", body = ReasonErrorBody),
        (status = 401, description = "A bad token", body = ReasonErrorBody),
    )
)]
pub(crate) async fn search(
    State(state): State<AppState>,
    user: MaybeUser,
    platform::http::Query(query): platform::http::Query<SearchQuery>,
) -> Answer<PostPage> {
    let text = SearchText::parse(query.q.as_deref())?;
    let page = page_request(query.page, query.size, query.cursor)?;
    let caller = maybe_user_id(&user)?;
    Ok(axum::Json(
        state.search.search(&text, page, caller.as_ref()).await?,
    ))
}
