//! The reader's routes for a signed-in person (`/reader/*`): their subscriptions with labels
//! and unread counts, labels, counts, the article stream with read and starred state, marks
//! and "mark all as read". Each parses its input, brings the person's saved articles and
//! subscriptions over from identity once ([`news::Reader::import_once`]), and makes one call
//! on [`news::Reader`].

use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::routing::{delete, get, post, put};
use axum::Router;
use chrono::{DateTime, Utc};
use news::input::reader::{
    LabelName, Labels, MarkIds, MarkScope, StreamQuery, StreamScope, MAX_MARK_IDS,
};
use news::model::reader::{
    LabelSummary, Mark, Marked, Order, ReaderSubscription, StateFilter, StreamPage, UnreadCounts,
};
use news::{SourceId, UserId};
use platform::auth::AuthUser;
use platform::http::Json;
use platform::openapi::ErrorBody;
use platform::{ApiError, Invalid};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::{Answer, AppState, SourceWrite};
use news::responses::{
    IdTooLong, NoSuchLabel, NoSuchSubscription, ServiceTokenRequired, UserTokenRequired,
};

/// The reader routes, relative to [`crate::PREFIX`].
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/reader/subscriptions", get(subscriptions))
        .route("/reader/subscriptions/{source_id}/labels", put(set_labels))
        .route("/reader/labels", get(labels))
        .route(
            "/reader/labels/{name}",
            put(rename_label).delete(delete_label),
        )
        .route("/reader/counts", get(counts))
        .route("/reader/articles", get(articles))
        .route("/reader/marks", post(marks))
        .route("/reader/mark-all-read", post(mark_all_read))
        .route("/readers/{user_id}", delete(forget_reader))
}

/// The signed-in person, whose reader state was imported from identity (once).
pub(crate) struct Reading(UserId);

impl FromRequestParts<AppState> for Reading {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let user = AuthUser::from_request_parts(parts, state).await?;
        let me = UserId::new(user.id);
        // AuthUser accepted it, so the header is there; identity answers with the person's own.
        let authorization = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let base =
            platform::http::internal_api_base(state.internal_api_url.as_deref(), &parts.extensions);
        let caller = state.users.at(base).caller(authorization);
        state.reader.import_once(&me, &caller).await?;
        Ok(Self(me))
    }
}

/// A page of the person's subscriptions.
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct SubscriptionsQuery {
    /// The `nextCursor` of the previous page.
    #[param(max_length = 200, pattern = "^[0-9a-f]{1,200}$")]
    cursor: Option<String>,
    /// Subscriptions per page, 1 to 1000 (default 1000).
    #[param(minimum = 1, maximum = 1000)]
    limit: Option<u32>,
}

/// The most subscriptions one page holds.
const MAX_SUBSCRIPTIONS_PAGE: u32 = 1000;

/// A page of subscriptions.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SubscriptionPage {
    items: Vec<ReaderSubscription>,
    /// The `cursor` of the next page; absent on the last.
    #[schema(nullable = false)]
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

/// The person's subscriptions, in source id order, each with its source, labels, unread
/// count and newest article.
#[utoipa::path(
    get,
    path = "/api/content/reader/subscriptions",
    operation_id = "readerSubscriptions",
    tag = "reader",
    security(("bearerJwt" = [])),
    params(SubscriptionsQuery),
    responses(
        (status = 200, description = "A page of subscriptions", body = SubscriptionPage),
        (status = 400, description = "A bad `cursor` or `limit` (`details`: `field: reason`)", body = ErrorBody),
        UserTokenRequired,
    )
)]
pub(crate) async fn subscriptions(
    State(state): State<AppState>,
    Reading(me): Reading,
    platform::http::Query(query): platform::http::Query<SubscriptionsQuery>,
) -> Answer<SubscriptionPage> {
    let limit = query.limit.unwrap_or(MAX_SUBSCRIPTIONS_PAGE);
    if !(1..=MAX_SUBSCRIPTIONS_PAGE).contains(&limit) {
        return Err(Invalid::field(
            "limit",
            format!("must be between 1 and {MAX_SUBSCRIPTIONS_PAGE}"),
        )
        .into());
    }
    let after = match query.cursor {
        Some(c)
            if c.len() <= 200
                && !c.is_empty()
                && c.bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()) =>
        {
            Some(c)
        }
        Some(_) => {
            return Err(Invalid::field("cursor", "is not a cursor this service gave out").into())
        }
        None => None,
    };
    let (items, next_cursor) = state
        .reader
        .subscriptions_page(
            &me,
            after.as_deref(),
            usize::try_from(limit).unwrap_or(1000),
        )
        .await?;
    Ok(axum::Json(SubscriptionPage { items, next_cursor }))
}

