//! The digest service's one error enum, and how each variant answers ([`ApiError`]).

use platform::dynamo::DynamoError;
use platform::{ApiError, Invalid};

use crate::ports::PortError;

#[derive(Debug, thiserror::Error)]
pub enum DigestError {
    /// 400 naming the fields.
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// 404: no such digest, another user's PERSONAL digest, or no public digest yet.
    #[error("digest not found")]
    DigestNotFound,
    /// 404: no such job.
    #[error("job not found")]
    JobNotFound,
    /// 404: identity has no such user.
    #[error("user not found")]
    UserNotFound,
    /// 502: another service (identity, content, community) could not answer.
    #[error(transparent)]
    Port(#[from] PortError),
    /// 502 when the model failed, 500 when the LLM settings are wrong.
    #[error(transparent)]
    Llm(#[from] llm::LlmError),
    /// 503: the user's day row kept changing under concurrent generations.
    #[error("a generation for this user and day is under way, try again")]
    Busy,
    /// 503: the queue could not take the job.
    #[error(transparent)]
    Queue(#[from] platform::queue::QueueError),
    /// 503 when unavailable, else 500.
    #[error(transparent)]
    Store(#[from] DynamoError),
}

impl From<crate::writer::WriteError> for DigestError {
    fn from(e: crate::writer::WriteError) -> Self {
        match e {
            crate::writer::WriteError::Llm(l) => Self::Llm(l),
        }
    }
}

impl From<crate::store::WriteError> for DigestError {
    fn from(e: crate::store::WriteError) -> Self {
        match e {
            crate::store::WriteError::Changed => Self::Busy,
            crate::store::WriteError::Dynamo(d) => Self::Store(d),
        }
    }
}

/// 400 naming the fields, 404, 502 when another service or the model fails, 503 when the
/// table or the queue is unavailable or a generation is under way, else 500.
impl From<DigestError> for ApiError {
    fn from(error: DigestError) -> Self {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::ErrorKind;

    fn to_api(error: DigestError) -> ApiError {
        error.into()
    }

    #[test]
    fn domain_errors_become_statuses() {
        assert_eq!(
            to_api(DigestError::DigestNotFound).kind,
            ErrorKind::NotFound
        );
        assert_eq!(
            to_api(DigestError::Port(crate::PortError::new("x", "down"))).kind,
            ErrorKind::BadGateway
        );
        assert_eq!(
            to_api(DigestError::Busy).kind,
            ErrorKind::ServiceUnavailable
        );
    }
}
