//! The community uploads function: the community's image upload, `POST /api/v1/uploads/images`,
//! and the presigned upload straight to S3 ([`presigned`]) for images of up to 20 MiB.
//!
//! A signed-in user sends one image as the multipart field `file`; it is counted against the
//! user's upload limit, read ([`multipart`]), identified by its first bytes ([`sniff`]: PNG,
//! JPEG, GIF or WebP, whatever the client declared), stored in `UPLOADS_BUCKET` as
//! `images/{uuid}.{ext}` with the sniffed `Content-Type` and a year's immutable caching, and
//! answered with its public URL. The presigned flow ends in the same object and answer, after
//! the browser sent the file to S3 itself. Errors, the framework's 404/405/413/415 included,
//! are in the Reason body `{timestamp, status, error, message}`.
//!
//! A function of its own, not a route of the community function: it alone may write the
//! bucket, its bootstrap carries no post code, and its body limit (5 MiB and the form around
//! it) is not the JSON routes' 1 MiB.

pub use platform::multipart;
pub mod presigned;
pub mod sniff;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{FromRef, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use bytes::Bytes;
use platform::auth::AuthUser;
use platform::aws::s3::PutObject;
use platform::aws::{AwsClients, AwsError, S3};
use platform::openapi::{ReasonErrorBody, SecuritySchemes};
use platform::ratelimit::{self, ClientKey, Limit, RateLimiter, WhenUnavailable};
use platform::tokens::TokenVerifier;
use platform::{ApiError, BoxError, ConfigError, Env, ErrorKind, ErrorStyle};
use serde::Serialize;
use utoipa::openapi::{RefOr, Response as OpenApiResponse};
use utoipa::{IntoResponses, OpenApi, ToSchema};

use crate::sniff::ImageType;
use platform::multipart::MultipartError;

/// The public path prefix of the community.
pub const PREFIX: &str = "/api/v1";
/// The form field that carries the image.
pub const FIELD: &str = "file";
/// The largest image stored: 5 MiB.
pub const MAX_FILE_BYTES: usize = 5 * 1024 * 1024;
/// Room for the form around the file (delimiters, part headers, small fields beside it); a
/// body over `MAX_FILE_BYTES + MULTIPART_OVERHEAD` is refused before it is read.
pub const MULTIPART_OVERHEAD: usize = 64 * 1024;
/// Stored objects never change (a new upload is a new key): caches may keep them a year.
pub const CACHE_CONTROL: &str = "public, max-age=31536000, immutable";
/// The default per-user limit (template parameter `UploadRateLimitPerUser`): 10 a minute,
/// 100 a day.
pub const DEFAULT_PER_USER: &str = "10/60,100/86400";
/// The refusal of anything that is not one of the four image types.
pub const NOT_AN_IMAGE: &str = "must be a PNG, JPEG, GIF or WebP image";

#[derive(Clone)]
pub struct AppState {
    verifier: Arc<TokenVerifier>,
    s3: S3,
    bucket: Arc<str>,
    /// `UPLOADS_PUBLIC_BASE_URL` without its trailing `/`: a CDN in front of the bucket.
    public_base_url: Option<Arc<str>>,
    /// `None` without `RATE_LIMIT_TABLE` (no limit, logged at cold start).
    limiter: Option<RateLimiter>,
    per_user: Arc<Limit>,
}

impl FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

/// Builds the function's router from its environment: what a cold start does.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    app(&env, &aws)
}

