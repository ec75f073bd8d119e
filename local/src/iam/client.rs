//! The transport a function's AWS clients send through locally: a call its policy allows
//! goes on to the emulator; a refused one is answered here, as AWS answers it, and never sent.

use std::sync::Arc;

use bytes::Bytes;
use platform::aws::{SharedTransport, Transport, TransportFuture};
use serde_json::json;

use super::request::{Outgoing, Protocol};
use super::{Guard, Refusal};

/// Wraps the functions' own transport (`platform::aws::AwsHttpClient`).
#[derive(Debug)]
pub(super) struct EnforcingClient {
    inner: SharedTransport,
    guard: Arc<Guard>,
}

impl EnforcingClient {
    pub(super) fn new(guard: Arc<Guard>, inner: SharedTransport) -> Self {
        Self { inner, guard }
    }
}

impl Transport for EnforcingClient {
    fn send(&self, request: http::Request<Bytes>) -> TransportFuture {
        let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
        let uri = request.uri().to_string();
        let outgoing = Outgoing {
            method: request.method().as_str(),
            uri: &uri,
            authorization: header("authorization"),
            target: header("x-amz-target"),
            copy_source: header("x-amz-copy-source"),
            body: Some(request.body().as_ref()),
        };
        match self.guard.check(&outgoing) {
            Ok(()) => self.inner.send(request),
            Err(refusal) => {
                let response = refusal_response(
                    &refusal,
                    header("content-type"),
                    request.method() == http::Method::HEAD,
                );
                Box::pin(std::future::ready(Ok(response)))
            }
        }
    }
}

/// AWS's own answer: 400 `AccessDeniedException` for the JSON protocols, 403 `AccessDenied`
/// for S3 and the query protocols.
fn refusal_response(
    refusal: &Refusal,
    content_type: Option<&str>,
    head: bool,
) -> http::Response<Bytes> {
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
    let mut response = http::Response::new(Bytes::from(body));
    *response.status_mut() = status;
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
        if let Ok(value) = http::HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
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
            r.headers().get("content-type").map(|v| v.to_str().unwrap()),
            Some("application/x-amz-json-1.1")
        );
        let body: serde_json::Value = serde_json::from_slice(r.body()).expect("json");
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
        let body = String::from_utf8_lossy(r.body()).into_owned();
        assert!(body.contains("<Code>AccessDenied</Code>"), "{body}");
        assert!(body.contains("&lt;r&gt;"), "{body}");
        let head = refusal_response(&refusal(Protocol::RestXml), None, true);
        assert_eq!(head.body().as_ref(), b"");
    }
}
