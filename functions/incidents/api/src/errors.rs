//! The incident platform's errors as HTTP answers, in the detailed error body: handlers
//! return [`Error`], and `?` converts the domain's errors and the platform's. The router's
//! error layer renders it and logs its cause once.

use axum::response::{IntoResponse, Response};
use incidents::channels::{ChannelsError, MAX_CHANNELS};
use incidents::IncidentsError;
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

impl From<platform::Invalid> for Error {
    fn from(invalid: platform::Invalid) -> Self {
        Self(invalid.into())
    }
}

impl From<IncidentsError> for Error {
    fn from(error: IncidentsError) -> Self {
        Self(to_api(error))
    }
}

/// A failure of the incidents table read directly (the channels and the ingest keys keep
/// their records there).
impl From<DynamoError> for Error {
    fn from(error: DynamoError) -> Self {
        Self(to_api(IncidentsError::Store(error)))
    }
}

impl From<ChannelsError> for Error {
    fn from(error: ChannelsError) -> Self {
        Self(channels_to_api(error))
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        self.0.into_response()
    }
}

/// 400 naming the fields (an invalid status change too), 403, 404, 409 when the item changed
/// meanwhile (or since the version an edit was made on; `details` name the version now),
/// 503 when the table, the logs bucket or the queue is unavailable, else 500 with the details logged.
fn to_api(error: IncidentsError) -> ApiError {
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

/// A notification channel's: 400 when the channels are full, 404, else as the incidents
/// table's failure.
fn channels_to_api(error: ChannelsError) -> ApiError {
    match error {
        ChannelsError::Full => ApiError::field(
            "body",
            format!("at most {MAX_CHANNELS} notification channels"),
        ),
        ChannelsError::NotFound => ApiError::not_found("Notification channel not found"),
        ChannelsError::Dynamo(e) => to_api(IncidentsError::Store(e)),
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
