//! One series: a family and its label values, and how both are written in the exposition
//! (text format 0.0.4: label values escape `\`, `"` and line feeds; help text `\` and line
//! feeds).

use crate::catalog::Metric;

/// A family with one value per label, in the family's label order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Series {
    pub metric: &'static str,
    pub values: Vec<String>,
}

impl Series {
    /// `metric` with `values` (one per label of the family, in order).
    pub fn new(metric: &Metric, values: &[&str]) -> Self {
        Self {
            metric: metric.name,
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    /// The series as the exposition names it, `name{a="x",b="y"}` (its item's sort key).
    pub fn key(&self, labels: &[&str]) -> String {
        format!("{}{}", self.metric, label_set(labels, &self.values, None))
    }
}

/// `{a="x",b="y"}` (with `le="..."` last when given), or nothing without labels.
pub fn label_set(names: &[&str], values: &[String], le: Option<&str>) -> String {
    let mut pairs: Vec<String> = names
        .iter()
        .zip(values)
        .map(|(name, value)| format!("{name}=\"{}\"", escape_label(value)))
        .collect();
    if let Some(le) = le {
        pairs.push(format!("le=\"{le}\""));
    }
    if pairs.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", pairs.join(","))
    }
}

/// A label value escaped for the text format: `\` as `\\`, `"` as `\"`, a line feed as `\n`.
pub fn escape_label(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// Help text escaped for the text format: `\` as `\\`, a line feed as `\n`.
pub fn escape_help(help: &str) -> String {
    help.replace('\\', "\\\\").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::LOGS_INGESTED;

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape_label(r#"a"b\c"#), r#"a\"b\\c"#);
        assert_eq!(escape_label("two\nlines"), "two\\nlines");
        assert_eq!(escape_label("plain é"), "plain é");
        assert_eq!(escape_help("a\\b\nc \"q\""), "a\\\\b\\nc \"q\"");
    }

    #[test]
    fn a_series_key_is_its_exposition_name() {
        let series = Series::new(&LOGS_INGESTED, &["pay\"ments", "ERROR"]);
        assert_eq!(
            series.key(LOGS_INGESTED.labels),
            r#"incident_logs_ingested_total{service="pay\"ments",severity="ERROR"}"#
        );
        assert_eq!(label_set(&[], &[], None), "");
        assert_eq!(label_set(&[], &[], Some("+Inf")), r#"{le="+Inf"}"#);
    }
}
