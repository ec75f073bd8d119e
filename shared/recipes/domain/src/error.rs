//! What a recipe operation can answer instead of its result, and how each answers
//! ([`ApiError`]: no HTTP here, the function's router renders it).

use platform::dynamo::DynamoError;
use platform::{ApiError, Invalid};

#[derive(Debug, thiserror::Error)]
pub enum RecipesError {
    /// The input broke a rule; every field problem is named.
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// No such recipe among the caller's own (another user's recipe is not there either).
    #[error("recipe not found")]
    NotFound,
    /// No such item on the caller's shopping list.
    #[error("shopping list item not found")]
    ItemNotFound,
    /// The caller's account was deleted (its token may still be valid for a while).
    #[error("the account was deleted")]
    AccountDeleted,
    /// The cleanup of a deleted account could not be queued.
    #[error(transparent)]
    Queue(#[from] platform::queue::QueueError),
    /// Other requests kept changing the recipe while this one tried to.
    #[error("the recipe was changed concurrently")]
    ConcurrentChange,
    /// The model could not be asked, or gave nothing usable.
    #[error(transparent)]
    Llm(#[from] llm::LlmError),
    /// The model answered, but nothing in it passes the recipe rules and the user's diet and
    /// allergies.
    #[error("the model's answer is unusable: {0}")]
    Unusable(String),
    /// The user's preferences could not be read from identity.
    #[error(transparent)]
    Preferences(#[from] crate::ai::PreferencesError),
    /// A recipe image was refused or could not be stored.
    #[error(transparent)]
    Image(#[from] crate::images::ImageError),
    #[error(transparent)]
    Store(#[from] DynamoError),
    /// The page to import could not be had (the reason follows `url: `).
    #[error("the page {0}")]
    Page(#[from] crate::import::PageError),
    /// The page holds no recipe, structured or in its text.
    #[error("the page holds no recipe")]
    NoRecipe,
    /// Imports are not configured on this function.
    #[error("recipe import is not configured")]
    ImportUnavailable,
}

impl From<crate::store::CreateError> for RecipesError {
    fn from(e: crate::store::CreateError) -> Self {
        match e {
            crate::store::CreateError::AccountDeleted => Self::AccountDeleted,
            crate::store::CreateError::Store(e) => Self::Store(e),
        }
    }
}

impl RecipesError {
    pub fn is_concurrent_change(&self) -> bool {
        matches!(self, Self::ConcurrentChange)
    }
}

/// The answer to a recipe operation that failed.
impl From<RecipesError> for ApiError {
    fn from(e: RecipesError) -> Self {
        to_api(e)
    }
}

fn to_api(e: RecipesError) -> ApiError {
    match e {
        RecipesError::Invalid(invalid) => invalid.into(),
        RecipesError::NotFound => ApiError::not_found("Recipe not found"),
        RecipesError::ItemNotFound => ApiError::not_found("No such item on the shopping list"),
        RecipesError::AccountDeleted => ApiError::unauthorized("The account was deleted"),
        RecipesError::Queue(e) => {
            ApiError::unavailable("The account cleanup could not be queued; try again")
                .caused_by(format!("account cleanup not queued: {e}"))
        }
        RecipesError::ConcurrentChange => {
            ApiError::conflict("The recipe (or list) was changed concurrently; try again")
        }
        RecipesError::Llm(llm::LlmError::Config(e)) => ApiError::internal("LLM settings", e),
        RecipesError::Llm(e) => ApiError::bad_gateway("The model gave no usable answer; try again")
            .caused_by(format!("model call failed: {e}")),
        RecipesError::Unusable(reason) => {
            ApiError::bad_gateway("The model gave no usable answer; try again")
                .caused_by(format!("model answer unusable: {reason}"))
        }
        RecipesError::Preferences(e) => {
            ApiError::bad_gateway("The user's preferences could not be read")
                .caused_by(format!("identity call failed: {e}"))
        }
        RecipesError::Image(e) => image_error(e),
        RecipesError::Store(e) if e.is_unavailable() => {
            ApiError::unavailable("The recipes table is unavailable; try again")
                .caused_by(format!("recipes table unavailable: {e}"))
        }
        RecipesError::Store(e) => ApiError::internal("recipes store", e),
        RecipesError::Page(e) => platform::Invalid::field("url", e.to_string()).into(),
        RecipesError::NoRecipe => platform::Invalid::field(
            "url",
            "holds no recipe (no schema.org Recipe, and none in its text)",
        )
        .into(),
        RecipesError::ImportUnavailable => ApiError::internal("recipe import", "no page fetcher"),
    }
}

/// The field a refused image names: the file sent.
const IMAGE_FIELD: &str = "file";

fn image_error(e: crate::images::ImageError) -> ApiError {
    use crate::images::{ImageError, MAX_IMAGE_BYTES};
    match e {
        ImageError::Empty => ApiError::field(IMAGE_FIELD, "must not be empty"),
        ImageError::NotAnImage => ApiError::field(IMAGE_FIELD, "must be a JPEG, PNG or WebP image"),
        ImageError::TooLarge => ApiError::new(
            platform::ErrorKind::PayloadTooLarge,
            format!("{IMAGE_FIELD}: must be at most 10 MiB ({MAX_IMAGE_BYTES} bytes)"),
        ),
        // A 400 naming the id, not a 404: the recipe the path names exists.
        ImageError::UploadNotFound => ApiError::field(
            "uploadId",
            "no file waits under this id: it was never sent, has expired, or was confirmed already",
        ),
        ImageError::NotConfigured => ApiError::unavailable("Recipe images are not configured"),
        ImageError::Storage(e) if e.is_unavailable() => {
            ApiError::unavailable("Image storage is unavailable, try again")
                .caused_by(format!("recipe image storage: {e}"))
        }
        ImageError::Storage(e) => ApiError::internal("recipe image storage", e),
    }
}

#[cfg(test)]
mod tests {
    use platform::ErrorKind;

    use super::*;

    #[test]
    fn answers() {
        assert_eq!(to_api(RecipesError::NotFound).kind, ErrorKind::NotFound);
        assert_eq!(
            to_api(RecipesError::Unusable("x".into())).kind,
            ErrorKind::BadGateway
        );
        let invalid = to_api(RecipesError::Invalid(platform::Invalid::field(
            "title", "bad",
        )));
        assert_eq!(invalid.kind, ErrorKind::BadRequest);
        assert_eq!(invalid.details, vec!["title: bad"]);
    }
}
