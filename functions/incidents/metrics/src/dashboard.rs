//! The dashboard page: one self-contained HTML document (its style and script inline, no
//! outside resource), allowed by a Content-Security-Policy that names exactly its inline
//! style and script by their SHA-256 and lets it fetch from this origin only.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ring::digest::{digest, SHA256};

const STYLE: &str = include_str!("dashboard.css");
const SCRIPT: &str = include_str!("dashboard.js");

/// The page.
pub const DASHBOARD_HTML: &str = concat!(
    "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
    "<title>Incident platform metrics</title>\n<style>",
    include_str!("dashboard.css"),
    "</style>\n</head>\n<body>\n<header>\n<h1>Incident platform metrics</h1>\n",
    "<p id=\"status\">Reading the metrics...</p>\n</header>\n<main>\n",
    "<section><h2>Log volume by severity</h2>",
    "<p class=\"note\">Logs per minute between two reads of this page (15 s apart)</p>",
    "<div id=\"volume\"></div></section>\n",
    "<section><h2>Logs ingested by severity</h2><p class=\"note\">Totals</p>",
    "<div id=\"totals\"></div></section>\n",
    "<section><h2>Incidents by status</h2><p class=\"note\">Open: ACTIVE and ACKNOWLEDGED</p>",
    "<div id=\"incidents\"></div></section>\n",
    "<section><h2>LLM latency</h2><p class=\"note\">Log analyses: observations per bucket</p>",
    "<div id=\"latency\"></div></section>\n",
    "<section><h2>Time to acknowledge</h2><p class=\"note\">From opening (or reopening)</p>",
    "<div id=\"ack\"></div></section>\n",
    "<section><h2>Time to resolve</h2><p class=\"note\">From opening (or reopening)</p>",
    "<div id=\"resolve\"></div></section>\n",
    "<section><h2>Alerts and analyses</h2><p class=\"note\">Totals</p>",
    "<div id=\"activity\"></div></section>\n",
    "</main>\n<script>",
    include_str!("dashboard.js"),
    "</script>\n</body>\n</html>\n"
);

fn hash_source(text: &str) -> String {
    format!(
        "'sha256-{}'",
        STANDARD.encode(digest(&SHA256, text.as_bytes()).as_ref())
    )
}

/// The page's policy: its own inline style and script (by hash) and nothing else; data
/// from this origin only; never framed.
pub fn dashboard_csp() -> String {
    format!(
        "default-src 'none'; script-src {}; style-src {}; connect-src 'self'; img-src 'self'; \
         base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        hash_source(SCRIPT),
        hash_source(STYLE)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_names_the_inline_script_and_style_exactly() {
        let script = DASHBOARD_HTML
            .split("<script>")
            .nth(1)
            .and_then(|rest| rest.split("</script>").next())
            .unwrap();
        let style = DASHBOARD_HTML
            .split("<style>")
            .nth(1)
            .and_then(|rest| rest.split("</style>").next())
            .unwrap();
        assert_eq!(script, SCRIPT);
        assert_eq!(style, STYLE);
        let csp = dashboard_csp();
        assert!(csp.contains(&format!("script-src {};", hash_source(script))));
        assert!(csp.contains(&format!("style-src {};", hash_source(style))));
        assert!(!csp.contains("unsafe"));
        // Self-contained: nothing is loaded from anywhere else.
        for outside in ["https://", "src=", "href=", "@import", "url("] {
            assert!(!DASHBOARD_HTML.contains(outside), "{outside} in the page");
        }
        // The one http:// is SVG's namespace name, which is never fetched.
        assert_eq!(
            DASHBOARD_HTML.matches("http://").count(),
            DASHBOARD_HTML.matches("http://www.w3.org/2000/svg").count()
        );
        assert_eq!(DASHBOARD_HTML.matches("<script").count(), 1);
        // The script reads the JSON route the router serves.
        assert!(SCRIPT.contains(&format!("\"{}\"", crate::GRAFANA_METRICS)));
    }
}
