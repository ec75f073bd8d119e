//! The closed sets of words the community routes accept, and the shapes of their strings, as
//! the contract documents them. Requests keep these fields as strings so a wrong value is
//! refused with a message naming the field; these types only give the contract its `enum` or
//! `pattern`. Every pattern states exactly what the domain's `parse` accepts (the contract test
//! `patterns_state_what_the_code_accepts` holds them to it): Rust's `trim` (Unicode
//! White_Space), `char::is_control` (U+0000-U+001F, U+007F-U+009F).

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

/// An absolute http or https URI of at most 2,048 characters, without whitespace or control
/// characters, with a host (a name or an IPv4 address; no brackets in the authority)
/// (`community::input::WebUrl`).
#[derive(ToSchema)]
#[schema(
    max_length = 2048,
    pattern = "^[Hh][Tt][Tt][Pp][Ss]?://(?:[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000/?#\\[\\]]*@)?(?:[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000/?#@:\\[\\]]+|[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000/?#@\\[\\]]+:[0-9]*)(?:[/?#][^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*)?$",
    example = "https://example.com/a"
)]
#[allow(dead_code)]
pub(crate) struct WebUrlText(String);

/// A topic name: at most 50 characters, trimmed, holding a letter, mark or digit of any script
/// (its slug) and no control characters (`community::input::TopicName`).
#[derive(ToSchema)]
#[schema(
    min_length = 1,
    max_length = 50,
    pattern = "^[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*[^\\u0000-\\u001f\\u007f-\\u009f]*[\\p{L}\\p{M}\\p{N}][^\\u0000-\\u001f\\u007f-\\u009f]*[\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*$",
    example = "Public Transport"
)]
#[allow(dead_code)]
pub(crate) struct TopicNameText(String);