/// A subscription's labels.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LabelList {
    /// At most 10 distinct names, each 1 to 100 characters, without control characters or `/`;
    /// a person uses at most 100 labels. Empty: no label.
    #[schema(required = true, value_type = Vec<LabelNameSchema>, max_items = 10)]
    labels: Option<Vec<String>>,
}

/// Replaces the labels (folders) of one of the person's subscriptions.
#[utoipa::path(
    put,
    path = "/api/content/reader/subscriptions/{sourceId}/labels",
    operation_id = "setSubscriptionLabels",
    tag = "reader",
    security(("bearerJwt" = [])),
    params(("sourceId" = String, Path, max_length = 200, description = "The source's id")),
    request_body = LabelList,
    responses(
        (status = 200, description = "The subscription's labels as stored", body = LabelList),
        (status = 400, description = "A bad label, too many, or an id longer than 200 characters (`details`: `field: reason`)", body = ErrorBody),
        UserTokenRequired,
        NoSuchSubscription,
    )
)]
pub(crate) async fn set_labels(
    State(state): State<AppState>,
    Reading(me): Reading,
    Path(source_id): Path<String>,
    Json(input): Json<LabelList>,
) -> Answer<LabelList> {
    let source = SourceId::parse("sourceId", source_id)?;
    let labels = Labels::parse(
        "labels",
        input
            .labels
            .ok_or_else(|| Invalid::field("labels", "is required"))?,
    )?;
    let stored = state.reader.set_labels(&me, &source, &labels).await?;
    Ok(axum::Json(LabelList {
        labels: Some(stored),
    }))
}

/// An article id to mark (the schema of [`MarkRequest`]'s items): not blank, at most 200
/// characters.
#[derive(ToSchema)]
#[schema(
    max_length = 200,
    pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
)]
#[allow(dead_code)]
pub(crate) struct MarkIdSchema(String);

/// A label's name (the schema of [`LabelList`]'s items).
#[derive(ToSchema)]
#[schema(
    min_length = 1,
    max_length = 100,
    pattern = "^[^/\\u0000-\\u001f\\u007f-\\u009f]*[^/\\u0000-\\u001f\\u007f-\\u009f \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^/\\u0000-\\u001f\\u007f-\\u009f]*$"
)]
#[allow(dead_code)]
pub(crate) struct LabelNameSchema(String);

/// The person's labels.
#[derive(Serialize, ToSchema)]
pub(crate) struct LabelPage {
    /// Every label, by name (at most 100, so one page).
    items: Vec<LabelSummary>,
}

/// The person's labels with their unread counts, by name.
#[utoipa::path(
    get,
    path = "/api/content/reader/labels",
    operation_id = "readerLabels",
    tag = "reader",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "Every label of the person (at most 100)", body = LabelPage),
        UserTokenRequired,
    )
)]
pub(crate) async fn labels(
    State(state): State<AppState>,
    Reading(me): Reading,
) -> Answer<LabelPage> {
    Ok(axum::Json(LabelPage {
        items: state.reader.labels(&me).await?,
    }))
}

/// A label's new name.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LabelRename {
    /// 1 to 100 characters, without control characters or `/`.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 100, pattern = "^[^/\\u0000-\\u001f\\u007f-\\u009f]*[^/\\u0000-\\u001f\\u007f-\\u009f \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^/\\u0000-\\u001f\\u007f-\\u009f]*$")]
    name: Option<String>,
}

