//! The HTTP client under every AWS SDK client: reqwest, the same hyper stack as the functions'
//! other outbound calls, so a bootstrap links one HTTP client, not two. The SDK's own
//! (`aws-smithy-http-client`) would add a second hyper client and HTTP/2 (~0.5 MB of each
//! bootstrap) for endpoints that all speak HTTP/1.1.

use std::sync::Arc;
use std::time::Duration;

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::body::SdkBody;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};

/// Amazon Root CA 1-4 and Starfield Services Root G2: every AWS service endpoint chains to one.
const AMAZON_ROOTS_PEM: &str = include_str!("amazon-roots.pem");

/// How long a TCP and TLS handshake may take before the SDK's retry takes over.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// The SDK's HTTP client (clone it freely: one connection pool behind it).
#[derive(Clone, Debug)]
pub struct AwsHttpClient {
    client: reqwest::Client,
}

impl AwsHttpClient {
    /// Trusts the Amazon roots, plus the PEM certificates of `extra_roots` (the contents of
    /// `AWS_CA_BUNDLE`, for an HTTPS endpoint behind a private CA, an emulator's say).
    pub fn new(extra_roots: Option<&[u8]>) -> Result<Self, AwsHttpError> {
        let mut roots = RootCertStore::empty();
        let amazon = pem_certificates(AMAZON_ROOTS_PEM.as_bytes())?;
        roots.add_parsable_certificates(amazon);
        if let Some(pem) = extra_roots {
            let (added, _) = roots.add_parsable_certificates(pem_certificates(pem)?);
            if added == 0 {
                return Err(AwsHttpError::NoCertificates);
            }
        }
        let mut tls =
            ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .map_err(AwsHttpError::Tls)?
                .with_root_certificates(roots)
                .with_no_client_auth();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .connect_timeout(CONNECT_TIMEOUT)
            // AWS closes idle connections after about 60 s; never reuse one it may have closed.
            .pool_idle_timeout(Duration::from_secs(50))
            // The SDK signs the exact request: no redirects, no proxies read from the environment.
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build()
            .map_err(AwsHttpError::Client)?;
        Ok(Self { client })
    }
}

/// Why the SDK's HTTP client could not be built.
#[derive(Debug, thiserror::Error)]
pub enum AwsHttpError {
    #[error("a certificate bundle could not be read: {0}")]
    Pem(String),
    #[error("the certificate bundle holds no usable certificate")]
    NoCertificates,
    #[error("TLS set-up failed: {0}")]
    Tls(rustls::Error),
    #[error("HTTP client set-up failed: {0}")]
    Client(reqwest::Error),
}

fn pem_certificates(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, AwsHttpError> {
    CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| AwsHttpError::Pem(e.to_string()))
}

impl HttpClient for AwsHttpClient {
    fn http_connector(
        &self,
        _settings: &HttpConnectorSettings,
        _components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(self.clone())
    }
}

impl HttpConnector for AwsHttpClient {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let client = self.client.clone();
        HttpConnectorFuture::new(async move { send(&client, request).await })
    }
}

async fn send(
    client: &reqwest::Client,
    request: HttpRequest,
) -> Result<HttpResponse, ConnectorError> {
    let request = request
        .try_into_http1x()
        .map_err(|e| ConnectorError::other(e.into(), None))?;
    let (parts, body) = request.into_parts();
    // In-memory bodies (every JSON call) keep their length; S3 streams are passed through.
    let body = match body.bytes() {
        Some(bytes) => reqwest::Body::from(bytes.to_vec()),
        None => reqwest::Body::wrap(body),
    };
    let request = reqwest::Request::try_from(http::Request::from_parts(parts, body))
        .map_err(|e| ConnectorError::other(e.into(), None))?;
    let response = client.execute(request).await.map_err(connector_error)?;
    let response: http::Response<reqwest::Body> = response.into();
    let (parts, body) = response.into_parts();
    HttpResponse::try_from(http::Response::from_parts(
        parts,
        SdkBody::from_body_1_x(body),
    ))
    .map_err(|e| ConnectorError::other(e.into(), None))
}

/// Timeouts and broken connections are transient (the SDK retries them); the rest is not.
fn connector_error(error: reqwest::Error) -> ConnectorError {
    if error.is_timeout() {
        ConnectorError::timeout(error.into())
    } else if error.is_connect() || error.is_request() || error.is_body() {
        ConnectorError::io(error.into())
    } else {
        ConnectorError::other(error.into(), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_amazon_roots_parse_as_five_certificates() {
        let certs = pem_certificates(AMAZON_ROOTS_PEM.as_bytes()).expect("pem");
        assert_eq!(certs.len(), 5);
        assert!(AwsHttpClient::new(None).is_ok());
    }

    #[test]
    fn a_bundle_without_certificates_is_refused() {
        assert!(matches!(
            AwsHttpClient::new(Some(b"not a certificate")),
            Err(AwsHttpError::NoCertificates)
        ));
        let amazon = AMAZON_ROOTS_PEM.as_bytes();
        assert!(AwsHttpClient::new(Some(amazon)).is_ok());
    }
}
