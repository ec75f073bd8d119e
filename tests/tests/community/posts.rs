//! Posts: create, read, replace, patch, lists by topic and cards.

use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, message, post_input, post_path, POSTS};
use stack_tests::{header, TestStack};

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("an array")
        .iter()
        .map(|p| p["id"].as_str().expect("id").to_string())
        .collect()
}

#[tokio::test]
async fn create_answers_201_with_location() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let response = t
        .post_json_auth(POSTS, &token, &post_input("Hello world", &[]))
        .await;
    assert_eq!(response.status(), 201);
    let location = header(response.headers(), "location").to_string();
    let post: Value = response.json().await.unwrap();
    assert_eq!(location, post_path(post["id"].as_str().unwrap()));
    let read = t.get_ok(&location, None).await;
    assert_eq!(read["id"], post["id"]);
    assert_eq!(read["title"], "Hello world");
}

#[tokio::test]
async fn create_defaults_to_published_with_generated_excerpt_and_read_time() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (alice, token) = t.member("alice").await;
    let content = "word ".repeat(450);
    let post = t
        .create_post(
            &token,
            &json!({"title": "A long read", "content": content, "sourceUrl": ["https://example.com/a"]}),
        )
        .await;
    assert_eq!(post["status"], "PUBLISHED");
    assert_eq!(post["readTimeMinutes"], 3, "450 words at 200 a minute");
    let excerpt = post["excerpt"].as_str().unwrap();
    assert!(
        excerpt.ends_with("word…") && excerpt.chars().count() <= 200,
        "{excerpt}"
    );
    assert_eq!(post["author"]["id"], alice.as_str());
    assert_eq!(post["author"]["username"], "alice");
    assert_eq!(post["author"]["displayName"], "alice tester");
    assert_eq!(post["author"]["role"], "USER");
    assert_eq!(post["author"]["organisation"], Value::Null);
    assert_eq!(post["sourceUrl"], json!(["https://example.com/a"]));
    for counter in [
        "likeCount",
        "dislikeCount",
        "commentCount",
        "viewCount",
        "saveCount",
    ] {
        assert_eq!(post[counter], 0, "{counter}");
    }
    assert_eq!(post["isLikedByMe"], false);
    assert_eq!(post["content"], content.as_str());
    // A given excerpt is kept as written.
    let own = t
        .create_post(
            &token,
            &json!({"title": "Own excerpt", "content": "body", "excerpt": "Mine."}),
        )
        .await;
    assert_eq!(own["excerpt"], "Mine.");
}

#[tokio::test]
async fn create_creates_unknown_topics_reuses_known_by_slug() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let first = t
        .create_post(&token, &post_input("First post", &["Public Transport"]))
        .await;
    let second = t
        .create_post(
            &token,
            &post_input("Second post", &["public-transport", "Space", "SPACE"]),
        )
        .await;
    let transport = &first["topics"][0];
    assert_eq!(transport["name"], "Public Transport");
    assert_eq!(second["topics"][0], *transport, "the same topic, by slug");
    assert_eq!(second["topics"].as_array().unwrap().len(), 2, "Space once");
    let stats = t.topic("public-transport").await.expect("listed");
    assert_eq!(stats["totalPostCount"], 2);
    assert_eq!(stats["id"], transport["id"]);
}

async fn create_status(t: &TestStack, token: &str, body: Value) -> (u16, Value) {
    let response = t.post_json_auth(POSTS, token, &body).await;
    let status = response.status().as_u16();
    if status == 201 {
        (status, response.json().await.unwrap())
    } else {
        (status, assert_reason_error(response, status).await)
    }
}