/// Renames a label on every subscription carrying it (its "mark all as read" goes along);
/// renaming onto an existing label merges the two.
#[utoipa::path(
    put,
    path = "/api/content/reader/labels/{name}",
    operation_id = "renameLabel",
    tag = "reader",
    security(("bearerJwt" = [])),
    params(("name" = String, Path, min_length = 1, max_length = 100, pattern = "^[^/\\u0000-\\u001f\\u007f-\\u009f]*[^/\\u0000-\\u001f\\u007f-\\u009f \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^/\\u0000-\\u001f\\u007f-\\u009f]*$", description = "The label's name")),
    request_body = LabelRename,
    responses(
        (status = 204, description = "Renamed"),
        (status = 400, description = "A bad name (`details`: `field: reason`)", body = ErrorBody),
        UserTokenRequired,
        NoSuchLabel,
    )
)]
pub(crate) async fn rename_label(
    State(state): State<AppState>,
    Reading(me): Reading,
    Path(name): Path<String>,
    Json(input): Json<LabelRename>,
) -> Result<StatusCode, ApiError> {
    let from = LabelName::parse("name", name)?;
    let to = LabelName::parse(
        "name",
        input
            .name
            .ok_or_else(|| Invalid::field("name", "is required"))?,
    )?;
    state.reader.rename_label(&me, &from, &to).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Takes a label off every subscription (the subscriptions stay).
#[utoipa::path(
    delete,
    path = "/api/content/reader/labels/{name}",
    operation_id = "deleteLabel",
    tag = "reader",
    security(("bearerJwt" = [])),
    params(("name" = String, Path, min_length = 1, max_length = 100, pattern = "^[^/\\u0000-\\u001f\\u007f-\\u009f]*[^/\\u0000-\\u001f\\u007f-\\u009f \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^/\\u0000-\\u001f\\u007f-\\u009f]*$", description = "The label's name")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, description = "A bad name (`details`: `field: reason`)", body = ErrorBody),
        UserTokenRequired,
        NoSuchLabel,
    )
)]
pub(crate) async fn delete_label(
    State(state): State<AppState>,
    Reading(me): Reading,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    let name = LabelName::parse("name", name)?;
    state.reader.delete_label(&me, &name).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The person's unread counts: per source, per label, in all.
#[utoipa::path(
    get,
    path = "/api/content/reader/counts",
    operation_id = "readerCounts",
    tag = "reader",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "Unread counts, exact, within the read horizon", body = UnreadCounts),
        UserTokenRequired,
    )
)]
pub(crate) async fn counts(
    State(state): State<AppState>,
    Reading(me): Reading,
) -> Answer<UnreadCounts> {
    Ok(axum::Json(state.reader.unread_counts(&me).await?))
}

/// Which articles the stream shows.
#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub(crate) struct ReaderArticlesQuery {
    /// Only this subscription's articles.
    #[param(max_length = 200)]
    source_id: Option<String>,
    /// Only the articles of subscriptions carrying this label (with `sourceId`: that
    /// subscription, which must carry it).
    #[param(
        min_length = 1,
        max_length = 100,
        pattern = "^[^/\\u0000-\\u001f\\u007f-\\u009f]*[^/\\u0000-\\u001f\\u007f-\\u009f \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^/\\u0000-\\u001f\\u007f-\\u009f]*$"
    )]
    label: Option<String>,
    /// `all` (default), `unread`, `read`, or `starred` (alone: by when starred; with
    /// `sourceId` or `label`: their starred articles, by publication).
    #[param(value_type = Option<String>, pattern = "^(all|unread|read|starred)$")]
    state: Option<String>,
    /// `newest` first (default) or `oldest`.
    #[param(value_type = Option<String>, pattern = "^(newest|oldest)$")]
    order: Option<String>,
    /// Only articles published after this time (starred after it, for `starred`).
    #[param(value_type = Option<String>, format = DateTime)]
    after: Option<String>,
    /// Only articles published before this time (starred before it, for `starred`).
    #[param(value_type = Option<String>, format = DateTime)]
    before: Option<String>,
    /// Articles per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    size: Option<u32>,
    /// The `nextCursor` of the previous page.
    #[param(max_length = 300, pattern = "^c(?:[0-9a-f]{2}){1,149}$")]
    cursor: Option<String>,
}

/// The most articles one page of the HTTP stream holds.
const MAX_ARTICLES_PAGE: u32 = 100;

/// An RFC 3339 time given as `field`.
fn time(field: &str, raw: Option<String>) -> Result<Option<DateTime<Utc>>, Invalid> {
    raw.map(|raw| {
        DateTime::parse_from_rfc3339(raw.trim())
            .map(|t| t.with_timezone(&Utc))
            .map_err(|_| {
                Invalid::field(field, "must be an RFC 3339 time, e.g. 2026-01-31T12:00:00Z")
            })
    })
    .transpose()
}

