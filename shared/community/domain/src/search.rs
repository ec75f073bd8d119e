//! Search of published posts: the query ([`SearchText`]), the ranked page ([`PostSearch`])
//! over a [`SearchIndex`] (the port `community-search` defines; `DynamoSearchIndex` now),
//! and the index's upkeep: the indexer's [`PostSearch::index`] and the queue that asks
//! for it ([`IndexQueue`], [`IndexRequest`]).
//!
//! # How a write reaches the index
//!
//! Every post write puts the post's outbox row (`store::index_queue`) in its own
//! transaction; the community function then sends an [`IndexRequest`] to the search index
//! queue. The indexer reads the post as it is now, makes the index hold that version, records
//! it on the post (`indexedVersion` on META), and deletes the outbox row. A message lost between the commit and the send is found by the
//! index scheduler ([`PostSearch::lagging`]): so every write is indexed, usually within a
//! second, at worst within the scheduler's period.
//!
//! # Why a hit is checked again
//!
//! The index lags writes by up to that delay. Each hit is re-read from the posts table with
//! its page: only published, live posts are answered, and a post whose META says the index
//! has not caught up (`indexedVersion` below `version`) is kept only if its current title and
//! body still hold every term. The mark is on the post's own item, which the page reads
//! anyway: reading the outbox instead made its 8 partitions share every search. So drafts, deleted posts and stale matches are never answered; a page may then hold
//! fewer posts than `size`, which the few spare ranks asked for usually prevent.

use std::collections::{HashMap, HashSet};

use community_search::{analyze, Applied, IndexDoc, QueryTerms, Resume, SearchIndex, Window};
use platform::aws::Sqs;
use platform::dynamo::{Attributes, Item};
use platform::{ConfigError, Env, Invalid};

use crate::error::CommunityError;
use crate::input::{PageRequest, UserId};
use crate::keys;
use crate::model::PostPage;
use crate::service::{full, page_of, with_marks};
use crate::store::posts::{PostBody, StoredPost};
use crate::store::social::{marks, Marks};
use crate::store::Store;

/// The longest query text, in characters.
pub const MAX_QUERY_CHARS: usize = 200;
/// Ranks asked for beyond the page, to replace hits the re-check drops.
const SPARE_RANKS: usize = 4;

/// A search query: 1 to 200 characters, at most 8 distinct words after analysis. A query of
/// stop words only ("the") is valid and finds nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchText(QueryTerms);

impl SearchText {
    pub fn parse(raw: Option<&str>) -> Result<Self, Invalid> {
        let q = raw.map(str::trim).unwrap_or_default();
        if q.is_empty() {
            return Err(Invalid::field("q", "is required and must not be blank"));
        }
        if q.chars().count() > MAX_QUERY_CHARS {
            return Err(Invalid::field(
                "q",
                format!("must be at most {MAX_QUERY_CHARS} characters"),
            ));
        }
        QueryTerms::parse(q)
            .map(Self)
            .map_err(|e| Invalid::field("q", e.to_string()))
    }

    pub fn terms(&self) -> &QueryTerms {
        &self.0
    }
}

/// The search index queue's message: bring the index up to date with this post.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexRequest {
    pub post_id: String,
}