#[tokio::test]
async fn title_edges_4_5_100_101() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    for (len, ok) in [(4, false), (5, true), (100, true), (101, false)] {
        let (status, body) = create_status(
            &t,
            &token,
            json!({"title": "é".repeat(len), "content": "x"}),
        )
        .await;
        if ok {
            assert_eq!(status, 201, "{len}");
        } else {
            assert_eq!(status, 400, "{len}");
            assert!(message(&body).contains("title: "), "{body}");
        }
    }
    let (status, body) = create_status(&t, &token, json!({"content": "x"})).await;
    assert_eq!(status, 400);
    assert!(message(&body).contains("title: is required"), "{body}");
}

#[tokio::test]
async fn content_edges_0_1_50000_50001() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    for (len, ok) in [(0, false), (1, true), (50_000, true), (50_001, false)] {
        let (status, body) = create_status(
            &t,
            &token,
            json!({"title": "Edges", "content": "a".repeat(len)}),
        )
        .await;
        if ok {
            assert_eq!(status, 201, "{len}");
        } else {
            assert_eq!(status, 400, "{len}");
            assert!(message(&body).contains("content: "), "{body}");
        }
    }
}

#[tokio::test]
async fn excerpt_edges_500_501() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let (ok, post) = create_status(
        &t,
        &token,
        json!({"title": "Edges", "content": "x", "excerpt": "e".repeat(500)}),
    )
    .await;
    assert_eq!(ok, 201);
    assert_eq!(post["excerpt"].as_str().unwrap().len(), 500);
    let (status, body) = create_status(
        &t,
        &token,
        json!({"title": "Edges", "content": "x", "excerpt": "e".repeat(501)}),
    )
    .await;
    assert_eq!(status, 400);
    assert!(message(&body).contains("excerpt: "), "{body}");
}

#[tokio::test]
async fn topics_more_than_10_is_400() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let ten: Vec<String> = (0..10).map(|i| format!("topic {i}")).collect();
    let (ok, post) = create_status(
        &t,
        &token,
        json!({"title": "Ten topics", "content": "x", "topics": ten}),
    )
    .await;
    assert_eq!(ok, 201);
    assert_eq!(post["topics"].as_array().unwrap().len(), 10);
    let eleven: Vec<String> = (0..11).map(|i| format!("topic {i}")).collect();
    let (status, body) = create_status(
        &t,
        &token,
        json!({"title": "Too many", "content": "x", "topics": eleven}),
    )
    .await;
    assert_eq!(status, 400);
    assert!(message(&body).contains("topics: "), "{body}");
    for bad in ["", "!!!", &"a".repeat(51)] {
        let (status, body) = create_status(
            &t,
            &token,
            json!({"title": "Bad topic", "content": "x", "topics": [bad]}),
        )
        .await;
        assert_eq!(status, 400, "{bad:?}");
        assert!(message(&body).contains("topics: "), "{body}");
    }
}

#[tokio::test]
async fn urls_must_be_http_uris() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    for (field, value) in [
        ("coverImageUrl", json!("ftp://example.com/a.png")),
        ("coverImageUrl", json!("not a url")),
        ("sourceUrl", json!(["javascript:alert(1)"])),
        ("sourceUrl", json!(vec!["https://example.com"; 11])),
    ] {
        let mut body = json!({"title": "Links", "content": "x"});
        body[field] = value;
        let (status, answer) = create_status(&t, &token, body).await;
        assert_eq!(status, 400, "{field}");
        assert!(message(&answer).contains(&format!("{field}: ")), "{answer}");
    }
    let (status, post) = create_status(
        &t,
        &token,
        json!({"title": "Links", "content": "x", "coverImageUrl": "https://img.example.com/a.png",
               "sourceUrl": vec!["https://example.com"; 10]}),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(post["coverImageUrl"], "https://img.example.com/a.png");
    // Unknown fields and wrong types are refused, naming the field.
    let (status, body) = create_status(
        &t,
        &token,
        json!({"title": "Links", "content": "x", "colour": 1}),
    )
    .await;
    assert_eq!(status, 400);
    assert!(message(&body).contains("colour"), "{body}");
    let (status, body) = create_status(&t, &token, json!({"title": 5, "content": "x"})).await;
    assert_eq!(status, 400);
    assert!(message(&body).contains("title"), "{body}");
    let (status, body) = create_status(
        &t,
        &token,
        json!({"title": "Links", "content": "x", "status": "LIVE"}),
    )
    .await;
    assert_eq!(status, 400);
    assert!(message(&body).contains("status: "), "{body}");
}

