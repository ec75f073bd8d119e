//! The content table's rules against the emulator (`AWS_ENDPOINT_URL`, which `local/test`
//! starts), on a fresh table keyed and indexed as `template.yaml` declares `ContentTable`:
//! subscriber counts exact under concurrency, idempotent article upserts, and the last
//! subscriber taking the source and its articles with it.

// All test code (helpers too): a failed unwrap, expect or index is a failed test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod support;
use support::manifest_dir;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType,
};
use news::model::TopicRef;
use news::store::{
    ArticleFilter, ContentStore, NewArticle, NewSource, StoreError, SweepStep, Upsert, Window,
};
use news::PageRequest;
use platform::dynamo::Table;
use platform::Clock;
use serde_yaml::Value;

/// A new, empty content table in the emulator, made from the template's declaration.
async fn store() -> ContentStore {
    store_at(Clock::system()).await
}

/// [`store`] on `clock`.
async fn store_at(clock: Clock) -> ContentStore {
    assert!(
        std::env::var_os("AWS_ENDPOINT_URL").is_some(),
        "AWS_ENDPOINT_URL is not set: run through local/test, which starts the emulator"
    );
    let template: Value = serde_yaml::from_str(
        &std::fs::read_to_string(manifest_dir().join("../../../template.yaml"))
            .expect("template.yaml"),
    )
    .expect("template");
    let table = &template["Resources"]["ContentTable"]["Properties"];
    let keys = |schema: &Value| -> Vec<KeySchemaElement> {
        schema
            .as_sequence()
            .expect("key schema")
            .iter()
            .map(|k| {
                KeySchemaElement::builder()
                    .attribute_name(k["AttributeName"].as_str().expect("name"))
                    .key_type(KeyType::from(k["KeyType"].as_str().expect("type")))
                    .build()
                    .expect("key")
            })
            .collect()
    };
    let name = format!("news-store-{}", uuid::Uuid::new_v4().simple());
    let db =
        aws_sdk_dynamodb::Client::new(&platform::aws::sdk_config(&platform::Env::from_process()));
    let mut create = db
        .create_table()
        .table_name(&name)
        .billing_mode(BillingMode::PayPerRequest)
        .set_key_schema(Some(keys(&table["KeySchema"])));
    for attribute in table["AttributeDefinitions"]
        .as_sequence()
        .expect("attributes")
    {
        create = create.attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name(attribute["AttributeName"].as_str().expect("name"))
                .attribute_type(ScalarAttributeType::from(
                    attribute["AttributeType"].as_str().expect("type"),
                ))
                .build()
                .expect("attribute"),
        );
    }
    for index in table["GlobalSecondaryIndexes"]
        .as_sequence()
        .expect("indexes")
    {
        create = create.global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(index["IndexName"].as_str().expect("index name"))
                .set_key_schema(Some(keys(&index["KeySchema"])))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()
                .expect("index"),
        );
    }
    create.send().await.expect("create table");
    let aws = platform::aws::AwsClients::from_env(&platform::Env::from_process()).await;
    ContentStore::new(Table::new(aws.dynamodb, name), clock)
}

/// The partition keys holding rows of the list of every article (a Scan: test only).
async fn article_list_partitions(store: &ContentStore) -> std::collections::BTreeSet<String> {
    let db =
        aws_sdk_dynamodb::Client::new(&platform::aws::sdk_config(&platform::Env::from_process()));
    let mut keys = std::collections::BTreeSet::new();
    let mut start = None;
    loop {
        let page = db
            .scan()
            .table_name(store.table_name())
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("scan");
        for item in page.items.unwrap_or_default() {
            let pk = item["pk"].as_s().unwrap().clone();
            if pk.starts_with("ARTICLES#") {
                keys.insert(pk);
            }
        }
        start = page.last_evaluated_key;
        if start.is_none() {
            return keys;
        }
    }
}

/// Article `n` of source `source_id`, published in `year` at minute `n % 60` of its first hour.
fn dated(source_id: &str, n: u32, year: i32, topics: &[&str]) -> NewArticle {
    NewArticle {
        published_at: format!("{year}-01-01T00:{:02}:00.000Z", n % 60),
        ..article(source_id, n, topics)
    }
}

async fn source(store: &ContentStore, id: &str) {
    let (_, created) = store
        .create_source(NewSource {
            id: id.into(),
            url: format!("http://127.0.0.1/{id}.xml"),
            title: format!("Feed {id}"),
            site_url: None,
            description: None,
        })
        .await
        .expect("create");
    assert!(created);
}