impl ReaderArticlesQuery {
    /// The stream query, and whether only its starred articles are asked for (`state=starred`
    /// with `sourceId` or `label`).
    fn parse(self) -> Result<(StreamQuery, bool), Invalid> {
        let label = self
            .label
            .map(|l| LabelName::parse("label", l))
            .transpose()?;
        let source = self
            .source_id
            .map(|s| SourceId::parse("sourceId", s))
            .transpose()?;
        let (state, starred) = match self.state.as_deref() {
            None | Some("all") => (StateFilter::Any, false),
            Some("unread") => (StateFilter::Unread, false),
            Some("read") => (StateFilter::Read, false),
            Some("starred") => (StateFilter::Any, true),
            Some(_) => {
                return Err(Invalid::field(
                    "state",
                    "must be all, unread, read or starred",
                ))
            }
        };
        // Given together, the filters intersect; the starred of a subscription or label are
        // its stream's starred articles (by publication), as Google Reader clients ask.
        let scope = match (source, label, starred) {
            (None, None, true) => StreamScope::Starred,
            (Some(source), Some(label), _) => StreamScope::SourceInLabel(source, label),
            (Some(source), None, _) => StreamScope::Source(source),
            (None, Some(label), _) => StreamScope::Label(label),
            (None, None, false) => StreamScope::All,
        };
        let order = match self.order.as_deref() {
            None | Some("newest") => Order::NewestFirst,
            Some("oldest") => Order::OldestFirst,
            Some(_) => return Err(Invalid::field("order", "must be newest or oldest")),
        };
        if self
            .size
            .is_some_and(|s| !(1..=MAX_ARTICLES_PAGE).contains(&s))
        {
            return Err(Invalid::field(
                "size",
                format!("must be between 1 and {MAX_ARTICLES_PAGE}"),
            ));
        }
        let mut query = StreamQuery::new(scope).with_page(
            "size",
            self.size,
            "cursor",
            self.cursor.as_deref(),
        )?;
        query.state = state;
        query.order = order;
        query.newer_than = time("after", self.after)?;
        query.older_than = time("before", self.before)?;
        let starred_within = starred && query.scope != StreamScope::Starred;
        Ok((query, starred_within))
    }
}

/// The person's articles, with read and starred state: everything, one subscription, a
/// label's or the starred ones; by state; newest or oldest first; a page at a time.
#[utoipa::path(
    get,
    path = "/api/content/reader/articles",
    operation_id = "readerArticles",
    tag = "reader",
    security(("bearerJwt" = [])),
    params(ReaderArticlesQuery),
    responses(
        (status = 200, description = "A page of articles (without paragraphs) with their state; `nextCursor` asks for the next", body = StreamPage),
        (status = 400, description = "A bad parameter (`details`: `field: reason`)", body = ErrorBody),
        UserTokenRequired,
        (status = 404, description = "No such subscription or label", body = ErrorBody),
    )
)]
pub(crate) async fn articles(
    State(state): State<AppState>,
    Reading(me): Reading,
    platform::http::Query(query): platform::http::Query<ReaderArticlesQuery>,
) -> Answer<StreamPage> {
    let (query, starred_within) = query.parse()?;
    let mut page = state.reader.stream(&me, &query).await?;
    if starred_within {
        // A page may come out short; `nextCursor` still goes on from where it stopped.
        page.items.retain(|a| a.starred);
    }
    Ok(axum::Json(page))
}

/// Marks on articles.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MarkRequest {
    /// Article ids, 1 to 1000, none blank (unknown ones are left out).
    #[schema(required = true, value_type = Vec<MarkIdSchema>, min_items = 1, max_items = 1000)]
    ids: Option<Vec<String>>,
    /// Read (`true`) or unread (`false`).
    read: Option<bool>,
    /// Starred (`true`) or not (`false`).
    starred: Option<bool>,
}

