//! The Google Reader API function: `/api/greader/{proxy+}`, the API NetNewsWire, Reeder,
//! Read You, FeedMe, NewsFlash, FocusReader and newsboat speak, as FreshRSS and Miniflux serve
//! it. A client is given `{base}/api/greader` as its server address and appends
//! `accounts/ClientLogin` (identity's route: an app password for an `Auth` value) and
//! `reader/api/0/…` (this function).
//!
//! [`protocol`] reads and writes the wire format without I/O. Each handler (`reading`,
//! `writing`) authenticates the request ([`session::Person`]: the `Auth` value exchanged with
//! identity, cached for a minute), counts it against the person's rate, and makes its calls on
//! [`news::Reader`] (reading state, labels, the stream) or, to subscribe, the intake function
//! (`feeds`: submitting a feed, as the person) and identity (the subscription itself).

mod feeds;
pub mod protocol;
mod reading;
pub mod session;
mod writing;

use std::sync::Arc;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use identity_client::IdentityClient;
use news::reader::Reader;
use platform::aws::AwsClients;
use platform::ratelimit::{Brake, Rate, WhenUnavailable};
use platform::{ApiError, BoxError, Env, ErrorStyle};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::OpenApi;

use crate::session::Sessions;

/// The public path prefix: the server address clients are given.
pub const PREFIX: &str = "/api/greader";

/// Each person's requests (`GREADER_RATE_LIMIT`; by default 1,200 a minute, what a first sync
/// of a large account needs, and 50,000 a day). Served when the limits table is down: a
/// reader locked out over a side table helps no one.
pub const REQUESTS: Rate = Rate {
    variable: "GREADER_RATE_LIMIT",
    name: "greader",
    default: "1200/60,50000/86400",
    when_unavailable: WhenUnavailable::Allow,
};

/// Exchanges of auth values this function has not seen, per client address
/// (`GREADER_EXCHANGE_RATE_LIMIT`, by default 60 a minute): a client guessing them is slowed
/// before identity sees the guesses.
pub const EXCHANGES: Rate = Rate {
    variable: "GREADER_EXCHANGE_RATE_LIMIT",
    name: "greader-exchange",
    default: "60/60",
    when_unavailable: WhenUnavailable::Allow,
};

/// How long identity may take to answer (a submission to the intake sets its own).
const IDENTITY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

#[derive(Clone)]
pub struct AppState {
    reader: Arc<Reader>,
    /// Calls to identity and to the feed intake (`feeds`).
    http: reqwest::Client,
    identity: IdentityClient,
    /// `INTERNAL_API_URL`; when unset, the API the request came through.
    internal_api_url: Option<String>,
    brake: Arc<Brake>,
    sessions: Sessions,
}

/// Builds the function's router from its environment: what a cold start does.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let reader = Reader::from_env(&env, &aws)?;
    let brake = Brake::from_env(
        &env,
        &aws,
        "Google Reader API requests have no rate limit",
        &[REQUESTS, EXCHANGES],
    )?;
    let http = platform::tls::http_client()
        .timeout(IDENTITY_TIMEOUT)
        .connect_timeout(IDENTITY_TIMEOUT)
        .build()?;
    let identity = IdentityClient::with_http(
        http.clone(),
        env.get("INTERNAL_SERVICE_TOKEN").map(str::to_string),
    );
    Ok(app(AppState {
        reader: Arc::new(reader),
        http,
        identity,
        internal_api_url: env.get("INTERNAL_API_URL").map(str::to_string),
        brake: Arc::new(brake),
        sessions: Sessions::default(),
    }))
}

/// The routes, under [`PREFIX`].
fn app(state: AppState) -> Router {
    let api = "/reader/api/0";
    let routes = Router::new()
        .route("/reader/ping", get(reading::ping))
        .route(&format!("{api}/user-info"), get(reading::user_info))
        .route(&format!("{api}/token"), get(reading::token))
        .route(
            &format!("{api}/subscription/list"),
            get(reading::subscription_list),
        )
        .route(&format!("{api}/tag/list"), get(reading::tag_list))
        .route(&format!("{api}/unread-count"), get(reading::unread_count))
        .route(
            &format!("{api}/stream/contents"),
            get(reading::reading_list_contents),
        )
        .route(
            &format!("{api}/stream/contents/{{*stream}}"),
            get(reading::stream_contents),
        )
        .route(
            &format!("{api}/stream/items/ids"),
            get(reading::item_ids).post(reading::item_ids_posted),
        )
        .route(
            &format!("{api}/stream/items/contents"),
            get(reading::items_contents).post(reading::items_contents_posted),
        )
        .route(&format!("{api}/edit-tag"), post(writing::edit_tag))
        .route(
            &format!("{api}/mark-all-as-read"),
            post(writing::mark_all_as_read),
        )
        .route(&format!("{api}/rename-tag"), post(writing::rename_tag))
        .route(&format!("{api}/disable-tag"), post(writing::disable_tag))
        .route(
            &format!("{api}/subscription/edit"),
            post(writing::subscription_edit),
        )
        .route(
            &format!("{api}/subscription/quickadd"),
            post(writing::quickadd),
        )
        .with_state(state);
    platform::http::finish(
        Router::new().nest(PREFIX, routes),
        ErrorStyle::Detailed {
            strip_prefix: PREFIX,
        },
        256 * 1024,
    )
    .layer(axum::middleware::map_response(as_google_reader_answers))
}

