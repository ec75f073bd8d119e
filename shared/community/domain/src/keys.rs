//! Every key and key-shaped attribute of `CommunityTable` (the design's table, section 2), in
//! one place: stores build keys only through these functions.

use platform::dynamo::{key, Item};

pub const META: &str = "META";
pub const BODY: &str = "BODY";
/// The GSI holding per-author lists and the topic catalog (KEYS_ONLY).
pub const GSI1: &str = "gsi1";
/// The partition of every topic in `gsi1`.
pub const TOPICS: &str = "TOPICS";
/// The number of `STATS#{n}` shards the published-post count is spread over.
pub const STATS_SHARDS: u32 = 8;

pub fn post(post_id: &str) -> Item {
    key(format!("POST#{post_id}"), META)
}

pub fn post_body(post_id: &str) -> Item {
    key(format!("POST#{post_id}"), BODY)
}

/// The list of every published post (`None`) or of one topic's.
pub fn feed_pk(topic_id: Option<&str>) -> String {
    match topic_id {
        Some(t) => format!("FEED#{t}"),
        None => "FEED#ALL".to_string(),
    }
}

/// A post's row in a list: sorted by first publication, then id.
pub fn feed(topic_id: Option<&str>, first_published_at: &str, post_id: &str) -> Item {
    key(feed_pk(topic_id), format!("{first_published_at}#{post_id}"))
}

/// The post id of a feed row's sort key.
pub fn post_of_feed_sk(sk: &str) -> Option<&str> {
    sk.rsplit_once('#').map(|(_, id)| id)
}

pub fn topic(topic_id: &str) -> Item {
    key(format!("TOPIC#{topic_id}"), META)
}

pub fn topic_slug(slug: &str) -> Item {
    key(format!("TOPICSLUG#{slug}"), META)
}

/// The progress (or the end) of the backfill of `gsi3` for marks written before it.
pub fn mark_index_migration() -> Item {
    key("MIGRATION#mark-index", META)
}

/// The mark of the finished migration of topics to the slug rule of `platform::topic`.
pub fn topic_slug_migration() -> Item {
    key("MIGRATION#topic-slugs-unicode", META)
}

/// The catalog order of a topic in `gsi1`.
pub fn topic_gsi1sk(category_id: &str, sort_order: u32, slug: &str) -> String {
    format!("{category_id}#{sort_order:05}#{slug}")
}

pub fn profile(user_id: &str) -> Item {
    key(format!("USER#{user_id}"), "PROFILE")
}

pub fn stats_shard(shard: u32) -> Item {
    key(format!("STATS#{shard}"), "POSTS")
}

/// The shard a post's publication is counted in: a stable hash of its id.
pub fn stats_shard_of(post_id: &str) -> u32 {
    fnv1a(post_id) % STATS_SHARDS
}

/// FNV-1a: stable across builds and platforms, unlike std's hasher.
fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The number of `IDXQ#{n}` partitions the search outbox is spread over.
pub const INDEX_QUEUE_SHARDS: u32 = 8;

/// A post's row in the search outbox: its latest write not yet in the search index.
pub fn index_pending(post_id: &str) -> Item {
    key(index_pending_pk(stats_shard_of(post_id)), post_id)
}

/// One partition of the search outbox.
pub fn index_pending_pk(shard: u32) -> String {
    format!("IDXQ#{shard}")
}

/// The number of `SUMQ#{n}` partitions the summary outbox is spread over.
pub const SUMMARY_QUEUE_SHARDS: u32 = 8;

/// A post's row in the summary outbox: a summary wanted and not yet generated nor given up.
pub fn summary_pending(post_id: &str) -> Item {
    key(summary_pending_pk(stats_shard_of(post_id)), post_id)
}

/// One partition of the summary outbox.
pub fn summary_pending_pk(shard: u32) -> String {
    format!("SUMQ#{shard}")
}

/// The partition of the failed-summary list, sorted `{failedAt}#{postId}`.
pub const SUMMARY_FAILED_PK: &str = "SUMFAILED";

