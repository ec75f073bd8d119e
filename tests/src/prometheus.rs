//! Prometheus's text exposition format 0.0.4, read strictly: what the incident platform's
//! `GET /prometheus` answers must parse here line by line, or the test fails naming the line.
//! A scrape through the stack with the metrics credentials ([`TestStack::scrape`]).

use std::collections::{BTreeMap, HashMap};

use reqwest::Response;

use crate::stack::{Call, TestStack, METRICS_PASSWORD, METRICS_USERNAME};

/// The exposition's path.
pub const PROMETHEUS: &str = "/prometheus";
/// The dashboard page's path.
pub const GRAFANA: &str = "/grafana";
/// The dashboard's JSON.
pub const GRAFANA_METRICS: &str = "/grafana/api/metrics";

/// One parsed exposition: every sample by its series (`name{a="x",b="y"}`, labels sorted,
/// values unescaped and escaped again), and each family's declared type.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Exposition {
    pub samples: BTreeMap<String, f64>,
    pub types: BTreeMap<String, String>,
}

impl Exposition {
    /// The value of a sample (`None` when absent).
    pub fn get(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        self.samples.get(&series_key(name, labels)).copied()
    }

    /// The value of a sample, 0 when absent.
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.get(name, labels).unwrap_or(0.0)
    }

    /// Every sample of `name` with its labels.
    pub fn series(&self, name: &str) -> Vec<(BTreeMap<String, String>, f64)> {
        self.samples
            .iter()
            .filter_map(|(key, value)| {
                let (n, labels) = parse_series(key).ok()?;
                (n == name).then_some((labels, *value))
            })
            .collect()
    }

    /// The sum of every sample of `name`.
    pub fn total(&self, name: &str) -> f64 {
        self.series(name).iter().map(|(_, v)| v).sum()
    }
}

fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The canonical key of a series: labels sorted by name.
pub fn series_key(name: &str, labels: &[(&str, &str)]) -> String {
    let mut labels: Vec<(&str, &str)> = labels.to_vec();
    labels.sort();
    if labels.is_empty() {
        return name.to_string();
    }
    let inner: Vec<String> = labels
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
        .collect();
    format!("{name}{{{}}}", inner.join(","))
}

fn is_name(name: &str, colon: bool) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || (colon && c == ':'));
    first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || (colon && c == ':'))
}

/// `name{labels}` (labels unescaped) from the front of a sample line; the rest of the line.
fn parse_series_prefix(line: &str) -> Result<(String, BTreeMap<String, String>, String), String> {
    let chars: Vec<char> = line.chars().collect();
    let mut i = chars
        .iter()
        .position(|c| *c == '{' || *c == ' ')
        .ok_or("no value")?;
    let name: String = chars[..i].iter().collect();
    if !is_name(&name, true) {
        return Err(format!("bad metric name {name:?}"));
    }
    let mut labels = BTreeMap::new();
    if chars.get(i) == Some(&'{') {
        i += 1;
        loop {
            if chars.get(i) == Some(&'}') {
                i += 1;
                break;
            }
            let eq = chars[i..]
                .iter()
                .position(|c| *c == '=')
                .ok_or("label without =")?
                + i;
            let label: String = chars[i..eq].iter().collect();
            if !is_name(&label, false) {
                return Err(format!("bad label name {label:?}"));
            }
            if chars.get(eq + 1) != Some(&'"') {
                return Err("label value not quoted".into());
            }
            i = eq + 2;
            let mut value = String::new();
            loop {
                match *chars.get(i).ok_or("unclosed label value")? {
                    '\\' => {
                        value.push(match *chars.get(i + 1).ok_or("dangling escape")? {
                            '\\' => '\\',
                            '"' => '"',
                            'n' => '\n',
                            other => return Err(format!("bad escape \\{other}")),
                        });
                        i += 2;
                    }
                    '"' => {
                        i += 1;
                        break;
                    }
                    '\n' => return Err("line feed in a label value".into()),
                    c => {
                        value.push(c);
                        i += 1;
                    }
                }
            }
            if labels.insert(label.clone(), value).is_some() {
                return Err(format!("label {label} twice"));
            }
            match chars.get(i) {
                // A comma may also end the list (`{a="1",}`).
                Some(',') => i += 1,
                Some('}') => {}
                _ => return Err("expected , or } after a label".into()),
            }
        }
    }
    Ok((name, labels, chars[i..].iter().collect()))
}

