//! The reads: `user-info`, `token`, `subscription/list`, `tag/list`, `unread-count`,
//! `stream/contents/{stream}`, `stream/items/ids` and `stream/items/contents`.

use axum::body::Bytes;
use axum::extract::{OriginalUri, RawQuery, State};
use axum::response::Response;
use chrono::{DateTime, Utc};
use news::input::reader::{
    ItemId as ReaderItemId, LabelName, StreamQuery, StreamScope as Scope, ITEM_ID_PREFIX,
};
use news::model::reader::{Order, ReaderArticle, StateFilter};
use news::reader::Reader;
use news::{ArticleId, SourceId};
use platform::ApiError;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::protocol::{
    self, micros_of, percent_decode, FeedRef, Item, ItemId, ItemIds, ItemRef, ItemState, Params,
    ReadFilter, StreamId, StreamRequest, StreamScope, TagList, UnreadCount, UnreadCounts, UserInfo,
};
use crate::session::Person;
use crate::{json, text, Answer, AppState, IdentityUnreachable, TooManyRequests, Unauthorized};

/// Whether the API answers (no authentication): `OK`.
#[utoipa::path(
    get,
    path = "/api/greader/reader/ping",
    operation_id = "greaderPing",
    tag = "greader",
    security(()),
    responses((status = 200, description = "`OK`", body = String, content_type = "text/plain"))
)]
pub(crate) async fn ping() -> Response {
    text("OK")
}

