//! How the recipe service's errors answer over HTTP (the detailed body).

use platform::ApiError;
use recipes::RecipesError;

/// The answer to a recipe operation that failed.
pub fn to_api(e: RecipesError) -> ApiError {
    match e {
        RecipesError::Invalid(invalid) => invalid.into(),
        RecipesError::NotFound => ApiError::not_found("Recipe not found"),
        RecipesError::AccountDeleted => ApiError::unauthorized("The account was deleted"),
        RecipesError::Queue(e) => {
            tracing::error!(error = %e, "account cleanup not queued");
            ApiError::unavailable("The account cleanup could not be queued; try again")
        }
        RecipesError::ConcurrentChange => {
            ApiError::conflict("The recipe was changed concurrently; try again")
        }
        RecipesError::Llm(llm::LlmError::Config(e)) => ApiError::internal("LLM settings", e),
        RecipesError::Llm(e) => {
            tracing::warn!(error = %e, "model call failed");
            ApiError::bad_gateway("The model gave no usable answer; try again")
        }
        RecipesError::Unusable(reason) => {
            tracing::warn!(%reason, "model answer unusable");
            ApiError::bad_gateway("The model gave no usable answer; try again")
        }
        RecipesError::Preferences(e) => {
            tracing::error!(error = %e, "identity call failed");
            ApiError::bad_gateway("The user's preferences could not be read")
        }
        RecipesError::Store(e) if e.is_unavailable() => {
            tracing::warn!(error = %e, "recipes table unavailable");
            ApiError::unavailable("The recipes table is unavailable; try again")
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
