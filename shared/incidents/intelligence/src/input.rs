//! Every client input of the intelligence routes, parsed and bounded before any table, model
//! or embeddings call: a wrong type, a missing field or a value out of bounds is an
//! [`Invalid`] naming each field (snake_case names, as the API writes them).

use llm::ProviderKind;
use platform::{FieldErrors, Invalid};
use serde_json::{Map, Value};

/// The longest log text one analysis takes, in characters.
pub const MAX_CONTENT_CHARS: usize = 20_000;
/// The largest runbook document, in UTF-8 bytes (after it is trimmed).
pub const MAX_DOCUMENT_BYTES: usize = 200 * 1024;
/// The longest document title, in characters.
pub const MAX_TITLE_CHARS: usize = 200;
/// The most tags of a document, and the longest tag.
pub const MAX_TAGS: usize = 20;
pub const MAX_TAG_CHARS: usize = 50;
/// The longest search query or analyses query text, in characters.
pub const MAX_QUERY_CHARS: usize = 1_000;
/// `top_k` of a search: 1 to 20, default 5.
pub const MAX_TOP_K: usize = 20;
pub const DEFAULT_TOP_K: usize = 5;
/// `limit` of an analyses query: 1 to 50, default 20.
pub const MAX_LIMIT: usize = 50;
pub const DEFAULT_LIMIT: usize = 20;
/// The longest service name (as the incident platform bounds it).
pub const MAX_SERVICE_CHARS: usize = incidents::input::MAX_NAME_CHARS;

/// `POST /api/v1/analyze`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalyzeInput {
    pub content: String,
    /// `None`: the deployment's `LLM_PROVIDER`.
    pub mode: Option<ProviderKind>,
    pub use_rag: bool,
    /// A platform log id (`{millis}-{32 hex}`).
    pub log_id: Option<String>,
}

/// `POST /api/v1/analyses/query`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysesQuery {
    pub text: Option<String>,
    /// A log id, or the id of an analysis made without one.
    pub log_id: Option<String>,
    pub service_name: Option<String>,
    pub limit: usize,
}

/// `POST /api/v1/rag/documents`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentInput {
    pub title: String,
    pub content: String,
    pub tags: Vec<String>,
}

/// `POST /api/v1/rag/search`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInput {
    pub query: String,
    pub top_k: usize,
}

/// A body's fields, and the problems found reading them.
struct Fields<'a> {
    object: &'a Map<String, Value>,
    errors: FieldErrors,
}

impl<'a> Fields<'a> {
    fn of(body: &'a Value) -> Result<Self, Invalid> {
        body.as_object()
            .map(|object| Self {
                object,
                errors: FieldErrors::new(),
            })
            .ok_or_else(|| Invalid::field("body", "must be a JSON object"))
    }

    fn present(&self, name: &str) -> Option<&'a Value> {
        self.object.get(name).filter(|v| !v.is_null())
    }

    /// A string of 1 to `max` characters after trimming (the count is of the text as sent).
    fn text(&mut self, name: &str, max: usize, required: bool) -> Option<String> {
        match self.present(name) {
            None => {
                if required {
                    self.errors.add(name, "is required");
                }
                None
            }
            Some(Value::String(s)) if s.trim().is_empty() => {
                self.errors.add(name, "must not be blank");
                None
            }
            Some(Value::String(s)) if s.chars().count() > max => {
                self.errors
                    .add(name, format!("must be at most {max} characters"));
                None
            }
            Some(Value::String(s)) => Some(s.trim().to_string()),
            Some(_) => {
                self.errors.add(name, "must be a string");
                None
            }
        }
    }

    /// An integer from `min` to `max`, `default` when absent.
    fn integer(&mut self, name: &str, min: usize, max: usize, default: usize) -> Option<usize> {
        let value = match self.present(name) {
            None => return Some(default),
            Some(Value::Number(n)) => {
                let bound = |b: usize| u64::try_from(b).unwrap_or(u64::MAX);
                platform::validation::whole_number_in(n, bound(min), bound(max))
                    .and_then(|v| usize::try_from(v).ok())
            }
            Some(_) => None,
        };
        if value.is_none() {
            self.errors
                .add(name, format!("must be an integer from {min} to {max}"));
        }
        value
    }

    fn boolean(&mut self, name: &str) -> Option<bool> {
        match self.present(name) {
            None => Some(false),
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                self.errors.add(name, "must be true or false");
                None
            }
        }
    }

    fn finish(self) -> Result<(), Invalid> {
        self.errors.finish()
    }
}

/// A platform log id: what `POST /api/v1/logs` assigned.
pub fn is_log_id(raw: &str) -> bool {
    incidents::input::is_log_id(raw)
}

