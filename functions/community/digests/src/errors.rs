//! The digest function's failures: handlers return [`Error`], and `?` converts the domain's
//! errors and the platform's. The router's error layer renders it in the community's reason
//! body and logs its cause once.

use axum::response::{IntoResponse, Response};
use community_digests::DigestError;
use platform::ApiError;

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

impl From<DigestError> for Error {
    fn from(error: DigestError) -> Self {
        Self(to_api(error))
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        self.0.into_response()
    }
}

/// 400 naming the fields, 404, 502 when another service or the model fails, 503 when the
/// table or the queue is unavailable or a generation is under way, else 500.
fn to_api(error: DigestError) -> ApiError {
    match error {
        DigestError::Invalid(invalid) => invalid.into(),
        DigestError::DigestNotFound => ApiError::not_found("Digest not found"),
        DigestError::JobNotFound => ApiError::not_found("Job not found"),
        DigestError::UserNotFound => ApiError::not_found("User not found"),
        DigestError::Port(e) => {
            ApiError::bad_gateway(format!("The {} could not be reached", e.service))
                .caused_by(format!("a service the digests read failed: {e}"))
        }
        DigestError::Llm(llm::LlmError::Config(e)) => ApiError::internal("LLM settings", e),
        DigestError::Llm(e) => ApiError::bad_gateway("The model failed to write the digest")
            .caused_by(format!("digest model call failed: {e}")),
        DigestError::Busy => {
            ApiError::unavailable("A generation for this user and day is under way, try again")
        }
        DigestError::Queue(reason) => {
            ApiError::unavailable("The digest service is unavailable, try again")
                .caused_by(format!("digest queue send failed: {reason}"))
        }
        DigestError::Store(e) if e.is_unavailable() => {
            ApiError::unavailable("The digest service is unavailable, try again")
                .caused_by(format!("digests table unavailable: {e}"))
        }
        DigestError::Store(e) => ApiError::internal("digests table", e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::ErrorKind;

    #[test]
    fn domain_errors_become_statuses() {
        assert_eq!(
            to_api(DigestError::DigestNotFound).kind,
            ErrorKind::NotFound
        );
        assert_eq!(
            to_api(DigestError::Port(community_digests::PortError::new(
                "x", "down"
            )))
            .kind,
            ErrorKind::BadGateway
        );
        assert_eq!(
            to_api(DigestError::Busy).kind,
            ErrorKind::ServiceUnavailable
        );
    }
}
