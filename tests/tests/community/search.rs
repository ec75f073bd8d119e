//! Search: ranked by relevance over the term index the indexer keeps (through the stack's
//! real queue poller), all terms required, folded and stemmed; drafts, unpublished and
//! edited-away words never found; the outbox rescues a lost index request.

use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use community::input::PageRequest;
use community::input::SearchText;
use community::model::jobs::IndexOutcome;
use community::{Community, PostSearch};
use community_search::{DynamoSearchIndex, SearchLimits};
use platform::dynamo::Table;
use platform::Clock;
use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, message, page_ids, post_path};
use stack_tests::TestStack;

const SEARCH: &str = "/api/v1/posts/search";

fn search_path(q: &str) -> String {
    format!("{SEARCH}?q={}", urlencode(q))
}

fn urlencode(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Polls the search until `done` holds for its page (the indexer works asynchronously).
async fn search_until(
    t: &TestStack,
    q: &str,
    token: Option<&str>,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let mut last = Value::Null;
    for _ in 0..150 {
        last = t.get_ok(&search_path(q), token).await;
        if done(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("search {q:?} never settled: {last}");
}

/// Waits until the search index has caught up with every write (no outbox row left).
async fn index_settled(t: &TestStack) {
    for _ in 0..150 {
        let pending = t
            .scan("CommunityTable")
            .await
            .iter()
            .filter(|i| {
                i.get("pk")
                    .and_then(|v| v.as_s().ok())
                    .is_some_and(|pk| pk.starts_with("IDXQ#"))
            })
            .count();
        if pending == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the search index never caught up");
}

fn post(title: &str, content: &str) -> Value {
    json!({"title": title, "content": content})
}

#[tokio::test]
async fn a_title_match_ranks_above_a_body_match() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let body_match = t
        .create_post(
            &token,
            &post(
                "Notes from the mountain",
                "We carried a telescope up the hill and waited for the clouds to clear.",
            ),
        )
        .await;
    let title_match = t
        .create_post(
            &token,
            &post(
                "Choosing a first telescope",
                "Aperture matters more than magnification for a beginner.",
            ),
        )
        .await;
    t.create_post(
        &token,
        &post("Unrelated walk", "Nothing about optics here at all."),
    )
    .await;
    let page = search_until(&t, "telescope", None, |p| p["totalElements"] == 2).await;
    assert_eq!(
        page_ids(&page),
        vec![
            title_match["id"].as_str().unwrap(),
            body_match["id"].as_str().unwrap()
        ]
    );
    assert_eq!(page["totalPages"], 1);
    assert_eq!(page["page"], 0);
    assert_eq!(page["size"], 10);
    let first = &page["content"][0];
    assert_eq!(first["title"], "Choosing a first telescope");
    assert_eq!(
        first["content"],
        "Aperture matters more than magnification for a beginner."
    );
    assert_eq!(first["isLikedByMe"], false);
}

#[tokio::test]
async fn every_term_must_match_folded_and_stemmed() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let cafe = t
        .create_post(
            &token,
            &post(
                "Café culture in Lisbon",
                "Running between cafés all morning, then pastries.",
            ),
        )
        .await;
    t.create_post(
        &token,
        &post("Morning runs", "A run along the river before work."),
    )
    .await;
    let id = cafe["id"].as_str().unwrap().to_string();
    let page = search_until(&t, "CAFE run", None, |p| p["totalElements"] == 1).await;
    assert_eq!(page_ids(&page), vec![id.clone()]);
    for q in ["cafes RUNNING", "LISBON café", "pastry"] {
        assert_eq!(
            page_ids(&t.get_ok(&search_path(q), None).await),
            vec![id.clone()],
            "{q}"
        );
    }
    index_settled(&t).await;
    for q in ["cafe tokyo", "running tokyo", "zzzz"] {
        let page = t.get_ok(&search_path(q), None).await;
        assert_eq!(page["totalElements"], 0, "{q}: {page}");
        assert_eq!(page["content"], json!([]), "{q}");
    }
    // Stop words alone match nothing, and are not an error.
    let page = t.get_ok(&search_path("the and of"), None).await;
    assert_eq!(page["totalElements"], 0);
}

#[tokio::test]
async fn drafts_and_unpublished_posts_are_never_found() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let draft = t
        .create_post(
            &token,
            &json!({"title": "Secret zeppelin plans", "content": "A zeppelin draft.", "status": "DRAFT"}),
        )
        .await;
    let id = draft["id"].as_str().unwrap().to_string();
    index_settled(&t).await;
    let page = t.get_ok(&search_path("zeppelin"), Some(&token)).await;
    assert_eq!(page["totalElements"], 0, "not even for its author: {page}");

    // Published, it is found; unpublished again, it is gone at once (before the indexer).
    let r = t
        .patch_json_auth(&post_path(&id), &token, &json!({"status": "PUBLISHED"}))
        .await;
    assert_eq!(r.status(), 200);
    search_until(&t, "zeppelin", None, |p| page_ids(p) == vec![id.clone()]).await;
    let r = t
        .patch_json_auth(&post_path(&id), &token, &json!({"status": "DRAFT"}))
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        page_ids(&t.get_ok(&search_path("zeppelin"), None).await),
        Vec::<String>::new()
    );
    index_settled(&t).await;
    let page = t.get_ok(&search_path("zeppelin"), None).await;
    assert_eq!(page["totalElements"], 0, "the index dropped it too: {page}");
}

