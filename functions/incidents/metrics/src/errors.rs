//! The metrics function's failures: handlers return [`Error`], and `?` converts the metrics
//! table's errors. The router's error layer renders it in the detailed error body and logs its
//! cause once.

use axum::response::{IntoResponse, Response};
use platform::dynamo::DynamoError;
use platform::ApiError;

/// What a handler of this function fails with.
#[derive(Debug)]
pub struct Error(ApiError);

impl From<ApiError> for Error {
    fn from(error: ApiError) -> Self {
        Self(error)
    }
}

impl From<DynamoError> for Error {
    fn from(error: DynamoError) -> Self {
        Self(to_api(error))
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        self.0.into_response()
    }
}

/// 503 when the metrics table cannot be reached, else 500.
fn to_api(error: DynamoError) -> ApiError {
    if error.is_unavailable() {
        ApiError::unavailable("The metrics are unavailable, try again")
            .caused_by(format!("metrics table unavailable: {error}"))
    } else {
        ApiError::internal("metrics table", error)
    }
}