#[tokio::test]
async fn reads_count_no_views() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("alice").await;
    let (_, reader) = t.member("bob").await;
    let post = t.create_post(&author, &post_input("Counted", &[])).await;
    let path = post_path(post["id"].as_str().unwrap());
    // Views come from the page's beacon (tests/community/views.rs), never from a read.
    assert_eq!(t.get_ok(&path, Some(&author)).await["viewCount"], 0);
    assert_eq!(t.get_ok(&path, None).await["viewCount"], 0);
    assert_eq!(t.get_ok(&path, Some(&reader)).await["viewCount"], 0);
    // A bad token on an optional-auth read is still 401.
    let bad = t.get_auth(&path, "not.a.token").await;
    assert_reason_error(bad, 401).await;
}

#[tokio::test]
async fn draft_visible_to_author_only() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("alice").await;
    let (_, reader) = t.member("bob").await;
    let mut input = post_input("A draft", &["Drafts"]);
    input["status"] = json!("DRAFT");
    let draft = t.create_post(&author, &input).await;
    assert_eq!(draft["status"], "DRAFT");
    let path = post_path(draft["id"].as_str().unwrap());
    let own = t.get_ok(&path, Some(&author)).await;
    assert_eq!(own["title"], "A draft");
    assert_eq!(own["viewCount"], 0);
    assert_reason_error(t.get_auth(&path, &reader).await, 404).await;
    assert_reason_error(t.get(&path).await, 404).await;
    // The same answer as for a post that never existed: nothing leaks.
    let missing = post_path("00000000-0000-4000-8000-000000000000");
    let body = assert_reason_error(t.get(&missing).await, 404).await;
    assert_eq!(message(&body), "Post not found");
}

#[tokio::test]
async fn draft_absent_from_topic_list_author_list_cards_search() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("alice").await;
    let mut input = post_input("A draft", &["Hidden"]);
    input["status"] = json!("DRAFT");
    let draft = t.create_post(&author, &input).await;
    let public = t
        .create_post(&author, &post_input("Public one", &["Hidden"]))
        .await;
    let list = t
        .get_ok(&format!("{POSTS}?topic=Hidden"), Some(&author))
        .await;
    assert_eq!(ids(&list["content"]), [public["id"].as_str().unwrap()]);
    assert_eq!(list["totalElements"], 1);
    let all = t.get_ok(POSTS, None).await;
    assert_eq!(ids(&all["content"]), [public["id"].as_str().unwrap()]);
    let cards = t
        .get_ok(
            &format!(
                "{POSTS}/cards?ids={},{}",
                draft["id"].as_str().unwrap(),
                public["id"].as_str().unwrap()
            ),
            Some(&author),
        )
        .await;
    assert_eq!(ids(&cards), [public["id"].as_str().unwrap()]);
    // A draft's topics exist but count nothing.
    let hidden = t.topic("hidden").await.unwrap();
    assert_eq!(hidden["totalPostCount"], 1);
    assert_eq!(hidden["postsThisWeek"], 1);
}