/// The router over given clients: `UPLOADS_BUCKET` (required), `UPLOADS_PUBLIC_BASE_URL`,
/// `RATE_LIMIT_TABLE`, `UPLOAD_RATE_LIMIT_PER_USER` and the token settings.
pub fn app(env: &Env, aws: &AwsClients) -> Result<Router, BoxError> {
    let bucket = env.require("UPLOADS_BUCKET")?;
    let public_base_url = match env.get("UPLOADS_PUBLIC_BASE_URL").map(str::trim) {
        None | Some("") => None,
        Some(url) if url.starts_with("https://") || url.starts_with("http://") => {
            Some(Arc::from(url.trim_end_matches('/')))
        }
        Some(_) => {
            return Err(ConfigError::Invalid {
                name: "UPLOADS_PUBLIC_BASE_URL".into(),
                reason: "must be an http(s) URL".into(),
            }
            .into())
        }
    };
    let limiter = RateLimiter::from_env(env, aws);
    if limiter.is_none() {
        tracing::warn!("RATE_LIMIT_TABLE is unset: image uploads have no per-user limit");
    }
    let state = AppState {
        verifier: Arc::new(TokenVerifier::for_function(env, aws)?),
        s3: aws.s3(),
        bucket: Arc::from(bucket),
        public_base_url,
        limiter,
        per_user: Arc::new(Limit::from_env(
            env,
            "UPLOAD_RATE_LIMIT_PER_USER",
            "upload-user",
            DEFAULT_PER_USER,
        )?),
    };
    let routes = Router::new()
        .route("/uploads/images", post(upload_image))
        .route("/uploads/images/presigned", post(presigned::presign_upload))
        .route(
            "/uploads/images/{id}/confirm",
            post(presigned::confirm_upload),
        )
        .with_state(state);
    Ok(platform::http::finish(
        Router::new().nest(PREFIX, routes),
        ErrorStyle::Reason,
        MAX_FILE_BYTES + MULTIPART_OVERHEAD,
    ))
}

/// The form of an upload: one image in the field `file`. Other fields are ignored.
#[derive(ToSchema)]
#[allow(dead_code)] // Documentation only: the body is read by `multipart`.
struct ImageUpload {
    /// A PNG, JPEG, GIF or WebP image of 1 byte to 5 MiB, recognised by its content (the
    /// part's declared type and file name are ignored).
    #[schema(value_type = String, format = Binary, content_media_type = "application/octet-stream")]
    file: Vec<u8>,
}

/// A stored image.
#[derive(Serialize, ToSchema)]
pub struct UploadedImage {
    /// Where the image is served, publicly: `images/{uuid}.{png|jpg|gif|webp}` under the
    /// uploads CDN (`UPLOADS_PUBLIC_BASE_URL`) or the bucket.
    #[schema(
        format = "uri",
        example = "https://uploads.example.com/images/0f8fad5b-d9cb-469f-a165-70867728950e.png"
    )]
    pub url: String,
}

/// The 429 of a spent upload limit, in the Reason body.
pub(crate) struct TooManyUploads;

impl IntoResponses for TooManyUploads {
    fn responses() -> BTreeMap<String, RefOr<OpenApiResponse>> {
        BTreeMap::from([platform::openapi::too_many_requests(
            "Too many uploads by this user; retry after Retry-After seconds",
            "ReasonErrorBody",
        )])
    }
}

