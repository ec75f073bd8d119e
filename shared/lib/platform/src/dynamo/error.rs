use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

use crate::aws::AwsError;

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
    /// A request that could not be built (a bug).
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
        Self::classified(operation, table, &AwsError::from_sdk(err))
    }

    pub(crate) fn classified(operation: &'static str, table: &str, err: &AwsError) -> Self {
        Self::Call {
            operation,
            table: table.to_string(),
            message: err.to_string(),
            unavailable: err.is_unavailable(),
        }
    }

    pub(crate) fn build(operation: &'static str, table: &str, err: impl std::fmt::Display) -> Self {
        Self::Build {
            operation,
            table: table.to_string(),
            message: err.to_string(),
        }
    }

    /// True when IAM refused the call (AccessDeniedException): a missing permission, or a role
    /// just created that has not reached DynamoDB yet.
    pub fn is_access_denied(&self) -> bool {
        matches!(self, Self::Call { message, .. } if message.contains("AccessDenied"))
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

/// True when a conditional PutItem, UpdateItem or DeleteItem failed its condition.
pub fn is_condition_failed(err: &impl ProvideErrorMetadata) -> bool {
    err.code() == Some("ConditionalCheckFailedException")
}
