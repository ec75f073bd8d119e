//! Uploads straight to S3, for images of up to 20 MiB that cannot pass through API Gateway and
//! Lambda (a binary body over about 4.4 MiB never reaches the function):
//!
//! 1. `POST /api/v1/uploads/images/presigned` with the image's `contentType` and `size`: counted
//!    against the user's upload limit, answered with a URL presigned by the SDK for one `PUT` of
//!    `incoming/{userId}/{id}` whose signature covers `Content-Type` and `Content-Length`
//!    (S3 refuses any other type or size) and expires after 5 minutes. `incoming/` is not
//!    public (the bucket policy serves `images/*` only) and expires after a day (lifecycle).
//! 2. The browser `PUT`s the file to that URL (the bucket's CORS allows the `PUT`).
//! 3. `POST /api/v1/uploads/images/{id}/confirm`: the object's first 64 bytes are read (a ranged
//!    GetObject, which also gives its size) and sniffed as the direct upload's are; an image is
//!    copied to `images/{id}.{ext}` with the sniffed `Content-Type` and the direct upload's
//!    `Cache-Control`, the incoming object deleted, and the answer is the direct upload's.
//!    Anything else is deleted and refused. A second confirm finds nothing waiting: 404.

use std::time::{Duration, SystemTime};

use aws_sdk_s3::presigning::{PresignedRequest, PresigningConfig};
use aws_sdk_s3::types::MetadataDirective;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, SecondsFormat, Utc};
use platform::auth::AuthUser;
use platform::aws::{AwsError, S3};
use platform::http::Json;
use platform::openapi::ReasonErrorBody;
use platform::{ApiError, ErrorKind, FieldError};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::sniff::ImageType;
use crate::{
    admit, published, storage_error, AppState, TooManyUploads, UploadedImage, CACHE_CONTROL, FIELD,
    NOT_AN_IMAGE,
};

/// The largest image uploaded through a presigned URL: 20 MiB.
pub const MAX_PRESIGNED_BYTES: u64 = 20 * 1024 * 1024;
/// How long a presigned URL stays valid.
pub const PRESIGNED_EXPIRY: Duration = Duration::from_secs(300);
/// Where presigned uploads land until they are confirmed: private, expired after a day.
pub const INCOMING_PREFIX: &str = "incoming/";
/// The image types a presigned upload may declare (what it is, the confirm sniffs).
pub const CONTENT_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
/// The bytes read at confirm: the sniffer needs 12.
const SNIFF_BYTES: u64 = 64;
/// An upload id as the contract states it: a hyphenated UUID, in any case.
pub const UUID_PATTERN: &str =
    "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$";

/// The content type of an image to upload.
#[derive(ToSchema)]
#[allow(dead_code)] // The contract's enum only: requests keep the field as a string.
enum ImageContentType {
    #[schema(rename = "image/png")]
    Png,
    #[schema(rename = "image/jpeg")]
    Jpeg,
    #[schema(rename = "image/gif")]
    Gif,
    #[schema(rename = "image/webp")]
    Webp,
}

/// An image about to be uploaded straight to storage.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct PresignedUploadRequest {
    /// The file's type; the upload must send exactly this `Content-Type` (what is stored is
    /// decided by the file's first bytes at confirm).
    #[schema(required = true, value_type = ImageContentType, example = "image/png")]
    content_type: Option<String>,
    /// The file's size in bytes, 1 to 20 MiB; the upload must send exactly this
    /// `Content-Length`.
    #[schema(required = true, value_type = i64, minimum = 1, maximum = 20971520, example = 9437184)]
    size: Option<serde_json::Number>,
}

/// The headers the upload must send, exactly as given: the signature covers them.
#[derive(Serialize, ToSchema)]
pub struct UploadHeaders {
    #[serde(rename = "Content-Type")]
    #[schema(value_type = ImageContentType)]
    pub content_type: String,
    /// The file's size in bytes, as declared.
    #[serde(rename = "Content-Length")]
    #[schema(pattern = "^[1-9][0-9]*$", example = "9437184")]
    pub content_length: String,
}

