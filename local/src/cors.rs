//! A function URL's `Cors` (`FunctionUrlConfig.Cors`), answered as Lambda answers it: the
//! service replies to a browser's preflight itself, without invoking the function, and adds
//! the allow headers to the function's own responses for an allowed origin.

use axum::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_yaml::Value;

/// The `Cors` of a function URL, read literally from the template.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UrlCors {
    pub allow_origins: Vec<String>,
    pub allow_methods: Vec<String>,
    pub allow_headers: Vec<String>,
    pub expose_headers: Vec<String>,
    pub max_age: Option<u64>,
    pub allow_credentials: bool,
}

impl UrlCors {
    /// `FunctionUrlConfig.Cors`; its lists must be literal strings (the local stack does not
    /// resolve intrinsics here).
    pub fn parse(value: &Value) -> Result<Self, String> {
        let list = |key: &str| -> Result<Vec<String>, String> {
            match value.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Sequence(items)) => items
                    .iter()
                    .map(|item| {
                        item.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| format!("Cors.{key} must list literal strings"))
                    })
                    .collect(),
                Some(_) => Err(format!("Cors.{key} must be a list")),
            }
        };
        Ok(Self {
            allow_origins: list("AllowOrigins")?,
            allow_methods: list("AllowMethods")?,
            allow_headers: list("AllowHeaders")?,
            expose_headers: list("ExposeHeaders")?,
            max_age: value.get("MaxAge").and_then(Value::as_u64),
            allow_credentials: value
                .get("AllowCredentials")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }

    /// The request's `Origin` when this configuration allows it.
    fn allowed<'a>(&self, headers: &'a HeaderMap) -> Option<&'a HeaderValue> {
        let origin = headers.get(header::ORIGIN)?;
        let text = origin.to_str().ok()?;
        self.allow_origins
            .iter()
            .any(|allowed| allowed == "*" || allowed.eq_ignore_ascii_case(text))
            .then_some(origin)
    }

    /// Lambda's own answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`),
    /// or `None` when the request is not one.
    pub fn preflight(&self, method: &Method, headers: &HeaderMap) -> Option<Response> {
        if method != Method::OPTIONS || !headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
        {
            return None;
        }
        let mut response = StatusCode::OK.into_response();
        let Some(origin) = self.allowed(headers) else {
            return Some(response);
        };
        let out = response.headers_mut();
        out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
        insert_list(
            out,
            header::ACCESS_CONTROL_ALLOW_METHODS,
            &self.allow_methods,
        );
        insert_list(
            out,
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            &self.allow_headers,
        );
        if let Some(age) = self.max_age {
            out.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from(age));
        }
        self.credentials(out);
        out.insert(header::VARY, HeaderValue::from_static("Origin"));
        Some(response)
    }

    /// Adds the allow headers to the function's response to an allowed origin.
    pub fn decorate(&self, request: &HeaderMap, response: &mut Response) {
        let Some(origin) = self.allowed(request) else {
            return;
        };
        let out = response.headers_mut();
        out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
        insert_list(
            out,
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            &self.expose_headers,
        );
        self.credentials(out);
        out.append(header::VARY, HeaderValue::from_static("Origin"));
    }

    fn credentials(&self, out: &mut HeaderMap) {
        if self.allow_credentials {
            out.insert(
                header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
                HeaderValue::from_static("true"),
            );
        }
    }
}

fn insert_list(out: &mut HeaderMap, name: HeaderName, values: &[String]) {
    if let Ok(value) = HeaderValue::from_str(&values.join(", ")) {
        if !values.is_empty() {
            out.insert(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cors(origins: &[&str]) -> UrlCors {
        UrlCors::parse(
            &serde_yaml::from_str(&format!(
                "{{AllowOrigins: [{}], AllowMethods: [POST], AllowHeaders: [content-type, authorization], ExposeHeaders: [x-genai-cache], MaxAge: 60}}",
                origins.join(", ")
            ))
            .unwrap(),
        )
        .unwrap()
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| {
                (
                    HeaderName::from_bytes(k.as_bytes()).unwrap(),
                    HeaderValue::from_str(v).unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn a_preflight_from_an_allowed_origin_is_answered_without_the_function() {
        let any = cors(&["\"*\""]);
        let request = headers(&[
            ("origin", "https://web.example"),
            ("access-control-request-method", "POST"),
        ]);
        let answer = any.preflight(&Method::OPTIONS, &request).unwrap();
        let h = answer.headers();
        assert_eq!(answer.status(), StatusCode::OK);
        assert_eq!(h["access-control-allow-origin"], "https://web.example");
        assert_eq!(h["access-control-allow-methods"], "POST");
        assert_eq!(
            h["access-control-allow-headers"],
            "content-type, authorization"
        );
        assert_eq!(h["access-control-max-age"], "60");
        assert!(!h.contains_key("access-control-allow-credentials"));
        // Not a preflight: the function answers.
        assert!(any.preflight(&Method::POST, &request).is_none());
        assert!(any
            .preflight(
                &Method::OPTIONS,
                &headers(&[("origin", "https://web.example")])
            )
            .is_none());
    }

    #[test]
    fn only_listed_origins_get_the_allow_headers() {
        let one = cors(&["https://web.example"]);
        let other = headers(&[
            ("origin", "https://evil.example"),
            ("access-control-request-method", "POST"),
        ]);
        let answer = one.preflight(&Method::OPTIONS, &other).unwrap();
        assert!(!answer.headers().contains_key("access-control-allow-origin"));

        let mut response = StatusCode::OK.into_response();
        one.decorate(&other, &mut response);
        assert!(!response
            .headers()
            .contains_key("access-control-allow-origin"));
        one.decorate(
            &headers(&[("origin", "https://web.example")]),
            &mut response,
        );
        assert_eq!(
            response.headers()["access-control-allow-origin"],
            "https://web.example"
        );
        assert_eq!(
            response.headers()["access-control-expose-headers"],
            "x-genai-cache"
        );
    }

    #[test]
    fn intrinsics_are_refused() {
        let value: Value = serde_yaml::from_str("{AllowOrigins: [{Ref: X}]}").unwrap();
        assert!(UrlCors::parse(&value).unwrap_err().contains("AllowOrigins"));
    }
}