#[tokio::test]
async fn an_edit_is_found_by_its_new_words_only() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let created = t
        .create_post(
            &token,
            &post("Sourdough basics", "Flour, water, salt and patience."),
        )
        .await;
    let id = created["id"].as_str().unwrap().to_string();
    search_until(&t, "sourdough", None, |p| page_ids(p) == vec![id.clone()]).await;
    let r = t
        .put_json_auth(
            &post_path(&id),
            &token,
            &post("Rye bread basics", "Flour, water, salt and patience."),
        )
        .await;
    assert_eq!(r.status(), 200);
    // The old word is gone at once: the hit is checked against the post as it is now.
    assert_eq!(
        page_ids(&t.get_ok(&search_path("sourdough"), None).await),
        Vec::<String>::new()
    );
    search_until(&t, "rye", None, |p| page_ids(p) == vec![id.clone()]).await;
    index_settled(&t).await;
    assert_eq!(
        t.get_ok(&search_path("sourdough"), None).await["totalElements"],
        0
    );
}

/// The indexer records the version it indexed on the post, and a search reads that instead of
/// the search outbox: the outbox's 8 partitions would otherwise share every search (the
/// emulator's key meter shows which partitions a search reads).
#[tokio::test]
async fn a_search_reads_each_hits_own_post_and_no_outbox_partition() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let mut ids_written = Vec::new();
    for n in 0..6 {
        let created = t
            .create_post(
                &token,
                &post(&format!("Espresso guide {n}"), "Grind, tamp, pull."),
            )
            .await;
        ids_written.push(created["id"].as_str().unwrap().to_string());
    }
    search_until(&t, "espresso", None, |p| page_ids(p).len() == 6).await;
    index_settled(&t).await;
    for item in t.scan("CommunityTable").await {
        let pk = item["pk"].as_s().unwrap();
        if pk.starts_with("POST#") && item["sk"].as_s().unwrap() == "META" {
            assert_eq!(item.get("indexedVersion"), item.get("version"), "{pk}");
        }
    }

    let table = t.table("CommunityTable");
    let prefix = table.strip_suffix("CommunityTable").unwrap();
    let meter = stack_tests::keyheat::Meter::start(&stack_tests::emulator(), prefix).await;
    let page = t.get_ok(&search_path("espresso"), None).await;
    assert_eq!(page_ids(&page).len(), 6);
    let read: Vec<String> = meter
        .take()
        .await
        .into_iter()
        .filter(|u| u.table == table && u.read_units > 0.0)
        .map(|u| u.key)
        .collect();
    assert!(
        read.iter().all(|key| !key.starts_with("IDXQ#")),
        "a search read the outbox: {read:?}"
    );
    for id in &ids_written {
        assert!(
            read.contains(&format!("POST#{id}")),
            "{id} not read: {read:?}"
        );
    }
}