/// A refused authentication answers as FreshRSS and Miniflux do, which is what clients look
/// for before asking for a new `Auth` or token: 401, `text/plain` `Unauthorized!`, and the
/// `Google-Bad-Token` / `X-Reader-Google-Bad-Token` headers. Every other error keeps the news
/// reader's error body.
async fn as_google_reader_answers(response: Response) -> Response {
    if response.status() != StatusCode::UNAUTHORIZED {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let headers = &mut parts.headers;
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(TEXT));
    headers.remove(header::CONTENT_LENGTH);
    headers.insert("google-bad-token", HeaderValue::from_static("true"));
    headers.insert(
        "x-reader-google-bad-token",
        HeaderValue::from_static("true"),
    );
    Response::from_parts(parts, axum::body::Body::from("Unauthorized!"))
}

/// The content type of text answers.
const TEXT: &str = "text/plain; charset=utf-8";

/// A text answer (`OK`, the token).
fn text(body: impl Into<String>) -> Response {
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(TEXT))],
        body.into(),
    )
        .into_response()
}

/// A JSON answer.
fn json<T: serde::Serialize>(value: &T) -> Response {
    axum::Json(value).into_response()
}

type Answer = Result<Response, ApiError>;

/// The `GoogleLogin` scheme of the contract.
struct GoogleLoginScheme;

/// The scheme's name in the contract.
const GOOGLE_LOGIN: &str = "googleLogin";

impl utoipa::Modify for GoogleLoginScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            GOOGLE_LOGIN,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "Authorization",
                "`GoogleLogin auth={Auth}`, the Auth value POST /api/greader/accounts/ClientLogin answered for an app password.",
            ))),
        );
    }
}

/// Every operation reads or writes the content table.
const TABLE_UNAVAILABLE: platform::openapi::TableUnavailable =
    platform::openapi::TableUnavailable {
        except: &["greaderPing"],
    };

/// This function's part of the platform's OpenAPI contract.
#[derive(OpenApi)]
#[openapi(
    paths(
        reading::ping,
        reading::user_info,
        reading::token,
        reading::subscription_list,
        reading::tag_list,
        reading::unread_count,
        reading::reading_list_contents,
        reading::stream_contents,
        reading::item_ids,
        reading::item_ids_posted,
        reading::items_contents,
        reading::items_contents_posted,
        writing::edit_tag,
        writing::mark_all_as_read,
        writing::rename_tag,
        writing::disable_tag,
        writing::subscription_edit,
        writing::quickadd,
    ),
    components(schemas(
        protocol::UserInfo,
        protocol::Category,
        protocol::Subscription,
        protocol::SubscriptionList,
        protocol::Tag,
        protocol::TagList,
        protocol::UnreadCount,
        protocol::UnreadCounts,
        protocol::Link,
        protocol::TypedLink,
        protocol::Content,
        protocol::Origin,
        protocol::Item,
        protocol::Stream,
        protocol::ItemRef,
        protocol::ItemIds,
        protocol::QuickAdd,
        reading::ItemsForm,
        writing::EditTagForm,
        writing::MarkAllAsReadForm,
        writing::RenameTagForm,
        writing::DisableTagForm,
        writing::SubscriptionEditForm,
        writing::QuickAddForm,
        platform::openapi::ErrorBody,
    )),
    modifiers(&GoogleLoginScheme, &TABLE_UNAVAILABLE),
    tags((name = "greader", description = "The Google Reader API, as FreshRSS and Miniflux serve it, for apps (server address `{base}/api/greader`, an app password)"))
)]
struct GreaderApi;

/// The Google Reader function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    GreaderApi::openapi()
}

/// The documented 401 of every authenticated operation.
#[derive(utoipa::IntoResponses)]
#[response(
    status = 401,
    description = "No `Authorization: GoogleLogin auth=…`, or an Auth value identity no longer accepts (revoked app password, ended sessions): `text/plain` `Unauthorized!` with `Google-Bad-Token: true` and `X-Reader-Google-Bad-Token: true`, as FreshRSS and Miniflux answer",
    content_type = "text/plain"
)]
pub struct Unauthorized(pub String);

platform::too_many_requests_response!(
    /// The person's rate spent.
    pub struct TooManyRequests: "The person made GREADER_RATE_LIMIT requests this window (or, for an Auth value not seen for a minute, its address GREADER_EXCHANGE_RATE_LIMIT); `Retry-After` says when to try again", "ErrorBody"
);

/// The documented 502 of every authenticated operation.
#[derive(utoipa::IntoResponses)]
#[response(
    status = 502,
    description = "Identity could not be asked whom the Auth value belongs to"
)]
pub struct IdentityUnreachable(pub platform::openapi::ErrorBody);

/// The documented 502 of the operations that may add a feed by URL.
#[derive(utoipa::IntoResponses)]
#[response(
    status = 502,
    description = "Identity could not be asked whom the Auth value belongs to, or the feed intake (adding a feed by URL) could not be reached"
)]
pub struct PeerUnreachable(pub platform::openapi::ErrorBody);