/// The person signed in.
#[utoipa::path(
    get,
    path = "/api/greader/reader/api/0/user-info",
    operation_id = "greaderUserInfo",
    tag = "greader",
    security(("googleLogin" = [])),
    responses(
        (status = 200, description = "The person (`userEmail` is the username, as Miniflux answers)", body = UserInfo),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn user_info(person: Person) -> Answer {
    Ok(json(&UserInfo::new(person.user.as_str(), &person.username)))
}

/// The action token `T` writes carry (one line of text).
#[utoipa::path(
    get,
    path = "/api/greader/reader/api/0/token",
    operation_id = "greaderToken",
    tag = "greader",
    security(("googleLogin" = [])),
    responses(
        (status = 200, description = "The token and a newline; writes send it as `T` (FeedMe's empty `T` and Reeder's `T=x` are taken too, as FreshRSS takes them)", body = String, content_type = "text/plain"),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn token(person: Person) -> Answer {
    Ok(text(format!("{}\n", person.auth)))
}

/// The person's subscriptions, each with its labels as categories.
#[utoipa::path(
    get,
    path = "/api/greader/reader/api/0/subscription/list",
    operation_id = "greaderSubscriptionList",
    tag = "greader",
    security(("googleLogin" = [])),
    params(("output" = Option<String>, Query, description = "`json` (the only format)")),
    responses(
        (status = 200, description = "Every subscription (`id` is `feed/{sourceId}`), by title", body = protocol::SubscriptionList),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn subscription_list(State(state): State<AppState>, person: Person) -> Answer {
    let subscriptions = state.reader.subscriptions(&person.user).await?;
    let list = protocol::SubscriptionList {
        subscriptions: subscriptions
            .into_iter()
            .map(|s| protocol::Subscription {
                id: protocol::ids::feed_stream(&s.source.id),
                title: s.source.title,
                categories: s
                    .labels
                    .iter()
                    .map(|l| protocol::Category::new(l))
                    .collect(),
                url: s.source.url,
                html_url: s.source.site_url.unwrap_or_default(),
                icon_url: String::new(),
            })
            .collect(),
    };
    Ok(json(&list))
}

/// The starred state and the person's labels (folders).
#[utoipa::path(
    get,
    path = "/api/greader/reader/api/0/tag/list",
    operation_id = "greaderTagList",
    tag = "greader",
    security(("googleLogin" = [])),
    params(("output" = Option<String>, Query, description = "`json` (the only format)")),
    responses(
        (status = 200, description = "`user/-/state/com.google/starred`, then every label with its unread count", body = TagList),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn tag_list(State(state): State<AppState>, person: Person) -> Answer {
    let labels = state.reader.labels(&person.user).await?;
    Ok(json(&TagList::new(
        labels.into_iter().map(|l| (l.name, l.unread)),
    )))
}

/// Unread counts of every subscription, every label and the reading list.
#[utoipa::path(
    get,
    path = "/api/greader/reader/api/0/unread-count",
    operation_id = "greaderUnreadCount",
    tag = "greader",
    security(("googleLogin" = [])),
    params(("output" = Option<String>, Query, description = "`json` (the only format)")),
    responses(
        (status = 200, description = "Each feed's, each label's and the reading list's unread articles (within the read horizon) and newest article time", body = UnreadCounts),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn unread_count(State(state): State<AppState>, person: Person) -> Answer {
    let counts = state.reader.unread_counts(&person.user).await?;
    let micros = |at: &Option<String>| at.as_deref().and_then(micros_of);
    let mut unreadcounts: Vec<UnreadCount> = counts
        .sources
        .iter()
        .map(|s| {
            UnreadCount::new(
                protocol::ids::feed_stream(&s.source_id),
                s.unread,
                micros(&s.newest_at),
            )
        })
        .collect();
    unreadcounts.extend(counts.labels.iter().map(|l| {
        UnreadCount::new(
            protocol::ids::label(&l.name),
            l.unread,
            micros(&l.newest_at),
        )
    }));
    unreadcounts.push(UnreadCount::new(
        protocol::ids::state("reading-list"),
        counts.total,
        micros(&counts.newest_at),
    ));
    Ok(json(&UnreadCounts {
        max: counts.total,
        unreadcounts,
    }))
}

/// The stream parameters every stream operation takes.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // documents the query; the handlers read it with protocol::Params
pub(crate) struct StreamParams {
    /// Items per answer: 1 or more, 20 when absent; above 1000 answers 1000.
    n: Option<u32>,
    /// The `continuation` of the previous answer.
    #[param(max_length = 1024)]
    c: Option<String>,
    /// `o`: oldest first; otherwise newest first.
    r: Option<String>,
    /// Only items published at or after this time (seconds since 1970).
    ot: Option<i64>,
    /// Only items published before this time (seconds since 1970).
    nt: Option<i64>,
    /// A state to leave out: `user/-/state/com.google/read` (unread only), `…/kept-unread`
    /// (read only), `…/starred` (repeatable).
    xt: Option<String>,
    /// A state to keep only: `user/-/state/com.google/read`, `…/unread`, `…/starred`
    /// (repeatable).
    it: Option<String>,
    /// `json` (the only format).
    output: Option<String>,
}

/// The reading list's items (the stream id may also come as `s`, as BazQux clients send it).
#[utoipa::path(
    get,
    path = "/api/greader/reader/api/0/stream/contents",
    operation_id = "greaderReadingListContents",
    tag = "greader",
    security(("googleLogin" = [])),
    params(StreamParams, ("s" = Option<String>, Query, description = "The stream id; the reading list when absent")),
    responses(
        (status = 200, description = "A page of items; `continuation` when more follow", body = protocol::Stream),
        (status = 400, description = "A bad stream id or parameter (`details` names it: `s`, `n`, `c`, `ot`, `nt`, `xt`, `it`)", body = platform::openapi::ErrorBody),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn reading_list_contents(
    State(state): State<AppState>,
    person: Person,
    RawQuery(query): RawQuery,
) -> Answer {
    let params = Params::new(query.as_deref(), None);
    let stream = match params.value("s") {
        Some(raw) => StreamId::parse("s", raw)?,
        None => StreamId::ReadingList,
    };
    contents(&state, &person, stream, &params).await
}

/// A stream's items: `feed/{sourceId}` (or `feed/{url}`), `user/-/label/{name}`,
/// `user/-/state/com.google/reading-list`, `…/starred`, `…/read`, `…/kept-unread`.
#[utoipa::path(
    get,
    path = "/api/greader/reader/api/0/stream/contents/{streamId}",
    operation_id = "greaderStreamContents",
    tag = "greader",
    security(("googleLogin" = [])),
    params(
        ("streamId" = String, Path, description = "The stream id, its `/` as they are (`user/-/label/Tech`, `feed/{sourceId}`); a feed's URL percent-encoded"),
        StreamParams,
    ),
    responses(
        (status = 200, description = "A page of items; `continuation` when more follow", body = protocol::Stream),
        (status = 400, description = "A bad stream id or parameter (`details` names it)", body = platform::openapi::ErrorBody),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn stream_contents(
    State(state): State<AppState>,
    person: Person,
    OriginalUri(uri): OriginalUri,
    RawQuery(query): RawQuery,
) -> Answer {
    let params = Params::new(query.as_deref(), None);
    // The raw path: a feed URL in it keeps its escaped characters until now.
    let raw = uri
        .path()
        .split_once("/stream/contents/")
        .map(|(_, s)| s)
        .unwrap_or_default();
    let decoded =
        percent_decode(raw).ok_or_else(|| ApiError::field("s", "is not UTF-8 once decoded"))?;
    let stream = StreamId::parse("s", &decoded)?;
    contents(&state, &person, stream, &params).await
}

async fn contents(state: &AppState, person: &Person, stream: StreamId, params: &Params) -> Answer {
    let request = StreamRequest::parse(stream, params)?;
    let now = chrono::Utc::now().timestamp();
    let title = match &request.scope {
        StreamScope::All => "Reading list",
        StreamScope::Starred => "Starred",
        StreamScope::Label(_) | StreamScope::Feed(_) => "",
    };
    let id = request.stream.render();
    let Some(query) = stream_query(&request)? else {
        return Ok(json(&protocol::Stream::new(id, title, now, vec![], None)));
    };
    let page = state.reader.stream(&person.user, &query).await?;
    let items = page
        .items
        .iter()
        .filter(|a| keeps(&request, a.starred))
        .filter_map(item)
        .collect();
    Ok(json(&protocol::Stream::new(
        id,
        title,
        now,
        items,
        page.continuation,
    )))
}

/// The ids of a stream's items (`s` is required).
#[utoipa::path(
    get,
    path = "/api/greader/reader/api/0/stream/items/ids",
    operation_id = "greaderItemIds",
    tag = "greader",
    security(("googleLogin" = [])),
    params(StreamParams, ("s" = String, Query, description = "The stream id")),
    responses(
        (status = 200, description = "A page of item ids (the short, decimal form); `continuation` when more follow", body = ItemIds),
        (status = 400, description = "`s` missing, or a bad stream id or parameter (`details` names it)", body = platform::openapi::ErrorBody),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn item_ids(
    State(state): State<AppState>,
    person: Person,
    RawQuery(query): RawQuery,
) -> Answer {
    ids(&state, &person, &Params::new(query.as_deref(), None)).await
}

/// [`item_ids`] with its parameters in a form body.
#[utoipa::path(
    post,
    path = "/api/greader/reader/api/0/stream/items/ids",
    operation_id = "greaderItemIdsPosted",
    tag = "greader",
    security(("googleLogin" = [])),
    params(StreamParams, ("s" = Option<String>, Query, description = "The stream id, here or in the body")),
    request_body(content = ItemsForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "A page of item ids; `continuation` when more follow", body = ItemIds),
        (status = 400, description = "`s` missing, or a bad stream id or parameter (`details` names it)", body = platform::openapi::ErrorBody),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn item_ids_posted(
    State(state): State<AppState>,
    person: Person,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Answer {
    ids(&state, &person, &form(query, &body)?).await
}

async fn ids(state: &AppState, person: &Person, params: &Params) -> Answer {
    let raw = params
        .value("s")
        .ok_or_else(|| ApiError::field("s", "is required"))?;
    let request = StreamRequest::parse(StreamId::parse("s", raw)?, params)?;
    let Some(query) = stream_query(&request)? else {
        return Ok(json(&ItemIds {
            item_refs: vec![],
            continuation: None,
        }));
    };
    let page = state.reader.item_ids(&person.user, &query).await?;
    let item_refs = page
        .items
        .iter()
        .filter_map(|r| {
            let id = ItemId::of_article(&r.id)?;
            Some(ItemRef::new(
                id,
                &r.source_id,
                micros_of(&r.published_at).unwrap_or(0),
            ))
        })
        .collect();
    Ok(json(&ItemIds {
        item_refs,
        continuation: page.continuation,
    }))
}

/// The form of `stream/items/contents` (and of a posted `stream/items/ids`).
#[derive(ToSchema)]
#[schema(as = GreaderItemsForm)]
#[allow(dead_code)] // documents the form; the handlers read it with protocol::Params
pub(crate) struct ItemsForm {
    /// The action token (see `token`); optional on reads.
    #[schema(rename = "T")]
    t: Option<String>,
    /// Item ids, repeated (`i=…&i=…`), 1 to 1000: the long form, 16 hex digits or the decimal
    /// short form.
    #[schema(max_items = 1000)]
    i: Vec<String>,
    /// The stream (a posted `stream/items/ids`).
    s: Option<String>,
    /// `json`.
    output: Option<String>,
}

/// Items by id, from a query (`i=…&i=…`).
#[utoipa::path(
    get,
    path = "/api/greader/reader/api/0/stream/items/contents",
    operation_id = "greaderItemsContents",
    tag = "greader",
    security(("googleLogin" = [])),
    params(
        ("i" = Vec<String>, Query, description = "Item ids, repeated, 1 to 1000"),
        ("r" = Option<String>, Query, description = "`o`: oldest first; otherwise newest first"),
        ("output" = Option<String>, Query, description = "`json`"),
    ),
    responses(
        (status = 200, description = "The items found (unknown ids left out)", body = protocol::Stream),
        (status = 400, description = "No `i`, more than 1000, or one that is no item id (`details`: `i: reason`)", body = platform::openapi::ErrorBody),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn items_contents(
    State(state): State<AppState>,
    person: Person,
    RawQuery(query): RawQuery,
) -> Answer {
    items(&state, &person, &Params::new(query.as_deref(), None)).await
}

/// Items by id, from a form body (what NetNewsWire and FeedMe post).
#[utoipa::path(
    post,
    path = "/api/greader/reader/api/0/stream/items/contents",
    operation_id = "greaderItemsContentsPosted",
    tag = "greader",
    security(("googleLogin" = [])),
    request_body(content = ItemsForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "The items found (unknown ids left out)", body = protocol::Stream),
        (status = 400, description = "No `i`, more than 1000, or one that is no item id (`details`: `i: reason`)", body = platform::openapi::ErrorBody),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn items_contents_posted(
    State(state): State<AppState>,
    person: Person,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Answer {
    items(&state, &person, &form(query, &body)?).await
}

async fn items(state: &AppState, person: &Person, params: &Params) -> Answer {
    let ids = protocol::item_ids(params)?;
    let articles = resolve(&state.reader, &ids).await?;
    let mut found = state.reader.articles(&person.user, &articles).await?;
    let oldest_first = params.value("r") == Some("o");
    found.sort_by(|a, b| {
        let order = a.article.published_at.cmp(&b.article.published_at);
        if oldest_first {
            order
        } else {
            order.reverse()
        }
    });
    let now = chrono::Utc::now().timestamp();
    Ok(json(&protocol::Stream::new(
        protocol::ids::state("reading-list"),
        "Reading list",
        now,
        found.iter().filter_map(item).collect(),
        None,
    )))
}

/// The articles the item ids name (each id may stand for two: see [`ItemId::alias_keys`]).
pub(crate) async fn resolve(reader: &Reader, ids: &[ItemId]) -> Result<Vec<ArticleId>, ApiError> {
    let mut keys = Vec::with_capacity(ids.len() * 2);
    for id in ids {
        for hex in id.alias_keys() {
            keys.push(ReaderItemId::parse("i", &format!("{ITEM_ID_PREFIX}{hex}"))?);
        }
    }
    let mut articles: Vec<ArticleId> = Vec::with_capacity(ids.len());
    for (_, article) in reader.resolve_items(&keys).await? {
        if !articles.contains(&article) {
            articles.push(article);
        }
    }
    Ok(articles)
}

/// The parameters of a form POST: its query's and its body's.
pub(crate) fn form(query: Option<String>, body: &Bytes) -> Result<Params, ApiError> {
    let body = std::str::from_utf8(body).map_err(|_| ApiError::field("body", "is not UTF-8"))?;
    Ok(Params::new(query.as_deref(), Some(body)))
}

/// The reader's query for a stream request; `None` when its filters exclude each other.
fn stream_query(request: &StreamRequest) -> Result<Option<StreamQuery>, ApiError> {
    let scope = match &request.scope {
        StreamScope::All if request.starred_only => Scope::Starred,
        StreamScope::All => Scope::All,
        StreamScope::Starred => Scope::Starred,
        StreamScope::Feed(feed) => Scope::Source(source_of("s", feed)?),
        StreamScope::Label(name) => Scope::Label(LabelName::parse("s", name.clone())?),
    };
    let state = match request.read {
        ReadFilter::Any => StateFilter::Any,
        ReadFilter::Unread => StateFilter::Unread,
        ReadFilter::Read => StateFilter::Read,
        ReadFilter::Neither => return Ok(None),
    };
    let mut query = StreamQuery::new(scope);
    query.state = state;
    query.newer_than = request.newer_than.and_then(time);
    query.older_than = request.older_than.and_then(time);
    query.order = if request.oldest_first {
        Order::OldestFirst
    } else {
        Order::NewestFirst
    };
    let count = u32::try_from(request.count).unwrap_or(news::input::reader::MAX_STREAM_COUNT);
    Ok(Some(query.with_page(
        "n",
        Some(count),
        "c",
        request.continuation.as_deref(),
    )?))
}

fn time(seconds: i64) -> Option<DateTime<Utc>> {
    DateTime::<Utc>::from_timestamp(seconds, 0)
}

/// Whether an article passes the starred filters the reader's query cannot express.
fn keeps(request: &StreamRequest, starred: bool) -> bool {
    let scoped = request.scope != StreamScope::All && request.scope != StreamScope::Starred;
    !(request.exclude_starred && starred || scoped && request.starred_only && !starred)
}

/// The source a feed stream names: its id, or the id its URL has (`news::source_id` of the
/// normalised URL: the same feed submitted is the same source).
pub(crate) fn source_of(field: &str, feed: &FeedRef) -> Result<SourceId, ApiError> {
    match feed {
        FeedRef::Source(id) => Ok(SourceId::new(id.clone())),
        FeedRef::Url(url) => news::normalise_feed_url(url)
            .map(|n| SourceId::new(news::source_id(&n)))
            .map_err(|e| ApiError::field(field, e.to_string())),
    }
}

fn item(article: &ReaderArticle) -> Option<Item> {
    Item::new(
        &article.article,
        ItemState {
            read: article.read,
            starred: article.starred,
            labels: &article.labels,
            site_url: None,
        },
    )
}
