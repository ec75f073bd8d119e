//! Input validation without HTTP: a problem with one field, and the error of an input that had
//! some. Domain crates return [`Invalid`] inside their own error enums; the edge renders it as a
//! 400 that names every field.

/// The longest id (of a source, an article, a user, a topic) any route accepts, in characters:
/// at most 800 bytes of UTF-8, far below DynamoDB's 2,048-byte partition key limit.
pub const MAX_ID_CHARS: usize = 200;

/// An OpenAPI `pattern` (ECMA and Python regular expressions alike) for a string that is not
/// blank: at least one character outside Rust's `char::is_whitespace`, the set `trim` removes.
/// utoipa takes only literals: annotations repeat it, and the contract test checks they agree.
pub const NOT_BLANK_PATTERN: &str =
    "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";

/// A JSON number from `min` to `max` that is whole: `2` or `2.0` (JSON does not tell them
/// apart, and neither does an OpenAPI `integer`). Exact for bounds up to 2^53.
pub fn whole_number_in(number: &serde_json::Number, min: u64, max: u64) -> Option<u64> {
    let bounds = min..=max;
    match number.as_u64() {
        Some(n) => Some(n).filter(|n| bounds.contains(n)),
        None => number
            .as_f64()
            .filter(|f| f.fract() == 0.0 && (min as f64..=max as f64).contains(f))
            // Whole and within bounds of at most 2^53: the conversion is exact.
            .map(|f| {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let n = f as u64;
                n
            })
            .filter(|n| bounds.contains(n)),
    }
}

/// `raw` as an id of `field`: at most [`MAX_ID_CHARS`] characters.
pub fn bounded_id(field: &str, raw: String) -> Result<String, FieldError> {
    if raw.chars().count() > MAX_ID_CHARS {
        Err(FieldError::new(
            field,
            format!("must be at most {MAX_ID_CHARS} characters"),
        ))
    } else {
        Ok(raw)
    }
}

/// A problem with one input field, shown to clients as `field: reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub reason: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

/// An input that failed validation, with every field problem found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("validation failed: {}", join(.0))]
pub struct Invalid(pub Vec<FieldError>);

impl Invalid {
    /// One field's problem.
    pub fn field(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self(vec![FieldError::new(field, reason)])
    }

    pub fn errors(&self) -> &[FieldError] {
        &self.0
    }
}

impl From<FieldError> for Invalid {
    fn from(e: FieldError) -> Self {
        Self(vec![e])
    }
}

fn join(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Collects every field problem of one input so the client sees them all at once.
#[derive(Debug, Default)]
pub struct FieldErrors(Vec<FieldError>);

impl FieldErrors {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, field: impl Into<String>, reason: impl Into<String>) {
        self.0.push(FieldError::new(field, reason));
    }

    /// Records the error of a parse and keeps its value when it succeeded.
    pub fn check<T>(&mut self, result: Result<T, FieldError>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(e) => {
                self.0.push(e);
                None
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok(())` when nothing was recorded, else every problem recorded.
    pub fn finish(self) -> Result<(), Invalid> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Invalid(self.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_every_problem() {
        let mut errors = FieldErrors::new();
        assert_eq!(errors.check(Ok::<_, FieldError>(3)), Some(3));
        errors.add("name", "is required");
        assert_eq!(
            errors.check(Err::<u8, _>(FieldError::new("size", "too big"))),
            None
        );
        let invalid = errors.finish().expect_err("two problems");
        assert_eq!(
            invalid.to_string(),
            "validation failed: name: is required; size: too big"
        );
        assert!(FieldErrors::new().finish().is_ok());
    }
}
