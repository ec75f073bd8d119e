//! Finding the JSON a model was asked for in what it actually answered.

use serde_json::Value;

/// The JSON value in a model's answer: the whole answer, the first fenced code block, or the
/// outermost `{...}` / `[...]` span, whichever parses first.
pub fn json_in_answer(answer: &str) -> Option<Value> {
    let trimmed = answer.trim();
    if let Ok(v) = serde_json::from_str(trimmed) {
        return Some(v);
    }
    if let Some((_, after)) = trimmed.split_once("```") {
        // Skip the info string (`json`, `JSON`, ...) up to the end of its line.
        let body = after.split_once('\n').map_or(after, |(_, body)| body);
        let block = body.split_once("```").map_or(body, |(block, _)| block);
        if let Ok(v) = serde_json::from_str(block.trim()) {
            return Some(v);
        }
    }
    for (open, close) in [('{', '}'), ('[', ']')] {
        let span = trimmed
            .find(open)
            .zip(trimmed.rfind(close))
            .and_then(|(start, end)| trimmed.get(start..=end));
        if let Some(Ok(v)) = span.map(serde_json::from_str) {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_json_in_answers() {
        let want = serde_json::json!({"a": 1});
        assert_eq!(json_in_answer(r#" {"a": 1} "#), Some(want.clone()));
        assert_eq!(
            json_in_answer("Here you go:\n```json\n{\"a\": 1}\n```\nDone."),
            Some(want.clone())
        );
        assert_eq!(json_in_answer("```\n{\"a\": 1}\n```"), Some(want.clone()));
        assert_eq!(
            json_in_answer("The result is {\"a\": 1}, as asked."),
            Some(want)
        );
        assert_eq!(json_in_answer("[1, 2]"), Some(serde_json::json!([1, 2])));
        assert_eq!(json_in_answer("no json here"), None);
        assert_eq!(json_in_answer("{broken"), None);
        assert_eq!(json_in_answer("} backwards {"), None);
    }
}
