//! API Gateway HTTP API route selection, from the template's `HttpApi` events.
//!
//! The most specific route wins, as in API Gateway: a route without path variables beats one
//! with `{param}` segments, which beats one with a greedy `{proxy+}`; among routes of the same
//! class the one with literal segments further along (the longer literal prefix) wins; a route
//! for the request's method beats an `ANY` route. When nothing matches, the `$default` route
//! takes the request; without one, API Gateway answers 404.

use std::cmp::Ordering;
use std::fmt;

use http::Method;

/// One path segment of a route key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Literal(String),
    /// `{name}`: exactly one non-empty segment.
    Param(String),
    /// `{name+}`: one or more segments, only last.
    Greedy(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoutePath {
    /// The `$default` route.
    Default,
    Segments(Vec<Segment>),
}

/// One route of the API and the function it invokes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// `None` is `ANY`.
    pub method: Option<Method>,
    pub path: RoutePath,
    pub function: String,
}

impl fmt::Display for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path == RoutePath::Default {
            return f.write_str("$default");
        }
        match &self.method {
            Some(m) => write!(f, "{m} ")?,
            None => f.write_str("ANY ")?,
        }
        if let RoutePath::Segments(segments) = &self.path {
            for s in segments {
                match s {
                    Segment::Literal(l) => write!(f, "/{l}")?,
                    Segment::Param(p) => write!(f, "/{{{p}}}")?,
                    Segment::Greedy(p) => write!(f, "/{{{p}+}}")?,
                }
            }
            if segments.is_empty() {
                f.write_str("/")?;
            }
        }
        Ok(())
    }
}

impl Route {
    /// A route from an `HttpApi` event's `Method` and `Path` (either absent: `$default`).
    pub fn parse(method: Option<&str>, path: Option<&str>, function: &str) -> Result<Self, String> {
        let path = match path {
            None | Some("$default") => RoutePath::Default,
            Some(p) => RoutePath::Segments(parse_path(p)?),
        };
        let method = match method.map(str::trim) {
            None => None,
            Some(m) if m.eq_ignore_ascii_case("ANY") || m.eq_ignore_ascii_case("*") => None,
            Some(m) => Some(
                Method::from_bytes(m.to_ascii_uppercase().as_bytes())
                    .map_err(|_| format!("invalid method {m}"))?,
            ),
        };
        let method = if path == RoutePath::Default {
            None
        } else {
            method
        };
        Ok(Self {
            method,
            path,
            function: function.to_string(),
        })
    }

    /// The same route key, ignoring variable names: API Gateway rejects such duplicates.
    fn key(&self) -> (Option<&Method>, Vec<(u8, &str)>) {
        let shape = match &self.path {
            RoutePath::Default => vec![(9, "$default")],
            RoutePath::Segments(s) => s
                .iter()
                .map(|seg| match seg {
                    Segment::Literal(l) => (0, l.as_str()),
                    Segment::Param(_) => (1, ""),
                    Segment::Greedy(_) => (2, ""),
                })
                .collect(),
        };
        (self.method.as_ref(), shape)
    }

    fn matches(&self, method: &Method, path: &[&str]) -> bool {
        if self.method.as_ref().is_some_and(|m| m != method) {
            return false;
        }
        let RoutePath::Segments(segments) = &self.path else {
            return false;
        };
        let mut rest = path;
        for segment in segments {
            match segment {
                Segment::Literal(l) => match rest.split_first() {
                    Some((first, tail)) if first == l => rest = tail,
                    _ => return false,
                },
                Segment::Param(_) => match rest.split_first() {
                    Some((first, tail)) if !first.is_empty() => rest = tail,
                    _ => return false,
                },
                Segment::Greedy(_) => {
                    return !rest.is_empty() && rest.iter().any(|s| !s.is_empty());
                }
            }
        }
        rest.is_empty()
    }

    /// 0 = no path variables, 1 = `{param}` only, 2 = greedy.
    fn class(&self) -> u8 {
        match &self.path {
            RoutePath::Default => 3,
            RoutePath::Segments(s) => s
                .iter()
                .map(|seg| match seg {
                    Segment::Literal(_) => 0,
                    Segment::Param(_) => 1,
                    Segment::Greedy(_) => 2,
                })
                .max()
                .unwrap_or(0),
        }
    }

