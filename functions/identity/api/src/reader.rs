//! Identity's side of the Google Reader API: `ClientLogin` (an app password for an `Auth`
//! value, at `/api/greader/accounts/ClientLogin`, where apps look for it), and the internal
//! routes the Google Reader API's function and the OPML import call with the internal service
//! token: the exchange of an `Auth` value for a short-lived user token, and subscribing a
//! person to a source through identity's own flow.

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, Extensions, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use identity::app_passwords::{ClientLoginRequest, MAX_AUTH_CHARS};
use identity::model::{SourceId, UserId};
use identity::{IdentityError, Unsubscribed};
use identity_client::{ReaderSession, ReaderSessionRequest};
use platform::auth::InternalService;
use platform::http::{form_pairs, Json, OwnErrorBody};
use platform::openapi::ErrorBody;
use platform::ratelimit::ClientKey;
use platform::{ApiError, FieldError};
use utoipa::OpenApi;

use crate::responses::{SubscriptionErrors, TooManyLogins};
use crate::{no_store, AppState};

/// Where apps find `ClientLogin`: under the server address they are given
/// (`{base}/api/greader`).
pub const GREADER_PREFIX: &str = "/api/greader";

/// `ClientLogin`, under [`GREADER_PREFIX`].
pub(crate) fn client_login_routes() -> Router<AppState> {
    Router::new().route(
        "/accounts/ClientLogin",
        get(client_login).post(client_login),
    )
}

/// The internal routes, under the function's prefix.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/internal/reader-sessions", post(reader_session))
        .route(
            "/internal/users/{id}/subscriptions/{source_id}",
            post(subscribe_user).delete(unsubscribe_user),
        )
}

#[derive(OpenApi)]
#[openapi(
    paths(
        client_login_form,
        client_login_query,
        reader_session,
        subscribe_user,
        unsubscribe_user
    ),
    components(schemas(ClientLoginRequest, ReaderSessionRequest, ReaderSession, ErrorBody))
)]
struct ReaderApi;

pub(crate) fn openapi() -> utoipa::openapi::OpenApi {
    ReaderApi::openapi()
}

/// The answer to a wrong `ClientLogin`, as Google's was.
const BAD_AUTHENTICATION: &str = "Error=BadAuthentication\n";

/// Signs an app in with an app password (the Google Reader API's `ClientLogin`): `Email` is
/// the username (or the account's address), `Passwd` one of the person's app passwords, as an
/// `application/x-www-form-urlencoded` body. The `Auth` value answered is sent after as
/// `Authorization: GoogleLogin auth={Auth}`; it ends when the app password is revoked or the
/// account's sessions end. Attempts count against the same limits as logins.
#[utoipa::path(
    post,
    path = "/api/greader/accounts/ClientLogin",
    operation_id = "greaderClientLogin",
    tag = "users",
    security(()),
    request_body(content = ClientLoginRequest, content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "Signed in: `SID={Auth}\\nLSID=null\\nAuth={Auth}\\n` (`Cache-Control: no-store`)", body = String, content_type = "text/plain"),
        (status = 400, description = "`Email` or `Passwd` is missing or too long", body = ErrorBody),
        (status = 401, description = "`Error=BadAuthentication`: no such account, or `Passwd` is none of its live app passwords", body = String, content_type = "text/plain"),
        TooManyLogins,
    )
)]
#[allow(dead_code)]
fn client_login_form() {}

/// `ClientLogin` with `Email` and `Passwd` in the query string, as FreshRSS accepts it.
#[utoipa::path(
    get,
    path = "/api/greader/accounts/ClientLogin",
    operation_id = "greaderClientLoginByQuery",
    tag = "users",
    security(()),
    params(
        ("Email" = String, Query, min_length = 1, max_length = 254, description = "The username or the account's address"),
        ("Passwd" = String, Query, min_length = 1, max_length = 128, description = "An app password of the account"),
    ),
    responses(
        (status = 200, description = "Signed in: `SID={Auth}\\nLSID=null\\nAuth={Auth}\\n` (`Cache-Control: no-store`)", body = String, content_type = "text/plain"),
        (status = 400, description = "`Email` or `Passwd` is missing or too long", body = ErrorBody),
        (status = 401, description = "`Error=BadAuthentication`: no such account, or `Passwd` is none of its live app passwords", body = String, content_type = "text/plain"),
        TooManyLogins,
    )
)]
#[allow(dead_code)]
fn client_login_query() {}

/// Both methods of `ClientLogin`: the body's fields (a POST's form) before the query's.
async fn client_login(
    State(state): State<AppState>,
    extensions: Extensions,
    method: Method,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let mut pairs = Vec::new();
    if method == Method::POST {
        pairs.extend(form_pairs(&String::from_utf8_lossy(&body)));
    }
    pairs.extend(form_pairs(query.as_deref().unwrap_or("")));
    let field = |name: &str| {
        pairs
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let login = ClientLoginRequest {
        email: field("Email"),
        passwd: field("Passwd"),
    }
    .parse()?;
    // Outside API Gateway (a router in a test) every caller is one client.
    let address = platform::http::client_address(&extensions).unwrap_or_else(|| "unknown".into());
    state
        .login_brake
        .admit_all([
            (&crate::LOGINS_PER_ADDRESS, ClientKey::address(&address)),
            (
                &crate::LOGINS_PER_USERNAME,
                ClientKey::username(&login.login_key),
            ),
        ])
        .await?;
    match state.identity.client_login(login).await {
        Ok(auth) => Ok(text(
            StatusCode::OK,
            format!("SID={auth}\nLSID=null\nAuth={auth}\n"),
        )),
        Err(IdentityError::BadAppPassword) => Ok(text(
            StatusCode::UNAUTHORIZED,
            BAD_AUTHENTICATION.to_string(),
        )),
        Err(e) => Err(e.into()),
    }
}

/// A `text/plain` answer that is never cached.
fn text(status: StatusCode, body: String) -> Response {
    let mut response = (
        status,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response();
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("GoogleLogin"),
        );
        // The protocol's body, not the platform's error shape.
        response.extensions_mut().insert(OwnErrorBody);
    }
    response
}