/// Where and how to upload the file, then confirm it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PresignedUpload {
    /// The upload's id: `POST /api/v1/uploads/images/{id}/confirm` once the file is sent.
    #[schema(format = "uuid")]
    pub id: String,
    /// The storage URL to send the file to, signed for this one request until `expiresAt`.
    #[schema(format = "uri")]
    pub upload_url: String,
    /// The method of the upload.
    #[schema(value_type = String, pattern = "^PUT$", example = "PUT")]
    pub method: &'static str,
    pub headers: UploadHeaders,
    /// When `uploadUrl` stops working (5 minutes after it was signed).
    #[schema(value_type = String, format = DateTime)]
    pub expires_at: String,
}

/// Signs an upload straight to storage.
///
/// For images over the direct upload's bound (5 MiB, and in practice about 4.4 MiB through
/// API Gateway): send the file with `method` to `uploadUrl` with exactly `headers` (the
/// signature covers `Content-Type` and `Content-Length`, so storage refuses another type or
/// size) before `expiresAt`, then confirm it. Counted against the same per-user limit as the
/// direct upload. Nothing is published until the confirm has checked the file's first bytes.
#[utoipa::path(
    post,
    path = "/api/v1/uploads/images/presigned",
    operation_id = "presignImageUpload",
    tag = "community",
    request_body = PresignedUploadRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 201, description = "Signed: send the file to `uploadUrl`, then confirm `id`", body = PresignedUpload),
        (status = 400, description = "contentType is not one of the four image types, size is not 1 to 20 MiB (20971520 bytes), or the body is not the JSON object described (`message` names the field)", body = ReasonErrorBody),
        (status = 401, description = "No token, or a bad one", body = ReasonErrorBody),
        (status = 403, description = "Not a user token", body = ReasonErrorBody),
        (status = 415, description = "The body is not JSON", body = ReasonErrorBody),
        TooManyUploads,
        (status = 503, description = "The limits table cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
pub(crate) async fn presign_upload(
    State(state): State<AppState>,
    user: AuthUser,
    Json(body): Json<PresignedUploadRequest>,
) -> Result<Response, ApiError> {
    let (content_type, size) = validate(&body)?;
    admit(&state, &user).await?;
    let id = uuid::Uuid::new_v4().hyphenated().to_string();
    let key = incoming_key(&user.id, &id);
    let signed_at = SystemTime::now();
    let presigned = presign_put(
        &state.s3,
        &state.bucket,
        &key,
        content_type,
        size,
        signed_at,
    )
    .await?;
    let expires = signed_at
        .checked_add(PRESIGNED_EXPIRY)
        .ok_or_else(|| ApiError::internal("upload expiry", "the clock is out of range"))?;
    let expires_at = DateTime::<Utc>::from(expires).to_rfc3339_opts(SecondsFormat::Secs, true);
    tracing::info!(user = %user.id, key, bytes = size, content_type, "upload presigned");
    let upload = PresignedUpload {
        id,
        upload_url: presigned.uri().to_string(),
        method: "PUT",
        headers: UploadHeaders {
            content_type: content_type.to_string(),
            content_length: size.to_string(),
        },
        expires_at,
    };
    Ok((StatusCode::CREATED, axum::Json(upload)).into_response())
}

/// A `PUT` of `key` signed by the SDK from `signed_at` for [`PRESIGNED_EXPIRY`], its signature
/// covering `Content-Type` and `Content-Length` (no checksum: the S3 client computes them only
/// when required, so the browser has nothing else to send).
pub async fn presign_put(
    s3: &S3,
    bucket: &str,
    key: &str,
    content_type: &str,
    size: u64,
    signed_at: SystemTime,
) -> Result<PresignedRequest, ApiError> {
    let config = PresigningConfig::builder()
        .start_time(signed_at)
        .expires_in(PRESIGNED_EXPIRY)
        .build()
        .map_err(|e| ApiError::internal("presigning config", e))?;
    let length = i64::try_from(size).map_err(|e| ApiError::internal("upload size", e))?;
    s3.client()
        .put_object()
        .bucket(bucket)
        .key(key)
        .content_type(content_type)
        .content_length(length)
        .presigned(config)
        .await
        .map_err(|e| storage_error(AwsError::from(e)))
}

/// The declared type (one of [`CONTENT_TYPES`]) and size (1 to [`MAX_PRESIGNED_BYTES`]);
/// every field that is wrong is named.
fn validate(body: &PresignedUploadRequest) -> Result<(&'static str, u64), ApiError> {
    let mut errors = Vec::new();
    let content_type = match body.content_type.as_deref() {
        None => {
            errors.push(FieldError::new("contentType", "is required"));
            None
        }
        Some(raw) => {
            let known = CONTENT_TYPES.into_iter().find(|t| *t == raw);
            if known.is_none() {
                errors.push(FieldError::new(
                    "contentType",
                    "must be image/png, image/jpeg, image/gif or image/webp",
                ));
            }
            known
        }
    };
    let size = match body.size.as_ref() {
        None => {
            errors.push(FieldError::new("size", "is required"));
            None
        }
        Some(number) => {
            let size = platform::validation::whole_number_in(number, 1, MAX_PRESIGNED_BYTES);
            if size.is_none() {
                errors.push(FieldError::new(
                    "size",
                    format!("must be a whole number from 1 to {MAX_PRESIGNED_BYTES} (20 MiB)"),
                ));
            }
            size
        }
    };
    match (content_type, size) {
        (Some(content_type), Some(size)) if errors.is_empty() => Ok((content_type, size)),
        _ => Err(ApiError::validation(errors)),
    }
}

/// Where the caller's upload `id` waits for its confirm.
pub fn incoming_key(user: &str, id: &str) -> String {
    format!("{INCOMING_PREFIX}{user}/{id}")
}

/// Publishes an upload sent to its presigned URL, once its first bytes say it is an image.
///
/// Reads the first bytes of the file sent for `id` (by the caller: another user's id is not
/// found); a PNG, JPEG, GIF or WebP image is published under its sniffed type and answered as
/// the direct upload answers. Anything else is deleted and refused. The file waiting is
/// removed either way, so a second confirm of the same id is a 404.
#[utoipa::path(
    post,
    path = "/api/v1/uploads/images/{id}/confirm",
    operation_id = "confirmImageUpload",
    tag = "community",
    params(("id" = String, Path, format = "uuid", pattern = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$", description = "The upload's id, as the presigned upload answered it")),
    security(("bearerJwt" = [])),
    responses(
        (status = 201, description = "Published; `url` serves it publicly", body = UploadedImage,
            headers(("Location" = String, description = "The image's URL, as `url`"))),
        (status = 400, description = "id is not a UUID, or the file sent is empty or not a PNG, JPEG, GIF or WebP image (`message` names `file`; the file is deleted)", body = ReasonErrorBody),
        (status = 401, description = "No token, or a bad one", body = ReasonErrorBody),
        (status = 403, description = "Not a user token", body = ReasonErrorBody),
        (status = 404, description = "No file waits under this id for the caller: never sent, expired (a day after it was sent), another user's, or already confirmed", body = ReasonErrorBody),
        (status = 413, description = "The file sent is over 20 MiB (it is deleted)", body = ReasonErrorBody),
        (status = 503, description = "The image storage cannot be reached: retry later", body = ReasonErrorBody),
    )
)]
pub(crate) async fn confirm_upload(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id = parse_id(&id)?;
    let incoming = incoming_key(&user.id, &id);
    let Some(head) = first_bytes(&state, &incoming).await? else {
        return Err(ApiError::not_found(format!(
            "No upload {id} waits to be confirmed: it was never sent, has expired, belongs to \
             another user, or was confirmed already"
        )));
    };
    if head.size == 0 {
        discard(&state, &incoming).await;
        return Err(ApiError::field(FIELD, "must not be empty"));
    }
    if head.size > MAX_PRESIGNED_BYTES {
        discard(&state, &incoming).await;
        return Err(ApiError::new(
            ErrorKind::PayloadTooLarge,
            format!("{FIELD}: must be at most 20 MiB ({MAX_PRESIGNED_BYTES} bytes)"),
        ));
    }
    let Some(kind) = ImageType::sniff(&head.bytes) else {
        discard(&state, &incoming).await;
        return Err(ApiError::field(FIELD, NOT_AN_IMAGE));
    };
    let key = format!("images/{id}.{}", kind.extension());
    state
        .s3
        .client()
        .copy_object()
        .bucket(state.bucket.as_ref())
        .key(&key)
        .copy_source(platform::aws::s3::copy_source(&state.bucket, &incoming))
        .metadata_directive(MetadataDirective::Replace)
        .content_type(kind.mime())
        .cache_control(CACHE_CONTROL)
        .send()
        .await
        .map_err(|e| storage_error(AwsError::from(e)))?;
    // Published: a failed delete leaves the file to the lifecycle rule (a day), and a confirm
    // meanwhile would publish the same key again.
    discard(&state, &incoming).await;
    tracing::info!(user = %user.id, key, bytes = head.size, kind = kind.mime(), "image published");
    published(&state, &key)
}

/// The upload id of a path: a hyphenated UUID in any case (kept lowercase, as generated).
fn parse_id(raw: &str) -> Result<String, ApiError> {
    // 36 characters: only the hyphenated form (the parser also takes braced, URN and simple).
    match uuid::Uuid::try_parse(raw) {
        Ok(id) if raw.len() == 36 => Ok(id.hyphenated().to_string()),
        _ => Err(ApiError::field("id", "must be a UUID")),
    }
}

/// The start of a waiting upload and its whole size.
struct Head {
    bytes: Vec<u8>,
    size: u64,
}

/// The first [`SNIFF_BYTES`] of `key` and its size; `None` when there is no such object.
async fn first_bytes(state: &AppState, key: &str) -> Result<Option<Head>, ApiError> {
    let start = state
        .s3
        .object_start(&state.bucket, key, SNIFF_BYTES)
        .await
        .map_err(storage_error)?;
    Ok(start.map(|start| Head {
        bytes: start.bytes,
        size: start.size,
    }))
}

/// Deletes a waiting upload; a failure is logged (the lifecycle rule removes it in a day).
async fn discard(state: &AppState, key: &str) {
    let deleted = state
        .s3
        .client()
        .delete_object()
        .bucket(state.bucket.as_ref())
        .key(key)
        .send()
        .await;
    if let Err(e) = deleted {
        let error = AwsError::from(e);
        tracing::warn!(key, error = %error, "a confirmed or refused upload was not deleted");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(content_type: Option<&str>, size: Option<u64>) -> PresignedUploadRequest {
        PresignedUploadRequest {
            content_type: content_type.map(str::to_string),
            size: size.map(serde_json::Number::from),
        }
    }

    fn whole_bytes(number: &serde_json::Number) -> Option<u64> {
        platform::validation::whole_number_in(number, 1, MAX_PRESIGNED_BYTES)
    }

    #[test]
    fn a_size_is_a_whole_number_written_either_way() {
        let number = |text: &str| serde_json::from_str::<serde_json::Number>(text).unwrap();
        assert_eq!(whole_bytes(&number("9437184")), Some(9_437_184));
        assert_eq!(whole_bytes(&number("7131520.0")), Some(7_131_520));
        assert_eq!(whole_bytes(&number("1e3")), Some(1_000));
        assert_eq!(
            whole_bytes(&number("20971520.0")),
            Some(MAX_PRESIGNED_BYTES)
        );
        for wrong in [
            "0",
            "0.0",
            "-1",
            "1.5",
            "20971521",
            "20971521.0",
            "1e300",
            "-0.0",
        ] {
            assert_eq!(whole_bytes(&number(wrong)), None, "{wrong}");
        }
    }

    #[test]
    fn the_type_must_be_one_of_four_and_the_size_1_to_20_mib() {
        assert_eq!(
            validate(&request(Some("image/webp"), Some(1))).unwrap(),
            ("image/webp", 1)
        );
        assert!(validate(&request(Some("image/png"), Some(MAX_PRESIGNED_BYTES))).is_ok());
        let both = validate(&request(Some("image/svg+xml"), Some(0))).unwrap_err();
        assert_eq!(both.kind, ErrorKind::BadRequest);
        assert!(both.details[0].starts_with("contentType: "), "{both:?}");
        assert!(both.details[1].starts_with("size: "), "{both:?}");
        let over = validate(&request(Some("image/png"), Some(MAX_PRESIGNED_BYTES + 1)));
        assert!(over.unwrap_err().details[0].starts_with("size: "));
        let missing = validate(&request(None, None)).unwrap_err();
        assert_eq!(
            missing.details,
            ["contentType: is required", "size: is required"]
        );
        // Exact words: no case folding, no parameters.
        for wrong in ["IMAGE/PNG", "image/png; q=1", "image/jpg", ""] {
            assert!(validate(&request(Some(wrong), Some(1))).is_err(), "{wrong}");
        }
    }

    #[test]
    fn ids_are_hyphenated_uuids_in_any_case() {
        assert_eq!(
            parse_id("0F8FAD5B-D9CB-469F-A165-70867728950E").unwrap(),
            "0f8fad5b-d9cb-469f-a165-70867728950e"
        );
        for bad in [
            "0f8fad5bd9cb469fa16570867728950e",
            "{0f8fad5b-d9cb-469f-a165-70867728950e}",
            "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e",
            " 0f8fad5b-d9cb-469f-a165-70867728950e",
            "presigned",
            "",
        ] {
            let error = parse_id(bad).unwrap_err();
            assert!(error.details[0].starts_with("id: "), "{bad}");
        }
    }

    /// Signed on AWS (no endpoint override): virtual-hosted and regional in every region, as
    /// the web client's CSP allows (`web_function::csp::uploads_put_source`).
    #[tokio::test]
    async fn the_url_is_the_buckets_regional_host_in_every_region() {
        for region in ["us-east-1", "eu-west-1", "ap-southeast-2"] {
            let env = platform::Env::new()
                .with("AWS_REGION", region)
                .with("AWS_ACCESS_KEY_ID", "AKID")
                .with("AWS_SECRET_ACCESS_KEY", "secret");
            let s3 = platform::aws::AwsClients::from_env_with(&env, |t| t).s3();
            let signed = presign_put(
                &s3,
                "up-1",
                "incoming/u/x",
                "image/gif",
                1,
                SystemTime::now(),
            )
            .await
            .unwrap();
            let host = format!("https://up-1.s3.{region}.amazonaws.com/incoming/u/x?");
            assert!(signed.uri().starts_with(&host), "{}", signed.uri());
        }
    }

    /// Signed on AWS (no endpoint override): virtual-hosted, as the web client's CSP allows.
    #[tokio::test]
    async fn the_url_signs_type_and_length_for_five_minutes() {
        let env = platform::Env::new()
            .with("AWS_REGION", "eu-west-1")
            .with("AWS_ACCESS_KEY_ID", "AKID")
            .with("AWS_SECRET_ACCESS_KEY", "secret");
        let s3 = platform::aws::AwsClients::from_env_with(&env, |t| t).s3();
        let key = incoming_key("u-1", "0f8fad5b-d9cb-469f-a165-70867728950e");
        let signed = presign_put(&s3, "up-1", &key, "image/png", 9_437_184, SystemTime::now())
            .await
            .unwrap();
        assert_eq!(signed.method(), "PUT");
        let uri = signed.uri();
        assert!(
            uri.starts_with(
                "https://up-1.s3.eu-west-1.amazonaws.com/incoming/u-1/0f8fad5b-d9cb-469f-a165-70867728950e?"
            ),
            "{uri}"
        );
        assert!(uri.contains("X-Amz-Expires=300&"), "{uri}");
        assert!(
            uri.contains("X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost&"),
            "{uri}"
        );
        assert!(!uri.to_ascii_lowercase().contains("checksum"), "{uri}");
        // What the browser must send is exactly what the answer's `headers` name.
        let mut headers: Vec<(&str, &str)> = signed.headers().collect();
        headers.sort_unstable();
        assert_eq!(
            headers,
            [("content-length", "9437184"), ("content-type", "image/png")]
        );
    }

    #[test]
    fn the_copy_source_encodes_the_key() {
        assert_eq!(
            platform::aws::s3::copy_source("b-1", "incoming/u 1/x+y"),
            "b-1/incoming/u%201/x%2By"
        );
    }
}