#[tokio::test]
async fn patch_author_only_403_and_404_on_others_drafts() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, author) = t.member("alice").await;
    let (_, other) = t.member("bob").await;
    let post = t.create_post(&author, &post_input("Mine only", &[])).await;
    let path = post_path(post["id"].as_str().unwrap());
    let forbidden = t
        .patch_json_auth(&path, &other, &json!({"title": "Hijacked"}))
        .await;
    assert_reason_error(forbidden, 403).await;
    let put = t
        .put_json_auth(&path, &other, &post_input("Hijacked", &[]))
        .await;
    assert_reason_error(put, 403).await;
    let mut input = post_input("Secret draft", &[]);
    input["status"] = json!("DRAFT");
    let draft = t.create_post(&author, &input).await;
    let draft_path = post_path(draft["id"].as_str().unwrap());
    let hidden = t
        .patch_json_auth(&draft_path, &other, &json!({"title": "Hijacked"}))
        .await;
    assert_reason_error(hidden, 404).await;
    // Unchanged.
    assert_eq!(t.get_ok(&path, None).await["title"], "Mine only");
    // No token: 401.
    let anonymous = t
        .http
        .patch(t.url(&path))
        .json(&json!({"title": "Anonymous"}))
        .send()
        .await
        .unwrap();
    assert_reason_error(anonymous, 401).await;
}

#[tokio::test]
async fn patch_semantics_excerpt_null_topics_replace_status_kept() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let mut input = post_input("Patch me", &["Alpha"]);
    input["excerpt"] = json!("Written excerpt");
    input["coverImageUrl"] = json!("https://img.example.com/c.png");
    input["status"] = json!("DRAFT");
    let post = t.create_post(&token, &input).await;
    let path = post_path(post["id"].as_str().unwrap());
    let patch = |body: Value| {
        let t = &t;
        let token = token.clone();
        let path = path.clone();
        async move {
            let response = t.patch_json_auth(&path, &token, &body).await;
            let status = response.status().as_u16();
            let json: Value = response.json().await.unwrap();
            assert_eq!(status, 200, "{json}");
            json
        }
    };
    // A title alone: everything else kept, the status too (no default on patch).
    let p = patch(json!({"title": "Patched title"})).await;
    assert_eq!(p["title"], "Patched title");
    assert_eq!(p["status"], "DRAFT");
    assert_eq!(p["excerpt"], "Written excerpt");
    assert_eq!(p["topics"][0]["name"], "Alpha");
    assert_eq!(p["coverImageUrl"], "https://img.example.com/c.png");
    // New content keeps a written excerpt.
    let p = patch(json!({"content": "Brand new content here"})).await;
    assert_eq!(p["excerpt"], "Written excerpt");
    assert_eq!(p["content"], "Brand new content here");
    // excerpt: null generates it; then it follows the content.
    let p = patch(json!({"excerpt": null})).await;
    assert_eq!(p["excerpt"], "Brand new content here");
    let p = patch(json!({"content": "Other words"})).await;
    assert_eq!(p["excerpt"], "Other words");
    // topics replace; coverImageUrl: null clears.
    let p = patch(json!({"topics": ["Beta", "Gamma"], "coverImageUrl": null})).await;
    let names: Vec<&str> = p["topics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Beta", "Gamma"]);
    assert_eq!(p["coverImageUrl"], Value::Null);
    // title, content and status may not be null.
    for field in ["title", "content", "status"] {
        let mut body = json!({});
        body[field] = Value::Null;
        let response = t.patch_json_auth(&path, &token, &body).await;
        let answer = assert_reason_error(response, 400).await;
        assert!(
            message(&answer).contains(&format!("{field}: must not be null")),
            "{answer}"
        );
    }
    // What was read back is what is stored.
    let read = t.get_ok(&path, Some(&token)).await;
    assert_eq!(read["excerpt"], "Other words");
    assert_eq!(read["coverImageUrl"], Value::Null);
    assert_eq!(read["status"], "DRAFT");
}

