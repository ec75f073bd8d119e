//! A failed AWS call, classified once for every caller: the service's error code, and whether
//! the service could not be reached or asked us to back off (a 503 at the edge, not a 500).

use aws_smithy_runtime_api::client::orchestrator::HttpResponse;
use aws_smithy_runtime_api::client::result::SdkError;
use aws_smithy_types::error::display::DisplayErrorContext;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;

/// The error codes of throttling: the service asks the caller to slow down.
const THROTTLING: &[&str] = &[
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "ProvisionedThroughputExceededException",
    "TransactionInProgressException",
    "RequestLimitExceeded",
    "RequestThrottled",
    "SlowDown",
];

/// A failed call (after the SDK's retries), or one that could not be made.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct AwsError {
    code: Option<String>,
    status: Option<u16>,
    message: String,
    unavailable: bool,
}

impl AwsError {
    /// An SDK error, with its whole chain of causes as the message (an `SdkError`'s own
    /// `Display` says only "service error").
    pub fn from_sdk<E>(err: &SdkError<E, HttpResponse>) -> Self
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        let code = err.code().map(str::to_string);
        let status = err.raw_response().map(|r| r.status().as_u16());
        let unavailable = match err {
            SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) => true,
            SdkError::ResponseError(e) => {
                let status = e.raw().status().as_u16();
                !(300..500).contains(&status)
            }
            SdkError::ServiceError(e) => {
                e.raw().status().as_u16() >= 500
                    || code.as_deref().is_some_and(|c| THROTTLING.contains(&c))
            }
            _ => false,
        };
        Self {
            code,
            status,
            message: DisplayErrorContext(err).to_string(),
            unavailable,
        }
    }

    /// A call this client refused to make (an invalid bucket name, say).
    pub fn invalid(message: impl Into<String>) -> Self {
        Self {
            code: None,
            status: None,
            message: message.into(),
            unavailable: false,
        }
    }

    /// A call whose answer could not be read to its end (the connection broke): a 503.
    pub fn unreachable(message: impl Into<String>) -> Self {
        Self {
            code: None,
            status: None,
            message: message.into(),
            unavailable: true,
        }
    }

    /// The service's error name (`ConditionalCheckFailedException`), when it answered one.
    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }

    /// The HTTP status the service answered, when it answered.
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// The service could not be reached, or asked us to back off: a 503, not a 500.
    pub fn is_unavailable(&self) -> bool {
        self.unavailable
    }
}

impl<E> From<SdkError<E, HttpResponse>> for AwsError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    fn from(err: SdkError<E, HttpResponse>) -> Self {
        Self::from_sdk(&err)
    }
}