/// The rows of page `page` of `size`.
fn window(page: u32, size: u32) -> Window {
    PageRequest::parse(Some(page), Some(size))
        .expect("page")
        .window()
}

fn article(source_id: &str, n: u32, topics: &[&str]) -> NewArticle {
    NewArticle {
        id: news::ingest::article_id(source_id, &format!("guid-{n}")),
        source_id: source_id.into(),
        source_title: format!("Feed {source_id}"),
        title: format!("Article {n}"),
        link: Some(format!("http://127.0.0.1/{n}")),
        author: None,
        published_at: format!("2026-11-{:02}T10:00:00.000Z", n + 1),
        summary: Some("summary".into()),
        paragraphs: vec!["one".into(), "two".into()],
        topics: topics
            .iter()
            .map(|t| TopicRef {
                id: t.to_string(),
                name: t.to_uppercase(),
            })
            .collect(),
        image_url: None,
    }
}

/// A page left for a later refresh waits at most `PAGE_WAIT`: past it the row is skipped
/// (DynamoDB's TTL on `expiresAt` then deletes it), so a feed that outruns its page budget, or
/// a retired source, leaves a bounded list.
#[tokio::test]
async fn pages_left_for_later_expire() {
    let clock = Clock::fixed(chrono::Utc::now());
    let store = store_at(clock.clone()).await;
    let (first, second) = (article("s1", 1, &[]), article("s1", 2, &[]));
    store
        .add_pending_pages(&[&first, &second])
        .await
        .expect("left");
    assert_eq!(store.pending_pages("s1", 10).await.expect("list").len(), 2);
    assert_eq!(store.pending_pages("s1", 1).await.expect("list").len(), 1);
    clock.advance(news::store::PAGE_WAIT - chrono::Duration::seconds(1));
    assert_eq!(store.pending_pages("s1", 10).await.expect("list").len(), 2);
    clock.advance(chrono::Duration::seconds(2));
    assert!(store
        .pending_pages("s1", 10)
        .await
        .expect("list")
        .is_empty());
}

#[tokio::test]
async fn twenty_concurrent_subscribes_count_twenty() {
    let store = store().await;
    source(&store, "s1").await;
    let subscribes = (0..20).map(|i| {
        let store = store.clone();
        async move { store.subscribe("s1", &format!("user-{i}")).await }
    });
    for result in futures::future::join_all(subscribes).await {
        result.expect("subscribe");
    }
    // Repeats are idempotent.
    store.subscribe("s1", "user-0").await.expect("repeat");
    let s = store.source("s1").await.expect("read").expect("exists");
    assert_eq!(s.subscriber_count, 20);
    assert!(matches!(
        store.subscribe("missing", "u").await,
        Err(StoreError::SourceNotFound)
    ));
}

#[tokio::test]
async fn upserts_are_idempotent_and_pages_are_newest_first() {
    let store = store().await;
    source(&store, "s2").await;
    for n in 0..5 {
        let a = article(
            "s2",
            n,
            if n % 2 == 0 {
                &["tech"]
            } else {
                &["science", "tech"]
            },
        );
        assert_eq!(
            store.upsert_article(&a).await.expect("upsert"),
            Upsert::Inserted
        );
    }
    // A redelivered batch stores nothing new.
    for n in 0..5 {
        let a = article("s2", n, &["tech"]);
        assert_eq!(
            store.upsert_article(&a).await.expect("upsert"),
            Upsert::AlreadyStored
        );
    }
    let page = store
        .articles_page(&ArticleFilter::default(), &window(0, 2), 2)
        .await
        .expect("page")
        .page;
    assert_eq!(page.total_elements, 5);
    assert_eq!(page.total_pages, 3);
    let titles: Vec<_> = page.content.iter().map(|a| a.title.as_str()).collect();
    assert_eq!(titles, vec!["Article 4", "Article 3"]);
    let last = store
        .articles_page(&ArticleFilter::default(), &window(2, 2), 2)
        .await
        .expect("page")
        .page;
    assert_eq!(last.content.len(), 1);
    let science = store
        .articles_page(
            &ArticleFilter {
                topic_id: Some("science".into()),
                source_ids: Vec::new(),
            },
            &window(0, 10),
            10,
        )
        .await
        .expect("page")
        .page;
    assert_eq!(science.total_elements, 2);
    let topics = store.topics().await.expect("topics");
    let tech = topics.iter().find(|t| t.id == "tech").expect("tech");
    assert_eq!(tech.article_count, 5);
}

