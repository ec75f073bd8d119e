//! The HTTP client under the functions' AWS calls: reqwest, the same hyper stack as the
//! functions' other outbound calls, so a bootstrap links one HTTP client, not two.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};

use super::transport::{Transport, TransportError, TransportFuture};

/// Amazon Root CA 1-4 and Starfield Services Root G2: every AWS service endpoint chains to one.
const AMAZON_ROOTS_PEM: &str = include_str!("amazon-roots.pem");

/// How long a TCP and TLS handshake may take before the client's retry takes over.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// The AWS HTTPS client (clone it freely: one connection pool behind it).
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
            // Requests are signed as they are: no redirects, no proxies read from the environment.
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build()
            .map_err(AwsHttpError::Client)?;
        Ok(Self { client })
    }

    /// The reqwest client underneath.
    pub fn reqwest(&self) -> &reqwest::Client {
        &self.client
    }
}

/// Why the AWS HTTPS client could not be built.
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

impl Transport for AwsHttpClient {
    fn send(&self, request: http::Request<Bytes>) -> TransportFuture {
        let client = self.client.clone();
        Box::pin(async move { send(&client, request).await })
    }
}

async fn send(
    client: &reqwest::Client,
    request: http::Request<Bytes>,
) -> Result<http::Response<Bytes>, TransportError> {
    let request =
        reqwest::Request::try_from(request).map_err(|e| TransportError::Other(e.to_string()))?;
    let response = client.execute(request).await.map_err(transport_error)?;
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.bytes().await.map_err(transport_error)?;
    let mut out = http::Response::new(body);
    *out.status_mut() = status;
    *out.headers_mut() = headers;
    Ok(out)
}

/// Timeouts and broken connections are transient (retried); the rest is not.
fn transport_error(error: reqwest::Error) -> TransportError {
    if error.is_timeout() {
        TransportError::Timeout(error.to_string())
    } else if error.is_connect() || error.is_request() || error.is_body() {
        TransportError::Io(error.to_string())
    } else {
        TransportError::Other(error.to_string())
    }
}

/// The client as the SDK's HTTP client, for an SDK config built elsewhere (the local stack's
/// own calls).
impl aws_smithy_runtime_api::client::http::HttpClient for AwsHttpClient {
    fn http_connector(
        &self,
        settings: &aws_smithy_runtime_api::client::http::HttpConnectorSettings,
        components: &aws_smithy_runtime_api::client::runtime_components::RuntimeComponents,
    ) -> aws_smithy_runtime_api::client::http::SharedHttpConnector {
        super::transport::SdkTransport(Arc::new(self.clone())).http_connector(settings, components)
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
