//! The writes, each a form POST carrying the action token `T`: `edit-tag`, `mark-all-as-read`,
//! `rename-tag`, `disable-tag`, `subscription/edit` and `subscription/quickadd`.

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use identity_client::SubscriptionAnswer;
use news::input::reader::{LabelName, Labels, MarkScope};
use news::model::reader::Mark;
use news::model::Source;
use news::{FeedUrl, SourceId};
use platform::{ApiError, Invalid};
use utoipa::ToSchema;

use crate::feeds::Refused;
use crate::protocol::{
    self, labels, one_label, timestamp_micros, token_accepted, FeedRef, Params, QuickAdd, StreamId,
    SubscriptionAction, SubscriptionEdit, TagEdit,
};
use crate::reading::{form, resolve, source_of};
use crate::session::{unauthorized, Person};
use crate::{
    text, Answer, AppState, IdentityUnreachable, PeerUnreachable, TooManyRequests, Unauthorized,
};

/// The parameters of a write, its token checked.
fn write_params(person: &Person, query: Option<String>, body: &Bytes) -> Result<Params, ApiError> {
    let params = form(query, body)?;
    if token_accepted(params.first("T"), &person.auth) {
        Ok(params)
    } else {
        Err(unauthorized())
    }
}

/// The form of `edit-tag`.
#[derive(ToSchema)]
#[schema(as = GreaderEditTagForm)]
#[allow(dead_code)] // documents the form; the handler reads it with protocol::Params
pub(crate) struct EditTagForm {
    /// The action token.
    #[schema(rename = "T")]
    t: Option<String>,
    /// Item ids, repeated, 1 to 1000.
    #[schema(max_items = 1000)]
    i: Vec<String>,
    /// States to add, repeated: `user/-/state/com.google/read` (mark read), `…/kept-unread`
    /// (mark unread), `…/starred`. Labels (`user/-/label/…`) are on subscriptions here, and
    /// change nothing on items.
    a: Vec<String>,
    /// States to remove, repeated: `…/read` (mark unread), `…/kept-unread` (mark read),
    /// `…/starred` (unstar).
    r: Vec<String>,
}

