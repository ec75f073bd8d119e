//! The closed sets of words the community routes accept, as the contract documents them.
//! Requests keep these fields as strings so a wrong word is refused with a message naming
//! the field; these types only give the contract its `enum`.

use utoipa::ToSchema;

/// Whether a post is visible to everyone.
#[derive(ToSchema)]
#[allow(dead_code, clippy::upper_case_acronyms)]
pub(crate) enum PostStatusName {
    DRAFT,
    PUBLISHED,
}

/// A reaction to a post; `NONE` takes it back.
#[derive(ToSchema)]
#[allow(dead_code, clippy::upper_case_acronyms)]
pub(crate) enum PostReactionName {
    LIKE,
    DISLIKE,
    NONE,
}

/// A like of a comment; `NONE` takes it back.
#[derive(ToSchema)]
#[allow(dead_code, clippy::upper_case_acronyms)]
pub(crate) enum CommentLikeName {
    LIKE,
    NONE,
}
