//! Community search: a term index of published posts in DynamoDB (`SearchIndexTable`),
//! behind the [`SearchIndex`] port, so a managed engine can replace it without touching the
//! community service. No Scan anywhere: every read is a key lookup or a range of one term.
//!
//! # Pieces
//!
//! - [`mod@analyze`]: the platform's text analysis (the `text-analysis` crate: lowercase,
//!   accent folding, alphanumeric tokens of 2-32 bytes, the Snowball English stop list, our
//!   own Porter2 stemmer; "Café Running" → `cafe`, `run`). The same analysis serves indexing,
//!   queries ([`QueryTerms`]: 1-8 distinct terms) and the caller's re-check of a hit
//!   ([`Analyzed::contains_all`]).
//! - [`DynamoSearchIndex`]: postings `T#{term}` / `{firstPublishedAt}#{postId}` (weight
//!   `w = 1000·tfTitle + tfBody` and the post length `l`), one `#DF` counter per term, a
//!   `GLOBAL` counter of posts and lengths, and per post a forward item (`#FWD`: the applied
//!   term map and version) and a progress item (`#PROG`). Its module docs list the items.
//!
//! # Indexing (the community indexer, one SQS message per post)
//!
//! [`SearchIndex::apply`] takes the post as read from the posts table ([`IndexDoc`]). The
//! target is the analysis of a PUBLISHED, live post (at most 2,000 distinct terms, the most
//! frequent kept), else empty, which removes every posting. The diff from the forward item is
//! written in chunks: each chunk is one TransactWriteItems of ≤98 writes (postings and df
//! `ADD ±1`) plus the progress mark `ADD done :k` under `pending = :v AND NOT
//! contains(done, :k)`. A redelivered or concurrent message therefore skips applied chunks,
//! and df stays exact; a crash between chunks is resumed by the next delivery; an older
//! unfinished version is finished from its stored target before a newer one starts; a stale
//! message (older version) changes nothing. The last transaction swaps the forward map and
//! moves `GLOBAL`. [`SearchIndex::apply_within`] bounds the transactions per invocation.
//! An edit rewrites only the postings of the terms it changed: a stored length within 25%
//! of the new one is kept.
//!
//! DynamoDB's limits are checked in code before a write is sent (the emulator ignores most
//! of them): ≤100 items and ≤4 MB per transaction, ≤400 KB per item, key parts ≤2,048 /
//! 1,024 bytes (terms over 64 bytes are dropped; the analyzer stops at 32), ≤100 keys per
//! BatchGetItem (unprocessed keys are retried by `platform::dynamo::Table::batch_get_all`).
//!
//! # Query
//!
//! One BatchGet of the terms' df and `GLOBAL`; a term no post holds gives no match (AND).
//! The rarest term drives a merge-join, newest first: chunks of 1,000 of its postings, and
//! for each chunk `[lo, hi]` a range Query of every other term (`sk BETWEEN :lo AND :hi`),
//! keeping the posts present in all. It stops at 1,000 matches, at the end of the driver, or
//! when the budget is spent: **≤20,000 postings read (~1.5 MB, ≤190 eventually consistent
//! RRU) and ≤24 Query calls**. Ranking is then exact over all matches; otherwise it covers
//! the newest matches found, [`Hits::truncated`] says so and `search_truncated` is logged.
//! Score, BM25F-lite ([`rank`]): `Σ idf(t)·tf'(k1+1)/(tf' + k1(1−b+b·l/avgLen))` with
//! `tf' = 3·tfTitle + tfBody`, `k1 = 1.2`, `b = 0.75`, `idf = ln(1+(N−df+0.5)/(df+0.5))`;
//! ties go to the newer post, then the id. [`Window`] pages over the ranked matches.
//!
//! Past the cap, a [`Resume`] point continues the ranking: a truncated query gives the key
//! below which the next segment of older matches starts ([`Hits::resume_below`]); a page
//! from a resume point re-runs the same bounded plan from there and skips the ranks up to
//! its last (score, key). So every page, however deep, costs at most one plan's budget.
//!
//! The caller (community) re-checks each hit against the post (PUBLISHED, live, and, when
//! the post's version is ahead of the index, [`analyze()`] + [`Analyzed::contains_all`]), so
//! drafts and deleted posts are never returned even while the index lags, and asks for a few
//! more ranks than it shows to replace failed hits.
//!
//! # Costs
//!
//! - A new 1,000-word post (~330 distinct stems after stop words): 330 postings + 330 df +
//!   7 chunk marks + 2 forward and 2 progress writes + 1 global ≈ 672 item writes in 9
//!   transactions (start, 7 chunks, finish)
//!   ≈ 1,360 WRU (transactional writes count double) ≈ **$0.00085 per post** at $0.625 per
//!   million WRU. An edit touching ~30 terms: 1 chunk, ~130 WRU. Removal mirrors creation.
//! - A typical 2-term query with a rare driver: ~5 calls (the df BatchGet, 2 Queries, and
//!   the caller's BatchGet and rate-limit write), 20-40 RRU ≈ $3-5 per million queries; a
//!   query that spends the whole budget ≈ $25 per million.
//!
//! # Scale, and when to move to OpenSearch Serverless
//!
//! Index size ≈ postings × (~75 B + ~100 B of DynamoDB per-item overhead): ~580 MB at 10,000
//! posts of 1,000 words, ~58 GB (~$15/month) at a million. Storage is not the trigger. A
//! term's postings are one partition key, so a very common term is a hot key for writes
//! (3,000 WRU/s per partition, adaptive capacity splits it) and a long range for reads;
//! that is what the budget caps. Writes of common terms' df counters conflict under
//! concurrency, which the indexer's MaximumConcurrency (2) keeps rare.
//!
//! Move search to **OpenSearch Serverless** (floor ≈ $175-700/month: 0.5-2 OCU × 2 at
//! $0.24/OCU-hour) when any of these holds:
//! - search sustains ≥ ~15 queries/s (DynamoDB's read cost reaches the OCU floor);
//! - there are ≥ 1 million published posts, or > 5% of queries are truncated by the
//!   20,000-posting budget (the `search_truncated` log);
//! - the product needs phrases, fuzziness, highlighting or analyzers for other languages.
//!
//! Migration: implement [`SearchIndex`] as an `OpenSearchIndex` (SigV4 over the platform's
//! HTTP client) returning the same [`Hits`]; fill it from the forward items (a Query per
//! post id, no Scan of the posts table); switch the backend by configuration; then drop
//! `SearchIndexTable` (it is rebuildable and not retained).

pub mod analyze;
mod index;
pub mod plan;
pub mod rank;
mod store;

pub use analyze::{analyze, Analyzed, QueryError, QueryTerms};
pub use index::{
    Applied, Hit, Hits, IndexDoc, Resume, SearchError, SearchIndex, Truncation, Window, MAX_MATCHES,
};
pub use store::{
    DynamoSearchIndex, SearchLimits, DRIVER_CHUNK, MAX_BATCH_GET_KEYS, MAX_POSTINGS_READ,
    MAX_QUERY_CALLS,
};