/// A post's row in the failed-summary list.
pub fn summary_failed(sk: &str) -> Item {
    key(SUMMARY_FAILED_PK, sk)
}

/// The sort key of a failed summary's row.
pub fn summary_failed_sk(failed_at: &str, post_id: &str) -> String {
    format!("{failed_at}#{post_id}")
}

/// The GSI of a post's marks (likes, dislikes, bookmarks), for moving them in and out of
/// their users' lists when the post's visibility changes (KEYS_ONLY, sparse).
pub const GSI3: &str = "gsi3";
/// The number of partitions a post's marks are spread over in `gsi3`: a viral post's 5,000
/// likes a second write about 10,000 index units a second (the row's put and its count),
/// 160 a partition (measured by `local/bench-keyheat`).
pub const MARK_SHARDS: u32 = 64;

/// The `gsi3` partition of a post's marks that are in their users' lists (`listed`) or taken
/// out of them while the post is not public.
pub fn marks_pk(post_id: &str, listed: bool, shard: u32) -> String {
    let state = if listed { "LISTED" } else { "HIDDEN" };
    format!("MARKS#{post_id}#{state}#{shard}")
}

/// The `gsi3` sort key of `user_id`'s mark of `kind` (`LIKE`, `DISLIKE`, `BOOKMARK`).
pub fn mark_sk(kind: &str, user_id: &str) -> String {
    format!("{kind}#{user_id}")
}

/// The `gsi3` shard of a user's marks.
pub fn mark_shard_of(user_id: &str) -> u32 {
    fnv1a(user_id) % MARK_SHARDS
}

/// The partition of the moderation log, sorted `{removedAt}#{entryId}`. Admin removals are
/// rare (far under one a second), so one partition holds them at any scale.
pub const MODERATION_LOG_PK: &str = "MODLOG";

/// An entry of the moderation log.
pub fn moderation_entry(removed_at: &str, entry_id: &str) -> Item {
    key(MODERATION_LOG_PK, format!("{removed_at}#{entry_id}"))
}

/// An applied chunk of follower deltas, kept a week so a repeat is a no-op.
pub fn delta(idempotency_key: &str, chunk: usize) -> Item {
    key(format!("DELTA#{idempotency_key}#{chunk}"), META)
}

/// The author lists of `gsi1`.
pub fn author_list(author_id: &str, published: bool) -> String {
    let state = if published { "PUBLISHED" } else { "DRAFT" };
    format!("AUTHOR#{author_id}#{state}")
}

/// The owner index (`gsi2`) partition of a user's items, for account cleanup.
pub fn owner(user_id: &str) -> String {
    format!("OWNER#{user_id}")
}

/// A user's one reaction to a post, its own partition so a viral post's likes spread: the
/// reaction (LIKE, DISLIKE, or NONE until the removal is counted) and the one the post's
/// counters hold (`counted`).
pub fn reaction(post_id: &str, user_id: &str) -> Item {
    key(format!("REACT#{post_id}#{user_id}"), META)
}

/// A reaction written before reactions had their own partition: under the post, always
/// counted. Read as a fallback and moved to [`reaction`] on the user's next change.
pub fn legacy_reaction(post_id: &str, user_id: &str) -> Item {
    key(format!("POST#{post_id}"), format!("R#{user_id}"))
}

/// That `reader` was counted viewing a post during `hour` (hours since the epoch): one row
/// per reader, post and hour, each its own partition, expiring after the hour.
pub fn view(post_id: &str, reader: &str, hour: i64) -> Item {
    key(format!("VIEW#{post_id}#{reader}#{hour}"), META)
}

/// A user's bookmark of a post.
pub fn bookmark(post_id: &str, user_id: &str) -> Item {
    key(format!("POST#{post_id}"), format!("B#{user_id}"))
}

/// The `gsi1` lists of a user's likes, dislikes and bookmarks.
pub fn user_list(kind: &str, user_id: &str) -> String {
    format!("{kind}#{user_id}")
}

/// A comment under its post, sorted by creation.
pub fn comment(post_id: &str, created_at: &str, comment_id: &str) -> Item {
    key(
        format!("POST#{post_id}"),
        format!("C#{created_at}#{comment_id}"),
    )
}