    /// `Less` when `self` is the more specific of two routes matching the same request.
    fn specificity(&self, other: &Self) -> Ordering {
        self.class()
            .cmp(&other.class())
            .then_with(|| {
                let rank = |r: &Self| match &r.path {
                    RoutePath::Segments(s) => s
                        .iter()
                        .map(|seg| match seg {
                            Segment::Literal(_) => 0u8,
                            Segment::Param(_) => 1,
                            Segment::Greedy(_) => 2,
                        })
                        .collect::<Vec<_>>(),
                    RoutePath::Default => Vec::new(),
                };
                // Literal further along wins; a longer route wins over a shorter greedy one.
                let (a, b) = (rank(self), rank(other));
                a.iter()
                    .zip(b.iter())
                    .map(|(x, y)| x.cmp(y))
                    .find(|o| o.is_ne())
                    .unwrap_or_else(|| b.len().cmp(&a.len()))
            })
            .then_with(|| self.method.is_none().cmp(&other.method.is_none()))
    }
}

fn parse_path(path: &str) -> Result<Vec<Segment>, String> {
    let Some(rest) = path.strip_prefix('/') else {
        return Err(format!("route path {path} must start with /"));
    };
    if rest.is_empty() {
        return Ok(Vec::new());
    }
    let parts: Vec<&str> = rest.split('/').collect();
    let last = parts.len() - 1;
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            if let Some(inner) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                if let Some(name) = inner.strip_suffix('+') {
                    if i != last {
                        return Err(format!("in {path}, {{{name}+}} must be the last segment"));
                    }
                    return valid_name(name, path).map(|n| Segment::Greedy(n.to_string()));
                }
                return valid_name(inner, path).map(|n| Segment::Param(n.to_string()));
            }
            if part.contains('{') || part.contains('}') {
                return Err(format!(
                    "in {path}, a path variable must be a whole segment"
                ));
            }
            Ok(Segment::Literal((*part).to_string()))
        })
        .collect()
}

fn valid_name<'a>(name: &'a str, path: &str) -> Result<&'a str, String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!(
            "in {path}, {{{name}}} is not a valid path variable"
        ));
    }
    Ok(name)
}

/// Every route of the API.
#[derive(Clone, Debug, Default)]
pub struct RouteTable {
    routes: Vec<Route>,
    default: Option<Route>,
}

impl RouteTable {
    /// Fails on two routes with the same key, as API Gateway does.
    pub fn new(routes: Vec<Route>) -> Result<Self, String> {
        let mut table = Self::default();
        for route in routes {
            if let Some(existing) = table
                .routes
                .iter()
                .chain(table.default.iter())
                .find(|r| r.key() == route.key())
            {
                return Err(format!(
                    "route {route} of {} duplicates route {existing} of {}",
                    route.function, existing.function
                ));
            }
            if route.path == RoutePath::Default {
                table.default = Some(route);
            } else {
                table.routes.push(route);
            }
        }
        Ok(table)
    }

    /// The route that takes a request for `method` and `path` (the raw path, no query).
    pub fn find(&self, method: &Method, path: &str) -> Option<&Route> {
        let segments: Vec<&str> = match path.strip_prefix('/') {
            Some("") | None => Vec::new(),
            Some(rest) => rest.split('/').collect(),
        };
        self.routes
            .iter()
            .filter(|r| r.matches(method, &segments))
            .min_by(|a, b| a.specificity(b))
            .or(self.default.as_ref())
    }

    pub fn iter(&self) -> impl Iterator<Item = &Route> {
        self.routes.iter().chain(self.default.iter())
    }