#[tokio::test]
async fn the_callers_reaction_and_bookmark_show_only_with_a_token() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("alice").await;
    let (_, reader) = t.member("bob").await;
    let created = t
        .create_post(
            &author,
            &post("Kayaking the fjords", "Paddles, maps and cold water."),
        )
        .await;
    let id = created["id"].as_str().unwrap().to_string();
    t.react_ok(&id, &reader, "LIKE").await;
    t.reactions_counted(&id, None, 1, 0).await;
    assert_eq!(t.bookmark(&id, &reader, true).await.status(), 200);
    let page = search_until(&t, "kayak", Some(&reader), |p| {
        page_ids(p) == vec![id.clone()]
    })
    .await;
    assert_eq!(page["content"][0]["isLikedByMe"], true);
    assert_eq!(page["content"][0]["isBookmarkedByMe"], true);
    assert_eq!(page["content"][0]["likeCount"], 1);
    assert_eq!(page["content"][0]["saveCount"], 1);
    for token in [None, Some(author.as_str())] {
        let page = t.get_ok(&search_path("kayak"), token).await;
        assert_eq!(page["content"][0]["isLikedByMe"], false, "{token:?}");
        assert_eq!(page["content"][0]["isBookmarkedByMe"], false, "{token:?}");
    }
    // A bad token is refused rather than treated as anonymous.
    let r = t
        .get_maybe_auth(&search_path("kayak"), Some("not-a-token"))
        .await;
    assert_reason_error(r, 401).await;
}

#[tokio::test]
async fn pages_follow_the_ranking() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    for i in 0..5 {
        t.create_post(
            &token,
            &post(
                &format!("Glacier walk number {i}"),
                "Ice, ropes and crampons.",
            ),
        )
        .await;
    }
    let all = search_until(&t, "glacier", None, |p| p["totalElements"] == 5).await;
    let ranked = page_ids(&all);
    let first = t
        .get_ok(&format!("{}&page=0&size=2", search_path("glacier")), None)
        .await;
    let third = t
        .get_ok(&format!("{}&page=2&size=2", search_path("glacier")), None)
        .await;
    assert_eq!(page_ids(&first), ranked[..2].to_vec());
    assert_eq!(page_ids(&third), ranked[4..].to_vec());
    assert_eq!(first["totalPages"], 3);
    assert_eq!(first["totalElements"], 5);
    // Equal scores: the newer post first.
    assert_eq!(all["content"][0]["title"], "Glacier walk number 4");
}

/// Every id of the search for `q`, walked by `nextCursor` `size` at a time.
async fn walk_search(t: &TestStack, q: &str, size: usize) -> Vec<String> {
    let mut all = Vec::new();
    let mut page = t
        .get_ok(&format!("{}&size={size}", search_path(q)), None)
        .await;
    for _ in 0..50 {
        all.extend(page_ids(&page));
        let Some(cursor) = page["nextCursor"].as_str() else {
            return all;
        };
        let next = format!("{}&size={size}&page=7&cursor={cursor}", search_path(q));
        page = t.get_ok(&next, None).await;
    }
    panic!("search {q:?} did not end within 50 pages");
}

