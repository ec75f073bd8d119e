//! A function URL's `Cors` (`FunctionUrlConfig.Cors`), answered as Lambda answers it: the
//! service replies to a browser's preflight itself, without invoking the function, and adds
//! the allow headers to the function's own responses for an allowed origin.
//!
//! The template's `Cors` is resolved as CloudFormation resolves it (`!Ref` of a parameter,
//! `!Split`, `!If`, `AWS::NoValue`, see [`crate::intrinsics`]), so the origins the local stack
//! allows are the ones the deployed URL allows with the same parameters. A `Cors` that resolves
//! to `AWS::NoValue` is none at all: every request, a preflight included, reaches the function,
//! which adds no allow headers, so a browser on another origin is refused.

use axum::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value as Json;
use serde_yaml::Value;

use crate::intrinsics::Context;

/// Lambda's bounds on `Cors.AllowOrigins` (`AWS::Lambda::Url` `Cors`): at most 100 origins,
/// each 1 to 253 characters; anything else fails the deployment.
const MAX_ORIGINS: usize = 100;
const MAX_ORIGIN_LEN: usize = 253;

/// The `Cors` of a function URL, resolved from the template.
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
    /// The template's `FunctionUrlConfig.Cors` with its intrinsics resolved in `ctx`; `None`
    /// when it resolves to `AWS::NoValue` (the URL has no CORS configuration).
    pub fn resolve(value: &Value, ctx: &Context) -> Result<Option<Self>, String> {
        match ctx.resolve(value).map_err(|e| format!("Cors: {e}"))? {
            None | Some(Json::Null) => Ok(None),
            Some(resolved) => Self::parse(&resolved).map(Some),
        }
    }

    /// A resolved `Cors`, checked as Lambda checks it when the URL is created.
    pub fn parse(value: &Json) -> Result<Self, String> {
        if !value.is_object() {
            return Err(format!("Cors must be a mapping, got {value}"));
        }
        let list = |key: &str| -> Result<Vec<String>, String> {
            match value.get(key) {
                None | Some(Json::Null) => Ok(Vec::new()),
                Some(Json::Array(items)) => items
                    .iter()
                    .map(|item| {
                        item.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| format!("Cors.{key} must list strings, got {item}"))
                    })
                    .collect(),
                Some(other) => Err(format!("Cors.{key} must be a list, got {other}")),
            }
        };
        let allow_origins = list("AllowOrigins")?;
        if allow_origins.len() > MAX_ORIGINS {
            return Err(format!(
                "Cors.AllowOrigins lists {} origins; Lambda takes at most {MAX_ORIGINS}",
                allow_origins.len()
            ));
        }
        if let Some(bad) = allow_origins
            .iter()
            .find(|o| o.is_empty() || o.len() > MAX_ORIGIN_LEN)
        {
            return Err(format!(
                "Cors.AllowOrigins has the origin {bad:?}; Lambda refuses an origin that is empty \
                 or longer than {MAX_ORIGIN_LEN} characters (an empty parameter split is [\"\"]: \
                 leave Cors out with !If instead)"
            ));
        }
        let max_age = match value.get("MaxAge") {
            None | Some(Json::Null) => None,
            Some(age) => Some(
                age.as_u64()
                    .or_else(|| age.as_str().and_then(|s| s.trim().parse().ok()))
                    .ok_or_else(|| format!("Cors.MaxAge must be a number, got {age}"))?,
            ),
        };
        let allow_credentials = match value.get("AllowCredentials") {
            None | Some(Json::Null) => false,
            Some(Json::Bool(b)) => *b,
            Some(Json::String(s)) if s.eq_ignore_ascii_case("true") => true,
            Some(Json::String(s)) if s.eq_ignore_ascii_case("false") => false,
            Some(other) => {
                return Err(format!(
                    "Cors.AllowCredentials must be a boolean, got {other}"
                ))
            }
        };
        Ok(Self {
            allow_origins,
            allow_methods: list("AllowMethods")?,
            allow_headers: list("AllowHeaders")?,
            expose_headers: list("ExposeHeaders")?,
            max_age,
            allow_credentials,
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

    /// A template naming the stream origins in a parameter, as `template.yaml` does.
    const TEMPLATE: &str = r#"
Parameters:
  Origins: {Type: String, Default: ""}
  OriginList: {Type: CommaDelimitedList, Default: "https://a.example,https://b.example"}
  Age: {Type: Number, Default: 600}
Conditions:
  OriginsGiven: !Not [!Equals [!Ref Origins, ""]]
Resources: {}
"#;

    /// `template.yaml`'s shape: no `Cors` at all until origins are named.
    const CORS: &str = r#"
!If
  - OriginsGiven
  - AllowOrigins: !Split [",", !Ref Origins]
    AllowMethods: [POST]
    AllowHeaders: [content-type, authorization]
    MaxAge: !Ref Age
  - !Ref AWS::NoValue
"#;

    fn context(origins: Option<&str>) -> Context {
        let template = crate::template::Template::parse(TEMPLATE).unwrap();
        let given = origins
            .map(|o| std::collections::BTreeMap::from([("Origins".to_string(), o.to_string())]))
            .unwrap_or_default();
        Context::new(&template, "s", "us-east-1", &given)
    }

    fn resolve(yaml: &str, origins: Option<&str>) -> Result<Option<UrlCors>, String> {
        UrlCors::resolve(&serde_yaml::from_str(yaml).unwrap(), &context(origins))
    }

    #[test]
    fn origins_named_by_a_parameter_are_the_only_ones_allowed() {
        let cors = resolve(CORS, Some("https://web.example,http://127.0.0.1:8080"))
            .unwrap()
            .expect("a Cors");
        assert_eq!(
            cors.allow_origins,
            ["https://web.example", "http://127.0.0.1:8080"]
        );
        assert!(!cors.allow_origins.iter().any(|o| o == "*"));
        assert_eq!(cors.max_age, Some(600));

        let named = headers(&[
            ("origin", "http://127.0.0.1:8080"),
            ("access-control-request-method", "POST"),
        ]);
        let answer = cors.preflight(&Method::OPTIONS, &named).unwrap();
        assert_eq!(
            answer.headers()["access-control-allow-origin"],
            "http://127.0.0.1:8080"
        );
        assert_eq!(answer.headers()["access-control-allow-methods"], "POST");

        // Any other page: the preflight is answered without a single allow header, so the
        // browser sends nothing, and a simple request's answer is not readable either.
        for foreign in [
            "https://evil.example",
            "https://web.example.evil.example",
            "http://web.example",
            "null",
        ] {
            let request = headers(&[
                ("origin", foreign),
                ("access-control-request-method", "POST"),
                ("access-control-request-headers", "authorization"),
            ]);
            let answer = cors.preflight(&Method::OPTIONS, &request).unwrap();
            assert!(
                !answer
                    .headers()
                    .keys()
                    .any(|k| k.as_str().starts_with("access-control-")),
                "{foreign}: {:?}",
                answer.headers()
            );
            let mut response = StatusCode::OK.into_response();
            cors.decorate(&request, &mut response);
            assert!(!response
                .headers()
                .contains_key("access-control-allow-origin"));
        }
    }

    #[test]
    fn without_named_origins_the_url_has_no_cors() {
        assert_eq!(resolve(CORS, None), Ok(None));
        assert_eq!(resolve(CORS, Some("")), Ok(None));
        // Split without the !If, an empty parameter is one empty origin, which Lambda refuses.
        let err = resolve("{AllowOrigins: !Split [',', !Ref Origins]}", None).unwrap_err();
        assert!(
            err.contains("AllowOrigins") && err.contains("empty"),
            "{err}"
        );
    }

    #[test]
    fn a_list_parameter_and_literal_origins_resolve_too() {
        let cors = resolve(
            "{AllowOrigins: !Ref OriginList, AllowCredentials: true}",
            None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            cors.allow_origins,
            ["https://a.example", "https://b.example"]
        );
        assert!(cors.allow_credentials);
        let literal = resolve("{AllowOrigins: [https://c.example]}", None)
            .unwrap()
            .unwrap();
        assert_eq!(literal.allow_origins, ["https://c.example"]);
    }

    #[test]
    fn what_cannot_be_resolved_or_is_not_a_list_is_refused() {
        let err = resolve("{AllowOrigins: [!Ref Nothing]}", None).unwrap_err();
        assert!(err.contains("Nothing"), "{err}");
        let err = resolve("{AllowOrigins: https://a.example}", None).unwrap_err();
        assert!(err.contains("AllowOrigins"), "{err}");
        let err = resolve("{AllowOrigins: [{a: b}]}", None).unwrap_err();
        assert!(err.contains("AllowOrigins"), "{err}");
    }
}
