//! The term index against the emulator (`AWS_ENDPOINT_URL`, which `local/test` starts), each
//! test on a fresh `SearchIndexTable` (pk/sk): matching, ranking, AND semantics, removal,
//! edits, exact df under redelivery, crashes and racing versions, AWS limits, and budgets.
//! After every write scenario the whole table is checked: each term's df equals its
//! postings, and the global counters equal the forward items.

// All test code (helpers too): a failed unwrap, expect or index is a failed test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue as SdkValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType,
};
use community_search::{
    Applied, DynamoSearchIndex, IndexDoc, QueryTerms, Resume, SearchIndex, SearchLimits,
    Truncation, Window,
};
use platform::dynamo::{item_size, key, Table, MAX_ITEM_BYTES};

/// One test at a time: moto copies a table for every item of a transaction, and parallel
/// tests on a loaded machine push single calls past the client's timeout.
static EMULATOR: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

struct Fixture {
    _turn: tokio::sync::MutexGuard<'static, ()>,
    index: DynamoSearchIndex,
    db: aws_sdk_dynamodb::Client,
    name: String,
}

/// A new, empty search table in the emulator.
async fn fixture() -> Fixture {
    assert!(
        std::env::var_os("AWS_ENDPOINT_URL").is_some(),
        "AWS_ENDPOINT_URL is not set: run through local/test, which starts the emulator"
    );
    let turn = EMULATOR.lock().await;
    let env = platform::Env::from_process();
    let db = aws_sdk_dynamodb::Client::new(&platform::aws::sdk_config(&env));
    let name = format!("search-{}", uuid::Uuid::new_v4().simple());
    let mut create = db
        .create_table()
        .table_name(&name)
        .billing_mode(BillingMode::PayPerRequest);
    for (attribute, kind) in [("pk", KeyType::Hash), ("sk", KeyType::Range)] {
        create = create
            .key_schema(
                KeySchemaElement::builder()
                    .attribute_name(attribute)
                    .key_type(kind)
                    .build()
                    .unwrap(),
            )
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(attribute)
                    .attribute_type(ScalarAttributeType::S)
                    .build()
                    .unwrap(),
            );
    }
    create.send().await.expect("create table");
    let aws = platform::aws::AwsClients::from_env(&env).await;
    Fixture {
        _turn: turn,
        index: DynamoSearchIndex::new(Table::new(aws.dynamodb, name.clone())),
        db,
        name,
    }
}

