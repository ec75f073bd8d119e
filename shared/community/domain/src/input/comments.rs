//! A comment's inputs: its text and a like asked for.

use platform::Invalid;

/// The most characters a comment may have.
pub const MAX_COMMENT_CHARS: usize = 500;

/// A comment's text: trimmed, 1 to 500 characters, no control characters but line breaks
/// and tabs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentText(String);

impl CommentText {
    pub fn parse(raw: Option<&str>) -> Result<Self, Invalid> {
        let text = raw
            .ok_or_else(|| Invalid::field("text", "is required"))?
            .trim();
        let chars = text.chars().count();
        if !(1..=MAX_COMMENT_CHARS).contains(&chars) {
            return Err(Invalid::field(
                "text",
                format!("must be 1 to {MAX_COMMENT_CHARS} characters"),
            ));
        }
        if text
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        {
            return Err(Invalid::field(
                "text",
                "must not contain control characters",
            ));
        }
        Ok(Self(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A like asked for on a comment: LIKE, or NONE to take it back (DISLIKE is refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommentLike(pub(crate) bool);

impl CommentLike {
    pub fn parse(raw: Option<&str>) -> Result<Self, Invalid> {
        match raw {
            Some("LIKE") => Ok(Self(true)),
            Some("NONE") => Ok(Self(false)),
            Some(_) => Err(Invalid::field("type", "must be LIKE or NONE")),
            None => Err(Invalid::field("type", "is required")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_bounds() {
        assert!(CommentText::parse(Some(&"x".repeat(500))).is_ok());
        assert_eq!(CommentText::parse(Some("  hi  ")).unwrap().as_str(), "hi");
        for bad in [
            Some(""),
            Some("   "),
            Some(&"x".repeat(501)[..]),
            Some("a\u{0}b"),
            None,
        ] {
            let e = CommentText::parse(bad).unwrap_err();
            assert!(e.to_string().contains("text"), "{e}");
        }
        assert!(CommentLike::parse(Some("DISLIKE")).is_err());
        assert_eq!(CommentLike::parse(Some("NONE")), Ok(CommentLike(false)));
    }
}
