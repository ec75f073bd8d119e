//! The HTTP client a function's AWS SDK clients send through locally: a call its policy allows
//! goes on to the emulator; a refused one is answered here, as AWS answers it, and never sent.

use std::sync::Arc;

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::connector_metadata::ConnectorMetadata;
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient,
    SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::runtime_components::{
    RuntimeComponents, RuntimeComponentsBuilder,
};
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::config_bag::ConfigBag;
use serde_json::json;

use super::request::{Outgoing, Protocol};
use super::{Guard, Refusal};

/// Wraps the functions' own HTTPS client (`platform::aws::AwsHttpClient`).
#[derive(Debug)]
pub(super) struct EnforcingClient {
    inner: SharedHttpClient,
    guard: Arc<Guard>,
}

impl EnforcingClient {
    pub(super) fn new(guard: Arc<Guard>, inner: platform::aws::AwsHttpClient) -> Self {
        Self {
            inner: SharedHttpClient::new(inner),
            guard,
        }
    }
}

impl HttpClient for EnforcingClient {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(EnforcingConnector {
            inner: self.inner.http_connector(settings, components),
            guard: Arc::clone(&self.guard),
        })
    }

    fn validate_base_client_config(
        &self,
        runtime_components: &RuntimeComponentsBuilder,
        cfg: &ConfigBag,
    ) -> Result<(), BoxError> {
        self.inner
            .validate_base_client_config(runtime_components, cfg)
    }

    fn validate_final_config(
        &self,
        runtime_components: &RuntimeComponents,
        cfg: &ConfigBag,
    ) -> Result<(), BoxError> {
        self.inner.validate_final_config(runtime_components, cfg)
    }

    fn connector_metadata(&self) -> Option<ConnectorMetadata> {
        self.inner.connector_metadata()
    }
}

#[derive(Debug)]
struct EnforcingConnector {
    inner: SharedHttpConnector,
    guard: Arc<Guard>,
}

impl HttpConnector for EnforcingConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let headers = request.headers();
        let outgoing = Outgoing {
            method: request.method(),
            uri: request.uri(),
            authorization: headers.get("authorization"),
            target: headers.get("x-amz-target"),
            copy_source: headers.get("x-amz-copy-source"),
            body: request.body().bytes(),
        };
        match self.guard.check(&outgoing) {
            Ok(()) => self.inner.call(request),
            Err(refusal) => {
                let response = refusal_response(
                    &refusal,
                    headers.get("content-type"),
                    request.method().eq_ignore_ascii_case("HEAD"),
                );
                HttpConnectorFuture::ready(Ok(response))
            }
        }
    }
}

/// AWS's own answer: 400 `AccessDeniedException` for the JSON protocols, 403 `AccessDenied`
/// for S3 and the query protocols.
fn refusal_response(refusal: &Refusal, content_type: Option<&str>, head: bool) -> HttpResponse {
    let request_id = uuid::Uuid::new_v4().to_string();
    let message = &refusal.message;
    let (status, content_type, body) = match refusal.protocol {
        Protocol::Json => (
            http::StatusCode::BAD_REQUEST,
            content_type
                .unwrap_or("application/x-amz-json-1.0")
                .to_string(),
            json!({
                "__type": "com.amazon.coral.service#AccessDeniedException",
                "Message": message,
            })
            .to_string(),
        ),
        Protocol::RestXml => (
            http::StatusCode::FORBIDDEN,
            "application/xml".to_string(),
            format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code>\
                 <Message>{}</Message><RequestId>{request_id}</RequestId>\
                 <HostId>local-stack</HostId></Error>",
                xml_escape(message)
            ),
        ),
        Protocol::Query => (
            http::StatusCode::FORBIDDEN,
            "text/xml".to_string(),
            format!(
                "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code>\
                 <Message>{}</Message></Error><RequestId>{request_id}</RequestId>\
                 </ErrorResponse>",
                xml_escape(message)
            ),
        ),
    };
    let body = if head { String::new() } else { body };
    let length = body.len().to_string();
    let mut response = HttpResponse::new(status.into(), SdkBody::from(body));
    let headers = response.headers_mut();
    let error_type = match refusal.protocol {
        Protocol::Json => "AccessDeniedException",
        Protocol::RestXml | Protocol::Query => "AccessDenied",
    };
    for (name, value) in [
        ("content-type", content_type),
        ("content-length", length),
        ("x-amzn-errortype", error_type.to_string()),
        ("x-amzn-requestid", request_id.clone()),
        ("x-amz-request-id", request_id),
    ] {
        // Every value here is plain ASCII; a refused one would only lose a header.
        let _ = headers.try_insert(name, value);
    }
    response
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(protocol: Protocol) -> Refusal {
        Refusal {
            protocol,
            message: "User: x is not authorized to perform: a:B on resource: <r>".into(),
        }
    }

    #[test]
    fn json_refusals_are_400_access_denied_exceptions() {
        let r = refusal_response(
            &refusal(Protocol::Json),
            Some("application/x-amz-json-1.1"),
            false,
        );
        assert_eq!(r.status().as_u16(), 400);
        assert_eq!(
            r.headers().get("content-type"),
            Some("application/x-amz-json-1.1")
        );
        let body: serde_json::Value =
            serde_json::from_slice(r.body().bytes().expect("in memory")).expect("json");
        assert_eq!(
            body["__type"],
            "com.amazon.coral.service#AccessDeniedException"
        );
        assert!(body["Message"].as_str().is_some_and(|m| m.contains("a:B")));
    }

    #[test]
    fn s3_refusals_are_403_access_denied_with_an_empty_head() {
        let r = refusal_response(&refusal(Protocol::RestXml), None, false);
        assert_eq!(r.status().as_u16(), 403);
        let body = String::from_utf8_lossy(r.body().bytes().expect("in memory")).into_owned();
        assert!(body.contains("<Code>AccessDenied</Code>"), "{body}");
        assert!(body.contains("&lt;r&gt;"), "{body}");
        let head = refusal_response(&refusal(Protocol::RestXml), None, true);
        assert_eq!(head.body().bytes(), Some(&b""[..]));
    }
}
