//! `CommunityTable` (keys in [`crate::keys`]): posts and their lists ([`posts`]) and topics
//! with their statistics and followers ([`topics`]).
//!
//! Access patterns of this part:
//! - a post: `POST#{p}`/`META` (everything but the body) and `POST#{p}`/`BODY` (content,
//!   sources), so cards and lists of counters read 1-2 KB, not up to 200 KB;
//! - lists: `FEED#ALL` and `FEED#{topicId}`, sort key `{firstPublishedAt}#{p}`, one row per
//!   published live post, read newest first with a Query and then one BatchGet;
//! - counters: `TOPIC#{t}`/`META` (`totalPostCount`, the day ring, `followerCount`),
//!   `USER#{u}`/`PROFILE` (`publishedCount`, `draftCount`; its `deletedAt` guards every write
//!   of a deleted account), `STATS#{0..7}`/`POSTS` (`publishedCount`, sharded by post);
//! - topic names are unique by slug: `TOPICSLUG#{slug}`/`META` holds the topic's id;
//! - the catalog: `gsi1` partition `TOPICS`, sorted `{categoryId}#{sortOrder:05}#{slug}`;
//!   a topic only a draft has named has no `gsi1` keys until a published post carries it
//!   ([`topics`]);
//! - reactions ([`social`]): `REACT#{p}#{u}`/`META`, each its own partition, the post's
//!   `likeCount`/`dislikeCount` moved a batch at a time by the reaction counter
//!   ([`reactions`]); `R#{u}` under the post is a reaction written before that;
//! - social ([`social`], [`comments`]): under the post, `B#{u}`
//!   (bookmark) and `C#{createdAt}#{c}` (comments, so a thread is one Query in order);
//!   `COMMENT#{c}`/`META` points to a comment, `COMMENT#{c}`/`L#{u}` is a like of it. Each
//!   write moves the post's or comment's counter and the user's `PROFILE` counter in the same
//!   transaction;
//! - the search outbox ([`index_queue`]): `IDXQ#{0..7}`/`{p}` while the search index lags a
//!   post's latest write (read by the index scheduler only); META's `indexedVersion` is the
//!   newest version the index holds, which a search compares with `version`;
//! - summaries ([`summaries`]): the state on META, the outbox `SUMQ#{0..7}`/`{p}` while a
//!   summary is wanted, the failed list `SUMFAILED`/`{failedAt}#{p}`;
//! - per-user lists in `gsi1`: `AUTHOR#{u}#PUBLISHED|DRAFT`, `LIKES#{u}`, `DISLIKES#{u}`,
//!   `BOOKMARKS#{u}` (sorted `{at}#{p}`), `CLIKES#{u}#{p}` (my likes in one thread); every
//!   user-owned item is also in `gsi2` under `OWNER#{u}` for account cleanup;
//! - a post's likes, dislikes and bookmarks in `gsi3`, `MARKS#{p}#LISTED|HIDDEN#{0..63}`, for
//!   moving them out of and back into those lists ([`mark_lists`]); at target a viral post's
//!   5,000 likes a second write about 160 units a second on each (the bench's hottest: 354,
//!   35%), and a post's 64 partitions are read only when it stops or starts being public;
//! - the moderation log: `MODLOG`, sorted `{removedAt}#{entryId}` ([`moderation`]): admins'
//!   removals, far under one a second, so one partition; `MIGRATION#mark-index`: one write
//!   per index-scheduler run (every 2 minutes) until the backfill has read the table.
//!
//! - inboxes ([`notifications`]): `INBOX#{u}`/`N#{id}` and `INBOX#{u}`/`STATE`; reports
//!   ([`reports`]): `REPORT#{target}#{id}`/`BY#{u}`, `REPORTGROUP#{target}#{id}`/`OPEN`, the queue `REPORTQ`.
//!
//! Every post write is one TransactWriteItems; `post_write` checks DynamoDB's item and
//! transaction limits before sending one.

