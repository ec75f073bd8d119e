//! The facade's errors, with no HTTP in them, and how each answers
//! (`impl From<IncidentsError> for ApiError`): the functions return `ApiError`.

use platform::dynamo::DynamoError;
use platform::{ApiError, Invalid};

use crate::objects::ObjectsError;
use crate::queue::QueueError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum IncidentsError {
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error("{0} not found")]
    NotFound(&'static str),
    /// A status change the lifecycle does not allow.
    #[error("{0}")]
    InvalidTransition(String),
    #[error("{0}")]
    Forbidden(&'static str),
    /// The item changed between read and write: try again.
    #[error("changed concurrently")]
    Changed,
    /// An edit sent the version it read (`sent`), but the item is at `current` now.
    #[error("version {sent} was read, but it is at version {current} now")]
    Stale { sent: i64, current: i64 },
    #[error(transparent)]
    Store(#[from] DynamoError),
    #[error(transparent)]
    Queue(#[from] QueueError),
    /// The logs bucket failed.
    #[error(transparent)]
    Objects(#[from] ObjectsError),
}

impl IncidentsError {
    pub(super) fn from_store(e: StoreError, what: &'static str) -> Self {
        match e {
            StoreError::Dynamo(d) => Self::Store(d),
            StoreError::NotFound => Self::NotFound(what),
            StoreError::Changed => Self::Changed,
        }
    }
}

/// 400 naming the fields (an invalid status change too), 403, 404, 409 when the item changed
/// meanwhile (or since the version an edit was made on; `details` name the version now),
/// 503 when the table, the logs bucket or the queue is unavailable, else 500 with the details logged.
impl From<IncidentsError> for ApiError {
    fn from(error: IncidentsError) -> Self {
        match error {
        IncidentsError::Invalid(invalid) => invalid.into(),
        IncidentsError::NotFound(what) => ApiError::not_found(format!("{what} not found")),
        IncidentsError::InvalidTransition(reason) => {
            ApiError::bad_request("Invalid status transition").with_details(vec![reason])
        }
        IncidentsError::Forbidden(reason) => ApiError::forbidden(reason),
        IncidentsError::Changed => {
            ApiError::conflict("It changed while this request ran: read it again and retry")
        }
        IncidentsError::Stale { sent, current } => ApiError::conflict(format!(
            "The entry changed since you read it (version {sent}; it is at version {current} now): read it again and make your edit on that"
        ))
        .with_details(vec![format!("version: the entry is at version {current} now")]),
        IncidentsError::Store(e) if e.is_unavailable() => {
            ApiError::unavailable("The incident service is unavailable, try again")
                .caused_by(format!("incidents table unavailable: {e}"))
        }
        IncidentsError::Store(e) => ApiError::internal("incidents table", e),
        IncidentsError::Objects(e) if e.unavailable => {
            ApiError::unavailable("The incident service is unavailable, try again")
                .caused_by(format!("logs bucket unavailable: {e}"))
        }
        IncidentsError::Objects(e) => ApiError::internal("logs bucket", e),
        IncidentsError::Queue(e) => {
            ApiError::unavailable("The incident service is unavailable, try again")
                .caused_by(format!("ingest queue send failed: {e}"))
        }
    }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::ErrorKind;

    #[test]
    fn domain_errors_become_statuses() {
        assert_eq!(
            ApiError::from(IncidentsError::InvalidTransition("status: no".into())).kind,
            ErrorKind::BadRequest
        );
        assert_eq!(
            ApiError::from(IncidentsError::NotFound("Incident")).message,
            "Incident not found"
        );
        assert_eq!(
            ApiError::from(IncidentsError::Changed).kind,
            ErrorKind::Conflict
        );
        let stale = ApiError::from(IncidentsError::Stale {
            sent: 1,
            current: 3,
        });
        assert_eq!(stale.kind, ErrorKind::Conflict);
        assert!(stale.message.contains("version 3"), "{}", stale.message);
        assert_eq!(
            ApiError::from(IncidentsError::Forbidden("no")).kind,
            ErrorKind::Forbidden
        );
    }
}
