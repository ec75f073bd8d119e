//! [`AwsHttpClient`] as the AWS SDK's HTTP client, for local/ and the tests only (feature
//! `sdk-http`): their SDK clients (provisioning, checking the emulator) share the functions'
//! HTTPS set-up, and [`sdk_config`] builds their config from a function's environment as
//! `AwsClients::from_env` reads it. No function links the SDK.

use std::time::Duration;

use aws_credential_types::provider::SharedCredentialsProvider;
use aws_smithy_async::rt::sleep::default_async_sleep;
use aws_smithy_async::time::SystemTimeSource;
use aws_smithy_runtime_api::client::behavior_version::BehaviorVersion;
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_runtime_api::client::stalled_stream_protection::StalledStreamProtectionConfig;
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::retry::RetryConfig;
use aws_smithy_types::timeout::TimeoutConfig;
use aws_types::region::Region;
use aws_types::sdk_config::SdkConfig;

use super::{credentials, https_client, AwsHttpClient};
use crate::config::Env;

/// An SDK config with the functions' region, endpoint, credentials, timeouts and HTTPS client.
pub fn sdk_config(env: &Env) -> SdkConfig {
    let mut builder = SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .retry_config(RetryConfig::standard())
        .timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(Duration::from_secs(3))
                .operation_attempt_timeout(Duration::from_secs(5))
                .operation_timeout(Duration::from_secs(12))
                .build(),
        )
        .time_source(SystemTimeSource::new())
        .stalled_stream_protection(StalledStreamProtectionConfig::disabled());
    builder.set_sleep_impl(default_async_sleep());
    match https_client(env) {
        Ok(client) => builder = builder.http_client(client),
        Err(e) => tracing::error!(error = %e, "the AWS HTTP client could not be built"),
    }
    if let Some(region) = env.get("AWS_REGION").or(env.get("AWS_DEFAULT_REGION")) {
        builder = builder.region(Region::new(region.to_string()));
    }
    if let Some(url) = env.get("AWS_ENDPOINT_URL") {
        builder = builder.endpoint_url(url);
    }
    if let Some(found) = credentials(env) {
        let credentials = aws_credential_types::Credentials::new(
            found.access_key_id,
            found.secret_access_key,
            found.session_token,
            None,
            "environment",
        );
        builder = builder.credentials_provider(SharedCredentialsProvider::new(credentials));
    }
    builder.build()
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
        let client = self.reqwest().clone();
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
