//! Recipe images: stored in the uploads bucket under the owner's private prefix
//! `recipes/{userId}/{recipeId}/{uuid}.{jpg|png|webp}` (the bucket's public policy serves
//! `images/*` only, so a recipe's photo is not public), answered as a presigned GET.
//!
//! Two ways in, both ending in [`ImageStore`]'s checks (the first bytes decide the type: JPEG,
//! PNG or WebP, whatever was declared; at most [`MAX_IMAGE_BYTES`]):
//! - [`ImageStore::put`]: bytes the service holds (an imported page's image, `rimport`);
//! - the browser's upload straight to S3, as the community's uploads do: a presigned `PUT` of
//!   `incoming/recipes/{userId}/{uploadId}` (type and length signed, 5 minutes; `incoming/`
//!   expires after a day by the bucket's lifecycle), then [`ImageStore::confirm`] reads the
//!   object's first bytes and size, copies an image to the owner's prefix and deletes the
//!   upload either way.
//!
//! A URL is signed from the start of the current hour for two hours, so the same image has
//! the same URL for an hour (browsers cache it) and every URL answered works for an hour at
//! least.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sdk_s3::presigning::PresigningConfig;
use aws_sdk_s3::types::MetadataDirective;
use bytes::Bytes;
use platform::aws::s3::PutObject;
use platform::aws::{AwsClients, AwsError, S3};
use platform::{ConfigError, Env};

/// The largest recipe image: 10 MiB (a phone's photo; the presigned upload avoids the
/// gateway's payload limit).
pub const MAX_IMAGE_BYTES: u64 = 10 * 1024 * 1024;
/// How long an upload URL stays valid.
pub const UPLOAD_EXPIRY: Duration = Duration::from_secs(300);
/// The window a GET URL is signed for, from the start of the hour it was answered in.
const GET_WINDOW: Duration = Duration::from_secs(2 * 3600);
const HOUR: u64 = 3600;
/// Where the owner's images live.
pub const IMAGES_PREFIX: &str = "recipes/";
/// Where browser uploads wait for their confirm (expired after a day by the lifecycle rule).
pub const INCOMING_PREFIX: &str = "incoming/recipes/";
/// The image types a client may declare.
pub const CONTENT_TYPES: [&str; 3] = ["image/jpeg", "image/png", "image/webp"];
/// Stored images never change (a new one is a new key).
const CACHE_CONTROL: &str = "private, max-age=31536000, immutable";
/// The bytes read at confirm: the sniffer needs 12.
const SNIFF_BYTES: u64 = 64;

/// What a recipe image is, by its first bytes alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageType {
    Jpeg,
    Png,
    Webp,
}

impl ImageType {
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Self::Png)
        } else if bytes.starts_with(b"\xff\xd8\xff") {
            Some(Self::Jpeg)
        } else if bytes.get(..4) == Some(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
            Some(Self::Webp)
        } else {
            None
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            Self::Jpeg => "image/jpeg",
            Self::Png => "image/png",
            Self::Webp => "image/webp",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Self::Jpeg => "jpg",
            Self::Png => "png",
            Self::Webp => "webp",
        }
    }
}

/// Why an image was not stored.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("the file is empty")]
    Empty,
    #[error("the file is over {MAX_IMAGE_BYTES} bytes")]
    TooLarge,
    #[error("the file is not a JPEG, PNG or WebP image")]
    NotAnImage,
    /// No upload waits under this id for this user (never sent, expired, confirmed already).
    #[error("no upload waits under this id")]
    UploadNotFound,
    /// No image store is configured (`RECIPE_IMAGES_BUCKET` unset).
    #[error("recipe images are not configured")]
    NotConfigured,
    #[error(transparent)]
    Storage(#[from] AwsError),
}

/// A signed upload the browser sends the file to.
#[derive(Debug, Clone)]
pub struct SignedUpload {
    pub id: String,
    pub url: String,
    pub content_type: &'static str,
    pub size: u64,
    pub expires_at: SystemTime,
}

