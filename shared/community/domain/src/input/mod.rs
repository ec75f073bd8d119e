//! Every input of the community service as a type that can only hold a valid value, each with
//! its `parse` (the design's section 6). A failed parse is an [`platform::Invalid`] naming the field; the
//! edge renders it as a 400 before any table is read.

pub const TITLE_CHARS: std::ops::RangeInclusive<usize> = 5..=100;
pub const MAX_CONTENT_CHARS: usize = 50_000;
pub const MAX_EXCERPT_CHARS: usize = 500;
/// The generated excerpt: at most this many characters of the content, cut at a word.
pub const GENERATED_EXCERPT_CHARS: usize = 200;
pub const MAX_URL_CHARS: usize = 2_048;
pub const MAX_SOURCE_URLS: usize = 10;
pub const MAX_TOPICS_PER_POST: usize = 10;
pub const MAX_TOPIC_NAME_CHARS: usize = 50;
pub const MAX_PAGE: u32 = 49;
pub const MAX_PAGE_SIZE: u32 = 20;
pub const DEFAULT_PAGE_SIZE: u32 = 10;
pub const MAX_CARD_IDS: usize = 50;
pub const MAX_TOPIC_NAME_IDS: usize = 100;
/// One settings change can unfollow identity's 100 followed topics and follow 100 others.
pub const MAX_DELTA_NAMES: usize = 200;
pub const MAX_DELTA: i64 = 1_000;
pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 100;
/// Words read per minute, for `readTimeMinutes`.
pub const WORDS_PER_MINUTE: usize = 200;

/// True when `text` holds a control character (line breaks and tabs allowed when `lines`).
fn has_control(text: &str, lines: bool) -> bool {
    text.chars()
        .any(|c| c.is_control() && !(lines && matches!(c, '\n' | '\r' | '\t')))
}

mod comments;
mod ids;
mod moderation;
mod notifications;
mod page;
mod posts;
mod reports;
mod search;
mod social;
mod topics;

pub use comments::{CommentLike, CommentText, MAX_COMMENT_CHARS};
pub use ids::{CardIds, CommentId, PostId, TopicId, TopicIds, UserId};
pub use moderation::{RemovalReason, MAX_REASON_CHARS};
pub use notifications::{
    is_notification_id, mentions, InboxPage, NotificationIds, DEFAULT_INBOX_LIMIT, MAX_INBOX_LIMIT,
};
pub use page::{
    admin_page, decode_cursor, encode_cursor, PageRequest, FAILED_PAGE_SIZE, MAX_CURSOR_CHARS,
    MAX_FAILED_PAGE, MAX_FAILED_PAGE_SIZE,
};
pub use posts::{
    Content, Excerpt, ExcerptChange, PostInput, PostPatch, PostStatus, RawPatch, RawPost,
    SourceUrls, Title, WebUrl,
};
pub use reports::{ReportInput, Resolution, ResolveAction, MAX_REPORT_TEXT_CHARS};
pub use search::{SearchText, MAX_QUERY_CHARS};
pub use social::PostReaction;
pub use topics::{
    slug, FollowerDeltas, IdempotencyKey, TopicName, TopicNames, TopicPrefix,
    MAX_TOPIC_PREFIX_CHARS,
};

/// Which of a user's lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserList {
    /// Posts written, in this status (drafts: the owner only).
    Posts(PostStatus),
    Bookmarks,
    Likes,
}

#[cfg(test)]
mod tests {
    use platform::Invalid;

    /// The fields an error names, in order.
    pub(super) fn fields(e: Invalid) -> Vec<String> {
        e.0.into_iter().map(|f| f.field).collect()
    }
}
