//! Articles: `GET /articles` (by source or topic, or a personal feed of several sources),
//! `GET /articles/{id}`, and `POST /articles/saved` (a batch by id).

use axum::extract::{Path, RawQuery, State};
use axum::routing::{get, post};
use axum::Router;
use news::model::{Article, Page};
use news::store::ArticleFilter;
use news::MAX_FEED_SOURCES;
use news::{ArticleId, FeedSources, PageRequest, SavedArticleIds};
use platform::auth::AuthUser;
use platform::http::Json;
use platform::openapi::ErrorBody;
use platform::validation::MAX_ID_CHARS;
use platform::Invalid;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::{query, Answer, AppState};
use news::responses::{IdTooLong, NoSuchArticle, UserTokenRequired};

/// The article routes, relative to [`crate::PREFIX`].
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/articles", get(articles))
        .route("/articles/saved", post(saved_articles))
        .route("/articles/{id}", get(article))
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub(crate) struct ArticleQuery {
    /// Only this source's articles; repeated (`sourceId=a&sourceId=b`, at most 50 distinct
    /// ids), the personal feed: the articles of all of them merged newest first. Unknown
    /// sources add nothing.
    #[param(style = Form, explode, schema_with = feed_source_ids)]
    source_id: Option<Vec<String>>,
    /// Only this topic's articles (with `sourceId`s: the topic's articles from those sources).
    #[param(max_length = 200)]
    topic_id: Option<String>,
    /// The page, from 0 (default 0); pages past 49 are refused, so `totalPages` counts at
    /// most 50: further pages are reached by `cursor`.
    #[param(minimum = 0, maximum = 49)]
    page: Option<u32>,
    /// The `nextCursor` of the previous page: the page after it (a `page` beside it is ignored).
    #[param(
        max_length = 420,
        pattern = "^[0-9]{1,19}\\.3[0-9]3[0-9]3[0-9]3[0-9](?:[0-7][0-9a-f]){0,196}$"
    )]
    cursor: Option<String>,
    /// Articles per page (default 20).
    #[param(minimum = 1, maximum = 100)]
    size: Option<u32>,
}

/// `sourceId` as the contract shows it: repeatable, each at most [`MAX_ID_CHARS`] characters.
fn feed_source_ids() -> utoipa::openapi::schema::Array {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};
    ArrayBuilder::new()
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .max_length(Some(MAX_ID_CHARS)),
        )
        .max_items(Some(MAX_FEED_SOURCES))
        .build()
}

/// Articles, newest first, a page at a time; by source or by topic, or a personal feed of
/// several sources. Each page but the last carries `nextCursor`, which asks for the next.
#[utoipa::path(
    get,
    path = "/api/content/articles",
    operation_id = "listArticles",
    security(()),
    tag = "content",
    params(ArticleQuery),
    responses(
        (status = 200, description = "A page of articles (without paragraphs)", body = Page<Article>),
        (status = 400, description = "A query parameter is invalid: `page` past 49, `size` outside 1 to 100, more than 50 `sourceId`s, or a `cursor` this service could not have given out", body = ErrorBody),
    )
)]
pub(crate) async fn articles(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
) -> Answer<Page<Article>> {
    let (query, listed): (ArticleQuery, Vec<String>) =
        query::with_list(raw.as_deref(), "sourceId")?;
    // The list's values are taken out before `query` is read, so its field is always empty.
    let source_ids: Vec<String> = query
        .source_id
        .into_iter()
        .flatten()
        .chain(listed)
        .collect();
    let page = PageRequest::parse_with_cursor(query.page, query.size, query.cursor)?;
    // Counted and measured as the contract says, before blanks (which filter nothing) go.
    if source_ids.len() > MAX_FEED_SOURCES {
        return Err(Invalid::field(
            "sourceId",
            format!("must be given at most {MAX_FEED_SOURCES} times"),
        )
        .into());
    }
    let too_long = |id: &String| id.chars().count() > MAX_ID_CHARS;
    for (field, long) in [
        ("sourceId", source_ids.iter().any(too_long)),
        ("topicId", query.topic_id.as_ref().is_some_and(too_long)),
    ] {
        if long {
            return Err(Invalid::field(
                field,
                format!("must be at most {MAX_ID_CHARS} characters"),
            )
            .into());
        }
    }
    let source_ids: Vec<String> = source_ids
        .into_iter()
        .filter(|id| !id.trim().is_empty())
        .collect();
    let answer = if source_ids.len() > 1 && query.topic_id.is_none() {
        let sources = FeedSources::parse(source_ids)?;
        state.news.feed(&sources, page).await
    } else {
        let filter = ArticleFilter::parse(source_ids, query.topic_id);
        state.news.articles(&filter, page).await
    };
    Ok(axum::Json(answer?))
}

/// One article with its body paragraphs.
#[utoipa::path(
    get,
    path = "/api/content/articles/{id}",
    operation_id = "getArticle",
    security(()),
    tag = "content",
    params(("id" = String, Path, max_length = 200, description = "The article's id")),
    responses(
        (status = 200, description = "The article", body = Article),
        NoSuchArticle,
        IdTooLong,
    )
)]
pub(crate) async fn article(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Answer<Article> {
    let id = ArticleId::parse("id", id)?;
    Ok(axum::Json(state.news.article(&id).await?))
}

/// The articles to get.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SavedArticles {
    /// Article ids, at most 100, each not blank and at most 200 characters.
    #[schema(required = true, value_type = Vec<SavedArticleId>, max_items = 100)]
    ids: Option<Vec<String>>,
}

/// One id of [`SavedArticles`] (the schema of the list's items).
#[derive(ToSchema)]
#[schema(
    max_length = 200,
    pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
)]
pub struct SavedArticleId(pub String);

/// Gets a batch of articles by id (a user's saved articles).
#[utoipa::path(
    post,
    path = "/api/content/articles/saved",
    operation_id = "getSavedArticles",
    tag = "content",
    security(("bearerJwt" = [])),
    request_body = SavedArticles,
    responses(
        (status = 200, description = "The articles found, in the order of `ids` (ids of deleted articles are left out)", body = Vec<Article>),
        (status = 400, description = "`ids` is missing, too long or has a blank id", body = ErrorBody),
        UserTokenRequired,
    )
)]
pub(crate) async fn saved_articles(
    State(state): State<AppState>,
    _user: AuthUser,
    Json(input): Json<SavedArticles>,
) -> Answer<Vec<Article>> {
    let ids = SavedArticleIds::parse(input.ids)?;
    Ok(axum::Json(state.news.saved_articles(&ids).await?))
}