#[tokio::test]
async fn last_subscribers_leaving_concurrently_delete_everything() {
    let store = store().await;
    source(&store, "s3").await;
    store.subscribe("s3", "a").await.expect("a");
    store.subscribe("s3", "b").await.expect("b");
    store
        .upsert_article(&article("s3", 1, &["tech"]))
        .await
        .expect("article");

    let (ra, rb) = tokio::join!(store.unsubscribe("s3", "a"), store.unsubscribe("s3", "b"));
    let (ra, rb) = (ra.expect("a"), rb.expect("b"));
    assert!(
        ra.source_deleted || rb.source_deleted,
        "one of them deleted the source: {ra:?} {rb:?}"
    );
    assert!(store.source("s3").await.expect("read").is_none());
    let page = store
        .articles_page(&ArticleFilter::default(), &window(0, 10), 10)
        .await
        .expect("page")
        .page;
    assert!(page.content.is_empty(), "no orphan articles");
    assert_eq!(page.total_elements, 0);
    // The topics' counts follow as the sweep removes the rows.
    let mut steps = 0;
    while store
        .sweep_step("s3", chrono::Utc::now(), chrono::Duration::minutes(60), 25)
        .await
        .expect("sweep")
        != SweepStep::Finished
    {
        steps += 1;
        assert!(steps < 5, "the sweep ends");
    }
    assert!(store.topics().await.expect("topics").is_empty());
}

#[tokio::test]
async fn batch_upserts_store_each_article_once_with_exact_counters() {
    let store = store().await;
    source(&store, "b1").await;
    let a = |n: u32| article("b1", n, &["tech", "world"]);

    // A feed that repeats an entry: the repeat is not written twice.
    let first = store
        .upsert_articles(&[a(1), a(2), a(1), a(3)])
        .await
        .expect("upsert");
    assert_eq!(
        first,
        vec![
            Upsert::Inserted,
            Upsert::Inserted,
            Upsert::AlreadyStored,
            Upsert::Inserted
        ]
    );
    // A refetch with two new entries writes only those.
    let second = store
        .upsert_articles(&(1..=5).map(a).collect::<Vec<_>>())
        .await
        .expect("upsert");
    assert_eq!(
        second,
        vec![
            Upsert::AlreadyStored,
            Upsert::AlreadyStored,
            Upsert::AlreadyStored,
            Upsert::Inserted,
            Upsert::Inserted
        ]
    );
    // Enough articles to need several transactions.
    let many: Vec<NewArticle> = (6..=25).map(a).collect();
    let third = store.upsert_articles(&many).await.expect("upsert");
    assert!(third.iter().all(|u| *u == Upsert::Inserted), "{third:?}");

    let page = store
        .articles_page(&ArticleFilter::default(), &window(0, 100), 100)
        .await
        .expect("page")
        .page;
    assert_eq!(page.total_elements, 25);
    assert_eq!(page.content.len(), 25);
    let topics = store.topics().await.expect("topics");
    assert!(topics.iter().all(|t| t.article_count == 25), "{topics:?}");
    let by_source = store
        .articles_page(
            &ArticleFilter {
                source_ids: vec!["b1".into()],
                topic_id: None,
            },
            &window(0, 10),
            10,
        )
        .await
        .expect("page")
        .page;
    assert_eq!(by_source.total_elements, 25);

    // The source gone: nothing more is written.
    assert_eq!(
        store
            .upsert_articles(&[article("nope", 1, &[])])
            .await
            .expect("upsert"),
        vec![Upsert::SourceGone]
    );
}