#[tokio::test]
async fn a_cursor_continues_the_ranking_and_a_bad_one_is_400() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    for i in 0..5 {
        let body = format!("Ice{}", " and glacier".repeat(i % 3));
        t.create_post(&token, &post(&format!("Glacier walk number {i}"), &body))
            .await;
    }
    search_until(&t, "glacier", None, |p| p["totalElements"] == 5).await;
    // A post's postings show before its df moves: the ranking is final once the index settles.
    index_settled(&t).await;
    let all = t.get_ok(&search_path("glacier"), None).await;
    assert_eq!(all["totalElements"], 5, "{all}");
    assert!(
        all.get("nextCursor").is_none(),
        "one page: no cursor: {all}"
    );
    // A cursor wins over the page beside it and gives the next ranks, each once.
    assert_eq!(walk_search(&t, "glacier", 2).await, page_ids(&all));
    let long = "7a".repeat(201);
    for bad in ["", "zz", "3", "80", "3A", long.as_str()] {
        let url = format!("{}&cursor={bad}", search_path("glacier"));
        let error = assert_reason_error(t.get(&url).await, 400).await;
        assert!(message(&error).contains("cursor: "), "{url}: {error}");
    }
}

/// With the match cap lowered to 3 (the production cap is 1,000), the stack's search pages
/// by cursor through all 7 matches: the 3 newest ranked, then the next 3, then the last.
#[tokio::test]
async fn cursors_reach_past_the_match_cap() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let mut created = Vec::new();
    for i in 0..7 {
        let body = format!("Crampons{}", " and crevasse".repeat(i % 3));
        let p = t
            .create_post(&token, &post(&format!("Crevasse drill {i}"), &body))
            .await;
        created.push(p["id"].as_str().unwrap().to_string());
    }
    search_until(&t, "crevasse", None, |p| p["totalElements"] == 7).await;
    index_settled(&t).await;
    let aws = t.aws().await;
    let env = t.env("CommunityFunction");
    let capped = PostSearch::new(
        Community::new(
            Table::from_env(&env, &aws, "COMMUNITY_TABLE").unwrap(),
            Clock::system(),
        ),
        DynamoSearchIndex::new(Table::from_env(&env, &aws, "SEARCH_INDEX_TABLE").unwrap())
            .with_limits(SearchLimits {
                max_matches: 3,
                ..SearchLimits::default()
            }),
    );
    let text = SearchText::parse(Some("crevasse")).unwrap();
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..20 {
        let page = PageRequest::parse_with_cursor(None, Some(2), cursor.as_deref()).unwrap();
        let got = capped.search(&text, page, None).await.unwrap();
        assert!(got.total_elements <= 3, "a segment holds at most the cap");
        pages.push(got.content.iter().map(|p| p.id.clone()).collect::<Vec<_>>());
        match got.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let walked: Vec<String> = pages.concat();
    assert_eq!(walked.len(), 7, "{pages:?}");
    // The first segment is the 3 newest posts, the next the 3 before them.
    let segment = |ids: &[String]| {
        let mut ids = ids.to_vec();
        ids.sort();
        ids
    };
    assert_eq!(segment(&walked[..3]), segment(&created[4..]), "{pages:?}");
    assert_eq!(segment(&walked[3..6]), segment(&created[1..4]), "{pages:?}");
    assert_eq!(walked[6], created[0]);
}

#[tokio::test]
async fn bad_queries_are_400_naming_the_field() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let long = "a".repeat(201);
    let nine = "alpha bravo charlie delta echo foxtrot golf hotel india";
    let cases = [
        (SEARCH.to_string(), "q"),
        (search_path("   "), "q"),
        (search_path(&long), "q"),
        (search_path(nine), "q"),
        (format!("{}&page=50", search_path("ice")), "page"),
        (format!("{}&page=-1", search_path("ice")), "page"),
        (format!("{}&size=21", search_path("ice")), "size"),
        (format!("{}&size=0", search_path("ice")), "size"),
        (format!("{}&size=ten", search_path("ice")), "size"),
    ];
    for (path, field) in cases {
        let error = assert_reason_error(t.get(&path).await, 400).await;
        assert!(message(&error).contains(field), "{path}: {error}");
    }
    // 200 characters and 8 words are within bounds.
    let ok = t.get(&search_path(&"a".repeat(200))).await;
    assert_eq!(ok.status(), 200);
    let eight = "alpha bravo charlie delta echo foxtrot golf hotel";
    assert_eq!(t.get(&search_path(eight)).await.status(), 200);
}