/// The recipe images in `RECIPE_IMAGES_BUCKET`.
#[derive(Clone)]
pub struct ImageStore {
    s3: S3,
    bucket: Arc<str>,
}

/// The key of a stored image of `user`'s recipe.
pub fn image_key(user: &str, recipe: i64, id: &str, kind: ImageType) -> String {
    format!("{IMAGES_PREFIX}{user}/{recipe}/{id}.{}", kind.extension())
}

/// Whether `key` is one of `user`'s recipe images (what a recipe may point at).
pub fn owned_by(key: &str, user: &str) -> bool {
    key.strip_prefix(IMAGES_PREFIX)
        .and_then(|rest| rest.strip_prefix(user))
        .is_some_and(|rest| rest.starts_with('/'))
}

fn incoming_key(user: &str, id: &str) -> String {
    format!("{INCOMING_PREFIX}{user}/{id}")
}

/// The checks every stored image passes: not empty, at most [`MAX_IMAGE_BYTES`], a JPEG, PNG
/// or WebP by its first bytes.
pub fn check(first_bytes: &[u8], size: u64) -> Result<ImageType, ImageError> {
    if size == 0 {
        return Err(ImageError::Empty);
    }
    if size > MAX_IMAGE_BYTES {
        return Err(ImageError::TooLarge);
    }
    ImageType::sniff(first_bytes).ok_or(ImageError::NotAnImage)
}

impl ImageStore {
    pub fn new(s3: S3, bucket: impl Into<Arc<str>>) -> Self {
        Self {
            s3,
            bucket: bucket.into(),
        }
    }

    /// From `RECIPE_IMAGES_BUCKET`; `None` when unset (images are then refused).
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Option<Self>, ConfigError> {
        Ok(env
            .get("RECIPE_IMAGES_BUCKET")
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .map(|bucket| Self::new(aws.s3(), bucket)))
    }

    /// Stores `bytes` as an image of `user`'s recipe `recipe` after the checks; its key.
    pub async fn put(&self, user: &str, recipe: i64, bytes: Bytes) -> Result<String, ImageError> {
        let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        let kind = check(&bytes, size)?;
        let key = image_key(user, recipe, &uuid::Uuid::new_v4().to_string(), kind);
        self.s3
            .put_object(PutObject {
                bucket: &self.bucket,
                key: &key,
                body: bytes,
                content_type: kind.mime(),
                cache_control: Some(CACHE_CONTROL),
            })
            .await?;
        Ok(key)
    }

    /// Signs the browser's `PUT` of one file of `content_type` (one of [`CONTENT_TYPES`]) and
    /// `size` bytes (checked by the caller).
    pub async fn sign_upload(
        &self,
        user: &str,
        content_type: &'static str,
        size: u64,
    ) -> Result<SignedUpload, ImageError> {
        let id = uuid::Uuid::new_v4().hyphenated().to_string();
        let signed_at = SystemTime::now();
        let config = PresigningConfig::builder()
            .start_time(signed_at)
            .expires_in(UPLOAD_EXPIRY)
            .build()
            .map_err(|e| AwsError::invalid(e.to_string()))?;
        let length = i64::try_from(size).map_err(|e| AwsError::invalid(e.to_string()))?;
        let signed = self
            .s3
            .client()
            .put_object()
            .bucket(self.bucket.as_ref())
            .key(incoming_key(user, &id))
            .content_type(content_type)
            .content_length(length)
            .presigned(config)
            .await
            .map_err(AwsError::from)?;
        Ok(SignedUpload {
            id,
            url: signed.uri().to_string(),
            content_type,
            size,
            expires_at: signed_at + UPLOAD_EXPIRY,
        })
    }

