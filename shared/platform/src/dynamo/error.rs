use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;

use crate::aws::describe;

/// A DynamoDB call that failed, or an item that cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum DynamoError {
    /// The call failed. `unavailable` when DynamoDB could not be reached or asked us to back off
    /// (throttling, timeouts, 5xx): the caller should answer 503, not 500.
    #[error("DynamoDB {operation} on {table}: {message}")]
    Call {
        operation: &'static str,
        table: String,
        message: String,
        unavailable: bool,
    },
    /// A request the SDK refused to build (a missing required field: a bug).
    #[error("DynamoDB {operation} request on {table} is invalid: {message}")]
    Build {
        operation: &'static str,
        table: String,
        message: String,
    },
    /// An item lacks an attribute, or holds one of the wrong type.
    #[error("corrupt item in {table}: {reason}")]
    Corrupt { table: String, reason: String },
    /// A transaction kept losing races with others until the retry policy gave up.
    #[error("DynamoDB {table}: concurrent updates kept conflicting after {attempts} attempts")]
    Conflict { table: String, attempts: u32 },
}

impl DynamoError {
    pub(crate) fn call<E>(
        operation: &'static str,
        table: &str,
        err: &SdkError<E, HttpResponse>,
    ) -> Self
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        let unavailable = match err {
            SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) => true,
            SdkError::ResponseError(_) => true,
            SdkError::ServiceError(e) => {
                e.raw().status().is_server_error()
                    || matches!(
                        e.err().code(),
                        Some(
                            "ProvisionedThroughputExceededException"
                                | "ThrottlingException"
                                | "RequestLimitExceeded"
                                | "InternalServerError"
                                | "ServiceUnavailable"
                        )
                    )
            }
            _ => false,
        };
        Self::Call {
            operation,
            table: table.to_string(),
            message: describe(err),
            unavailable,
        }
    }

    pub(crate) fn build(operation: &'static str, table: &str, err: impl std::fmt::Display) -> Self {
        Self::Build {
            operation,
            table: table.to_string(),
            message: err.to_string(),
        }
    }

    /// True when the table could not be reached or is throttling: a 503 at the edge.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            Self::Call {
                unavailable: true,
                ..
            }
        )
    }
}

/// The service errors that can say "the condition expression was false".
pub trait ConditionalError {
    fn is_condition_failure(&self) -> bool;
}

impl ConditionalError for PutItemError {
    fn is_condition_failure(&self) -> bool {
        self.is_conditional_check_failed_exception()
    }
}

impl ConditionalError for UpdateItemError {
    fn is_condition_failure(&self) -> bool {
        self.is_conditional_check_failed_exception()
    }
}

impl ConditionalError for DeleteItemError {
    fn is_condition_failure(&self) -> bool {
        self.is_conditional_check_failed_exception()
    }
}

/// True when a conditional PutItem, UpdateItem or DeleteItem failed its condition.
pub fn is_condition_failed<E: ConditionalError, R>(err: &SdkError<E, R>) -> bool {
    err.as_service_error()
        .is_some_and(ConditionalError::is_condition_failure)
}
