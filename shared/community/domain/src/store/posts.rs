//! Posts: the stored post (META and BODY), the counted read, lists by topic and cards. The
//! one-transaction writes (create, replace, patch) with their lists and counters are in
//! `post_write`.

use std::collections::HashMap;

use super::{list_page, string, ListKeys, Store};
use crate::input::{PageRequest, PostStatus};
use crate::keys;
use crate::model::summary::SummaryStatus;
use crate::model::{Author, TopicRef};
use platform::dynamo::{s, AttributeValue, Attributes, DynamoError, Item};

/// The META attribute holding the newest version the search index holds.
pub(crate) const INDEXED_VERSION: &str = "indexedVersion";
/// The attribute of a post's META while some of its marks may be out of their lists.
pub(crate) const MARKS_HIDDEN: &str = "marksHidden";

/// A post's META item, read back.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredPost {
    pub id: String,
    pub author_id: String,
    pub author: Author,
    pub status: PostStatus,
    pub title: String,
    pub excerpt: String,
    pub excerpt_generated: bool,
    pub cover_image_url: Option<String>,
    pub topics: Vec<TopicRef>,
    pub read_time_minutes: i64,
    pub word_count: i64,
    pub like_count: i64,
    pub dislike_count: i64,
    pub comment_count: i64,
    pub view_count: i64,
    pub save_count: i64,
    pub created_at: String,
    pub updated_at: String,
    pub first_published_at: Option<String>,
    pub version: i64,
    /// The newest version the search index holds (`indexedVersion`, set by the indexer);
    /// `None` for a post not indexed since the attribute was introduced.
    pub indexed_version: Option<i64>,
    pub deleted: bool,
    /// The AI summary's state (`shared/community/domain/src/summary.rs`).
    pub summary: SummaryState,
    /// Reactions may still be under the post (`R#{u}`, written before they had their own
    /// partition): true until the reaction counter has moved them all out.
    pub legacy_reactions: bool,
    /// Some of its likes, dislikes or bookmarks may be out of their users' lists (it was not
    /// public since it had them): a walk brings them back when it is public again.
    pub marks_hidden: bool,
}

/// META's marker that every reaction to the post is in its own partition.
pub(crate) const REACTION_ROWS: &str = "reactionRows";
pub(crate) const REACTION_ROWS_OWN: &str = "OWN";

/// A post's AI summary as its META item holds it: absent (`status` `None`) until the post is
/// first published.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SummaryState {
    pub status: Option<SummaryStatus>,
    pub text: Option<String>,
    pub generated_at: Option<String>,
    pub model: Option<String>,
    /// Bumped by every request for a summary (new content, publication, re-trigger): the
    /// version the queue's messages carry, so an older message never overwrites a newer one.
    pub version: i64,
    /// SHA-256 (hex) of the content the wanted summary describes.
    pub content_hash: Option<String>,
    /// While FAILED: the sort key of the post's row in the failed-summary list.
    pub failed_sk: Option<String>,
}

impl SummaryState {
    pub(crate) fn from_item(item: &Item) -> Self {
        Self {
            status: item
                .opt_string("summaryStatus")
                .and_then(|s| SummaryStatus::parse(&s)),
            text: item.opt_string("summary"),
            generated_at: item.opt_string("summaryGeneratedAt"),
            model: item.opt_string("summaryModel"),
            version: match item.get("summaryVersion") {
                Some(AttributeValue::N(v)) => v.parse().unwrap_or(0),
                _ => 0,
            },
            content_hash: item.opt_string("summaryHash"),
            failed_sk: item.opt_string("summaryFailedSk"),
        }
    }
}

/// A post's BODY item.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PostBody {
    pub content: String,
    pub source_urls: Vec<String>,
}

pub(super) fn author_item(author: &Author) -> AttributeValue {
    AttributeValue::M(HashMap::from([
        ("id".to_string(), s(&author.id)),
        ("username".to_string(), s(&author.username)),
        ("displayName".to_string(), s(&author.display_name)),
        ("role".to_string(), s(&author.role)),
        ("organisation".to_string(), AttributeValue::Null(true)),
    ]))
}

pub(super) fn map_string(map: &HashMap<String, AttributeValue>, name: &str) -> String {
    map.get(name)
        .and_then(|v| v.as_s().ok())
        .cloned()
        .unwrap_or_default()
}

impl StoredPost {
    pub(crate) fn from_item(store: &Store, item: &Item) -> Result<Self, DynamoError> {
        let t = &store.table;
        let table = t.name();
        let author = match item.get("author") {
            Some(AttributeValue::M(m)) => Author {
                id: map_string(m, "id"),
                username: map_string(m, "username"),
                display_name: map_string(m, "displayName"),
                role: map_string(m, "role"),
                organisation: None,
            },
            _ => return Err(t.corrupt("author is missing")),
        };
        let topics = match item.get("topics") {
            Some(AttributeValue::L(list)) => list
                .iter()
                .filter_map(|v| v.as_m().ok())
                .map(|m| TopicRef {
                    id: map_string(m, "id"),
                    name: map_string(m, "name"),
                })
                .collect(),
            _ => Vec::new(),
        };
        let status = match string(t, item, "status")?.as_str() {
            "DRAFT" => PostStatus::Draft,
            _ => PostStatus::Published,
        };
        Ok(Self {
            id: string(t, item, "id")?,
            author_id: string(t, item, "authorId")?,
            author,
            status,
            title: string(t, item, "title")?,
            excerpt: item.opt_string("excerpt").unwrap_or_default(),
            excerpt_generated: item.opt_bool("excerptGenerated").unwrap_or(false),
            cover_image_url: item.opt_string("coverImageUrl"),
            topics,
            read_time_minutes: item.counter(table, "readTimeMinutes")?,
            word_count: item.counter(table, "wordCount")?,
            like_count: item.counter(table, "likeCount")?.max(0),
            dislike_count: item.counter(table, "dislikeCount")?.max(0),
            comment_count: item.counter(table, "commentCount")?.max(0),
            view_count: item.counter(table, "viewCount")?.max(0),
            save_count: item.counter(table, "saveCount")?.max(0),
            created_at: string(t, item, "createdAt")?,
            updated_at: string(t, item, "updatedAt")?,
            first_published_at: item.opt_string("firstPublishedAt"),
            version: item.counter(table, "version")?,
            indexed_version: item
                .contains_key(INDEXED_VERSION)
                .then(|| item.counter(table, INDEXED_VERSION))
                .transpose()?,
            deleted: item.contains_key("deletedAt"),
            summary: SummaryState::from_item(item),
            legacy_reactions: item.opt_string(REACTION_ROWS).as_deref() != Some(REACTION_ROWS_OWN),
            marks_hidden: item.contains_key(MARKS_HIDDEN),
        })
    }

