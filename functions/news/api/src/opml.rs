//! OPML: `POST /reader/opml` (import a file, in the background), `GET /reader/imports/{id}`
//! (its progress and per-feed results), `GET /reader/opml` (export).

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, Extensions, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use news::opml::{parse_opml, ImportProgress, ImportStarted, ResultsPage, MAX_OPML_BYTES};
use news::UserId;
use platform::auth::AuthUser;
use platform::multipart::{self, MultipartError};
use platform::openapi::ErrorBody;
use platform::ratelimit::ClientKey;
use platform::{ApiError, ErrorKind};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::{Answer, AppState};
use news::responses::{LiveUserRequired, UserTokenRequired};

/// The field a multipart body carries the file in, and what an error about it names.
const FILE: &str = "file";
/// Room for a multipart body's delimiters and part headers around the file.
const MULTIPART_OVERHEAD: usize = 16 * 1024;
/// The content types a bare file may come as.
const OPML_TYPES: [&str; 4] = [
    "text/x-opml",
    "application/xml",
    "text/xml",
    "application/x-opml",
];

/// The OPML routes, relative to [`crate::PREFIX`].
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/reader/opml", post(import_opml).get(export_opml))
        .route("/reader/imports/{id}", get(import_progress))
}

/// The form of a multipart import: the file in one part (named `file`, or the only part
/// with a file name).
#[derive(ToSchema)]
#[allow(dead_code)] // Documentation only: the body is read by `platform::multipart`.
struct OpmlUpload {
    /// An OPML file of at most 1 MiB.
    #[schema(value_type = String, format = Binary, content_media_type = "text/x-opml")]
    file: Vec<u8>,
}

platform::too_many_requests_response!(
    /// The 429 of a spent import limit.
    pub(crate) struct TooManyImports: "The user has imported OpmlImportRateLimit files this window; `Retry-After` says when to try again", "ErrorBody"
);

/// Imports an OPML file: its feeds are subscribed in the background, each labelled with its
/// folders (nested outlines) and `category`. Answers at once with the import's id; `GET
/// /reader/imports/{id}` shows the progress.
#[utoipa::path(
    post,
    path = "/api/content/reader/opml",
    operation_id = "importOpml",
    tag = "reader",
    security(("bearerJwt" = [])),
    request_body(
        description = "The OPML file (at most 1 MiB and 1,000 feed outlines), as the body or as one file part of a form",
        content(
            (String = "text/x-opml"),
            (String = "application/xml"),
            (String = "text/xml"),
            (OpmlUpload = "multipart/form-data"),
        )
    ),
    responses(
        (status = 202, description = "The import runs: `GET /reader/imports/{id}` shows its progress", body = ImportStarted,
            headers(("Location" = String, description = "The import's progress"))),
        (status = 400, description = "The file is over 1 MiB, not XML, not OPML, declares entities, nests too deep, names no feed, or more than 1,000 (`details`: `file: reason` or `outlines: reason`)", body = ErrorBody),
        LiveUserRequired,
        (status = 415, description = "The body is neither an OPML or XML file nor multipart/form-data", body = ErrorBody),
        TooManyImports,
        (status = 502, description = "The users service could not say whether the token's account exists", body = ErrorBody),
        (status = 503, description = "The limits table or the import queue cannot be reached: nothing is imported", body = ErrorBody),
    )
)]
pub(crate) async fn import_opml(
    State(state): State<AppState>,
    user: AuthUser,
    headers: HeaderMap,
    extensions: Extensions,
    body: Body,
) -> Result<(StatusCode, HeaderMap, axum::Json<ImportStarted>), ApiError> {
    let file = read_file(&headers, body).await?;
    let document = parse_opml(&file)?;
    state
        .imports
        .admit(&crate::OPML_IMPORTS, ClientKey::user(&user.id))
        .await?;
    let accounts = crate::caller(&state, &headers, &extensions);
    let started = state
        .opml
        .start_import(&accounts, &UserId::new(&user.id), document)
        .await?;
    let mut answer = HeaderMap::new();
    if let Ok(location) =
        header::HeaderValue::from_str(&format!("{}/reader/imports/{}", crate::PREFIX, started.id))
    {
        answer.insert(header::LOCATION, location);
    }
    Ok((StatusCode::ACCEPTED, answer, axum::Json(started)))
}

