//! The digest service's errors as HTTP answers (rendered in the community's reason body).

use digests::DigestError;
use platform::ApiError;

/// 400 naming the fields, 404, 502 when another service or the model fails, 503 when the
/// table or the queue is unavailable or a generation is under way, else 500.
pub fn to_api(error: DigestError) -> ApiError {
    match error {
        DigestError::Invalid(invalid) => invalid.into(),
        DigestError::DigestNotFound => ApiError::not_found("Digest not found"),
        DigestError::JobNotFound => ApiError::not_found("Job not found"),
        DigestError::UserNotFound => ApiError::not_found("User not found"),
        DigestError::Port(e) => {
            tracing::error!(error = %e, "a service the digests read failed");
            ApiError::bad_gateway(format!("The {} could not be reached", e.service))
        }
        DigestError::Llm(llm::LlmError::Config(e)) => ApiError::internal("LLM settings", e),
        DigestError::Llm(e) => {
            tracing::error!(error = %e, "digest model call failed");
            ApiError::bad_gateway("The model failed to write the digest")
        }
        DigestError::Busy => {
            ApiError::unavailable("A generation for this user and day is under way, try again")
        }
        DigestError::Queue(reason) => {
            tracing::warn!(%reason, "digest queue send failed");
            ApiError::unavailable("The digest service is unavailable, try again")
        }
        DigestError::Store(e) if e.is_unavailable() => {
            tracing::warn!(error = %e, "digests table unavailable");
            ApiError::unavailable("The digest service is unavailable, try again")
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
            to_api(DigestError::Port(digests::PortError::new("x", "down"))).kind,
            ErrorKind::BadGateway
        );
        assert_eq!(
            to_api(DigestError::Busy).kind,
            ErrorKind::ServiceUnavailable
        );
    }
}