#[tokio::test]
async fn a_personal_feed_merges_its_sources_newest_first_reading_a_bounded_number_of_rows() {
    let store = store().await;
    let sources = ["fa", "fb", "fc"];
    for id in sources {
        source(&store, id).await;
    }
    // Interleaved: source i holds the articles n with n % 3 == i, so the merge alternates.
    let mut all = Vec::new();
    for n in 0..30 {
        let a = article(sources[usize::try_from(n % 3).unwrap()], n, &[]);
        all.push(a.clone());
        assert_eq!(store.upsert_article(&a).await.unwrap(), Upsert::Inserted);
    }
    all.sort_by(|a, b| (&b.published_at, &b.id).cmp(&(&a.published_at, &a.id)));
    let asked: Vec<String> = ["fc", "no-such-source", "fa", "fb"]
        .iter()
        .map(|s| s.to_string())
        .collect();

    let mut seen = Vec::new();
    for page in 0..6 {
        let feed = store
            .feed_page(&asked, None, &window(page, 5), 5)
            .await
            .unwrap();
        assert_eq!(feed.page.total_elements, 30);
        assert_eq!(feed.page.total_pages, 6);
        // Rows up to the page's end plus at most one page size of read-ahead per source.
        let bound = (usize::try_from(page).unwrap() + 1) * 5 + 3 * 5;
        assert!(
            feed.rows_read <= bound,
            "page {page} read {} rows (bound {bound})",
            feed.rows_read
        );
        seen.extend(feed.page.content.into_iter().map(|a| a.id));
    }
    let expected: Vec<String> = all.iter().map(|a| a.id.clone()).collect();
    assert_eq!(seen, expected);

    let past_the_end = store
        .feed_page(&asked, None, &window(6, 5), 5)
        .await
        .unwrap();
    assert!(past_the_end.page.content.is_empty());
    let one_source = store
        .feed_page(&["fb".to_string()], None, &window(0, 100), 100)
        .await
        .unwrap();
    assert_eq!(one_source.page.total_elements, 10);
    assert_eq!(one_source.page.content.len(), 10);
    assert!(one_source.rows_read <= 10);
    let nothing = store
        .feed_page(&["no-such-source".to_string()], None, &window(0, 20), 20)
        .await
        .unwrap();
    assert_eq!((nothing.page.total_elements, nothing.rows_read), (0, 0));
}

#[tokio::test]
async fn a_cursor_pages_past_the_page_cap_merging_shards_and_years_newest_first() {
    let store = store().await;
    source(&store, "c1").await;
    // 120 articles, 60 published in 2025 and 60 in 2026: two year buckets of 8 shards.
    let all: Vec<NewArticle> = (0..120)
        .map(|n| dated("c1", n, if n < 60 { 2025 } else { 2026 }, &["paged"]))
        .collect();
    let stored = store.upsert_articles(&all).await.expect("upsert");
    assert!(stored.iter().all(|u| *u == Upsert::Inserted));
    let shards = article_list_partitions(&store).await;
    assert!(
        shards
            .iter()
            .filter(|k| k.starts_with("ARTICLES#2026#"))
            .count()
            >= 4
            && shards.iter().any(|k| k.starts_with("ARTICLES#2025#")),
        "spread over shards and years: {shards:?}"
    );
    let mut expected = all.clone();
    expected.sort_by(|a, b| (&b.published_at, &b.id).cmp(&(&a.published_at, &a.id)));
    let expected: Vec<String> = expected.into_iter().map(|a| a.id).collect();

    let everything = ArticleFilter::default();
    let topic = ArticleFilter {
        source_ids: Vec::new(),
        topic_id: Some("paged".into()),
    };
    for filter in [everything.clone(), topic] {
        // Page 49 of 2 (the last a page number reaches) is articles 98 and 99.
        let last_numbered = store
            .articles_page(&filter, &window(49, 2), 2)
            .await
            .expect("page");
        let ids: Vec<String> = last_numbered
            .page
            .content
            .iter()
            .map(|a| a.id.clone())
            .collect();
        assert_eq!(ids, expected[98..100].to_vec());

        // By cursor, every article once, newest first, past the 100 numbered pages reach.
        let mut seen: Vec<String> = Vec::new();
        let mut request = PageRequest::parse(None, Some(2)).unwrap();
        let mut pages = 0;
        loop {
            let found = store
                .articles_page(&filter, &request.window(), 2)
                .await
                .expect("page");
            assert_eq!(found.page.total_elements, 120);
            // A page's rows plus at most a page of read-ahead per shard, in two buckets.
            assert!(found.rows_read <= 2 * (2 + 8 * 2), "{}", found.rows_read);
            seen.extend(found.page.content.into_iter().map(|a| a.id));
            pages += 1;
            assert!(pages <= 61, "the cursor ends");
            match found.next {
                Some(next) => {
                    request = PageRequest::parse_with_cursor(None, Some(2), Some(next.encode()))
                        .expect("a cursor it gave out")
                }
                None => break,
            }
        }
        assert_eq!(seen, expected, "{filter:?}");
    }

    // A cursor from the middle of 2026 goes on into 2025 in a larger page.
    let first = store
        .articles_page(&everything, &window(0, 50), 50)
        .await
        .expect("page");
    let next = first.next.expect("more");
    let request = PageRequest::parse_with_cursor(None, Some(30), Some(next.encode())).unwrap();
    let second = store
        .articles_page(&everything, &request.window(), 30)
        .await
        .expect("page");
    let ids: Vec<String> = second.page.content.iter().map(|a| a.id.clone()).collect();
    assert_eq!(ids, expected[50..80].to_vec());
    assert_eq!(
        second.page.page, 1,
        "rows 50 to 79: page 1 of 30 by position"
    );
}