/// The file of an import request: the body itself, or the file part of a form.
async fn read_file(headers: &HeaderMap, body: Body) -> Result<Bytes, ApiError> {
    let too_big = || {
        ApiError::field(
            FILE,
            format!("must be at most 1 MiB ({MAX_OPML_BYTES} bytes)"),
        )
    };
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if mime == "multipart/form-data" {
        let body = axum::body::to_bytes(body, MAX_OPML_BYTES + MULTIPART_OVERHEAD)
            .await
            .map_err(|_| too_big())?;
        let file = form_file(&body, content_type)?;
        if file.len() > MAX_OPML_BYTES {
            return Err(too_big());
        }
        return Ok(file);
    }
    if !OPML_TYPES.contains(&mime.as_str()) {
        return Err(ApiError::new(
            ErrorKind::UnsupportedMediaType,
            "Send the OPML file as text/x-opml, application/xml or text/xml, or as a multipart/form-data file",
        ));
    }
    axum::body::to_bytes(body, MAX_OPML_BYTES)
        .await
        .map_err(|_| too_big())
}

/// The one file of a form: the part named `file`, else the only part with a file name.
fn form_file(body: &Bytes, content_type: &str) -> Result<Bytes, ApiError> {
    let malformed = |e: MultipartError| match e {
        MultipartError::Malformed(reason) => ApiError::field(
            FILE,
            format!("malformed multipart/form-data body: {reason}"),
        ),
        other => ApiError::field(FILE, format!("{other:?}")),
    };
    let boundary = multipart::boundary(content_type).map_err(malformed)?;
    let parts = multipart::parts(body, &boundary).map_err(malformed)?;
    let named: Vec<_> = parts
        .iter()
        .filter(|p| p.name.as_deref() == Some(FILE))
        .collect();
    let files: Vec<_> = if named.is_empty() {
        parts.iter().filter(|p| p.filename.is_some()).collect()
    } else {
        named
    };
    match files.as_slice() {
        [file] => Ok(file.body.clone()),
        [] => Err(ApiError::field(
            FILE,
            "is required: send the OPML file as the form's part `file`",
        )),
        _ => Err(ApiError::field(FILE, "send one file, not several")),
    }
}

/// Which results of an import to show.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ResultsQuery {
    /// The `nextCursor` of the previous page: the results after it.
    #[param(max_length = 8, pattern = "^[0-9a-f]{1,8}$")]
    cursor: Option<String>,
    /// Results a page, 1 to 500 (default 100).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 500)]
    size: Option<String>,
}

/// An import's progress, with a page of its per-feed results in the file's order.
#[utoipa::path(
    get,
    path = "/api/content/reader/imports/{id}",
    operation_id = "getOpmlImport",
    tag = "reader",
    security(("bearerJwt" = [])),
    params(
        ("id" = String, Path, pattern = "^[0-9a-f]{32}$", description = "The import's id"),
        ResultsQuery,
    ),
    responses(
        (status = 200, description = "The import: `running` until every feed has its result, then `done`", body = ImportProgress),
        (status = 400, description = "A bad size or cursor (`details`: `field: reason`)", body = ErrorBody),
        UserTokenRequired,
        (status = 404, description = "No import of the caller's has this id (imports are kept a week)", body = ErrorBody),
    )
)]
pub(crate) async fn import_progress(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    platform::http::Query(query): platform::http::Query<ResultsQuery>,
) -> Answer<ImportProgress> {
    let page = ResultsPage::parse(query.cursor.as_deref(), query.size.as_deref())?;
    Ok(axum::Json(
        state
            .opml
            .import_progress(&UserId::new(&user.id), &id, page)
            .await?,
    ))
}

/// The caller's subscriptions with their labels as an OPML 2.0 file: a folder per label
/// holding its feeds (a feed with several labels in each), the feeds without one after them.
/// `POST /reader/opml` imports it back to the same subscriptions and labels.
#[utoipa::path(
    get,
    path = "/api/content/reader/opml",
    operation_id = "exportOpml",
    tag = "reader",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The OPML file, as an attachment (`subscriptions.opml`)", content_type = "text/x-opml", body = String,
            headers(("Content-Disposition" = String, description = "`attachment; filename=\"subscriptions.opml\"`"))),
        UserTokenRequired,
    )
)]
pub(crate) async fn export_opml(
    State(state): State<AppState>,
    user: AuthUser,
    headers: HeaderMap,
    extensions: Extensions,
) -> Result<Response, ApiError> {
    let identity = crate::caller(&state, &headers, &extensions);
    let file = state.opml.export(&UserId::new(&user.id), &identity).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/x-opml; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"subscriptions.opml\"",
            ),
            (header::CACHE_CONTROL, "no-store"),
        ],
        file,
    )
        .into_response())
}
