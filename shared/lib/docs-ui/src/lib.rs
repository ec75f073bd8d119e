//! A function's own interactive docs: Swagger UI at `{base}/`, reading the function's OpenAPI
//! document next to it (`{base}/openapi.json`). The assistant function serves them at `/docs`
//! (and `/api/ai/docs`), the incident intelligence function at `/docs`. Swagger UI's two large
//! files are embedded gzip-compressed (see `build.rs`) and sent as they are to clients that
//! accept gzip (every browser), inflated for the others.

use std::io::Read;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use platform::http::accepts_gzip;
use platform::ApiError;

const BUNDLE_JS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/swagger-ui-bundle.js.gz"));
const CSS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/swagger-ui.css.gz"));

/// The page, with `{title}` filled in by [`routes`].
const PAGE: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="swagger-initializer.js"></script>
</body>
</html>
"#;

/// Relative URLs throughout, so the same page works under any base (`/docs/`,
/// `/api/ai/docs/`) and behind a local `/lambda-url/{binary}` prefix.
const INITIALIZER: &str = r##"window.addEventListener("load", () => {
  window.ui = SwaggerUIBundle({
    url: "openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    layout: "BaseLayout",
    presets: [SwaggerUIBundle.presets.apis],
    validatorUrl: null,
  });
});
"##;

/// The docs routes under `base` (`/docs`, `/api/ai/docs`): the page titled `title` (plain
/// text), serving `document` (JSON).
pub fn routes(base: &str, title: &str, document: &'static str) -> Router {
    let index = format!("{base}/");
    // `{base}/index.html`, not `{base}/`: API Gateway routes `/docs/` (an empty greedy
    // segment) to no `/docs/{proxy+}` route, so a top-level base lands on its page only so.
    let redirect_to = format!("{base}/index.html");
    let page = PAGE.replace("{title}", &escape(title));
    let again = page.clone();
    Router::new()
        .route(base, get(move || async move { Redirect::to(&redirect_to) }))
        .route(&index, get(move || async move { html(page) }))
        .route(
            &format!("{base}/index.html"),
            get(move || async move { html(again) }),
        )
        .route(
            &format!("{base}/swagger-initializer.js"),
            get(|| async { text("text/javascript; charset=utf-8", INITIALIZER) }),
        )
        .route(
            &format!("{base}/swagger-ui-bundle.js"),
            get(|headers: HeaderMap| async move {
                gzipped(&headers, "text/javascript; charset=utf-8", BUNDLE_JS)
            }),
        )
        .route(
            &format!("{base}/swagger-ui.css"),
            get(|headers: HeaderMap| async move { gzipped(&headers, "text/css; charset=utf-8", CSS) }),
        )
        .route(
            &format!("{base}/openapi.json"),
            get(move || async move { text("application/json", document) }),
        )
}

fn html(page: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response()
}

/// `text` safe inside an HTML element.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn text(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

fn gzipped(headers: &HeaderMap, content_type: &'static str, bytes: &'static [u8]) -> Response {
    let mut response = if accepts_gzip(headers) {
        let mut response = bytes.into_response();
        response
            .headers_mut()
            .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        response
    } else {
        let mut out = Vec::with_capacity(bytes.len() * 4);
        match flate2::read::GzDecoder::new(bytes).read_to_end(&mut out) {
            Ok(_) => out.into_response(),
            Err(e) => return ApiError::internal("inflate an embedded file", e).into_response(),
        }
    };
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    *response.status_mut() = StatusCode::OK;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_escaped() {
        let page = PAGE.replace("{title}", &escape("A <b> & C"));
        assert!(
            page.contains("<title>A &lt;b&gt; &amp; C</title>"),
            "{page}"
        );
    }

    #[test]
    fn the_embedded_files_inflate_to_swagger_ui() {
        let mut js = String::new();
        flate2::read::GzDecoder::new(BUNDLE_JS)
            .read_to_string(&mut js)
            .expect("inflate");
        assert!(js.contains("SwaggerUIBundle"));
        assert!(BUNDLE_JS.len() * 3 < js.len(), "stored compressed");
    }
}