#[tokio::test]
async fn counters_stay_exact_under_concurrent_article_writes_and_a_retirement() {
    let store = store().await;
    let sources = ["k1", "k2", "k3", "k4"];
    for id in sources {
        source(&store, id).await;
        store.subscribe(id, "reader").await.expect("subscribe");
    }
    // Each source's 15 articles stored by three concurrent writers (a redelivered refresh
    // beside its successor), on two topics.
    let mut writes = Vec::new();
    for id in sources {
        for _ in 0..3 {
            let store = store.clone();
            let articles: Vec<NewArticle> = (0..15)
                .map(|n| article(id, n, &["alpha", "beta"]))
                .collect();
            writes.push(async move { store.upsert_articles(&articles).await });
        }
    }
    for result in futures::future::join_all(writes).await {
        result.expect("upsert");
    }
    let page = store
        .articles_page(&ArticleFilter::default(), &window(0, 100), 100)
        .await
        .expect("page")
        .page;
    assert_eq!((page.total_elements, page.content.len()), (60, 60));
    let topics = store.topics().await.expect("topics");
    assert_eq!(topics.len(), 2);
    assert!(topics.iter().all(|t| t.article_count == 60), "{topics:?}");
    let source_topic = store
        .articles_page(
            &ArticleFilter {
                source_ids: vec!["k2".into(), "k3".into()],
                topic_id: Some("beta".into()),
            },
            &window(0, 100),
            100,
        )
        .await
        .expect("page")
        .page;
    assert_eq!(
        (source_topic.total_elements, source_topic.content.len()),
        (30, 30)
    );

    // A source retired: its articles leave the total at once, and the topics as it is swept.
    let left = store.unsubscribe("k1", "reader").await.expect("leave");
    assert!(left.source_deleted);
    let page = store
        .articles_page(&ArticleFilter::default(), &window(0, 100), 100)
        .await
        .expect("page")
        .page;
    assert_eq!((page.total_elements, page.content.len()), (45, 45));
    while store
        .sweep_step("k1", chrono::Utc::now(), chrono::Duration::minutes(60), 25)
        .await
        .expect("sweep")
        != SweepStep::Finished
    {}
    let topics = store.topics().await.expect("topics");
    assert!(topics.iter().all(|t| t.article_count == 45), "{topics:?}");
    let page = store
        .articles_page(&ArticleFilter::default(), &window(0, 100), 100)
        .await
        .expect("page")
        .page;
    assert_eq!((page.total_elements, page.content.len()), (45, 45));
}

