//! The web client's HTML page as this deployment serves it.
//!
//! Deployed, the AI panel streams from the assistant function URL (API Gateway buffers a
//! response), whose address only the stack knows: the page names it in
//! `<meta name="genai-stream-url">`, written once at a cold start into a copy of the embedded
//! page. The copy has its own ETag, so a browser holding the page of another deployment (or
//! of none) fetches it again.

use std::io::Write;

use axum::body::Bytes;
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use flate2::write::GzEncoder;
use flate2::Compression;
use platform::http::accepts_gzip;
use platform::BoxError;

use crate::assets::{self, File};

/// The `<meta>` name the client reads the stream base from.
pub const STREAM_URL_META: &str = "genai-stream-url";

/// The client page: the embedded one as it is, or a copy naming the stream base.
#[derive(Clone)]
pub enum ClientPage {
    Embedded(&'static File),
    WithStreamUrl {
        etag: HeaderValue,
        gzip: Bytes,
        plain: Bytes,
    },
}

impl ClientPage {
    /// The page for a deployment whose AI panel streams from `stream_base`
    /// (`{assistant function URL}/stream/`), or the embedded page when there is none.
    pub fn new(stream_base: Option<&str>) -> Result<Self, BoxError> {
        let Some(base) = stream_base else {
            return Ok(Self::Embedded(&assets::CLIENT_HTML));
        };
        let html = String::from_utf8(assets::CLIENT_HTML.inflate()?)?;
        let at = html
            .find("</head>")
            .ok_or("the embedded client page has no </head>")?;
        let meta = format!(
            "<meta name=\"{STREAM_URL_META}\" content=\"{}\">\n",
            attribute(base)
        );
        let page = [&html[..at], meta.as_str(), &html[at..]].concat();
        let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
        encoder.write_all(page.as_bytes())?;
        let gzip = encoder.finish()?;
        let etag = format!(
            "{}-{:016x}\"",
            assets::CLIENT_HTML.etag.trim_end_matches('"'),
            fnv1a(base.as_bytes())
        );
        Ok(Self::WithStreamUrl {
            etag: HeaderValue::from_str(&etag)?,
            gzip: Bytes::from(gzip),
            plain: Bytes::from(page),
        })
    }

    /// The page's answer to `headers`: 304 when the client's copy is current, gzip when it
    /// accepts it; `cache_control` as the caller chooses.
    pub fn serve(&self, headers: &HeaderMap, cache_control: &'static str) -> Response {
        match self {
            Self::Embedded(file) => crate::serve(headers, file, cache_control),
            Self::WithStreamUrl { etag, gzip, plain } => {
                let gzipped = accepts_gzip(headers);
                let mut response = if etag
                    .to_str()
                    .is_ok_and(|tag| crate::not_modified(headers, tag))
                {
                    StatusCode::NOT_MODIFIED.into_response()
                } else if gzipped {
                    let mut response = gzip.clone().into_response();
                    response
                        .headers_mut()
                        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                    response
                } else {
                    plain.clone().into_response()
                };
                let out = response.headers_mut();
                out.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(assets::CLIENT_HTML.content_type),
                );
                out.insert(
                    header::CACHE_CONTROL,
                    HeaderValue::from_static(cache_control),
                );
                out.insert(header::ETAG, etag.clone());
                out.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
                response
            }
        }
    }
}

/// `value` as the content of a double-quoted HTML attribute.
fn attribute(value: &str) -> String {
    value
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// FNV-1a, 64 bits: enough to tell deployments' pages apart in an ETag.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_escaped_and_hashes_differ() {
        assert_eq!(attribute("a\"<b>&"), "a&quot;&lt;b&gt;&amp;");
        assert_ne!(fnv1a(b"https://a/"), fnv1a(b"https://b/"));
    }
}