/// Stores one image and answers its public URL.
///
/// The image is recognised by its first bytes (PNG, JPEG, GIF or WebP), never by the declared
/// type or file name, and may be at most 5 MiB. Deployed behind API Gateway, though, a binary
/// body reaches Lambda base64-encoded (4/3 of its size) inside an event that must fit Lambda's
/// 6 MB synchronous payload limit: a file over about 4.4 MiB never reaches this function, and
/// API Gateway answers with its own error body, not this API's 413. Larger images (up to
/// 20 MiB) go straight to storage: `presignImageUpload`, then `confirmImageUpload`.
#[utoipa::path(
    post,
    path = "/api/v1/uploads/images",
    operation_id = "uploadImage",
    tag = "community",
    request_body(content = ImageUpload, content_type = "multipart/form-data"),
    security(("bearerJwt" = [])),
    responses(
        (status = 201, description = "Stored; `url` serves it publicly", body = UploadedImage,
            headers(("Location" = String, description = "The image's URL, as `url`"))),
        (status = 400, description = "No `file` part, more than one, an empty file, a malformed form, or a file that is not a PNG, JPEG, GIF or WebP image", body = ReasonErrorBody),
        (status = 401, description = "No token, or a bad one", body = ReasonErrorBody),
        (status = 403, description = "Not a user token", body = ReasonErrorBody),
        (status = 413, description = "The file is over 5 MiB (or the body over 5 MiB and 64 KiB)", body = ReasonErrorBody),
        (status = 415, description = "The body is not multipart/form-data", body = ReasonErrorBody),
        TooManyUploads,
        (status = 503, description = "The image storage or the limits table cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
async fn upload_image(
    State(state): State<AppState>,
    user: AuthUser,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    admit(&state, &user).await?;
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let part = multipart::single_field(&body, content_type, FIELD).map_err(form_error)?;
    if part.body.is_empty() {
        return Err(ApiError::field(FIELD, "must not be empty"));
    }
    if part.body.len() > MAX_FILE_BYTES {
        return Err(ApiError::new(
            ErrorKind::PayloadTooLarge,
            format!("{FIELD}: must be at most 5 MiB ({MAX_FILE_BYTES} bytes)"),
        ));
    }
    let kind = ImageType::sniff(&part.body).ok_or_else(|| ApiError::field(FIELD, NOT_AN_IMAGE))?;
    let key = format!("images/{}.{}", uuid::Uuid::new_v4(), kind.extension());
    state
        .s3
        .put_object(PutObject {
            bucket: &state.bucket,
            key: &key,
            body: part.body,
            content_type: kind.mime(),
            cache_control: Some(CACHE_CONTROL),
        })
        .await
        .map_err(storage_error)?;
    tracing::info!(user = %user.id, key, bytes = body.len(), kind = kind.mime(), "image stored");
    published(&state, &key)
}

/// Counts an upload against the user's limit, before the work: an upload costs storage for as
/// long as it is kept. Refused (503) when the limits table cannot answer: unguarded, writes
/// would pile up for good.
pub(crate) async fn admit(state: &AppState, user: &AuthUser) -> Result<(), ApiError> {
    if let Some(limiter) = &state.limiter {
        let checks = [(state.per_user.as_ref(), ClientKey::user(&user.id))];
        ratelimit::enforce(limiter, &checks, WhenUnavailable::Refuse).await?;
    }
    Ok(())
}

/// The 201 of a stored image `key`: its public URL as `url` and `Location`.
pub(crate) fn published(state: &AppState, key: &str) -> Result<Response, ApiError> {
    let url = match &state.public_base_url {
        Some(base) => format!("{base}/{key}"),
        None => state
            .s3
            .object_url(&state.bucket, key)
            .map_err(storage_error)?,
    };
    let location = HeaderValue::from_str(&url).map_err(|e| ApiError::internal("image url", e))?;
    let mut response = (StatusCode::CREATED, axum::Json(UploadedImage { url })).into_response();
    response.headers_mut().insert(header::LOCATION, location);
    Ok(response)
}

/// A form that cannot be read: 415 for another content type, 400 naming `file` otherwise.
fn form_error(error: MultipartError) -> ApiError {
    match error {
        MultipartError::NotMultipart(message) => {
            ApiError::new(ErrorKind::UnsupportedMediaType, message)
        }
        MultipartError::Malformed(reason) => {
            ApiError::bad_request(format!("Malformed multipart/form-data body: {reason}"))
        }
        MultipartError::Missing => ApiError::field(
            FIELD,
            "is required: send the image as the multipart/form-data field `file`",
        ),
        MultipartError::Repeated => ApiError::field(FIELD, "must be sent once"),
    }
}

/// S3 throttling or unreachable: 503; anything else (a refused permission, a missing
/// bucket): 500, logged.
pub(crate) fn storage_error(error: AwsError) -> ApiError {
    if error.is_unavailable() {
        tracing::warn!(error = %error, "image storage unavailable");
        ApiError::unavailable("Image storage is unavailable, try again")
    } else {
        ApiError::internal("image storage", error)
    }
}

/// This function's part of the platform's OpenAPI contract.
#[derive(OpenApi)]
#[openapi(
    paths(upload_image, presigned::presign_upload, presigned::confirm_upload),
    components(schemas(ImageUpload, UploadedImage, ReasonErrorBody)),
    modifiers(&SecuritySchemes),
    tags((name = "community", description = "The community service: posts and topics"))
)]
struct UploadsApi;