/// The key analyses are stored under: a log id, or (for an analysis of text without a log)
/// the analysis's own id, a lowercase uuid.
pub fn is_analysis_key(raw: &str) -> bool {
    is_log_id(raw)
        || (raw.len() == 36
            && uuid::Uuid::parse_str(raw).is_ok()
            && !raw.bytes().any(|b| b.is_ascii_uppercase()))
}

/// `{content, mode?, use_rag?, log_id?}`.
pub fn parse_analyze(body: &Value) -> Result<AnalyzeInput, Invalid> {
    let mut fields = Fields::of(body)?;
    let content = fields.text("content", MAX_CONTENT_CHARS, true);
    let mode = match fields.present("mode") {
        None => None,
        Some(Value::String(s)) => match s.parse::<ProviderKind>() {
            Ok(kind) => Some(kind),
            Err(_) => {
                fields.errors.add("mode", "must be local or cloud");
                None
            }
        },
        Some(_) => {
            fields.errors.add("mode", "must be local or cloud");
            None
        }
    };
    let use_rag = fields.boolean("use_rag");
    let log_id = match fields.present("log_id") {
        None => None,
        Some(Value::String(s)) if is_log_id(s.trim()) => Some(s.trim().to_string()),
        Some(_) => {
            fields.errors.add(
                "log_id",
                "must be a log id of this platform ({millis}-{32 hex digits})",
            );
            None
        }
    };
    fields.finish()?;
    match (content, use_rag) {
        (Some(content), Some(use_rag)) => Ok(AnalyzeInput {
            content,
            mode,
            use_rag,
            log_id,
        }),
        _ => Err(Invalid::field("body", "is not an analysis request")),
    }
}

/// `{text?, log_id?, service_name?, limit?}`.
pub fn parse_query(body: &Value) -> Result<AnalysesQuery, Invalid> {
    let mut fields = Fields::of(body)?;
    let text = fields.text("text", MAX_QUERY_CHARS, false);
    let log_id = match fields.present("log_id") {
        None => None,
        Some(Value::String(s)) if is_analysis_key(s.trim()) => Some(s.trim().to_string()),
        Some(_) => {
            fields.errors.add(
                "log_id",
                "must be a log id of this platform, or the id of an analysis made without one",
            );
            None
        }
    };
    let service_name = fields.text("service_name", MAX_SERVICE_CHARS, false);
    let limit = fields.integer("limit", 1, MAX_LIMIT, DEFAULT_LIMIT);
    fields.finish()?;
    Ok(AnalysesQuery {
        text,
        log_id,
        service_name,
        limit: limit.unwrap_or(DEFAULT_LIMIT),
    })
}

/// `{title, content, tags?}`.
pub fn parse_document(body: &Value) -> Result<DocumentInput, Invalid> {
    let mut fields = Fields::of(body)?;
    let title = fields.text("title", MAX_TITLE_CHARS, true);
    let content = match fields.present("content") {
        None => {
            fields.errors.add("content", "is required");
            None
        }
        Some(Value::String(s)) if s.trim().is_empty() => {
            fields.errors.add("content", "must not be blank");
            None
        }
        Some(Value::String(s)) if s.trim().len() > MAX_DOCUMENT_BYTES => {
            fields.errors.add(
                "content",
                format!("must be at most {MAX_DOCUMENT_BYTES} bytes (UTF-8)"),
            );
            None
        }
        Some(Value::String(s)) => Some(s.trim().to_string()),
        Some(_) => {
            fields.errors.add("content", "must be a string");
            None
        }
    };
    let tags = match fields.present("tags") {
        None => Some(Vec::new()),
        Some(Value::Array(items)) if items.len() > MAX_TAGS => {
            fields
                .errors
                .add("tags", format!("must hold at most {MAX_TAGS} tags"));
            None
        }
        Some(Value::Array(items)) => {
            let mut tags: Vec<String> = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match item.as_str().map(str::trim) {
                    Some(tag)
                        if !tag.is_empty()
                            && tag.chars().count() <= MAX_TAG_CHARS
                            && !tag.chars().any(char::is_control) =>
                    {
                        if !tags.iter().any(|t| t == tag) {
                            tags.push(tag.to_string());
                        }
                    }
                    _ => fields.errors.add(
                        format!("tags[{i}]"),
                        format!("must be a string of 1 to {MAX_TAG_CHARS} characters"),
                    ),
                }
            }
            Some(tags)
        }
        Some(_) => {
            fields.errors.add("tags", "must be an array of strings");
            None
        }
    };
    fields.finish()?;
    match (title, content, tags) {
        (Some(title), Some(content), Some(tags)) => Ok(DocumentInput {
            title,
            content,
            tags,
        }),
        _ => Err(Invalid::field("body", "is not a document")),
    }
}