#[tokio::test]
async fn replace_defaults_status_published() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let mut input = post_input("Draft first", &["Old"]);
    input["status"] = json!("DRAFT");
    input["excerpt"] = json!("old excerpt");
    let post = t.create_post(&token, &input).await;
    let path = post_path(post["id"].as_str().unwrap());
    let response = t
        .put_json_auth(
            &path,
            &token,
            &json!({"title": "Replaced", "content": "Whole new body"}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let replaced: Value = response.json().await.unwrap();
    assert_eq!(replaced["status"], "PUBLISHED");
    assert_eq!(
        replaced["excerpt"], "Whole new body",
        "regenerated: the replace gave none"
    );
    assert_eq!(replaced["topics"], json!([]));
    assert_eq!(replaced["createdAt"], post["createdAt"]);
    // Replace needs the whole input.
    let partial = t
        .put_json_auth(&path, &token, &json!({"title": "No content"}))
        .await;
    let body = assert_reason_error(partial, 400).await;
    assert!(message(&body).contains("content: is required"), "{body}");
    // Only a draft ever named it: not public.
    assert!(t.topic("old").await.is_none());
}

#[tokio::test]
async fn publish_then_unpublish_moves_lists_and_counts() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let mut input = post_input("Moving post", &["Movers"]);
    input["status"] = json!("DRAFT");
    let post = t.create_post(&token, &input).await;
    let id = post["id"].as_str().unwrap();
    let path = post_path(id);
    let list = format!("{POSTS}?topic=movers");
    let counts = |topic: Value| {
        (
            topic["totalPostCount"].clone(),
            topic["postsThisWeek"].clone(),
        )
    };

    assert_eq!(t.get_ok(&list, None).await["totalElements"], 0);
    assert!(
        t.topic("movers").await.is_none(),
        "a draft's topic is not public"
    );

    let published = t
        .patch_json_auth(&path, &token, &json!({"status": "PUBLISHED"}))
        .await;
    assert_eq!(published.status(), 200);
    assert_eq!(ids(&t.get_ok(&list, None).await["content"]), [id]);
    assert_eq!(t.get_ok(POSTS, None).await["totalElements"], 1);
    assert_eq!(
        counts(t.topic("movers").await.unwrap()),
        (json!(1), json!(1))
    );

    let unpublished = t
        .patch_json_auth(&path, &token, &json!({"status": "DRAFT"}))
        .await;
    assert_eq!(unpublished.status(), 200);
    assert_eq!(t.get_ok(&list, None).await["totalElements"], 0);
    assert_eq!(t.get_ok(POSTS, None).await["totalElements"], 0);
    // The census drops; the activity log keeps the first publication.
    assert_eq!(
        counts(t.topic("movers").await.unwrap()),
        (json!(0), json!(1))
    );

    // Publishing again lists it again but is not a new first publication.
    t.patch_json_auth(&path, &token, &json!({"status": "PUBLISHED"}))
        .await;
    assert_eq!(
        counts(t.topic("movers").await.unwrap()),
        (json!(1), json!(1))
    );
    // Moving it to another topic moves the census.
    t.patch_json_auth(&path, &token, &json!({"topics": ["Elsewhere"]}))
        .await;
    assert_eq!(t.topic("movers").await.unwrap()["totalPostCount"], 0);
    assert_eq!(t.topic("elsewhere").await.unwrap()["totalPostCount"], 1);
    assert_eq!(t.get_ok(&list, None).await["totalElements"], 0);
    assert_eq!(
        ids(&t.get_ok(&format!("{POSTS}?topic=Elsewhere"), None).await["content"]),
        [id]
    );
}