/// Marks items read or unread, starred or not.
#[utoipa::path(
    post,
    path = "/api/greader/reader/api/0/edit-tag",
    operation_id = "greaderEditTag",
    tag = "greader",
    security(("googleLogin" = [])),
    request_body(content = EditTagForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "`OK` (ids naming no article are passed over)", body = String, content_type = "text/plain"),
        (status = 400, description = "No `i`, more than 1000, an id that is no item id, an unknown state, or both sides of one state (`details` names `i`, `a` or `r`)", body = platform::openapi::ErrorBody),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn edit_tag(
    State(state): State<AppState>,
    person: Person,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Answer {
    let params = write_params(&person, query, &body)?;
    let ids = protocol::item_ids(&params)?;
    let edit = TagEdit::parse(&params)?;
    if !edit.ignored.is_empty() {
        tracing::info!(tags = ?edit.ignored, "edit-tag: item labels are not kept");
    }
    let articles = resolve(&state.reader, &ids).await?;
    if articles.is_empty() {
        return Ok(text("OK"));
    }
    let marks = [
        edit.read.map(|r| if r { Mark::Read } else { Mark::Unread }),
        edit.starred
            .map(|s| if s { Mark::Starred } else { Mark::Unstarred }),
    ];
    for mark in marks.into_iter().flatten() {
        state.reader.mark(&person.user, &articles, mark).await?;
    }
    Ok(text("OK"))
}

/// The form of `mark-all-as-read`.
#[derive(ToSchema)]
#[schema(as = GreaderMarkAllAsReadForm)]
#[allow(dead_code)] // documents the form
pub(crate) struct MarkAllAsReadForm {
    #[schema(rename = "T")]
    t: Option<String>,
    /// `user/-/state/com.google/reading-list` (everything), `feed/{sourceId}` or
    /// `user/-/label/{name}`.
    s: String,
    /// Only items published up to this time: microseconds since 1970 (seconds and
    /// milliseconds are told by their digits); now when absent.
    ts: Option<String>,
}

/// Marks a feed, a label or everything read up to a time (one write, whatever the count).
#[utoipa::path(
    post,
    path = "/api/greader/reader/api/0/mark-all-as-read",
    operation_id = "greaderMarkAllAsRead",
    tag = "greader",
    security(("googleLogin" = [])),
    request_body(content = MarkAllAsReadForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "`OK`", body = String, content_type = "text/plain"),
        (status = 400, description = "`s` missing or not a feed, label or the reading list, or `ts` not a time (`details` names it)", body = platform::openapi::ErrorBody),
        (status = 404, description = "No such label", body = platform::openapi::ErrorBody),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn mark_all_as_read(
    State(state): State<AppState>,
    person: Person,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Answer {
    let params = write_params(&person, query, &body)?;
    let raw = params
        .value("s")
        .ok_or_else(|| ApiError::field("s", "is required"))?;
    let scope = match StreamId::parse("s", raw)? {
        StreamId::ReadingList => MarkScope::All,
        StreamId::Feed(feed) => MarkScope::Source(source_of("s", &feed)?),
        StreamId::Label(name) => MarkScope::Label(LabelName::parse("s", name)?),
        _ => {
            return Err(ApiError::field(
                "s",
                "must be the reading list, a feed or a label",
            ))
        }
    };
    let before = timestamp_micros("ts", params.value("ts"))?
        .map(|us| {
            chrono::DateTime::<chrono::Utc>::from_timestamp_micros(us)
                .ok_or_else(|| ApiError::field("ts", "is out of range"))
        })
        .transpose()?;
    state
        .reader
        .mark_all_read(&person.user, &scope, before)
        .await?;
    Ok(text("OK"))
}

/// The form of `rename-tag`.
#[derive(ToSchema)]
#[schema(as = GreaderRenameTagForm)]
#[allow(dead_code)] // documents the form
pub(crate) struct RenameTagForm {
    #[schema(rename = "T")]
    t: Option<String>,
    /// The label: `user/-/label/{name}`.
    s: String,
    /// Its new name: `user/-/label/{name}` (1-100 characters, no `/`).
    dest: String,
}

/// Renames a label on every subscription carrying it (onto an existing label: merges them).
#[utoipa::path(
    post,
    path = "/api/greader/reader/api/0/rename-tag",
    operation_id = "greaderRenameTag",
    tag = "greader",
    security(("googleLogin" = [])),
    request_body(content = RenameTagForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "`OK`", body = String, content_type = "text/plain"),
        (status = 400, description = "`s` or `dest` missing or not a label (`details` names it)", body = platform::openapi::ErrorBody),
        (status = 404, description = "No such label", body = platform::openapi::ErrorBody),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn rename_tag(
    State(state): State<AppState>,
    person: Person,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Answer {
    let params = write_params(&person, query, &body)?;
    let from = LabelName::parse("s", one_label(&params, "s")?)?;
    let to = LabelName::parse("dest", one_label(&params, "dest")?)?;
    state.reader.rename_label(&person.user, &from, &to).await?;
    Ok(text("OK"))
}

/// The form of `disable-tag`.
#[derive(ToSchema)]
#[schema(as = GreaderDisableTagForm)]
#[allow(dead_code)] // documents the form
pub(crate) struct DisableTagForm {
    #[schema(rename = "T")]
    t: Option<String>,
    /// Labels to delete, repeated: `user/-/label/{name}`.
    s: Vec<String>,
    /// A label's bare name (FreshRSS takes it).
    #[schema(rename = "t")]
    name: Option<String>,
}

/// Deletes labels: their subscriptions stay, without them.
#[utoipa::path(
    post,
    path = "/api/greader/reader/api/0/disable-tag",
    operation_id = "greaderDisableTag",
    tag = "greader",
    security(("googleLogin" = [])),
    request_body(content = DisableTagForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "`OK`", body = String, content_type = "text/plain"),
        (status = 400, description = "No label named, or one that is not a label (`details` names `s` or `t`)", body = platform::openapi::ErrorBody),
        (status = 404, description = "No such label", body = platform::openapi::ErrorBody),
        Unauthorized, TooManyRequests, IdentityUnreachable,
    )
)]
pub(crate) async fn disable_tag(
    State(state): State<AppState>,
    person: Person,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Answer {
    let params = write_params(&person, query, &body)?;
    let mut names = labels(&params, "s")?;
    if params.value("t").is_some() {
        names.push(one_label(&params, "t")?);
    }
    if names.is_empty() {
        return Err(ApiError::field("s", "is required"));
    }
    for name in names {
        let name = LabelName::parse("s", name)?;
        state.reader.delete_label(&person.user, &name).await?;
    }
    Ok(text("OK"))
}

/// The form of `subscription/edit`.
#[derive(ToSchema)]
#[schema(as = GreaderSubscriptionEditForm)]
#[allow(dead_code)] // documents the form
pub(crate) struct SubscriptionEditForm {
    #[schema(rename = "T")]
    t: Option<String>,
    /// `subscribe`, `unsubscribe` or `edit`.
    #[schema(inline, value_type = String, pattern = "^(subscribe|unsubscribe|edit)$")]
    ac: String,
    /// Feeds, repeated: `feed/{sourceId}`, or `feed/{url}` (what `subscribe` takes).
    s: Vec<String>,
    /// Labels to put the feeds in, repeated: `user/-/label/{name}`.
    a: Vec<String>,
    /// Labels to take the feeds out of, repeated.
    r: Vec<String>,
    /// A title: feeds are shared, so their titles are the feeds' own, and this changes
    /// nothing.
    #[schema(rename = "t")]
    title: Option<String>,
}

/// Subscribes to feeds, unsubscribes, or moves them between labels.
#[utoipa::path(
    post,
    path = "/api/greader/reader/api/0/subscription/edit",
    operation_id = "greaderSubscriptionEdit",
    tag = "greader",
    security(("googleLogin" = [])),
    request_body(content = SubscriptionEditForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "`OK`", body = String, content_type = "text/plain"),
        (status = 400, description = "A bad `ac`, `s`, `a` or `r`; a feed URL that cannot be fetched or serves no feed; more than 10 labels on a subscription (`details` names it)", body = platform::openapi::ErrorBody),
        (status = 404, description = "A feed the person does not subscribe to (`edit`), or no such source (`feed/{sourceId}`)", body = platform::openapi::ErrorBody),
        Unauthorized, TooManyRequests, PeerUnreachable,
    )
)]
pub(crate) async fn subscription_edit(
    State(state): State<AppState>,
    person: Person,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Answer {
    let params = write_params(&person, query, &body)?;
    let edit = SubscriptionEdit::parse(&params)?;
    for feed in &edit.streams {
        match edit.action {
            SubscriptionAction::Subscribe => {
                let source = match feed {
                    FeedRef::Url(url) => submit(&state, &person, "s", url).await?.id,
                    FeedRef::Source(id) => id.clone(),
                };
                let source = SourceId::new(source);
                subscribe(&state, &person, &source).await?;
                relabel(
                    &state,
                    &person,
                    &source,
                    &edit.add_labels,
                    &edit.remove_labels,
                )
                .await?;
            }
            SubscriptionAction::Unsubscribe => {
                let source = source_of("s", feed)?;
                state
                    .identity
                    .at(person.identity_base.clone())
                    .unsubscribe_user(person.user.as_str(), source.as_str())
                    .await
                    .map_err(identity_failed)?;
            }
            SubscriptionAction::Edit => {
                let source = source_of("s", feed)?;
                relabel(
                    &state,
                    &person,
                    &source,
                    &edit.add_labels,
                    &edit.remove_labels,
                )
                .await?;
            }
        }
    }
    Ok(text("OK"))
}

/// The form of `subscription/quickadd`.
#[derive(ToSchema)]
#[schema(as = GreaderQuickAddForm)]
#[allow(dead_code)] // documents the form
pub(crate) struct QuickAddForm {
    #[schema(rename = "T")]
    t: Option<String>,
    /// A feed's http(s) URL (at most 2048 characters), bare or as `feed/{url}`.
    quickadd: String,
}

/// Subscribes to a feed by its URL.
#[utoipa::path(
    post,
    path = "/api/greader/reader/api/0/subscription/quickadd",
    operation_id = "greaderQuickAdd",
    tag = "greader",
    security(("googleLogin" = [])),
    request_body(content = QuickAddForm, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "`numResults` 1 and the feed's `streamId` when subscribed; `numResults` 0 and `error` when the URL cannot be fetched or serves no feed", body = QuickAdd),
        (status = 400, description = "`quickadd` missing or longer than 2048 characters", body = platform::openapi::ErrorBody),
        Unauthorized, TooManyRequests, PeerUnreachable,
    )
)]
pub(crate) async fn quickadd(
    State(state): State<AppState>,
    person: Person,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Answer {
    let params = write_params(&person, query, &body)?;
    let raw = params
        .value("quickadd")
        .ok_or_else(|| ApiError::field("quickadd", "is required"))?;
    let url = raw.strip_prefix("feed/").unwrap_or(raw);
    let submitted = match submit(&state, &person, "quickadd", url).await {
        Ok(submitted) => submitted,
        // As FreshRSS and Miniflux: an address that gives no feed is no result, not an error.
        Err(Refused::Feed(reason)) => return Ok(crate::json(&QuickAdd::none(reason))),
        Err(Refused::Other(error)) => return Err(error),
    };
    let source = SourceId::new(submitted.id.clone());
    subscribe(&state, &person, &source).await?;
    Ok(crate::json(&QuickAdd::added(
        &submitted.url,
        &submitted.id,
        &submitted.title,
    )))
}

/// The source of a feed URL, submitted to the intake function as the person (which counts it
/// against their submissions: it fetches a site they chose). A malformed URL is refused here,
/// naming `field`.
async fn submit(
    state: &AppState,
    person: &Person,
    field: &str,
    url: &str,
) -> Result<Source, Refused> {
    let url = FeedUrl::parse(Some(url.to_string())).map_err(|i| renamed(i, field))?;
    crate::feeds::submit(
        &state.http,
        person.identity_base.as_deref(),
        &person.bearer,
        url.as_str(),
    )
    .await
}

/// `invalid` with its fields named `field` (the URL is `s` or `quickadd` here).
fn renamed(invalid: Invalid, field: &str) -> Refused {
    let reasons: Vec<String> = invalid.errors().iter().map(|e| e.reason.clone()).collect();
    Refused::Other(ApiError::field(field, reasons.join("; ")))
}

/// Subscribes the person through identity (its own flow: the content service's subscribers
/// and the person's subscriptions).
async fn subscribe(state: &AppState, person: &Person, source: &SourceId) -> Result<(), ApiError> {
    match state
        .identity
        .at(person.identity_base.clone())
        .subscribe_user(person.user.as_str(), source.as_str())
        .await
        .map_err(identity_failed)?
    {
        SubscriptionAnswer::NotFound => Err(ApiError::not_found("Source not found")),
        _ => Ok(()),
    }
}

/// Adds and removes labels on a subscription (nothing asked: nothing done).
async fn relabel(
    state: &AppState,
    person: &Person,
    source: &SourceId,
    add: &[String],
    remove: &[String],
) -> Result<(), ApiError> {
    if add.is_empty() && remove.is_empty() {
        return Ok(());
    }
    let current = state
        .reader
        .subscriptions(&person.user)
        .await?
        .into_iter()
        .find(|s| s.source.id == source.as_str())
        .ok_or_else(|| ApiError::not_found("Not subscribed to this feed"))?
        .labels;
    let mut next: Vec<String> = current
        .iter()
        .filter(|l| !remove.contains(l))
        .cloned()
        .collect();
    for label in add {
        if !next.contains(label) {
            next.push(label.clone());
        }
    }
    if next == current {
        return Ok(());
    }
    let labels = Labels::parse("a", next)?;
    state
        .reader
        .set_labels(&person.user, source, &labels)
        .await?;
    Ok(())
}

fn identity_failed(error: identity_client::CallError) -> ApiError {
    ApiError::bad_gateway("The users service could not be reached")
        .caused_by(format!("subscription through identity failed: {error}"))
}
