//! The incident platform's errors as HTTP answers, in the detailed error body.

use incidents::IncidentsError;
use platform::ApiError;

/// 400 naming the fields (an invalid status change too), 403, 404, 409 when the item changed
/// meanwhile (or since the version an edit was made on; `details` name the version now),
/// 503 when the table, the logs bucket or the queue is unavailable, else 500 with the details logged.
pub fn to_api(error: IncidentsError) -> ApiError {
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
            tracing::warn!(error = %e, "incidents table unavailable");
            ApiError::unavailable("The incident service is unavailable, try again")
        }
        IncidentsError::Store(e) => ApiError::internal("incidents table", e),
        IncidentsError::Objects(e) if e.unavailable => {
            tracing::warn!(error = %e, "logs bucket unavailable");
            ApiError::unavailable("The incident service is unavailable, try again")
        }
        IncidentsError::Objects(e) => ApiError::internal("logs bucket", e),
        IncidentsError::Queue(e) => {
            tracing::warn!(error = %e, "ingest queue send failed");
            ApiError::unavailable("The incident service is unavailable, try again")
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
            to_api(IncidentsError::InvalidTransition("status: no".into())).kind,
            ErrorKind::BadRequest
        );
        assert_eq!(
            to_api(IncidentsError::NotFound("Incident")).message,
            "Incident not found"
        );
        assert_eq!(to_api(IncidentsError::Changed).kind, ErrorKind::Conflict);
        let stale = to_api(IncidentsError::Stale {
            sent: 1,
            current: 3,
        });
        assert_eq!(stale.kind, ErrorKind::Conflict);
        assert!(stale.message.contains("version 3"), "{}", stale.message);
        assert_eq!(
            to_api(IncidentsError::Forbidden("no")).kind,
            ErrorKind::Forbidden
        );
    }
}