/// Exchanges an app's `Auth` value (from `ClientLogin`) for a user token of its person that
/// lasts 10 minutes (role USER only) and ends with the account's sessions, for the platform's
/// own functions that serve the app.
#[utoipa::path(
    post,
    path = "/api/users/internal/reader-sessions",
    operation_id = "internalReaderSession",
    tag = "users",
    security(("internalToken" = [])),
    request_body = ReaderSessionRequest,
    responses(
        (status = 200, description = "The person and a short-lived user token (`Cache-Control: no-store`)", body = ReaderSession),
        (status = 400, description = "`auth` is missing or longer than 260 characters", body = ErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token (`WWW-Authenticate: X-Internal-Service-Token`), or `auth` is unknown, revoked or ended with the account's sessions (`WWW-Authenticate: GoogleLogin`)", body = ErrorBody),
    )
)]
async fn reader_session(
    State(state): State<AppState>,
    _service: InternalService,
    Json(input): Json<ReaderSessionRequest>,
) -> Result<impl IntoResponse, ApiError> {
    let auth = input.auth.as_str();
    if auth.is_empty() {
        return Err(FieldError::new("auth", "is required").into());
    }
    if auth.chars().count() > MAX_AUTH_CHARS {
        return Err(FieldError::new(
            "auth",
            format!("must be at most {MAX_AUTH_CHARS} characters"),
        )
        .into());
    }
    let session = state.identity.reader_session(auth).await?;
    Ok(no_store(axum::Json(session)))
}

/// The person and the source of an internal subscription change; an id that cannot name a
/// source names none.
fn person_and_source(id: String, source_id: &str) -> Result<(UserId, SourceId), ApiError> {
    let id = UserId::new(platform::validation::bounded_id("id", id)?);
    let source = SourceId::parse(source_id).ok_or(IdentityError::SourceNotFound)?;
    Ok((id, source))
}

/// For the platform's own services, the person is named, not signed in: a gone account is
/// an unknown one.
fn for_person(e: IdentityError) -> ApiError {
    match e {
        IdentityError::AccountGone | IdentityError::UserNotFound => {
            ApiError::not_found("User not found")
        }
        other => other.into(),
    }
}

/// Subscribes a person to a source, as `POST /api/users/users/me/subscriptions/{sourceId}`
/// does for the signed-in person (the content service's subscribers, then the person's
/// record and `enabledSourceIds`), for the platform's own services (the OPML import).
#[utoipa::path(
    post,
    path = "/api/users/internal/users/{id}/subscriptions/{sourceId}",
    operation_id = "internalSubscribeUser",
    tag = "users",
    security(("internalToken" = [])),
    params(
        ("id" = String, Path, max_length = 200, description = "The person's id"),
        ("sourceId" = String, Path, description = "The source's id"),
    ),
    responses(
        (status = 200, description = "The source, with its new subscriberCount (subscribing twice changes nothing)", body = ref("#/components/schemas/Source")),
        (status = 400, description = "The id is longer than 200 characters", body = ErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token", body = ErrorBody),
        (status = 404, description = "No such person, or no such source", body = ErrorBody),
        SubscriptionErrors,
    )
)]
async fn subscribe_user(
    State(state): State<AppState>,
    _service: InternalService,
    Path((id, source_id)): Path<(String, String)>,
    extensions: Extensions,
) -> Result<Response, ApiError> {
    let (id, source) = person_and_source(id, &source_id)?;
    let content = state.content(&extensions);
    let subscribed = state
        .identity
        .subscribe(&content, &id, &source)
        .await
        .map_err(for_person)?;
    Ok(axum::Json(subscribed).into_response())
}

/// Unsubscribes a person from a source, as `DELETE /api/users/users/me/subscriptions/{sourceId}`
/// does for the signed-in person (the last subscriber leaving deletes the source), for the
/// platform's own services.
#[utoipa::path(
    delete,
    path = "/api/users/internal/users/{id}/subscriptions/{sourceId}",
    operation_id = "internalUnsubscribeUser",
    tag = "users",
    security(("internalToken" = [])),
    params(
        ("id" = String, Path, max_length = 200, description = "The person's id"),
        ("sourceId" = String, Path, description = "The source's id"),
    ),
    responses(
        (status = 200, description = "The remaining source, with its new subscriberCount (unchanged when the person was not subscribed)", body = ref("#/components/schemas/Source")),
        (status = 204, description = "The person was the last subscriber: the source is deleted"),
        (status = 400, description = "The id is longer than 200 characters", body = ErrorBody),
        (status = 401, description = "No valid X-Internal-Service-Token", body = ErrorBody),
        (status = 404, description = "No such person, or no such source", body = ErrorBody),
        SubscriptionErrors,
    )
)]
async fn unsubscribe_user(
    State(state): State<AppState>,
    _service: InternalService,
    Path((id, source_id)): Path<(String, String)>,
    extensions: Extensions,
) -> Result<Response, ApiError> {
    let (id, source) = person_and_source(id, &source_id)?;
    let content = state.content(&extensions);
    let outcome = state
        .identity
        .unsubscribe(&content, &id, &source)
        .await
        .map_err(for_person)?;
    Ok(match outcome {
        Unsubscribed::SourceRemains(source) => axum::Json(source).into_response(),
        Unsubscribed::SourceDeleted => StatusCode::NO_CONTENT.into_response(),
    })
}
