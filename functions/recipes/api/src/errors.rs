//! How the recipe service's errors answer over HTTP (the detailed body): handlers return
//! [`Error`], and `?` converts the domain's errors and the platform's. The router's error
//! layer renders it and logs its cause once.

use axum::response::{IntoResponse, Response};
use platform::ApiError;
use recipes::RecipesError;

/// What a handler of this function fails with.
#[derive(Debug)]
pub struct Error(ApiError);

impl From<ApiError> for Error {
    fn from(error: ApiError) -> Self {
        Self(error)
    }
}

impl From<platform::Invalid> for Error {
    fn from(invalid: platform::Invalid) -> Self {
        Self(invalid.into())
    }
}

impl From<RecipesError> for Error {
    fn from(error: RecipesError) -> Self {
        Self(to_api(error))
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        self.0.into_response()
    }
}

/// The answer to a recipe operation that failed.
fn to_api(e: RecipesError) -> ApiError {
    match e {
        RecipesError::Invalid(invalid) => invalid.into(),
        RecipesError::NotFound => ApiError::not_found("Recipe not found"),
        RecipesError::AccountDeleted => ApiError::unauthorized("The account was deleted"),
        RecipesError::Queue(e) => {
            ApiError::unavailable("The account cleanup could not be queued; try again")
                .caused_by(format!("account cleanup not queued: {e}"))
        }
        RecipesError::ConcurrentChange => {
            ApiError::conflict("The recipe was changed concurrently; try again")
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
        RecipesError::Store(e) if e.is_unavailable() => {
            ApiError::unavailable("The recipes table is unavailable; try again")
                .caused_by(format!("recipes table unavailable: {e}"))
        }
        RecipesError::Store(e) => ApiError::internal("recipes store", e),
    }
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;

    use super::*;

    #[test]
    fn answers() {
        assert_eq!(
            to_api(RecipesError::NotFound).status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            to_api(RecipesError::Unusable("x".into())).status(),
            StatusCode::BAD_GATEWAY
        );
        let invalid = to_api(RecipesError::Invalid(platform::Invalid::field(
            "title", "bad",
        )));
        assert_eq!(invalid.status(), StatusCode::BAD_REQUEST);
        assert_eq!(invalid.details, vec!["title: bad"]);
    }
}