impl IndexRequest {
    pub fn new(post_id: impl Into<String>) -> Self {
        Self {
            post_id: post_id.into(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::json!({ "postId": self.post_id }).to_string()
    }

    /// Reads a message body: a post id, which is a uuid.
    pub fn parse(body: &str) -> Result<Self, String> {
        let request: Self = serde_json::from_str(body).map_err(|e| e.to_string())?;
        uuid::Uuid::parse_str(&request.post_id)
            .map_err(|_| format!("postId {:?} is not a uuid", request.post_id))?;
        Ok(Self::new(request.post_id.to_ascii_lowercase()))
    }
}

/// The search index queue (`SEARCH_INDEX_QUEUE_URL`).
#[derive(Clone, Debug)]
pub struct IndexQueue {
    sqs: Sqs,
    url: String,
}

/// Why index requests could not be sent.
#[derive(Debug, thiserror::Error)]
#[error("search index queue: {0}")]
pub struct EnqueueError(pub String);

impl IndexQueue {
    pub fn new(sqs: Sqs, url: impl Into<String>) -> Self {
        Self {
            sqs,
            url: url.into(),
        }
    }

    pub fn from_env(env: &Env, sqs: Sqs) -> Result<Self, ConfigError> {
        Ok(Self::new(sqs, env.require("SEARCH_INDEX_QUEUE_URL")?))
    }

    /// Asks the indexer to bring `post_id` up to date.
    pub async fn request(&self, post_id: &str) -> Result<(), EnqueueError> {
        self.sqs
            .send_message(&self.url, &IndexRequest::new(post_id).to_json())
            .await
            .map(|_| ())
            .map_err(|e| EnqueueError(e.to_string()))
    }

    /// Asks for several posts, ten to a SendMessageBatch.
    pub async fn request_all(&self, post_ids: &[String]) -> Result<(), EnqueueError> {
        use platform::aws::sqs::BatchEntry;
        for chunk in post_ids.chunks(10) {
            let entries: Vec<BatchEntry> = chunk
                .iter()
                .enumerate()
                .map(|(i, id)| BatchEntry {
                    id: i.to_string(),
                    message_body: IndexRequest::new(id).to_json(),
                })
                .collect();
            let out = self
                .sqs
                .send_message_batch(&self.url, &entries)
                .await
                .map_err(|e| EnqueueError(e.to_string()))?;
            if let Some(failed) = out.failed.first() {
                return Err(EnqueueError(format!(
                    "{} of {} messages refused: {}",
                    out.failed.len(),
                    entries.len(),
                    failed.message.as_deref().unwrap_or(&failed.code)
                )));
            }
        }
        Ok(())
    }
}

/// What [`PostSearch::index`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexOutcome {
    /// The index holds the post as it is now (or it is gone from it).
    Done,
    /// The transaction budget ran out; indexing the post again continues.
    Paused,
}

/// The most likes, dislikes and bookmarks one index message moves into or out of their users'
/// lists (each a two-item transaction); a post with more continues in the next message.
pub const MARK_MOVES_PER_MESSAGE: usize = 200;

/// Search over published posts, and its index's upkeep.
#[derive(Debug, Clone)]
pub struct PostSearch<I> {
    store: Store,
    index: I,
}

impl PostSearch<community_search::DynamoSearchIndex> {
    /// Search over `COMMUNITY_TABLE` and `SEARCH_INDEX_TABLE`, with the system clock.
    pub fn from_env(env: &Env, aws: &platform::aws::AwsClients) -> Result<Self, ConfigError> {
        let store = Store::new(
            platform::dynamo::Table::from_env(env, aws, "COMMUNITY_TABLE")?,
            platform::Clock::system(),
        );
        let index = community_search::DynamoSearchIndex::new(platform::dynamo::Table::from_env(
            env,
            aws,
            "SEARCH_INDEX_TABLE",
        )?);
        Ok(Self::new(store, index))
    }
}

impl<I: SearchIndex> PostSearch<I> {
    pub fn new(store: Store, index: I) -> Self {
        Self { store, index }
    }

    pub fn index_port(&self) -> &I {
        &self.index
    }

    /// The `page` of published posts holding every term of `text`, best first (title
    /// matches weigh more than body matches), with the caller's reaction and bookmark. A
    /// page's `nextCursor` continues the ranking ([`Resume`]), past the 1,000 best too.
    pub async fn search(
        &self,
        text: &SearchText,
        page: PageRequest,
        caller: Option<&UserId>,
    ) -> Result<PostPage, CommunityError> {
        if text.terms().terms().is_empty() {
            return Ok(page_of(Vec::new(), &page, 0, None));
        }
        let window = Window {
            offset: page.offset(),
            // The spare ranks stop at the cap: the deepest page still fits the window.
            limit: (usize::try_from(page.size).unwrap_or(usize::MAX) + SPARE_RANKS)
                .min(community_search::MAX_MATCHES.saturating_sub(page.offset())),
        };
        let from = page.after.as_deref().map(Resume::parse).unwrap_or_default();
        let hits = self
            .index
            .search_from(text.terms(), from.clone(), window)
            .await?;
        if hits.truncated.is_some() {
            tracing::info!(
                terms = ?text.terms().terms(),
                postings = hits.postings_read,
                "search_truncated"
            );
        }
        let ids: Vec<String> = hits.hits.iter().map(|h| h.post_id.clone()).collect();
        let mut keys_: Vec<Item> = Vec::with_capacity(ids.len() * 5);
        for id in &ids {
            keys_.extend([keys::post(id), keys::post_body(id)]);
            if let Some(user) = caller {
                keys_.extend([
                    keys::reaction(id, user.as_str()),
                    keys::legacy_reaction(id, user.as_str()),
                    keys::bookmark(id, user.as_str()),
                ]);
            }
        }
        let items = self.store.table().batch_get_all(keys_, None).await?;
        let found: HashMap<(String, String), &Item> = items
            .iter()
            .filter_map(|i| Some(((i.opt_string("pk")?, i.opt_string("sk")?), i)))
            .collect();
        let get = |key: Item| {
            let pk = key.get("pk").and_then(|v| v.as_s().ok()).cloned()?;
            let sk = key.get("sk").and_then(|v| v.as_s().ok()).cloned()?;
            found.get(&(pk, sk)).copied()
        };
        let mut posts = Vec::with_capacity(usize::try_from(page.size).unwrap_or(0));
        let mut seen = HashSet::new();
        let mut consumed = 0;
        for id in &ids {
            if posts.len() >= usize::try_from(page.size).unwrap_or(usize::MAX) {
                break;
            }
            consumed += 1;
            let Some(meta) = get(keys::post(id)) else {
                continue;
            };
            let post = StoredPost::from_item(&self.store, meta)?;
            if !post.is_public() || !seen.insert(post.id.clone()) {
                continue;
            }
            let body = get(keys::post_body(id))
                .map(PostBody::from_item)
                .unwrap_or_default();
            // A hit the index may not have caught up with is checked against the post's text.
            if post.index_lags() && !analyze(&post.title, &body.content).contains_all(text.terms())
            {
                continue;
            }
            let marks = match caller {
                Some(user) => marks(
                    get(keys::reaction(id, user.as_str())),
                    get(keys::legacy_reaction(id, user.as_str())),
                    get(keys::bookmark(id, user.as_str())).is_some(),
                ),
                None => Marks::default(),
            };
            posts.push(with_marks(full(post, body), marks));
        }
        let total = i64::try_from(hits.total).unwrap_or(i64::MAX);
        // More ranks in this segment: after the last one looked at; else the next segment.
        let next = if window.offset + consumed < hits.available {
            consumed
                .checked_sub(1)
                .and_then(|i| hits.hits.get(i))
                .map(|last| Resume {
                    below: from.below.clone(),
                    after: Some((
                        last.score,
                        format!("{}#{}", last.first_published_at, last.post_id),
                    )),
                })
        } else {
            hits.resume_below.map(|below| Resume {
                below: Some(below),
                after: None,
            })
        };
        let next_cursor = next.map(|r| platform::cursor::encode_cursor(&r.text()));
        Ok(page_of(posts, &page, total, next_cursor))
    }

