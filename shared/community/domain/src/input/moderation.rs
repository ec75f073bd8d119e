//! A removal's input: the admin's reason.

use platform::Invalid;

/// The most characters a removal's reason may have.
pub const MAX_REASON_CHARS: usize = 500;

/// Why an admin removed something: 1 to 500 characters, trimmed, no control characters (one
/// line, as the log shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemovalReason(String);

impl RemovalReason {
    pub fn parse(raw: Option<&str>) -> Result<Self, Invalid> {
        let raw = raw.ok_or_else(|| Invalid::field("reason", "is required"))?;
        // The raw length is bounded, so the schema's `maxLength` states the rule exactly.
        if raw.chars().count() > MAX_REASON_CHARS {
            return Err(Invalid::field(
                "reason",
                format!("must be at most {MAX_REASON_CHARS} characters"),
            ));
        }
        if raw.chars().any(char::is_control) {
            return Err(Invalid::field(
                "reason",
                "must not contain control characters",
            ));
        }
        let reason = raw.trim();
        if reason.is_empty() {
            return Err(Invalid::field("reason", "must not be blank"));
        }
        Ok(Self(reason.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_one_trimmed_line_of_1_to_500_characters() {
        assert_eq!(
            RemovalReason::parse(Some("  spam  ")).unwrap().as_str(),
            "spam"
        );
        assert!(RemovalReason::parse(Some(&"é".repeat(500))).is_ok());
        for bad in [
            None,
            Some(""),
            Some("   "),
            Some("two\nlines"),
            Some("bell\u{7}"),
        ] {
            let e = RemovalReason::parse(bad).unwrap_err();
            assert!(e.to_string().contains("reason"), "{bad:?}: {e}");
        }
        assert!(RemovalReason::parse(Some(&"x".repeat(501))).is_err());
    }
}