/// Marks articles read or unread, starred or not (neither given: nothing changes). Each mark
/// is idempotent: a repeat changes nothing, and the counts stay exact.
#[utoipa::path(
    post,
    path = "/api/content/reader/marks",
    operation_id = "markArticles",
    tag = "reader",
    security(("bearerJwt" = [])),
    request_body = MarkRequest,
    responses(
        (status = 200, description = "How many articles were found and marked", body = Marked),
        (status = 400, description = "No ids, too many, or a blank one (`details`: `field: reason`)", body = ErrorBody),
        UserTokenRequired,
    )
)]
pub(crate) async fn marks(
    State(state): State<AppState>,
    Reading(me): Reading,
    Json(input): Json<MarkRequest>,
) -> Answer<Marked> {
    let ids = MarkIds::parse(
        "ids",
        input.ids.ok_or_else(|| {
            Invalid::field("ids", format!("is required (1 to {MAX_MARK_IDS} ids)"))
        })?,
    )?;
    let mut wanted = Vec::new();
    if let Some(read) = input.read {
        wanted.push(if read { Mark::Read } else { Mark::Unread });
    }
    if let Some(starred) = input.starred {
        wanted.push(if starred {
            Mark::Starred
        } else {
            Mark::Unstarred
        });
    }
    let mut marked = Marked { marked: 0 };
    for mark in wanted {
        marked = state.reader.mark(&me, ids.as_slice(), mark).await?;
    }
    Ok(axum::Json(marked))
}

/// What "mark all as read" covers.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct MarkAllRead {
    /// One subscription (with `label`: it must carry that label).
    #[schema(max_length = 200)]
    source_id: Option<String>,
    /// The subscriptions carrying this label.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = "^[^/\\u0000-\\u001f\\u007f-\\u009f]*[^/\\u0000-\\u001f\\u007f-\\u009f \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^/\\u0000-\\u001f\\u007f-\\u009f]*$"
    )]
    label: Option<String>,
    /// Articles published before this time (default now; a later time counts as now).
    #[schema(value_type = Option<String>, format = DateTime)]
    before: Option<String>,
}

/// Marks every article of a subscription, a label or everything (neither given) published
/// before a time as read: one write, whatever the number of articles.
#[utoipa::path(
    post,
    path = "/api/content/reader/mark-all-read",
    operation_id = "markAllRead",
    tag = "reader",
    security(("bearerJwt" = [])),
    request_body = MarkAllRead,
    responses(
        (status = 204, description = "Marked"),
        (status = 400, description = "A bad id, label or time (`details`: `field: reason`)", body = ErrorBody),
        UserTokenRequired,
        (status = 404, description = "No such subscription or label", body = ErrorBody),
    )
)]
pub(crate) async fn mark_all_read(
    State(state): State<AppState>,
    Reading(me): Reading,
    Json(input): Json<MarkAllRead>,
) -> Result<StatusCode, ApiError> {
    let scope = match (input.source_id, input.label) {
        (Some(source), Some(label)) => MarkScope::SourceInLabel(
            SourceId::parse("sourceId", source)?,
            LabelName::parse("label", label)?,
        ),
        (Some(source), None) => MarkScope::Source(SourceId::parse("sourceId", source)?),
        (None, Some(label)) => MarkScope::Label(LabelName::parse("label", label)?),
        (None, None) => MarkScope::All,
    };
    let before = time("before", input.before)?;
    state.reader.mark_all_read(&me, &scope, before).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// What one call of [`forget_reader`] did.
#[derive(Serialize, ToSchema)]
pub(crate) struct ReaderForgotten {
    /// Items of the person's reading state deleted by this call.
    deleted: usize,
    /// Nothing of it is left (else call again).
    finished: bool,
}

/// Deletes a deleted account's reading state: its marks, starred list and labels'
/// watermarks (its subscriptions go as identity unsubscribes it), up to 1,000 items a call:
/// call again until `finished`. For services with `source.write` (identity's account
/// deletion).
#[utoipa::path(
    delete,
    path = "/api/content/readers/{userId}",
    operation_id = "forgetReader",
    tag = "content",
    security(("sourceWrite" = ["source.write"])),
    params(("userId" = String, Path, max_length = 200, description = "The deleted account's id")),
    responses(
        (status = 200, description = "What was deleted, and whether anything is left", body = ReaderForgotten),
        ServiceTokenRequired,
        IdTooLong,
    )
)]
pub(crate) async fn forget_reader(
    State(state): State<AppState>,
    _caller: platform::auth::RequireScope<SourceWrite>,
    Path(user_id): Path<String>,
) -> Answer<ReaderForgotten> {
    let user = UserId::parse("userId", user_id)?;
    let (deleted, finished) = state.reader.forget(&user).await?;
    Ok(axum::Json(ReaderForgotten { deleted, finished }))
}