/// `{query, top_k?}`.
pub fn parse_search(body: &Value) -> Result<SearchInput, Invalid> {
    let mut fields = Fields::of(body)?;
    let query = fields.text("query", MAX_QUERY_CHARS, true);
    let top_k = fields.integer("top_k", 1, MAX_TOP_K, DEFAULT_TOP_K);
    fields.finish()?;
    match (query, top_k) {
        (Some(query), Some(top_k)) => Ok(SearchInput { query, top_k }),
        _ => Err(Invalid::field("body", "is not a search")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields_of(err: Invalid) -> Vec<String> {
        err.errors().iter().map(|e| e.field.clone()).collect()
    }

    const LOG: &str = "1732486400000-5b0f3c1e00004000800000000000000a";

    #[test]
    fn analyze_requests() {
        let ok = parse_analyze(
            &json!({"content": " boom ", "mode": "LOCAL", "use_rag": true, "log_id": LOG}),
        )
        .unwrap();
        assert_eq!(
            ok,
            AnalyzeInput {
                content: "boom".into(),
                mode: Some(ProviderKind::Local),
                use_rag: true,
                log_id: Some(LOG.into()),
            }
        );
        let minimal = parse_analyze(&json!({"content": "x"})).unwrap();
        assert_eq!((minimal.mode, minimal.use_rag), (None, false));
        let err = parse_analyze(
            &json!({"content": " ", "mode": "gpu", "use_rag": "yes", "log_id": "42"}),
        )
        .unwrap_err();
        assert_eq!(fields_of(err), ["content", "mode", "use_rag", "log_id"]);
        let err =
            parse_analyze(&json!({"content": "x".repeat(MAX_CONTENT_CHARS + 1)})).unwrap_err();
        assert_eq!(fields_of(err), ["content"]);
        assert_eq!(
            fields_of(parse_analyze(&json!({})).unwrap_err()),
            ["content"]
        );
        assert_eq!(fields_of(parse_analyze(&json!([1])).unwrap_err()), ["body"]);
        assert!(parse_analyze(&json!({"content": "x".repeat(MAX_CONTENT_CHARS)})).is_ok());
    }

    #[test]
    fn queries() {
        let all = parse_query(&json!({})).unwrap();
        assert_eq!(all.limit, DEFAULT_LIMIT);
        let id = "5b0f3c1e-0000-4000-8000-00000000000a";
        assert_eq!(
            parse_query(&json!({"log_id": id}))
                .unwrap()
                .log_id
                .as_deref(),
            Some(id)
        );
        let err =
            parse_query(&json!({"text": "", "log_id": "../x", "service_name": 7, "limit": 51}))
                .unwrap_err();
        assert_eq!(fields_of(err), ["text", "log_id", "service_name", "limit"]);
        assert!(parse_query(&json!({"limit": 0})).is_err());
        assert!(parse_query(&json!({"log_id": id.to_uppercase()})).is_err());
    }

    #[test]
    fn documents() {
        let ok = parse_document(&json!({"title": "Disk full", "content": "Free space.", "tags": ["disk", " disk ", "ops"]})).unwrap();
        assert_eq!(ok.tags, ["disk", "ops"]);
        let err = parse_document(&json!({"title": "", "content": "x".repeat(MAX_DOCUMENT_BYTES + 1), "tags": ["ok", "", 3]})).unwrap_err();
        assert_eq!(fields_of(err), ["title", "content", "tags[1]", "tags[2]"]);
        // Bytes, not characters: 4-byte characters reach the bound four times sooner.
        let wide = "😀".repeat(MAX_DOCUMENT_BYTES / 4 + 1);
        assert!(parse_document(&json!({"title": "t", "content": wide})).is_err());
        let many: Vec<String> = (0..=MAX_TAGS).map(|i| format!("t{i}")).collect();
        assert_eq!(
            fields_of(
                parse_document(&json!({"title": "t", "content": "c", "tags": many})).unwrap_err()
            ),
            ["tags"]
        );
        assert_eq!(
            fields_of(
                parse_document(&json!({"title": "t", "content": "c", "tags": "ops"})).unwrap_err()
            ),
            ["tags"]
        );
    }

    #[test]
    fn searches() {
        assert_eq!(
            parse_search(&json!({"query": "disk"})).unwrap().top_k,
            DEFAULT_TOP_K
        );
        assert_eq!(
            parse_search(&json!({"query": "disk", "top_k": 2.0}))
                .unwrap()
                .top_k,
            2,
            "JSON's 2.0 is the integer 2"
        );
        for bad in [
            json!(0),
            json!(21),
            json!(2.5),
            json!("3"),
            json!(-1),
            json!(-0.0),
        ] {
            let err = parse_search(&json!({"query": "disk", "top_k": bad})).unwrap_err();
            assert_eq!(fields_of(err), ["top_k"]);
        }
        let err = parse_search(&json!({"query": "q".repeat(MAX_QUERY_CHARS + 1)})).unwrap_err();
        assert_eq!(fields_of(err), ["query"]);
    }
}