fn parse_series(key: &str) -> Result<(String, BTreeMap<String, String>), String> {
    let (name, labels, rest) = parse_series_prefix(&format!("{key} 0"))?;
    if rest != " 0" {
        return Err(format!("trailing {rest:?}"));
    }
    Ok((name, labels))
}

fn parse_value(raw: &str) -> Result<f64, String> {
    match raw {
        "+Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        "NaN" => Ok(f64::NAN),
        _ => raw.parse().map_err(|_| format!("bad value {raw:?}")),
    }
}

/// Parses `text` strictly: HELP and TYPE once per family and before its samples, every
/// sample of a declared family (a histogram's as `_bucket` with `le`, `_sum`, `_count`), no
/// series twice, values numbers; each histogram's buckets cumulative, ending at `+Inf` equal
/// to `_count`. Fails naming the line.
pub fn parse(text: &str) -> Result<Exposition, String> {
    let mut out = Exposition::default();
    let mut helps: HashMap<String, String> = HashMap::new();
    let mut sampled: Vec<String> = Vec::new();
    if !text.is_empty() && !text.ends_with('\n') {
        return Err("the exposition must end with a line feed".into());
    }
    for (number, line) in text.lines().enumerate() {
        let at = |e: String| format!("line {}: {e}: {line:?}", number + 1);
        if line.trim().is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            let mut parts = comment.trim_start().splitn(3, ' ');
            match (parts.next(), parts.next(), parts.next()) {
                (Some("HELP"), Some(name), help) => {
                    if !is_name(name, true) {
                        return Err(at("bad name".into()));
                    }
                    if helps
                        .insert(name.to_string(), help.unwrap_or("").to_string())
                        .is_some()
                    {
                        return Err(at("HELP twice".into()));
                    }
                }
                (Some("TYPE"), Some(name), Some(kind)) => {
                    if !["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind) {
                        return Err(at(format!("bad type {kind}")));
                    }
                    if sampled.iter().any(|s| s == name) {
                        return Err(at("TYPE after the family's samples".into()));
                    }
                    if out
                        .types
                        .insert(name.to_string(), kind.to_string())
                        .is_some()
                    {
                        return Err(at("TYPE twice".into()));
                    }
                }
                _ => {}
            }
            continue;
        }
        let (name, labels, rest) = parse_series_prefix(line).map_err(at)?;
        if !rest.starts_with(' ') {
            return Err(at("no space before the value".into()));
        }
        let mut fields = rest.split_whitespace();
        let value = parse_value(fields.next().ok_or_else(|| at("no value".into()))?).map_err(at)?;
        if let Some(ts) = fields.next() {
            ts.parse::<i64>()
                .map_err(|_| at(format!("bad timestamp {ts}")))?;
        }
        if fields.next().is_some() {
            return Err(at("trailing fields".into()));
        }
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|suffix| {
                name.strip_suffix(suffix)
                    .filter(|f| out.types.get(*f).map(String::as_str) == Some("histogram"))
            })
            .unwrap_or(&name)
            .to_string();
        match out.types.get(&family).map(String::as_str) {
            None => return Err(at(format!("sample of undeclared family {family}"))),
            Some("histogram") if family == name => {
                return Err(at("a histogram's samples are _bucket, _sum, _count".into()))
            }
            Some("histogram") if name.ends_with("_bucket") && !labels.contains_key("le") => {
                return Err(at("a bucket without le".into()))
            }
            Some("counter") if !name.ends_with("_total") => {
                return Err(at("a counter's name ends in _total".into()))
            }
            _ => {}
        }
        if !sampled.contains(&family) {
            sampled.push(family);
        }
        let pairs: Vec<(&str, &str)> = labels
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        if out
            .samples
            .insert(series_key(&name, &pairs), value)
            .is_some()
        {
            return Err(at("the same series twice".into()));
        }
    }
    for name in out.types.keys() {
        if !helps.contains_key(name) {
            return Err(format!("{name} has a TYPE but no HELP"));
        }
    }
    check_histograms(&out)?;
    Ok(out)
}

/// A series' labels but `le`, sorted.
type Labels = Vec<(String, String)>;