/// The sort-key prefix of a post's comments.
pub const COMMENT_PREFIX: &str = "C#";

/// A comment's pointer: where it is, for a consistent lookup by id.
pub fn comment_pointer(comment_id: &str) -> Item {
    key(format!("COMMENT#{comment_id}"), META)
}

/// A user's like of a comment.
pub fn comment_like(comment_id: &str, user_id: &str) -> Item {
    key(format!("COMMENT#{comment_id}"), format!("L#{user_id}"))
}

/// The `gsi1` partition of a user's comment likes in one post's thread.
pub fn comment_likes_list(user_id: &str, post_id: &str) -> String {
    format!("CLIKES#{user_id}#{post_id}")
}

/// The sort-key prefix of a member's notifications in their inbox.
pub const NOTIFICATION_PREFIX: &str = "N#";

/// A member's inbox: their notifications (`N#{id}`, time-ordered) and its state (`STATE`:
/// the read-all watermark). One partition per member.
pub fn inbox_pk(user_id: &str) -> String {
    format!("INBOX#{user_id}")
}

/// A notification in its member's inbox.
pub fn notification(user_id: &str, id: &str) -> Item {
    key(inbox_pk(user_id), format!("{NOTIFICATION_PREFIX}{id}"))
}

/// A member's inbox state: `readAllBefore`, the read-all watermark.
pub fn inbox_state(user_id: &str) -> Item {
    key(inbox_pk(user_id), "STATE")
}

/// The partition of the reports on one post or comment (`post` or `comment`).
pub fn reports_pk(target: &str, target_id: &str) -> String {
    format!("REPORT#{target}#{target_id}")
}

/// The sort-key prefix of the reports in a target's partition.
pub const REPORT_PREFIX: &str = "BY#";

/// A member's one report of a target.
pub fn report(target: &str, target_id: &str, reporter_id: &str) -> Item {
    key(
        reports_pk(target, target_id),
        format!("{REPORT_PREFIX}{reporter_id}"),
    )
}

/// A target's open group of reports: where its row in the queue is (`queueSk`). Its own
/// partition, apart from the reports: a spam wave writes both at once.
pub fn report_group(target: &str, target_id: &str) -> Item {
    key(format!("REPORTGROUP#{target}#{target_id}"), "OPEN")
}

/// The partition of the admins' queue of open report groups, sorted
/// `{openedAt}#{target}#{targetId}`. Reports are people's clicks: one partition holds a spam
/// wave's hundreds a second (see `store/reports.rs`).
pub const REPORT_QUEUE_PK: &str = "REPORTQ";

/// A group's row in the admins' queue.
pub fn report_queue(sk: &str) -> Item {
    key(REPORT_QUEUE_PK, sk)
}

/// An author's name (case folded) pointing to their user id: written when they publish, read by
/// their feed (`/feeds/authors/{username}`).
pub fn author_name(username: &str) -> Item {
    key(format!("AUTHORNAME#{}", username.to_lowercase()), META)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_stable_and_in_range() {
        let a = stats_shard_of("5b0f3c1e-0000-4000-8000-000000000001");
        assert_eq!(a, stats_shard_of("5b0f3c1e-0000-4000-8000-000000000001"));
        let spread: std::collections::BTreeSet<u32> = (0..64)
            .map(|i| stats_shard_of(&format!("post-{i}")))
            .collect();
        assert!(spread.iter().all(|s| *s < STATS_SHARDS));
        assert!(spread.len() > 4, "the hash spreads posts over the shards");
    }

    #[test]
    fn feed_keys_sort_newest_last_and_give_back_the_post() {
        let k = feed(Some("t"), "2026-01-01T00:00:00.000Z", "p1");
        let sk = k["sk"].as_s().expect("a string").clone();
        assert_eq!(post_of_feed_sk(&sk), Some("p1"));
        assert_eq!(k["pk"].as_s().map(String::as_str), Ok("FEED#t"));
        assert_eq!(topic_gsi1sk("science", 7, "space"), "science#00007#space");
    }
}
