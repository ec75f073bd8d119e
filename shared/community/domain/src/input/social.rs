//! A reaction asked for on a post.

use platform::Invalid;

use crate::model::social::ReactionKind;

/// A reaction asked for on a post: LIKE, DISLIKE, or NONE to take it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PostReaction(pub(crate) Option<ReactionKind>);

impl PostReaction {
    pub fn parse(raw: Option<&str>) -> Result<Self, Invalid> {
        match raw {
            Some("LIKE") => Ok(Self(Some(ReactionKind::Like))),
            Some("DISLIKE") => Ok(Self(Some(ReactionKind::Dislike))),
            Some("NONE") => Ok(Self(None)),
            Some(_) => Err(Invalid::field("type", "must be LIKE, DISLIKE or NONE")),
            None => Err(Invalid::field("type", "is required")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reaction_types() {
        assert_eq!(
            PostReaction::parse(Some("LIKE")),
            Ok(PostReaction(Some(ReactionKind::Like)))
        );
        assert_eq!(PostReaction::parse(Some("NONE")), Ok(PostReaction(None)));
        for bad in [Some("like"), Some(""), None] {
            let e = PostReaction::parse(bad).unwrap_err();
            assert!(e.to_string().contains("type"), "{e}");
        }
    }
}