/// Every histogram series: buckets cumulative in `le` order, `+Inf` present and equal to
/// `_count`, `_sum` present.
fn check_histograms(exposition: &Exposition) -> Result<(), String> {
    for (family, kind) in &exposition.types {
        if kind != "histogram" {
            continue;
        }
        let mut by_series: BTreeMap<Labels, Vec<(f64, f64)>> = BTreeMap::new();
        for (mut labels, value) in exposition.series(&format!("{family}_bucket")) {
            let le = labels.remove("le").ok_or("a bucket without le")?;
            let bound = parse_value(&le)?;
            by_series
                .entry(labels.into_iter().collect())
                .or_default()
                .push((bound, value));
        }
        for (labels, mut buckets) in by_series {
            buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
            if !buckets.windows(2).all(|w| w[0].1 <= w[1].1) {
                return Err(format!("{family}{labels:?}: buckets not cumulative"));
            }
            let inf = buckets
                .last()
                .filter(|(b, _)| b.is_infinite())
                .ok_or(format!("{family}{labels:?}: no +Inf bucket"))?
                .1;
            let pairs: Vec<(&str, &str)> = labels
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            let count = exposition
                .get(&format!("{family}_count"), &pairs)
                .ok_or(format!("{family}{labels:?}: no _count"))?;
            if count != inf {
                return Err(format!("{family}{labels:?}: +Inf {inf} but _count {count}"));
            }
            exposition
                .get(&format!("{family}_sum"), &pairs)
                .ok_or(format!("{family}{labels:?}: no _sum"))?;
        }
    }
    Ok(())
}

impl TestStack {
    /// `GET path` with these Basic auth credentials (none: no Authorization header).
    pub async fn metrics_get(&self, path: &str, credentials: Option<(&str, &str)>) -> Response {
        let request = self.http.get(self.url(path));
        match credentials {
            Some((user, password)) => request.basic_auth(user, Some(password)),
            None => request,
        }
        .call()
        .await
    }

    /// `GET /grafana/api/metrics` with the stack's metrics credentials: the dashboard's JSON.
    pub async fn metrics_report(&self) -> serde_json::Value {
        let response = self
            .metrics_get(GRAFANA_METRICS, Some((METRICS_USERNAME, METRICS_PASSWORD)))
            .await;
        assert_eq!(response.status(), 200, "GET {GRAFANA_METRICS}");
        response.json().await.expect("json")
    }

    /// `GET /prometheus` with the stack's metrics credentials, parsed strictly.
    pub async fn scrape(&self) -> Exposition {
        let response = self
            .metrics_get(PROMETHEUS, Some((METRICS_USERNAME, METRICS_PASSWORD)))
            .await;
        assert_eq!(response.status(), 200, "GET /prometheus");
        let content_type = crate::header(response.headers(), "content-type").to_string();
        assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");
        let text = response.text().await.expect("text");
        parse(&text).unwrap_or_else(|e| panic!("the exposition does not parse: {e}\n{text}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_good_exposition_parses() {
        let text = "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"q\\\"\\\\\\n\",y=\"2\"} 3\n\
                    # HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\n\
                    h_sum 3.5\nh_count 2\n# HELP g G.\n# TYPE g gauge\ng -1\n";
        let e = parse(text).unwrap();
        assert_eq!(e.value("a_total", &[("y", "2"), ("x", "q\"\\\n")]), 3.0);
        assert_eq!(e.value("h_count", &[]), 2.0);
        assert_eq!(e.value("g", &[]), -1.0);
        assert_eq!(e.total("a_total"), 3.0);
    }

    #[test]
    fn bad_expositions_are_refused() {
        for bad in [
            "a_total 1\n",                                                     // undeclared
            "# HELP a_total A.\n# TYPE a_total counter\na_total x\n",          // value
            "# HELP a A.\n# TYPE a counter\na 1\n",                            // _total
            "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"1} 1\n",   // unclosed
            "# HELP a_total A.\n# TYPE a_total counter\na_total{x=1} 1\n",     // unquoted
            "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"\\q\"} 1\n", // escape
            "# HELP a_total A.\n# TYPE a_total counter\na_total 1\na_total 2\n", // twice
            "# TYPE a_total counter\na_total 1\n",                             // no HELP
            "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
            "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",
            "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 1\n",
            "# HELP g G.\n# TYPE g gauge\ng 1",                                // no final line feed
            "# HELP g G.\n# TYPE g gauge\ng{a=\"1\"}1\n",                        // no space
        ] {
            assert!(parse(bad).is_err(), "accepted {bad:?}");
        }
    }
}