#[tokio::test]
async fn list_by_exact_topic_newest_first_paged_with_totals() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let mut created = Vec::new();
    for i in 0..5 {
        let post = t
            .create_post(&token, &post_input(&format!("Rust post {i}"), &["Rust"]))
            .await;
        created.push(post["id"].as_str().unwrap().to_string());
    }
    t.create_post(&token, &post_input("Rusty things", &["Rusty"]))
        .await;
    let newest_first: Vec<String> = created.iter().rev().cloned().collect();

    let first = t.get_ok(&format!("{POSTS}?topic=Rust&size=2"), None).await;
    assert_eq!(ids(&first["content"]), newest_first[..2]);
    assert_eq!(first["totalElements"], 5);
    assert_eq!(first["totalPages"], 3);
    assert_eq!(
        (first["page"].clone(), first["size"].clone()),
        (json!(0), json!(2))
    );
    assert!(first["content"][0]["content"].is_string(), "full posts");
    let last = t
        .get_ok(&format!("{POSTS}?topic=RUST&size=2&page=2"), None)
        .await;
    assert_eq!(ids(&last["content"]), newest_first[4..]);
    let beyond = t
        .get_ok(&format!("{POSTS}?topic=rust&size=2&page=3"), None)
        .await;
    assert_eq!(beyond["content"], json!([]));
    assert_eq!(beyond["totalElements"], 5);
    // Every published post, newest first, with the default size.
    let all = t.get_ok(POSTS, None).await;
    assert_eq!(all["totalElements"], 6);
    assert_eq!(all["size"], 10);
    assert_eq!(ids(&all["content"])[1..], newest_first[..]);
    // Page and size bounds.
    for (query, field) in [
        ("page=-1", "page"),
        ("page=50", "page"),
        ("size=0", "size"),
        ("size=21", "size"),
        ("page=x", "page"),
    ] {
        let response = t.get(&format!("{POSTS}?{query}")).await;
        let body = assert_reason_error(response, 400).await;
        assert!(
            message(&body).contains(&format!("{field}: ")),
            "{query}: {body}"
        );
    }
    assert_eq!(
        t.get_ok(&format!("{POSTS}?page=49&size=20"), None).await["content"],
        json!([])
    );
}

#[tokio::test]
async fn unknown_topic_is_empty_page() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    t.create_post(&token, &post_input("Some post", &["Known"]))
        .await;
    let page = t.get_ok(&format!("{POSTS}?topic=Unknown"), None).await;
    assert_eq!(
        page,
        json!({"content": [], "page": 0, "size": 10, "totalPages": 0, "totalElements": 0})
    );
    // Exact, not a prefix: "Know" is another topic.
    assert_eq!(
        t.get_ok(&format!("{POSTS}?topic=Know"), None).await["totalElements"],
        0
    );
    assert_eq!(
        t.get_ok(&format!("{POSTS}?topic=!!!"), None).await["totalElements"],
        0
    );
}

#[tokio::test]
async fn cards_keep_order_omit_unknown_and_drafts_no_body() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let a = t
        .create_post(&token, &post_input("Card A", &["Cards"]))
        .await;
    let b = t.create_post(&token, &post_input("Card B", &[])).await;
    let mut input = post_input("Card draft", &[]);
    input["status"] = json!("DRAFT");
    let draft = t.create_post(&token, &input).await;
    let unknown = "00000000-0000-4000-8000-000000000001";
    let (a_id, b_id) = (a["id"].as_str().unwrap(), b["id"].as_str().unwrap());
    let query = format!(
        "{POSTS}/cards?ids={b_id},{unknown},{},{},{a_id},{b_id}",
        draft["id"].as_str().unwrap(),
        a_id.to_uppercase()
    );
    let cards = t.get_ok(&query, None).await;
    assert_eq!(ids(&cards), [b_id, a_id], "order kept, repeats collapsed");
    let card = &cards[1];
    let mut keys: Vec<&String> = card.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "author",
            "commentCount",
            "createdAt",
            "excerpt",
            "id",
            "isLikedByMe",
            "likeCount",
            "readTimeMinutes",
            "title",
            "topics",
            "viewCount"
        ]
    );
    assert_eq!(card["topics"][0]["name"], "Cards");
}