pub mod cleanup;
pub mod comments;
pub mod feeds;
pub mod index_queue;
pub mod lists;
pub mod mark_lists;
pub mod moderation;
pub mod notifications;
pub mod post_write;
pub mod posts;
pub mod reactions;
pub mod reports;
pub mod search;
pub mod social;
pub mod summaries;
pub mod topics;
pub mod views;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use platform::dynamo::{s, AttributeValue, Attributes, DynamoError, Item, Table};

use crate::input::{encode_cursor, PageRequest};
use platform::Clock;

use posts::StoredPost;

/// The community table and the clock its writes are stamped with. Only the facade
/// ([`crate::Community`]) holds one.
#[derive(Clone, Debug)]
pub(crate) struct Store {
    pub(crate) table: Table,
    pub(crate) clock: Clock,
    /// Posts this instance found open to reactions, and when (see [`social`]).
    pub(crate) open_posts: Arc<Mutex<HashMap<String, (Instant, StoredPost)>>>,
    /// Held while this instance reads a post it does not remember, so concurrent reactions
    /// to one post read it once.
    pub(crate) open_post_reads: Arc<tokio::sync::Mutex<()>>,
}

impl Store {
    pub fn new(table: Table, clock: Clock) -> Self {
        Self {
            table,
            clock,
            open_posts: Arc::default(),
            open_post_reads: Arc::default(),
        }
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }
}

/// The attribute `name` of `item` as a string, or a corrupt-item error.
pub(crate) fn string(table: &Table, item: &Item, name: &str) -> Result<String, DynamoError> {
    match item.get(name) {
        Some(AttributeValue::S(v)) => Ok(v.clone()),
        _ => Err(table.corrupt(format!("{name} is missing or not a string"))),
    }
}

/// A list of numbers (the topic ring), absent or malformed read as empty.
pub(crate) fn numbers(item: &Item, name: &str) -> Vec<i64> {
    match item.get(name) {
        Some(AttributeValue::L(list)) => list
            .iter()
            .filter_map(|v| v.as_n().ok().and_then(|n| n.parse().ok()))
            .collect(),
        _ => Vec::new(),
    }
}

/// A list of numbers as DynamoDB holds it.
pub(crate) fn number_list(values: &[i64]) -> AttributeValue {
    AttributeValue::L(values.iter().map(|v| platform::dynamo::n(*v)).collect())
}

/// Where a newest-first list lives: its partition, and the sort key's name (in `index`, if any).
pub(crate) struct ListKeys<'a> {
    pub index: Option<&'a str>,
    pub pk_name: &'a str,
    pub pk: String,
    pub sk_name: &'a str,
}

/// The rows of one page of a newest-first list, and the `nextCursor` (the last row's sort key)
/// when more rows follow. A cursor's page starts right after its sort key, so no request reads
/// more than a page and one row; a page by number reads the pages before it (at most 49).
pub(crate) async fn list_page(
    table: &Table,
    list: ListKeys<'_>,
    page: &PageRequest,
) -> Result<(Vec<Item>, Option<String>), DynamoError> {
    let ListKeys {
        index,
        pk_name,
        pk,
        sk_name,
    } = list;
    let mut query = table
        .query()
        .set_index_name(index.map(str::to_string))
        .expression_attribute_names("#pk", pk_name)
        .expression_attribute_values(":pk", s(pk))
        .scan_index_forward(false);
    query = match &page.after {
        Some(after) => query
            .key_condition_expression("#pk = :pk AND #sk < :after")
            .expression_attribute_names("#sk", sk_name)
            .expression_attribute_values(":after", s(after.clone())),
        None => query.key_condition_expression("#pk = :pk"),
    };
    // One row past the page says whether another page follows.
    let wanted = page.end().saturating_add(1);
    let query = query.limit(i32::try_from(wanted).unwrap_or(i32::MAX));
    let mut rows = table.query_all(query, Some(wanted)).await?;
    let more = rows.len() == wanted;
    rows.truncate(page.end());
    let rows: Vec<Item> = rows.into_iter().skip(page.offset()).collect();
    let next = match rows.last() {
        Some(last) if more => last.opt_string(sk_name).map(|sk| encode_cursor(&sk)),
        _ => None,
    };
    Ok((rows, next))
}