#[tokio::test]
async fn items_written_before_the_split_keep_working() {
    use aws_sdk_dynamodb::types::AttributeValue::{L, M, N, S};
    let store = store().await;
    let db =
        aws_sdk_dynamodb::Client::new(&platform::aws::sdk_config(&platform::Env::from_process()));
    let put = |item: Vec<(&str, aws_sdk_dynamodb::types::AttributeValue)>| {
        let request = db.put_item().table_name(store.table_name()).set_item(Some(
            item.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        ));
        async move {
            request.send().await.expect("legacy item");
        }
    };
    // A source, one article on topic "old" and the counters, as the earlier layout wrote
    // them: counters and fetch state in the source's item, the article in gsi1 `ARTICLES`,
    // the topic's rows and count under `TOPIC#old`, the total in `STATS`.
    let s = |v: &str| S(v.to_string());
    put(vec![
        ("pk", s("SOURCE#old1")),
        ("sk", s("META")),
        ("id", s("old1")),
        ("url", s("http://127.0.0.1/old1.xml")),
        ("title", s("Old")),
        ("createdAt", s("2025-01-01T00:00:00.000Z")),
        ("subscriberCount", N("1".into())),
        ("articleCount", N("1".into())),
        ("nextFetchAt", s("2025-01-01T00:15:00.000Z")),
        ("gsi1pk", s("SOURCES")),
        ("gsi1sk", s("2025-01-01T00:00:00.000Z#old1")),
    ])
    .await;
    put(vec![
        ("pk", s("SOURCE#old1")),
        ("sk", s("SUB#reader")),
        ("userId", s("reader")),
    ])
    .await;
    let published = "2026-01-01T00:30:00.000Z";
    let topic = M([("id".to_string(), s("old")), ("name".to_string(), s("Old"))].into());
    put(vec![
        ("pk", s("ARTICLE#legacy1")),
        ("sk", s("META")),
        ("id", s("legacy1")),
        ("sourceId", s("old1")),
        ("sourceTitle", s("Old")),
        ("title", s("Legacy")),
        ("publishedAt", s(published)),
        ("paragraphs", L(vec![s("p")])),
        ("topics", L(vec![topic])),
        ("gsi1pk", s("ARTICLES")),
        ("gsi1sk", s(&format!("{published}#legacy1"))),
    ])
    .await;
    let row = format!("ART#{published}#legacy1");
    put(vec![
        ("pk", s("SOURCE#old1")),
        ("sk", s(&row)),
        ("articleId", s("legacy1")),
        ("topicIds", L(vec![s("old")])),
    ])
    .await;
    put(vec![
        ("pk", s("TOPIC#old")),
        ("sk", s(&row)),
        ("articleId", s("legacy1")),
        ("sourceId", s("old1")),
    ])
    .await;
    put(vec![
        ("pk", s("TOPIC#old")),
        ("sk", s("META")),
        ("id", s("old")),
        ("name", s("Old")),
        ("articleCount", N("1".into())),
        ("gsi1pk", s("TOPICS")),
        ("gsi1sk", s("Old")),
    ])
    .await;
    put(vec![
        ("pk", s("STATS")),
        ("sk", s("ARTICLES")),
        ("articleCount", N("1".into())),
    ])
    .await;

    // Read: the source with its count and fetch state; joined and left.
    let (source, state) = store
        .source_for_fetch("old1")
        .await
        .expect("read")
        .expect("live");
    assert_eq!(source.subscriber_count, 1);
    assert_eq!(
        state.next_fetch_at.as_deref(),
        Some("2025-01-01T00:15:00.000Z")
    );
    assert_eq!(
        store
            .subscribe("old1", "second")
            .await
            .expect("join")
            .subscriber_count,
        2
    );
    // A new article (published an hour later, in the same topic) beside the old one.
    let mut new = dated("old1", 1, 2026, &["old"]);
    new.published_at = "2026-01-01T01:30:00.000Z".into();
    assert_eq!(
        store.upsert_article(&new).await.expect("upsert"),
        Upsert::Inserted
    );
    for filter in [
        ArticleFilter::default(),
        ArticleFilter {
            source_ids: Vec::new(),
            topic_id: Some("old".into()),
        },
        ArticleFilter {
            source_ids: vec!["old1".into()],
            topic_id: None,
        },
    ] {
        let page = store
            .articles_page(&filter, &window(0, 10), 10)
            .await
            .expect("page")
            .page;
        let ids: Vec<&str> = page.content.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, vec![new.id.as_str(), "legacy1"], "{filter:?}");
        assert_eq!(page.total_elements, 2, "{filter:?}");
    }
    let topics = store.topics().await.expect("topics");
    assert_eq!(topics.len(), 1);
    assert_eq!(topics[0].article_count, 2);

    // Its last subscribers leave: retired, and the sweep removes old and new rows alike.
    store.unsubscribe("old1", "second").await.expect("leave");
    assert!(
        store
            .unsubscribe("old1", "reader")
            .await
            .expect("leave")
            .source_deleted
    );
    while store
        .sweep_step(
            "old1",
            chrono::Utc::now(),
            chrono::Duration::minutes(60),
            25,
        )
        .await
        .expect("sweep")
        != SweepStep::Finished
    {}
    assert!(store.topics().await.expect("topics").is_empty());
    let page = store
        .articles_page(&ArticleFilter::default(), &window(0, 10), 10)
        .await
        .expect("page")
        .page;
    assert_eq!((page.total_elements, page.content.len()), (0, 0));
}