    /// Checks the file the browser sent for `upload` and, an image, copies it to `user`'s
    /// recipe `recipe`; its key. The upload is deleted either way.
    pub async fn confirm(
        &self,
        user: &str,
        recipe: i64,
        upload: &str,
    ) -> Result<String, ImageError> {
        let incoming = incoming_key(user, upload);
        let (head, size) = self.first_bytes(&incoming).await?;
        let kind = match check(&head, size) {
            Ok(kind) => kind,
            Err(e) => {
                self.delete(&incoming).await;
                return Err(e);
            }
        };
        let key = image_key(user, recipe, upload, kind);
        self.s3
            .client()
            .copy_object()
            .bucket(self.bucket.as_ref())
            .key(&key)
            .copy_source(platform::aws::s3::copy_source(&self.bucket, &incoming))
            .metadata_directive(MetadataDirective::Replace)
            .content_type(kind.mime())
            .cache_control(CACHE_CONTROL)
            .send()
            .await
            .map_err(AwsError::from)?;
        self.delete(&incoming).await;
        Ok(key)
    }

    /// The first bytes of `key` and its size.
    async fn first_bytes(&self, key: &str) -> Result<(Vec<u8>, u64), ImageError> {
        let start = self
            .s3
            .object_start(&self.bucket, key, SNIFF_BYTES)
            .await?
            .ok_or(ImageError::UploadNotFound)?;
        Ok((start.bytes, start.size))
    }

    /// A GET URL of `key`, the same for the hour it is asked in, valid an hour at least.
    pub async fn url(&self, key: &str) -> Result<String, ImageError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|e| AwsError::invalid(e.to_string()))?
            .as_secs();
        let start = UNIX_EPOCH + Duration::from_secs(now - now % HOUR);
        let config = PresigningConfig::builder()
            .start_time(start)
            .expires_in(GET_WINDOW)
            .build()
            .map_err(|e| AwsError::invalid(e.to_string()))?;
        let signed = self
            .s3
            .client()
            .get_object()
            .bucket(self.bucket.as_ref())
            .key(key)
            .presigned(config)
            .await
            .map_err(AwsError::from)?;
        Ok(signed.uri().to_string())
    }

    /// Deletes `key`; a failure is logged (an orphan image costs storage, nothing else).
    pub async fn delete(&self, key: &str) {
        let deleted = self
            .s3
            .client()
            .delete_object()
            .bucket(self.bucket.as_ref())
            .key(key)
            .send()
            .await;
        if let Err(e) = deleted {
            let error = AwsError::from(e);
            tracing::warn!(key, error = %error, "a recipe image was not deleted");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jpeg_png_and_webp_only_by_their_first_bytes() {
        assert_eq!(check(b"\xff\xd8\xff\xe0", 4).ok(), Some(ImageType::Jpeg));
        assert_eq!(check(b"\x89PNG\r\n\x1a\n\0", 9).ok(), Some(ImageType::Png));
        assert_eq!(
            check(b"RIFF\x24\0\0\0WEBPVP8 ", 16).ok(),
            Some(ImageType::Webp)
        );
        assert!(matches!(check(b"GIF89a", 6), Err(ImageError::NotAnImage)));
        assert!(matches!(check(b"<svg", 4), Err(ImageError::NotAnImage)));
        assert!(matches!(check(b"", 0), Err(ImageError::Empty)));
        assert!(matches!(
            check(b"\xff\xd8\xff", MAX_IMAGE_BYTES + 1),
            Err(ImageError::TooLarge)
        ));
        assert!(check(b"\xff\xd8\xff", MAX_IMAGE_BYTES).is_ok());
    }

    #[test]
    fn keys_live_under_the_owners_prefix() {
        let key = image_key("u-1", 42, "abc", ImageType::Webp);
        assert_eq!(key, "recipes/u-1/42/abc.webp");
        assert!(owned_by(&key, "u-1"));
        assert!(!owned_by(&key, "u"));
        assert!(!owned_by(&key, "u-2"));
        assert!(!owned_by("images/u-1/x.png", "u-1"));
    }
}
