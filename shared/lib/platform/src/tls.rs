//! The HTTP client builder of every function's outbound calls (feeds, the LLM, other route
//! families, telemetry).
//!
//! reqwest's own rustls set-up reads the system certificate store on every `build()` (about
//! 150 files and 10 ms of CPU per client on a cold start); this one trusts Mozilla's roots
//! compiled into the binary (`webpki-roots`) and uses ring, the bootstraps' one crypto provider.

use std::sync::Arc;

use rustls::crypto::ring::default_provider;
use rustls::{ClientConfig, RootCertStore};

/// A `reqwest::ClientBuilder` with the platform's TLS set: add timeouts, user agent and
/// redirect policy, then `build()`.
pub fn http_client() -> reqwest::ClientBuilder {
    let builder = reqwest::Client::builder();
    match client_config() {
        Ok(config) => builder.tls_backend_preconfigured(config),
        // Unreachable with ring (TLS 1.2 and 1.3); without a TLS config `build()` reports it.
        Err(_) => builder,
    }
}

/// rustls over ring with the compiled-in roots, offering HTTP/1.1 (the one protocol linked:
/// HTTP/2 would add ~0.4 MB to every bootstrap for feeds and model APIs that speak both).
pub fn client_config() -> Result<ClientConfig, rustls::Error> {
    let roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let mut config = ClientConfig::builder_with_provider(Arc::new(default_provider()))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    // reqwest uses a preconfigured config as is: it adds no ALPN of its own.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trusts_the_compiled_in_roots_and_offers_http_1_1_only() {
        let config = client_config().expect("config");
        assert_eq!(config.alpn_protocols, [b"http/1.1".to_vec()]);
        assert!(http_client().build().is_ok());
    }
}
