//! What the AWS SDK sends through: one signed request out, one whole response back. The
//! functions use [`super::AwsHttpClient`]; the local stack wraps it to enforce IAM policies,
//! the warm bench to record calls ([`super::set_transport_hook`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
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

/// A [`Transport`] as the AWS SDK's HTTP client: the SDK signs and retries, the transport
/// (the functions' HTTPS client, or a wrapper of it) carries each attempt.
#[derive(Clone, Debug)]
pub(crate) struct SdkTransport(pub(crate) SharedTransport);

impl HttpClient for SdkTransport {
    fn http_connector(
        &self,
        _settings: &HttpConnectorSettings,
        _components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(self.clone())
    }
}

impl HttpConnector for SdkTransport {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let transport = self.0.clone();
        HttpConnectorFuture::new(async move {
            let request = request
                .try_into_http1x()
                .map_err(|e| ConnectorError::other(e.into(), None))?;
            let (parts, body) = request.into_parts();
            // Every body the functions send is in memory (JSON, an image of a few MiB).
            let body = body.bytes().map(Bytes::copy_from_slice).ok_or_else(|| {
                ConnectorError::other("a streaming request body is not supported".into(), None)
            })?;
            let response = transport
                .send(http::Request::from_parts(parts, body))
                .await
                .map_err(|e| match e {
                    TransportError::Timeout(_) => ConnectorError::timeout(e.into()),
                    TransportError::Io(_) => ConnectorError::io(e.into()),
                    TransportError::Other(_) => ConnectorError::other(e.into(), None),
                })?;
            let (parts, body) = response.into_parts();
            HttpResponse::try_from(http::Response::from_parts(parts, SdkBody::from(body)))
                .map_err(|e| ConnectorError::other(e.into(), None))
        })
    }
}