/// The stack's community search, built as the functions build it.
async fn post_search(t: &TestStack) -> PostSearch<DynamoSearchIndex> {
    let aws = t.aws().await;
    let env = t.env("CommunityIndexerFunction");
    let community = Community::new(
        Table::from_env(&env, &aws, "COMMUNITY_TABLE").unwrap(),
        Clock::system(),
    );
    let index = DynamoSearchIndex::new(Table::from_env(&env, &aws, "SEARCH_INDEX_TABLE").unwrap());
    PostSearch::new(community, index)
}

#[tokio::test]
async fn a_lost_index_request_is_sent_again_by_the_scheduler() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let created = t
        .create_post(&token, &post("Lighthouse keepers", "Stories of the coast."))
        .await;
    let id = created["id"].as_str().unwrap().to_string();
    search_until(&t, "lighthouse", None, |p| page_ids(p) == vec![id.clone()]).await;
    index_settled(&t).await;

    // A write whose message never reached the queue: the post's title changed in the
    // table and its outbox row written three minutes ago, nothing sent.
    let db = t.dynamodb().await;
    let table = t.table("CommunityTable");
    db.update_item()
        .table_name(&table)
        .key("pk", AttributeValue::S(format!("POST#{id}")))
        .key("sk", AttributeValue::S("META".into()))
        .update_expression("SET title = :t, version = version + :one")
        .expression_attribute_values(":t", AttributeValue::S("Windmill keepers".into()))
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .send()
        .await
        .unwrap();
    let three_minutes_ago = (chrono::Utc::now() - chrono::Duration::minutes(3))
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let outbox = community::keys::index_pending(&id);
    db.put_item()
        .table_name(&table)
        .item(
            "pk",
            AttributeValue::S(outbox["pk"].as_s().unwrap().clone()),
        )
        .item(
            "sk",
            AttributeValue::S(outbox["sk"].as_s().unwrap().clone()),
        )
        .item("postId", AttributeValue::S(id.clone()))
        .item("version", AttributeValue::N("2".into()))
        .item("at", AttributeValue::S(three_minutes_ago))
        .send()
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        t.get_ok(&search_path("windmill"), None).await["totalElements"],
        0,
        "nothing told the indexer"
    );

    let scheduler = t.index_scheduler().await;
    scheduler
        .handle(stack_tests::community::index_schedule_event())
        .await
        .unwrap();
    search_until(&t, "windmill", None, |p| page_ids(p) == vec![id.clone()]).await;
    index_settled(&t).await;
    assert_eq!(
        t.get_ok(&search_path("lighthouse"), None).await["totalElements"],
        0
    );
}

#[tokio::test]
async fn a_long_post_is_indexed_across_several_budgets() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    // 300 distinct words: about 8 index transactions (the emulator is slow with large ones).
    let words: Vec<String> = (0..300).map(|i| format!("w{i}x")).collect();
    let search = post_search(&t).await;
    let created = t
        .create_post(
            &token,
            &json!({"title": "An encyclopedia of words", "content": words.join(" ")}),
        )
        .await;
    let id = created["id"].as_str().unwrap().to_string();
    // Driven by hand with a budget of 2 transactions per step (the stack's indexer may
    // race it, which indexing tolerates).
    let mut steps = 0;
    let mut paused = 0;
    loop {
        steps += 1;
        assert!(steps < 100, "indexing never finished");
        match search.index(&id, 2).await.unwrap() {
            IndexOutcome::Done => break,
            IndexOutcome::Paused => paused += 1,
        }
    }
    assert!(
        paused >= 1 || steps == 1,
        "a step of 2 transactions pauses unless the stack's indexer finished first"
    );
    let q = SearchText::parse(Some("w299x w0x encyclopedia")).unwrap();
    let page = search
        .search(
            &q,
            community::input::PageRequest::parse(None, None).unwrap(),
            None,
        )
        .await
        .unwrap();
    assert_eq!(page.content.len(), 1);
    assert_eq!(page.content[0].id, id);
}