/// The uploads function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    UploadsApi::openapi()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_errors_name_the_field_or_the_content_type() {
        let missing = form_error(MultipartError::Missing);
        assert_eq!(missing.kind, ErrorKind::BadRequest);
        assert!(missing.details[0].starts_with("file: "), "{missing}");
        assert_eq!(
            form_error(MultipartError::NotMultipart("x".into())).kind,
            ErrorKind::UnsupportedMediaType
        );
        assert_eq!(
            form_error(MultipartError::Malformed("x".into())).kind,
            ErrorKind::BadRequest
        );
        assert!(form_error(MultipartError::Repeated).details[0].starts_with("file: "));
    }

    #[test]
    fn the_contract_documents_a_binary_file_field() {
        let doc = serde_json::to_value(openapi()).unwrap();
        let operation = &doc["paths"]["/api/v1/uploads/images"]["post"];
        assert_eq!(operation["operationId"], "uploadImage");
        let schema = &operation["requestBody"]["content"]["multipart/form-data"]["schema"];
        assert_eq!(schema["$ref"], "#/components/schemas/ImageUpload");
        let file = &doc["components"]["schemas"]["ImageUpload"]["properties"]["file"];
        assert_eq!(file["format"], "binary", "{file}");
        assert!(operation["responses"]["429"]["headers"]["Retry-After"].is_object());
    }

    /// Every rule the presigned routes enforce is in their schemas: the type's four words,
    /// the size's bounds, the id's shape.
    #[test]
    fn the_contract_states_the_presigned_routes_rules() {
        let doc = serde_json::to_value(openapi()).unwrap();
        let schemas = &doc["components"]["schemas"];
        let request = &schemas["PresignedUploadRequest"];
        assert_eq!(
            request["required"],
            serde_json::json!(["contentType", "size"])
        );
        assert_eq!(request["additionalProperties"], false);
        let size = &request["properties"]["size"];
        assert_eq!(size["minimum"], 1);
        assert_eq!(size["maximum"], presigned::MAX_PRESIGNED_BYTES);
        assert_eq!(
            request["properties"]["contentType"]["$ref"],
            "#/components/schemas/ImageContentType"
        );
        assert_eq!(
            schemas["ImageContentType"]["enum"],
            serde_json::json!(presigned::CONTENT_TYPES)
        );
        let presign = &doc["paths"]["/api/v1/uploads/images/presigned"]["post"];
        assert_eq!(presign["operationId"], "presignImageUpload");
        assert!(presign["responses"]["429"]["headers"]["Retry-After"].is_object());
        let confirm = &doc["paths"]["/api/v1/uploads/images/{id}/confirm"]["post"];
        assert_eq!(confirm["operationId"], "confirmImageUpload");
        assert_eq!(
            confirm["parameters"][0]["schema"]["pattern"],
            presigned::UUID_PATTERN
        );
        assert!(confirm["requestBody"].is_null());
        assert!(confirm["responses"]["201"]["headers"]["Location"].is_object());
    }

    #[tokio::test]
    async fn the_router_needs_its_bucket() {
        let env = Env::new();
        let aws = AwsClients::from_env(&env).await;
        let error = app(&env, &aws).err().unwrap();
        assert!(error.to_string().contains("UPLOADS_BUCKET"), "{error}");
    }
}
