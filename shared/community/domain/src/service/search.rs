//! Search of published posts: the ranked page ([`PostSearch`]) over a [`SearchIndex`] (the
//! port `community-search` defines; `DynamoSearchIndex` now), and the index's upkeep: the
//! indexer's [`PostSearch::index`] and the queue that asks for it
//! ([`crate::queues::IndexQueue`], [`crate::queues::IndexRequest`]).
//!
//! # How a write reaches the index
//!
//! Every post write puts the post's outbox row (`store::index_queue`) in its own
//! transaction; the facade then sends an [`crate::queues::IndexRequest`] to the search index
//! queue. The indexer reads the post as it is now, makes the index hold that version, records
//! it on the post (`indexedVersion` on META), and deletes the outbox row. A message lost between the commit and the send is found by the
//! index scheduler ([`Community::resend_lagging_index`]): so every write is indexed, usually within a
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

use std::collections::HashSet;

use community_search::{analyze, Applied, IndexDoc, Resume, SearchIndex, Window};
use platform::aws::AwsClients;
use platform::{ConfigError, Env};

use crate::error::CommunityError;
use crate::input::{PageRequest, SearchText, UserId};
use crate::model::jobs::IndexOutcome;
use crate::model::PostPage;
use crate::queues::IndexRequest;

use super::{full, page_of, with_marks, Community};

/// Ranks asked for beyond the page, to replace hits the re-check drops.
const SPARE_RANKS: usize = 4;

/// The most likes, dislikes and bookmarks one index message moves into or out of their users'
/// lists (each a two-item transaction); a post with more continues in the next message.
pub const MARK_MOVES_PER_MESSAGE: usize = 200;

/// Search over published posts, and its index's upkeep: the facade's door to the search
/// index, over the same table and queues as the [`Community`] it is built on.
#[derive(Debug, Clone)]
pub struct PostSearch<I> {
    community: Community,
    index: I,
}

impl PostSearch<community_search::DynamoSearchIndex> {
    /// Search over `community`'s table and `SEARCH_INDEX_TABLE`.
    pub fn from_env(
        env: &Env,
        aws: &AwsClients,
        community: Community,
    ) -> Result<Self, ConfigError> {
        let index = community_search::DynamoSearchIndex::new(platform::dynamo::Table::from_env(
            env,
            aws,
            "SEARCH_INDEX_TABLE",
        )?);
        Ok(Self::new(community, index))
    }
}

impl<I: SearchIndex> PostSearch<I> {
    pub fn new(community: Community, index: I) -> Self {
        Self { community, index }
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
        let rows = self
            .community
            .store()
            .search_rows(&ids, caller.map(UserId::as_str))
            .await?;
        let mut posts = Vec::with_capacity(usize::try_from(page.size).unwrap_or(0));
        let mut seen = HashSet::new();
        let mut consumed = 0;
        for id in &ids {
            if posts.len() >= usize::try_from(page.size).unwrap_or(usize::MAX) {
                break;
            }
            consumed += 1;
            let Some(post) = rows.post(id)? else {
                continue;
            };
            if !post.is_public() || !seen.insert(post.id.clone()) {
                continue;
            }
            let body = rows.body(id);
            // A hit the index may not have caught up with is checked against the post's text.
            if post.index_lags() && !analyze(&post.title, &body.content).contains_all(text.terms())
            {
                continue;
            }
            let marks = rows.marks(id, caller.map(UserId::as_str));
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
    /// `max_transactions` index writes; then clears its outbox row. Idempotent. A post that
    /// needs more is sent to the indexer again to continue (a failed send is the error
    /// [`CommunityError::Queue`]; without an index queue, the outbox row continues it).
    pub async fn index(
        &self,
        post_id: &str,
        max_transactions: usize,
    ) -> Result<IndexOutcome, CommunityError> {
        let store = self.community.store();
        let (post, body) = futures::try_join!(store.post(post_id), store.body(post_id))?;
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
                let walk = store.sync_mark_lists(&post, MARK_MOVES_PER_MESSAGE).await?;
                if !walk.finished {
                    return self.paused(post_id).await;
                }
                store.index_done(post_id, post.version).await?;
                Ok(IndexOutcome::Done)
            }
            Applied::Paused { .. } => self.paused(post_id).await,
        }
    }

    /// Paused: the rest of the post is asked for in a new index request.
    async fn paused(&self, post_id: &str) -> Result<IndexOutcome, CommunityError> {
        if let Some(queue) = &self.community.queues.index {
            queue
                .send(&IndexRequest::new(post_id))
                .await
                .map_err(|e| CommunityError::Queue(e.to_string()))?;
        }
        Ok(IndexOutcome::Paused)
    }
}
