//! What the AWS client sends through: one signed request out, one whole response back. The
//! functions use [`super::AwsHttpClient`]; the local stack wraps it to enforce IAM policies,
//! the warm bench to record calls ([`super::set_transport_hook`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;

/// The answer of [`Transport::send`].
pub type TransportFuture =
    Pin<Box<dyn Future<Output = Result<http::Response<Bytes>, TransportError>> + Send>>;

/// Sends a signed request and reads the whole response. Implementations must not alter the
/// signed headers or the body.
pub trait Transport: Send + Sync + std::fmt::Debug {
    fn send(&self, request: http::Request<Bytes>) -> TransportFuture;
}

/// A shared transport.
pub type SharedTransport = Arc<dyn Transport>;

/// Why no response came back.
#[derive(Clone, Debug, thiserror::Error)]
pub enum TransportError {
    /// The connection or the response took too long (retried).
    #[error("timed out: {0}")]
    Timeout(String),
    /// The connection failed or broke (retried).
    #[error("connection failed: {0}")]
    Io(String),
    /// Anything else (an unusable request): not retried.
    #[error("{0}")]
    Other(String),
}

impl TransportError {
    /// Worth another attempt.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Timeout(_) | Self::Io(_))
    }
}