    pub fn is_empty(&self) -> bool {
        self.routes.is_empty() && self.default.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(routes: &[(&str, &str, &str)]) -> RouteTable {
        RouteTable::new(
            routes
                .iter()
                .map(|(m, p, f)| Route::parse(Some(m), Some(p), f).expect("route"))
                .collect(),
        )
        .expect("table")
    }

    fn hit(t: &RouteTable, method: &str, path: &str) -> Option<String> {
        let method = Method::from_bytes(method.as_bytes()).expect("method");
        t.find(&method, path).map(|r| r.function.clone())
    }

    #[test]
    fn exact_beats_param_beats_greedy_beats_default() {
        let t = table(&[
            ("GET", "/items/special", "exact"),
            ("GET", "/items/{id}", "param"),
            ("ANY", "/items/{proxy+}", "greedy"),
            ("ANY", "$default", "default"),
        ]);
        assert_eq!(hit(&t, "GET", "/items/special").as_deref(), Some("exact"));
        assert_eq!(hit(&t, "GET", "/items/42").as_deref(), Some("param"));
        assert_eq!(hit(&t, "GET", "/items/42/more").as_deref(), Some("greedy"));
        assert_eq!(hit(&t, "POST", "/items/42").as_deref(), Some("greedy"));
        assert_eq!(hit(&t, "GET", "/other").as_deref(), Some("default"));
        // A greedy variable needs at least one segment.
        assert_eq!(hit(&t, "DELETE", "/items").as_deref(), Some("default"));
        assert_eq!(hit(&t, "DELETE", "/items/").as_deref(), Some("default"));
        assert_eq!(hit(&t, "GET", "/").as_deref(), Some("default"));
    }

    #[test]
    fn a_specific_method_beats_any_and_the_path_comes_first() {
        let t = table(&[
            ("ANY", "/a/{id}", "any"),
            ("POST", "/a/{id}", "post"),
            ("get", "/a/{id}/b", "get-b"),
            ("ANY", "/a/x", "exact-any"),
        ]);
        assert_eq!(hit(&t, "POST", "/a/1").as_deref(), Some("post"));
        assert_eq!(hit(&t, "GET", "/a/1").as_deref(), Some("any"));
        assert_eq!(hit(&t, "GET", "/a/1/b").as_deref(), Some("get-b"));
        assert_eq!(hit(&t, "PUT", "/a/1/b"), None);
        assert_eq!(hit(&t, "POST", "/a/x").as_deref(), Some("exact-any"));
    }

    #[test]
    fn longer_literal_prefix_wins() {
        let t = table(&[
            ("ANY", "/{proxy+}", "root"),
            ("ANY", "/api/{proxy+}", "api"),
            ("ANY", "/api/users/{proxy+}", "users"),
            ("GET", "/{a}/users/{b}", "params-a"),
            ("GET", "/api/{a}/{b}", "params-b"),
        ]);
        assert_eq!(hit(&t, "GET", "/api/users/me/x").as_deref(), Some("users"));
        assert_eq!(hit(&t, "POST", "/api/users/me").as_deref(), Some("users"));
        assert_eq!(hit(&t, "GET", "/api/users/me").as_deref(), Some("params-b"));
        assert_eq!(hit(&t, "GET", "/x/users/me").as_deref(), Some("params-a"));
        assert_eq!(hit(&t, "GET", "/api/other").as_deref(), Some("api"));
        assert_eq!(hit(&t, "GET", "/elsewhere").as_deref(), Some("root"));
        assert_eq!(hit(&t, "GET", "/"), None);
    }

    #[test]
    fn no_match_without_default_is_none() {
        let t = table(&[("GET", "/x", "x")]);
        assert_eq!(hit(&t, "GET", "/x").as_deref(), Some("x"));
        assert_eq!(hit(&t, "GET", "/x/"), None);
        assert_eq!(hit(&t, "POST", "/x"), None);
        assert_eq!(hit(&t, "GET", "/y"), None);
    }

    #[test]
    fn rejects_bad_paths_and_duplicates() {
        assert!(Route::parse(Some("GET"), Some("x"), "f").is_err());
        assert!(Route::parse(Some("GET"), Some("/{p+}/x"), "f").is_err());
        assert!(Route::parse(Some("GET"), Some("/a{b}"), "f").is_err());
        assert!(Route::parse(Some("GET"), Some("/{}"), "f").is_err());
        let dup = RouteTable::new(vec![
            Route::parse(Some("GET"), Some("/a/{x}"), "f").expect("route"),
            Route::parse(Some("GET"), Some("/a/{y}"), "g").expect("route"),
        ]);
        assert!(dup.is_err());
        let default_twice = RouteTable::new(vec![
            Route::parse(None, None, "f").expect("route"),
            Route::parse(Some("ANY"), Some("$default"), "g").expect("route"),
        ]);
        assert!(default_twice.is_err());
        assert!(RouteTable::new(vec![
            Route::parse(Some("GET"), Some("/a"), "f").expect("route"),
            Route::parse(Some("POST"), Some("/a"), "g").expect("route"),
        ])
        .is_ok());
    }

    #[test]
    fn displays_route_keys() {
        let r = Route::parse(Some("any"), Some("/api/{id}/{proxy+}"), "f").expect("route");
        assert_eq!(r.to_string(), "ANY /api/{id}/{proxy+}");
        let d = Route::parse(Some("GET"), Some("$default"), "f").expect("route");
        assert_eq!(d.to_string(), "$default");
    }
}