    /// Brings the index up to date with `post_id` as the posts table holds it now, within
    /// `max_transactions` index writes; then clears its outbox row. Idempotent.
    pub async fn index(
        &self,
        post_id: &str,
        max_transactions: usize,
    ) -> Result<IndexOutcome, CommunityError> {
        let (post, body) = futures::try_join!(self.store.post(post_id), self.store.body(post_id))?;
        let Some(post) = post else {
            // Never written (a stray message): nothing to index, nothing to clear.
            return Ok(IndexOutcome::Done);
        };
        let doc = IndexDoc {
            post_id: post.id.clone(),
            version: u64::try_from(post.version).unwrap_or(0),
            title: post.title.clone(),
            body: body.content,
            published_live: post.is_public(),
            first_published_at: post.first_published_at.clone(),
        };
        match self.index.apply_within(&doc, max_transactions).await? {
            Applied::Indexed { .. } | Applied::UpToDate => {
                // Its marks follow it into or out of their users' lists before the outbox
                // row goes, so a lost message is sent again until they have.
                let walk = self
                    .store
                    .sync_mark_lists(&post, MARK_MOVES_PER_MESSAGE)
                    .await?;
                if !walk.finished {
                    return Ok(IndexOutcome::Paused);
                }
                self.store.index_done(post_id, post.version).await?;
                Ok(IndexOutcome::Done)
            }
            Applied::Paused { .. } => Ok(IndexOutcome::Paused),
        }
    }

    /// Posts whose latest write has waited for the index longer than `wait`, at most
    /// `limit`: their message was lost, or the indexer keeps failing on them.
    pub async fn lagging(
        &self,
        wait: chrono::Duration,
        limit: usize,
    ) -> Result<Vec<String>, CommunityError> {
        let before =
            (self.store.clock().now() - wait).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        Ok(self.store.index_lagging(&before, limit).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(e: &Invalid) -> Vec<&str> {
        e.errors().iter().map(|f| f.field.as_str()).collect()
    }

    #[test]
    fn queries_are_bounded_and_name_q() {
        for bad in [None, Some(""), Some("   ")] {
            let e = SearchText::parse(bad).unwrap_err();
            assert_eq!(fields(&e), vec!["q"], "{bad:?}");
        }
        let long = "a".repeat(MAX_QUERY_CHARS + 1);
        assert_eq!(
            fields(&SearchText::parse(Some(&long)).unwrap_err()),
            vec!["q"]
        );
        let many = "alpha bravo charlie delta echo foxtrot golf hotel india";
        assert_eq!(
            fields(&SearchText::parse(Some(many)).unwrap_err()),
            vec!["q"]
        );
        let ok = SearchText::parse(Some("  Running CAFÉS ")).unwrap();
        assert_eq!(ok.terms().terms(), ["cafe", "run"]);
        assert!(SearchText::parse(Some("the"))
            .unwrap()
            .terms()
            .terms()
            .is_empty());
    }

    #[test]
    fn index_requests_round_trip_and_refuse_junk() {
        let id = "5B0F3C1E-0000-4000-8000-000000000001";
        let parsed = IndexRequest::parse(&IndexRequest::new(id).to_json()).unwrap();
        assert_eq!(parsed.post_id, id.to_ascii_lowercase());
        assert!(IndexRequest::parse("{}").is_err());
        assert!(IndexRequest::parse(r#"{"postId":"POST#x"}"#).is_err());
        assert!(IndexRequest::parse("junk").is_err());
    }
}