    /// Visible to `caller`: live, and published or theirs.
    pub fn visible_to(&self, caller: Option<&str>) -> bool {
        !self.deleted && (self.status == PostStatus::Published || caller == Some(&self.author_id))
    }

    /// Listed for everyone: live and published.
    pub fn is_public(&self) -> bool {
        !self.deleted && self.status == PostStatus::Published
    }

    /// The search index may not hold this version yet.
    pub fn index_lags(&self) -> bool {
        self.indexed_version.is_none_or(|v| v < self.version)
    }
}

impl PostBody {
    pub(crate) fn from_item(item: &Item) -> Self {
        Self {
            content: item.opt_string("content").unwrap_or_default(),
            source_urls: item.strings("", "sourceUrls").unwrap_or_default(),
        }
    }

    pub(super) fn item(&self, post_id: &str) -> Item {
        let mut item = keys::post_body(post_id);
        item.insert("content".to_string(), s(&self.content));
        item.insert(
            "sourceUrls".to_string(),
            AttributeValue::L(self.source_urls.iter().map(s).collect()),
        );
        item
    }
}

impl Store {
    /// The post's META, read consistently (`None`: no such post).
    pub async fn post(&self, id: &str) -> Result<Option<StoredPost>, DynamoError> {
        match self.table.get(keys::post(id)).await? {
            Some(item) => StoredPost::from_item(self, &item).map(Some),
            None => Ok(None),
        }
    }

    /// The post's BODY, read consistently.
    pub async fn body(&self, id: &str) -> Result<PostBody, DynamoError> {
        Ok(self
            .table
            .get(keys::post_body(id))
            .await?
            .map(|item| PostBody::from_item(&item))
            .unwrap_or_default())
    }

    /// The page of a list (`topic_id` `None`: every published post), newest first, with
    /// bodies, and the next page's cursor: a Query of the feed (keys only) and one BatchGet.
    pub async fn feed_page(
        &self,
        topic_id: Option<&str>,
        page: &PageRequest,
    ) -> Result<(Vec<(StoredPost, PostBody)>, Option<String>), DynamoError> {
        let list = ListKeys {
            index: None,
            pk_name: "pk",
            pk: keys::feed_pk(topic_id),
            sk_name: "sk",
        };
        let (rows, next) = list_page(&self.table, list, page).await?;
        let ids: Vec<String> = rows
            .iter()
            .filter_map(|row| row.opt_string("sk"))
            .filter_map(|sk| keys::post_of_feed_sk(&sk).map(str::to_string))
            .collect();
        Ok((self.posts_with_bodies(&ids).await?, next))
    }

    /// These posts with their bodies, in the order of `ids`; missing ones left out.
    pub async fn posts_with_bodies(
        &self,
        ids: &[String],
    ) -> Result<Vec<(StoredPost, PostBody)>, DynamoError> {
        let keys_: Vec<Item> = ids
            .iter()
            .flat_map(|id| [keys::post(id), keys::post_body(id)])
            .collect();
        let items = self.table.batch_get_all(keys_, None).await?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let pk = format!("POST#{id}");
            let find = |sk: &str| {
                items.iter().find(|i| {
                    i.opt_string("pk").as_deref() == Some(pk.as_str())
                        && i.opt_string("sk").as_deref() == Some(sk)
                })
            };
            if let Some(meta) = find(keys::META) {
                let body = find(keys::BODY)
                    .map(PostBody::from_item)
                    .unwrap_or_default();
                out.push((StoredPost::from_item(self, meta)?, body));
            }
        }
        Ok(out)
    }

    /// These posts' META items (no bodies), in the order of `ids`; missing ones left out.
    pub async fn posts(&self, ids: &[String]) -> Result<Vec<StoredPost>, DynamoError> {
        let items = self
            .table
            .batch_get_all(ids.iter().map(|id| keys::post(id)).collect(), None)
            .await?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(item) = items
                .iter()
                .find(|i| i.opt_string("id").as_deref() == Some(id.as_str()))
            {
                out.push(StoredPost::from_item(self, item)?);
            }
        }
        Ok(out)
    }

    /// Published live posts in all: the sum of the `STATS` shards.
    pub async fn published_count(&self) -> Result<i64, DynamoError> {
        let shards = self
            .table
            .batch_get_all(
                (0..keys::STATS_SHARDS).map(keys::stats_shard).collect(),
                None,
            )
            .await?;
        let mut total = 0;
        for shard in &shards {
            total += shard.counter(self.table.name(), "publishedCount")?;
        }
        Ok(total.max(0))
    }
}