fn post(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

fn doc(n: u32, version: u64, title: &str, body: &str) -> IndexDoc {
    IndexDoc {
        post_id: post(n),
        version,
        title: title.into(),
        body: body.into(),
        published_live: true,
        first_published_at: Some(format!("2026-11-{:02}T10:00:00.000Z", 1 + n % 28)),
    }
}

fn unpublished(n: u32, version: u64) -> IndexDoc {
    IndexDoc {
        published_live: false,
        ..doc(n, version, "Ignored title", "ignored body")
    }
}

/// `call` until it succeeds, at most 5 times while the emulator times out: what the
/// indexer's queue does with a failed message (applying is idempotent).
async fn again<T, F, Fut>(mut call: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, community_search::SearchError>>,
{
    let mut attempt = 0;
    loop {
        attempt += 1;
        match call().await {
            Ok(v) => return v,
            Err(e) if e.is_unavailable() && attempt < 5 => eprintln!("again after: {e}"),
            Err(e) => panic!("{e:?}"),
        }
    }
}

const PAGE: Window = Window {
    offset: 0,
    limit: 20,
};

impl Fixture {
    async fn apply(&self, doc: &IndexDoc) -> Applied {
        again(|| self.index.apply(doc)).await
    }

    /// The ids found for `q`, best first.
    async fn find(&self, q: &str) -> Vec<String> {
        let query = QueryTerms::parse(q).expect("query");
        let hits = again(|| self.index.search(&query, PAGE)).await;
        hits.hits.into_iter().map(|h| h.post_id).collect()
    }

    async fn scan(&self) -> Vec<std::collections::HashMap<String, SdkValue>> {
        let mut items = Vec::new();
        let mut start = None;
        loop {
            let out = self
                .db
                .scan()
                .table_name(&self.name)
                .set_exclusive_start_key(start)
                .send()
                .await
                .expect("scan");
            items.extend(out.items.unwrap_or_default());
            match out.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => return items,
            }
        }
    }

    /// Every term's df against its postings, the global counters against the forward items;
    /// returns the df of every term seen.
    async fn assert_consistent(&self) -> BTreeMap<String, i64> {
        let num = |item: &std::collections::HashMap<String, SdkValue>, name: &str| -> i64 {
            item.get(name)
                .map(|v| v.as_n().expect("number").parse().expect("integer"))
                .unwrap_or(0)
        };
        let mut df = BTreeMap::new();
        let mut postings: BTreeMap<String, i64> = BTreeMap::new();
        let (mut docs, mut total_len, mut forward_docs, mut forward_len) = (0, 0, 0, 0);
        for item in self.scan().await {
            let pk = item["pk"].as_s().unwrap().clone();
            let sk = item["sk"].as_s().unwrap().clone();
            if let Some(term) = pk.strip_prefix("T#") {
                if sk == "#DF" {
                    df.insert(term.to_string(), num(&item, "df"));
                } else {
                    *postings.entry(term.to_string()).or_default() += 1;
                }
            } else if pk == "GLOBAL" {
                docs = num(&item, "docs");
                total_len = num(&item, "totalLen");
            } else if sk == "#FWD" {
                let terms = item
                    .get("terms")
                    .map(|t| t.as_m().unwrap().len())
                    .unwrap_or(0);
                if terms > 0 {
                    forward_docs += 1;
                    forward_len += num(&item, "len");
                }
            }
        }
        for (term, count) in &df {
            assert_eq!(
                postings.get(term).copied().unwrap_or(0),
                *count,
                "df of {term}"
            );
        }
        for term in postings.keys() {
            assert!(df.contains_key(term), "postings of {term} without df");
        }
        assert_eq!(
            (docs, total_len),
            (forward_docs, forward_len),
            "global counters"
        );
        df.retain(|_, v| *v != 0);
        df
    }

    async fn forward_size(&self, n: u32) -> usize {
        let item = self
            .index
            .table()
            .get(key(format!("P#{}", post(n)), "#FWD"))
            .await
            .expect("get")
            .expect("forward item");
        item_size(&item)
    }
}

#[tokio::test]
async fn finds_by_stemmed_and_folded_terms() {
    let f = fixture().await;
    f.apply(&doc(
        1,
        1,
        "Café running guide",
        "Where to run near a good café.",
    ))
    .await;
    f.apply(&doc(2, 1, "Tea ceremonies", "Green tea, slowly."))
        .await;
    assert_eq!(f.find("CAFÉS runs").await, [post(1)]);
    assert_eq!(f.find("cafe RUNNING").await, [post(1)]);
    assert_eq!(f.find("ceremony").await, [post(2)]);
    assert!(f.find("the and of").await.is_empty());
    f.assert_consistent().await;
}

#[tokio::test]
async fn ranks_title_match_above_body_match() {
    let f = fixture().await;
    f.apply(&doc(
        1,
        1,
        "Weekend plans",
        "A kayak trip on the quiet river with friends",
    ))
    .await;
    f.apply(&doc(
        2,
        1,
        "Kayak weekend",
        "A paddle trip on the quiet river with friends",
    ))
    .await;
    let query = QueryTerms::parse("kayak").unwrap();
    let hits = again(|| f.index.search(&query, PAGE)).await;
    assert_eq!(
        hits.hits
            .iter()
            .map(|h| h.post_id.clone())
            .collect::<Vec<_>>(),
        [post(2), post(1)]
    );
    assert!(hits.hits[0].score > hits.hits[1].score);
    assert_eq!(hits.total, 2);
    assert_eq!(hits.truncated, None);
}

#[tokio::test]
async fn all_terms_must_match() {
    let f = fixture().await;
    f.apply(&doc(1, 1, "Alpine lakes", "Swimming in cold water"))
        .await;
    f.apply(&doc(2, 1, "Alpine huts", "Sleeping in the mountains"))
        .await;
    f.apply(&doc(3, 1, "City pools", "Swimming indoors")).await;
    assert_eq!(f.find("alpine swimming").await, [post(1)]);
    let mut both = f.find("alpine").await;
    both.sort();
    assert_eq!(both, [post(1), post(2)]);
    assert!(f.find("alpine unheardofword").await.is_empty());
    assert!(f.find("swimming mountains").await.is_empty());
}

#[tokio::test]
async fn removal_on_unpublish_and_delete() {
    let f = fixture().await;
    f.apply(&doc(
        1,
        1,
        "Lighthouse keepers",
        "Stories of lighthouse keepers",
    ))
    .await;
    f.apply(&doc(2, 1, "Lighthouse maps", "Maps of every lighthouse"))
        .await;
    assert_eq!(f.find("lighthouse").await.len(), 2);
    // Unpublished (a draft again) or soft-deleted: the empty target.
    assert!(!matches!(
        f.apply(&unpublished(1, 2)).await,
        Applied::Paused { .. }
    ));
    assert_eq!(f.find("lighthouse").await, [post(2)]);
    assert!(f.find("keeper").await.is_empty());
    // Removed for good.
    let removed = post(2);
    again(|| f.index.remove(&removed)).await;
    assert!(f.find("lighthouse").await.is_empty());
    let df = f.assert_consistent().await;
    assert!(df.is_empty(), "no term left: {df:?}");
    // A later version of a removed post is ignored.
    assert_eq!(
        f.apply(&doc(2, 9, "Lighthouse maps", "Back?")).await,
        Applied::UpToDate
    );
    assert!(f.find("lighthouse").await.is_empty());
}

#[tokio::test]
async fn edit_removes_stale_terms_and_adds_new() {
    let f = fixture().await;
    f.apply(&doc(1, 1, "Winter gardening", "Protect roots from frost"))
        .await;
    f.apply(&doc(
        1,
        2,
        "Summer gardening",
        "Water roots against drought",
    ))
    .await;
    assert!(f.find("winter").await.is_empty());
    assert!(f.find("frost").await.is_empty());
    assert_eq!(f.find("summer drought").await, [post(1)]);
    assert_eq!(f.find("gardening roots").await, [post(1)]);
    let df = f.assert_consistent().await;
    assert_eq!(df.get("garden"), Some(&1));
    assert_eq!(df.get("winter"), None);
}

#[tokio::test]
async fn redelivery_keeps_df_exact() {
    let f = fixture().await;
    let one = doc(1, 1, "Shared words", "common ground shared by both posts");
    let two = doc(2, 1, "Shared words too", "common ground again");
    f.apply(&one).await;
    // The same message again: nothing to do.
    assert_eq!(f.apply(&one).await, Applied::UpToDate);
    // Redeliveries racing each other and another post on the same terms.
    tokio::join!(f.apply(&two), f.apply(&two), f.apply(&one));
    let df = f.assert_consistent().await;
    assert_eq!(df["common"], 2);
    assert_eq!(df["share"], 2);
    assert_eq!(df["post"], 1);
}

/// A body of `count` distinct terms `prefix00000`… (digits keep them unstemmed).
fn many_terms(prefix: &str, from: usize, count: usize) -> String {
    (from..from + count)
        .map(|i| format!("{prefix}{i:05}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test]
async fn crash_after_chunk_k_resumes() {
    let f = fixture().await;
    // 122 new terms (120 + the title's 2): 244 writes, 3 chunks. (Few: moto's transactions
    // copy the table for every item they write.)
    let big = doc(1, 1, "Big post", &many_terms("t", 0, 120));
    // The start and 1 chunk, then the indexer "crashes".
    assert_eq!(
        f.index.apply_within(&big, 2).await.unwrap(),
        Applied::Paused { transactions: 2 }
    );
    // Chunks are atomic with their df updates: consistent even now, and half visible.
    let df = f.assert_consistent().await;
    assert_eq!(df.len(), 49);
    // Redelivered twice, racing: the rest, once.
    let (a, b) = tokio::join!(f.apply(&big), f.apply(&big));
    let spent = |r: Applied| match r {
        Applied::Indexed { transactions } => transactions,
        // The other one did it all before this one looked.
        Applied::UpToDate => 0,
        other => panic!("{other:?}"),
    };
    // The 2 chunks left and the finish, between them.
    assert!(spent(a) + spent(b) >= 3);
    let df = f.assert_consistent().await;
    assert_eq!(df.len(), 122);
    assert!(df.values().all(|&d| d == 1));
    assert_eq!(f.find("t00000 t00119 big").await, [post(1)]);
}

#[tokio::test]
async fn newer_version_arriving_during_indexing() {
    let f = fixture().await;
    // v1: 82 terms, 2 chunks; paused after its first.
    let v1 = doc(1, 1, "Version one", &many_terms("a", 0, 80));
    let v2 = doc(1, 2, "Version two", &many_terms("b", 0, 60));
    assert!(matches!(
        f.index.apply_within(&v1, 2).await.unwrap(),
        Applied::Paused { .. }
    ));
    // The newer version finishes the older one first, then applies itself.
    assert!(!matches!(f.apply(&v2).await, Applied::Paused { .. }));
    // The older message, delivered late: ignored.
    assert_eq!(f.apply(&v1).await, Applied::UpToDate);
    let df = f.assert_consistent().await;
    assert!(
        df.keys().all(|t| !t.starts_with('a')),
        "v1's terms are gone"
    );
    assert_eq!(df.keys().filter(|t| t.starts_with('b')).count(), 60);
    assert!(f.find("a00001").await.is_empty());
    assert_eq!(f.find("b00001 two").await, [post(1)]);
}

#[tokio::test]
async fn post_of_2000_terms_stays_within_aws_limits() {
    let f = fixture().await;
    // 2,502 distinct terms: the 2,000 most frequent are kept (the title's 2, and the 1,998
    // body terms written twice).
    let body = format!(
        "{} {}",
        many_terms("w", 0, 2_500),
        many_terms("w", 0, 1_998)
    );
    let big = doc(1, 1, "Enormous glossary", &body);
    // The start (the forward item with the 2,000-term target) and 3 chunks of 98 writes plus
    // the progress mark. Every transaction is checked against 100 items and 4 MB before it
    // is sent, and moto refuses more than 100 items too. All 43 transactions of this post
    // are checked without the emulator (`every_transaction_of_the_largest_post_fits_dynamodb`):
    // moto copies the table for each item of a transaction, so 41 chunks take minutes there.
    assert_eq!(
        f.index.apply_within(&big, 4).await.unwrap(),
        Applied::Paused { transactions: 4 }
    );
    let size = f.forward_size(1).await;
    assert!(size < MAX_ITEM_BYTES / 4, "forward item of {size} bytes");
    let target = f
        .index
        .table()
        .get(key(format!("P#{}", post(1)), "#FWD"))
        .await
        .unwrap()
        .unwrap();
    let platform::dynamo::AttributeValue::M(terms) = &target["target"] else {
        panic!("target map");
    };
    assert_eq!(terms.len(), 2_000);
    assert!(terms.contains_key("enorm") && terms.contains_key("w01997"));
    assert!(!terms.contains_key("w01998"));
    let df = f.assert_consistent().await;
    assert_eq!(df.len(), 3 * 49);
}

#[tokio::test]
async fn leapfrog_over_small_chunks_finds_every_match_in_rank_order() {
    let f = fixture().await;
    for n in 0..24 {
        // Every third post has "harbor"; all have "boat".
        let body = if n % 3 == 0 { "boat harbor" } else { "boat" };
        f.apply(&doc(n, 1, "Daily log", body)).await;
    }
    let small = f.index.clone().with_limits(SearchLimits {
        driver_chunk: 2,
        ..SearchLimits::default()
    });
    let query = QueryTerms::parse("harbor boat").unwrap();
    let hits = again(|| small.search(&query, PAGE)).await;
    assert_eq!(hits.total, 8);
    assert_eq!(hits.truncated, None);
    // The same scores: ties go to the newer post.
    let dates: Vec<&str> = hits
        .hits
        .iter()
        .map(|h| h.first_published_at.as_str())
        .collect();
    let mut sorted = dates.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(dates, sorted);
    // Window paging.
    let second = again(|| {
        small.search(
            &query,
            Window {
                offset: 5,
                limit: 5,
            },
        )
    })
    .await;
    assert_eq!(second.hits, hits.hits[5..8]);
    assert_eq!(second.total, 8);
}

#[tokio::test]
async fn budget_truncation_is_flagged() {
    let f = fixture().await;
    for n in 0..20 {
        f.apply(&doc(n, 1, "Market report", "prices rose")).await;
    }
    let query = QueryTerms::parse("market prices").unwrap();
    let full = again(|| f.index.search(&query, PAGE)).await;
    assert_eq!((full.total, full.truncated), (20, None));
    // Postings budget: 10 driver postings, nothing left for the other term.
    let postings = f.index.clone().with_limits(SearchLimits {
        driver_chunk: 10,
        max_postings: 10,
        ..SearchLimits::default()
    });
    let hits = again(|| postings.search(&query, PAGE)).await;
    assert_eq!(hits.truncated, Some(Truncation::Budget));
    assert!(hits.postings_read <= 10);
    assert_eq!(hits.total, 0);
    // Query budget: 2 chunks of 4 (2 calls each), then stop with the 8 newest matches.
    let calls = f.index.clone().with_limits(SearchLimits {
        driver_chunk: 4,
        max_queries: 4,
        ..SearchLimits::default()
    });
    let hits = again(|| calls.search(&query, PAGE)).await;
    assert_eq!(hits.truncated, Some(Truncation::Budget));
    assert_eq!((hits.total, hits.queries), (8, 4));
    // Match cap: the 5 newest.
    let capped = f.index.clone().with_limits(SearchLimits {
        max_matches: 5,
        ..SearchLimits::default()
    });
    let hits = again(|| capped.search(&query, PAGE)).await;
    assert_eq!(
        (hits.total, hits.truncated),
        (5, Some(Truncation::MatchCap))
    );
    // Windows past the cap are refused.
    assert!(f
        .index
        .search(
            &query,
            Window {
                offset: 995,
                limit: 10
            }
        )
        .await
        .is_err());
}

/// Past the match cap a resume point continues the ranking: segments of the newest matches,
/// each ranked, each page within one plan's budget, every match given out exactly once.
#[tokio::test]
async fn resume_points_walk_past_the_match_cap() {
    let f = fixture().await;
    for n in 0..20 {
        // Scores differ by the body's count of "prices", so a segment's rank order is not
        // its date order.
        let body = format!("prices rose{}", " prices".repeat((n % 4) as usize));
        f.apply(&doc(n, 1, "Market report", &body)).await;
    }
    let capped = f.index.clone().with_limits(SearchLimits {
        driver_chunk: 3,
        max_matches: 5,
        ..SearchLimits::default()
    });
    let query = QueryTerms::parse("market prices").unwrap();
    let mut from = Resume::default();
    let mut segments: Vec<Vec<String>> = vec![Vec::new()];
    for _ in 0..40 {
        let hits = again(|| {
            capped.search_from(
                &query,
                from.clone(),
                Window {
                    offset: 0,
                    limit: 2,
                },
            )
        })
        .await;
        assert!(hits.total <= 5 && hits.queries <= 24, "{hits:?}");
        segments
            .last_mut()
            .unwrap()
            .extend(hits.hits.iter().map(|h| h.post_id.clone()));
        if hits.hits.len() < hits.available {
            let last = hits.hits.last().unwrap();
            from = Resume {
                below: from.below.clone(),
                after: Some((
                    last.score,
                    format!("{}#{}", last.first_published_at, last.post_id),
                )),
            };
        } else if let Some(below) = hits.resume_below {
            from = Resume {
                below: Some(below),
                after: None,
            };
            segments.push(Vec::new());
        } else {
            break;
        }
    }
    // A segment that ends exactly at the oldest match cannot know it: its resume point leads to
    // one empty page, as a DynamoDB page ending at the last item does.
    if segments.last().is_some_and(Vec::is_empty) {
        segments.pop();
    }
    let mut all: Vec<String> = segments.concat();
    assert_eq!(all.len(), 20, "{segments:?}");
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 20, "each match once");
    // Segments of the 5 newest, then the 5 next: posts 19..15 first, ranked inside.
    assert_eq!(segments.len(), 4, "{segments:?}");
    let mut first = segments[0].clone();
    first.sort();
    let mut newest: Vec<String> = (15..20).map(post).collect();
    newest.sort();
    assert_eq!(first, newest);
    let full = again(|| {
        capped.search(
            &query,
            Window {
                offset: 0,
                limit: 5,
            },
        )
    })
    .await;
    let ranked: Vec<String> = full.hits.iter().map(|h| h.post_id.clone()).collect();
    assert_eq!(segments[0], ranked, "the first segment pages in rank order");
}