#[tokio::test]
async fn cards_51_ids_400() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let id = |i: usize| format!("00000000-0000-4000-8000-{i:012}");
    let fifty: Vec<String> = (0..50).map(id).collect();
    assert_eq!(
        t.get_ok(&format!("{POSTS}/cards?ids={}", fifty.join(",")), None)
            .await,
        json!([])
    );
    let fifty_one: Vec<String> = (0..51).map(id).collect();
    let response = t
        .get(&format!("{POSTS}/cards?ids={}", fifty_one.join(",")))
        .await;
    let body = assert_reason_error(response, 400).await;
    assert!(message(&body).contains("ids: "), "{body}");
    for empty in ["", "?ids=", "?ids=,,"] {
        let response = t.get(&format!("{POSTS}/cards{empty}")).await;
        assert_reason_error(response, 400).await;
    }
}

#[tokio::test]
async fn cards_malformed_uuid_400() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let response = t
        .get(&format!(
            "{POSTS}/cards?ids=00000000-0000-4000-8000-000000000001,nope"
        ))
        .await;
    let body = assert_reason_error(response, 400).await;
    assert!(message(&body).contains("ids: must be a UUID"), "{body}");
}

#[tokio::test]
async fn malformed_uuid_in_every_path_is_400() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    for bad in [
        "nope",
        "00000000-0000-4000-8000-00000000000g",
        "%20",
        &"a".repeat(300),
    ] {
        let path = post_path(bad);
        let get = assert_reason_error(t.get(&path).await, 400).await;
        assert!(message(&get).contains("id: must be a UUID"), "{get}");
        let put = t
            .put_json_auth(&path, &token, &post_input("Valid title", &[]))
            .await;
        assert_reason_error(put, 400).await;
        let patch = t
            .patch_json_auth(&path, &token, &json!({"title": "Valid title"}))
            .await;
        assert_reason_error(patch, 400).await;
    }
    // Any case names the same post.
    let post = t.create_post(&token, &post_input("Case blind", &[])).await;
    let upper = post["id"].as_str().unwrap().to_uppercase();
    assert_eq!(t.get_ok(&post_path(&upper), None).await["id"], post["id"]);
}

#[tokio::test]
async fn patch_during_views_keeps_counters() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("alice").await;
    let post = t
        .create_post(&author, &post_input("Busy post", &["Busy"]))
        .await;
    let id = post["id"].as_str().unwrap().to_string();
    let path = post_path(&id);
    let mut readers = Vec::new();
    for i in 0..20 {
        readers.push(t.member(&format!("reader{i}")).await.1);
    }
    let views_path = format!("{path}/views");
    let views =
        futures::future::join_all(readers.iter().map(|token| t.post_auth(&views_path, token)));
    // The author edits while readers are counted (one edit at a time, as one author does).
    let patches = async {
        let mut statuses = Vec::new();
        for i in 0..5 {
            let title = json!({"title": format!("Busy post {i}")});
            statuses.push(t.patch_json_auth(&path, &author, &title).await.status());
        }
        statuses
    };
    let (views, patches) = tokio::join!(views, patches);
    assert!(views.iter().all(|r| r.status() == 202));
    assert!(
        patches.iter().all(|s| *s == 200),
        "every edit retried past the races: {patches:?}"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let read = t.get_ok(&path, Some(&author)).await;
        if read["viewCount"] == 20 {
            assert_eq!(read["title"], "Busy post 4", "no view overwrote an edit");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "views never reached 20: {read}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(t.topic("busy").await.unwrap()["totalPostCount"], 1);
}

#[tokio::test]
async fn anonymous_lists_are_public_to_a_cdn_and_a_members_private() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("cdnmember").await;
    t.create_post(&token, &post_input("Cached at the edge", &["cdn"]))
        .await;
    let path = format!("{POSTS}?page=0&size=20");
    let anonymous = t.get(&path).await;
    assert_eq!(anonymous.status(), 200);
    assert_eq!(
        header(anonymous.headers(), "cache-control"),
        "public, max-age=0, s-maxage=10"
    );
    // A member's page says what they liked: never shared.
    let member = t.get_auth(&path, &token).await;
    assert_eq!(member.status(), 200);
    assert_eq!(
        header(member.headers(), "cache-control"),
        "private, no-store"
    );
}
