//! Topics: the catalog and its statistics, names by id, and follower deltas.

use chrono::{Duration, TimeZone, Utc};
use community::input::{PostInput, RawPost, UserId};
use community::{Community, Identity, IdentityError, Profile};
use platform::dynamo::{Attributes, Table};
use platform::Clock;
use serde_json::{json, Value};
use stack_tests::community::{
    assert_reason_error, index_schedule_event, message, post_input, post_path, POSTS, TOPICS,
};
use stack_tests::{header, TestStack};

#[tokio::test]
async fn catalog_grouped_by_category_with_stats() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    t.create_post(&token, &post_input("To the stars", &["Space", "Knitting"]))
        .await;
    t.create_post(&token, &post_input("Wool again", &["knitting"]))
        .await;
    let response = t.get(TOPICS).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        header(response.headers(), "cache-control"),
        "public, max-age=30"
    );
    let catalog: Value = response.json().await.unwrap();
    let categories: Vec<&str> = catalog
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        categories,
        [
            "technology",
            "science",
            "business",
            "world",
            "culture",
            "sports",
            "health",
            "other"
        ]
    );
    let science = &catalog[1];
    assert_eq!(science["label"], "Science");
    let space = &science["topics"][0];
    assert_eq!(space["name"], "Space");
    assert_eq!(space["categoryId"], "science");
    assert_eq!(space["totalPostCount"], 1);
    assert_eq!(space["postsThisWeek"], 1);
    assert_eq!(space["postsPrevWeek"], 0);
    assert_eq!(space["activityScore"], 1.0);
    assert_eq!(space["isHot"], false);
    assert_eq!(space["followerCount"], 0);
    let other = &catalog[7];
    assert_eq!(other["topics"][0]["name"], "Knitting");
    assert_eq!(other["topics"][0]["totalPostCount"], 2);
    assert_eq!(other["topics"][0]["sortOrder"], 1000);
}

#[tokio::test]
async fn flat_stats_list() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    for i in 0..3 {
        t.create_post(&token, &post_input(&format!("Hot post {i}"), &["Climate"]))
            .await;
    }
    t.create_post(&token, &post_input("Lonely post", &["Zebras"]))
        .await;
    let stats = t.topic_stats().await;
    let slugs: Vec<&str> = stats.iter().map(|t| t["slug"].as_str().unwrap()).collect();
    assert_eq!(
        slugs,
        ["climate", "zebras"],
        "catalog order: science before other"
    );
    let climate = &stats[0];
    assert_eq!(climate["totalPostCount"], 3);
    assert_eq!(climate["postsThisWeek"], 3);
    assert_eq!(climate["activityScore"], 3.0);
    assert_eq!(climate["isHot"], true, "3 this week against none before");
    assert_eq!(stats[1]["isHot"], false);
    // A bad token is 401 even on an open read.
    assert_reason_error(t.get_auth(&format!("{TOPICS}/stats"), "bad").await, 401).await;
}

#[tokio::test]
async fn total_post_count_follows_publish_unpublish() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let post = t
        .create_post(&token, &post_input("Counted post", &["Census"]))
        .await;
    let path = post_path(post["id"].as_str().unwrap());
    assert_eq!(t.topic("census").await.unwrap()["totalPostCount"], 1);
    t.patch_json_auth(&path, &token, &json!({"status": "DRAFT"}))
        .await;
    assert_eq!(t.topic("census").await.unwrap()["totalPostCount"], 0);
    t.put_json_auth(&path, &token, &post_input("Counted post", &["Census"]))
        .await;
    assert_eq!(t.topic("census").await.unwrap()["totalPostCount"], 1);
    t.patch_json_auth(&path, &token, &json!({"topics": []}))
        .await;
    assert_eq!(t.topic("census").await.unwrap()["totalPostCount"], 0);
    assert_eq!(
        t.topic("census").await.unwrap()["postsThisWeek"],
        1,
        "never decremented"
    );
}

#[tokio::test]
async fn names_by_ids_order_kept_unknown_omitted() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let post = t
        .create_post(&token, &post_input("Named topics", &["Alpha", "Beta"]))
        .await;
    let alpha = post["topics"][0]["id"].as_str().unwrap();
    let beta = post["topics"][1]["id"].as_str().unwrap();
    let unknown = "00000000-0000-4000-8000-000000000009";
    let names = t
        .get_ok(
            &format!(
                "{TOPICS}/names?ids={beta},{unknown},{},{beta}",
                alpha.to_uppercase()
            ),
            None,
        )
        .await;
    assert_eq!(
        names,
        json!([{"id": beta, "name": "Beta"}, {"id": alpha, "name": "Alpha"}])
    );
}

#[tokio::test]
async fn names_0_and_101_ids_400() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let id = |i: usize| format!("00000000-0000-4000-8000-{i:012}");
    let hundred: Vec<String> = (0..100).map(id).collect();
    assert_eq!(
        t.get_ok(&format!("{TOPICS}/names?ids={}", hundred.join(",")), None)
            .await,
        json!([])
    );
    let hundred_one: Vec<String> = (0..101).map(id).collect();
    for query in [
        String::new(),
        "?ids=".into(),
        format!("?ids={}", hundred_one.join(",")),
        "?ids=x".into(),
    ] {
        let response = t.get(&format!("{TOPICS}/names{query}")).await;
        let body = assert_reason_error(response, 400).await;
        assert!(message(&body).contains("ids: "), "{body}");
    }
}

#[tokio::test]
async fn deltas_need_internal_token() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, user) = t.member("alice").await;
    let path = stack_tests::community::FOLLOWER_DELTAS;
    let body = json!({"deltas": {"Space": 1}});
    assert_reason_error(t.post_json(path, &body).await, 401).await;
    assert_reason_error(t.post_json_auth(path, &user, &body).await, 401).await;
    let wrong = t
        .http
        .post(t.url(path))
        .header("x-internal-service-token", "guess")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_reason_error(wrong, 401).await;
    assert!(t.topic("space").await.is_none(), "nothing applied");
}

#[tokio::test]
async fn deltas_by_slug_clamped_at_zero() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    t.create_post(
        &token,
        &post_input("Buses and trams", &["Public Transport"]),
    )
    .await;
    let response = t
        .follower_deltas(&json!({"public transport": 2, "PUBLIC-TRANSPORT": 1}), None)
        .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], 200);
    assert_eq!(body["error"], "OK");
    assert_eq!(body["message"], "1 topic follower counts updated");
    assert_eq!(
        t.topic("public-transport").await.unwrap()["followerCount"],
        3
    );
    t.follower_deltas(&json!({"Public Transport": -5}), None)
        .await;
    assert_eq!(
        t.topic("public-transport").await.unwrap()["followerCount"],
        0,
        "clamped"
    );
    // Unknown names create the topic (in `other` unless known), with the count.
    let response = t
        .follower_deltas(&json!({"Brand New": 4, "Never Seen": -2}), None)
        .await;
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["message"], "2 topic follower counts updated");
    let new = t.topic("brand-new").await.unwrap();
    assert_eq!(
        (new["followerCount"].clone(), new["categoryId"].clone()),
        (json!(4), json!("other"))
    );
    assert_eq!(t.topic("never-seen").await.unwrap()["followerCount"], 0);
    // Bounds.
    let many: serde_json::Map<String, Value> =
        (0..201).map(|i| (format!("t{i}"), json!(1))).collect();
    for bad in [
        json!({"x": 1001}),
        json!({"x": -1001}),
        json!({"!!": 1}),
        Value::Object(many),
        json!({"x": "one"}),
    ] {
        let response = t.follower_deltas(&bad, None).await;
        let body = assert_reason_error(response, 400).await;
        assert!(message(&body).contains("deltas"), "{body}");
    }
    // More than one chunk of 30 in one call.
    let sixty: serde_json::Map<String, Value> =
        (0..60).map(|i| (format!("bulk {i}"), json!(1))).collect();
    let response = t.follower_deltas(&Value::Object(sixty), None).await;
    assert_eq!(response.status(), 200);
    assert_eq!(t.topic("bulk-59").await.unwrap()["followerCount"], 1);
}

#[tokio::test]
async fn deltas_idempotency_key_applies_once() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let deltas = json!({"Space": 1});
    for _ in 0..3 {
        let response = t.follower_deltas(&deltas, Some("user-1:7")).await;
        assert_eq!(response.status(), 200);
    }
    assert_eq!(t.topic("space").await.unwrap()["followerCount"], 1);
    t.follower_deltas(&deltas, Some("user-1:8")).await;
    assert_eq!(t.topic("space").await.unwrap()["followerCount"], 2);
    // A repeated key in parallel still applies once.
    let racing =
        futures::future::join_all((0..5).map(|_| t.follower_deltas(&deltas, Some("user-2:1"))))
            .await;
    assert!(racing.iter().all(|r| r.status() == 200));
    assert_eq!(t.topic("space").await.unwrap()["followerCount"], 3);
    for bad in ["has space", "", &"k".repeat(101)] {
        let response = t.follower_deltas(&deltas, Some(bad)).await;
        let body = assert_reason_error(response, 400).await;
        assert!(message(&body).contains("Idempotency-Key"), "{body}");
    }
}

/// Whether an anonymous reader sees the topic: (in the stats, in the catalog, by id).
async fn public_view(t: &TestStack, slug: &str, id: &str) -> (bool, bool, bool) {
    let stats = t.topic(slug).await.is_some();
    let catalog = t.get_ok(TOPICS, None).await;
    let in_catalog = catalog
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["topics"].as_array().unwrap())
        .any(|topic| topic["slug"] == slug);
    let names = t.get_ok(&format!("{TOPICS}/names?ids={id}"), None).await;
    (stats, in_catalog, names != json!([]))
}

fn draft_input(title: &str, topics: &[&str]) -> Value {
    let mut input = post_input(title, topics);
    input["status"] = json!("DRAFT");
    input
}

#[tokio::test]
async fn a_draft_topic_is_public_only_once_a_post_carrying_it_is_published() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, alice) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    let draft = t
        .create_post(&alice, &draft_input("Merger plans", &["Secret XYZ"]))
        .await;
    let id = draft["topics"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        draft["topics"][0]["name"], "Secret XYZ",
        "its author sees it"
    );
    assert_eq!(
        public_view(&t, "secret-xyz", &id).await,
        (false, false, false)
    );
    // Nor for a signed-in reader, the author included.
    for token in [&alice, &bob] {
        let names = t
            .get_ok(&format!("{TOPICS}/names?ids={id}"), Some(token))
            .await;
        assert_eq!(names, json!([]));
        let stats = t.get_ok(&format!("{TOPICS}/stats"), Some(token)).await;
        assert!(!stats.to_string().contains("secret-xyz"), "{stats}");
    }
    // Another draft naming it keeps it private (and names the same topic).
    let second = t
        .create_post(&bob, &draft_input("Also secret", &["secret xyz"]))
        .await;
    assert_eq!(second["topics"][0]["id"], id.as_str());
    assert_eq!(
        public_view(&t, "secret-xyz", &id).await,
        (false, false, false)
    );

    // DRAFT → PUBLISHED by PATCH: public with its count, in every listing.
    let path = post_path(draft["id"].as_str().unwrap());
    let published = t
        .patch_json_auth(&path, &alice, &json!({"status": "PUBLISHED"}))
        .await;
    assert_eq!(published.status(), 200);
    assert_eq!(public_view(&t, "secret-xyz", &id).await, (true, true, true));
    let topic = t.topic("secret-xyz").await.unwrap();
    assert_eq!(
        (topic["id"].clone(), topic["totalPostCount"].clone()),
        (json!(id), json!(1))
    );
    let names = t.get_ok(&format!("{TOPICS}/names?ids={id}"), None).await;
    assert_eq!(names, json!([{"id": id, "name": "Secret XYZ"}]));

    // Once public it stays public when its last published post goes back to draft.
    t.patch_json_auth(&path, &alice, &json!({"status": "DRAFT"}))
        .await;
    assert_eq!(public_view(&t, "secret-xyz", &id).await, (true, true, true));
    assert_eq!(t.topic("secret-xyz").await.unwrap()["totalPostCount"], 0);
}

#[tokio::test]
async fn a_draft_topic_goes_public_by_a_published_create_or_replace() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, alice) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    // A new post created PUBLISHED with a topic only a draft named.
    let draft = t
        .create_post(&alice, &draft_input("First words", &["Created Path"]))
        .await;
    let created = draft["topics"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        public_view(&t, "created-path", &created).await,
        (false, false, false)
    );
    t.create_post(&bob, &post_input("Out now", &["created path"]))
        .await;
    assert_eq!(
        public_view(&t, "created-path", &created).await,
        (true, true, true)
    );
    assert_eq!(t.topic("created-path").await.unwrap()["totalPostCount"], 1);

    // A published post replaced (PUT) to carry a topic only a draft named.
    let draft = t
        .create_post(&alice, &draft_input("Second words", &["Replaced Path"]))
        .await;
    let replaced = draft["topics"][0]["id"].as_str().unwrap().to_string();
    let post = t.create_post(&bob, &post_input("No topic yet", &[])).await;
    assert_eq!(
        public_view(&t, "replaced-path", &replaced).await,
        (false, false, false)
    );
    let response = t
        .put_json_auth(
            &post_path(post["id"].as_str().unwrap()),
            &bob,
            &post_input("Now with a topic", &["Replaced Path"]),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        public_view(&t, "replaced-path", &replaced).await,
        (true, true, true)
    );

    // A draft replaced (PUT, status defaulting to PUBLISHED) publishes its own new topic.
    let draft = t
        .create_post(&alice, &draft_input("Third words", &["Own Path"]))
        .await;
    let own = draft["topics"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        public_view(&t, "own-path", &own).await,
        (false, false, false)
    );
    let response = t
        .put_json_auth(
            &post_path(draft["id"].as_str().unwrap()),
            &alice,
            &post_input("Third words", &["Own Path"]),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(public_view(&t, "own-path", &own).await, (true, true, true));
}

#[tokio::test]
async fn concurrent_drafts_and_publications_of_one_new_topic() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let mut tokens = Vec::new();
    for i in 0..6 {
        tokens.push(t.member(&format!("writer{i}")).await.1);
    }
    // Drafts alone, at once: one topic, still private.
    let drafts = futures::future::join_all(tokens.iter().map(|token| {
        let t = &t;
        async move {
            t.create_post(token, &draft_input("Quiet", &["Race Hidden"]))
                .await
        }
    }))
    .await;
    let hidden = drafts[0]["topics"][0]["id"].as_str().unwrap().to_string();
    assert!(drafts
        .iter()
        .all(|d| d["topics"][0]["id"] == hidden.as_str()));
    assert_eq!(
        public_view(&t, "race-hidden", &hidden).await,
        (false, false, false)
    );

    // Drafts and publications at once: public, counting the published ones only.
    let posts = futures::future::join_all(tokens.iter().enumerate().map(|(i, token)| {
        let input = if i % 2 == 0 {
            draft_input("Mixed", &["Race Mixed"])
        } else {
            post_input("Mixed", &["Race Mixed"])
        };
        let t = &t;
        async move { t.create_post(token, &input).await }
    }))
    .await;
    let mixed = posts[0]["topics"][0]["id"].as_str().unwrap().to_string();
    assert!(posts.iter().all(|p| p["topics"][0]["id"] == mixed.as_str()));
    assert_eq!(
        public_view(&t, "race-mixed", &mixed).await,
        (true, true, true)
    );
    assert_eq!(t.topic("race-mixed").await.unwrap()["totalPostCount"], 3);
}

/// Anyone is a user named after their id.
struct EveryoneExists;

impl Identity for EveryoneExists {
    async fn profile(&self, user: &UserId) -> Result<Option<Profile>, IdentityError> {
        Ok(Some(Profile {
            id: user.to_string(),
            username: "writer".into(),
            display_name: "Writer".into(),
            roles: vec!["USER".into()],
            show_bookmarks: true,
            show_likes: true,
        }))
    }
}

#[tokio::test]
async fn week_buckets_activity_and_hot_with_fixed_clock() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let aws = t.aws().await;
    let day0 = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
    let clock = Clock::fixed(day0);
    let table = Table::new(aws.dynamodb.clone(), t.table("CommunityTable"));
    let community = Community::new(table, clock.clone());
    let writer = UserId::generate();
    let publish = |title: String| {
        let community = community.clone();
        let writer = writer.clone();
        async move {
            let input = PostInput::parse(RawPost {
                title: Some(title),
                content: Some("text".into()),
                topics: Some(vec!["Fixed Clock".into()]),
                ..RawPost::default()
            })
            .unwrap();
            community
                .create_post(&EveryoneExists, &writer, input)
                .await
                .unwrap();
        }
    };
    // Two posts 13 days ago, one 8 days ago (the previous week), three today.
    publish("Old one a".into()).await;
    publish("Old one b".into()).await;
    clock.advance(Duration::days(5));
    publish("Older week".into()).await;
    clock.advance(Duration::days(8));
    for i in 0..3 {
        publish(format!("Today {i}")).await;
    }
    let stats = community.topic_stats().await.unwrap();
    let topic = stats.iter().find(|t| t.slug == "fixed-clock").unwrap();
    assert_eq!(topic.total_post_count, 6);
    assert_eq!(topic.posts_this_week, 3);
    assert_eq!(topic.posts_prev_week, 3);
    let expected = 3.0 + (-8.0f64 / 7.0).exp2() + 2.0 * (-13.0f64 / 7.0).exp2();
    assert_eq!(topic.activity_score, (expected * 100.0).round() / 100.0);
    assert!(!topic.is_hot, "as many as the week before is not growth");

    for i in 3..5 {
        publish(format!("Today {i}")).await;
    }
    let stats = community.topic_stats().await.unwrap();
    let topic = stats.iter().find(|t| t.slug == "fixed-clock").unwrap();
    assert_eq!((topic.posts_this_week, topic.posts_prev_week), (5, 3));
    assert!(topic.is_hot, "5 against 3 is growth");

    // A day later the first day's slot is reused: its two old posts stop counting.
    clock.advance(Duration::days(1));
    publish("Next day".into()).await;
    let stats = community.topic_stats().await.unwrap();
    let topic = stats.iter().find(|t| t.slug == "fixed-clock").unwrap();
    assert_eq!(topic.total_post_count, 9);
    assert_eq!((topic.posts_this_week, topic.posts_prev_week), (6, 1));
    let expected = 1.0 + 5.0 * (-1.0f64 / 7.0).exp2() + (-9.0f64 / 7.0).exp2();
    assert_eq!(topic.activity_score, (expected * 100.0).round() / 100.0);
}

/// The ids of the posts of the page at `path`.
async fn post_ids(t: &TestStack, path: &str) -> Vec<String> {
    let page = t.get_ok(path, None).await;
    page["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|p| p["id"].as_str().expect("id").to_string())
        .collect()
}

#[tokio::test]
async fn symbols_and_any_script_keep_topics_distinct() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let names = ["C", "C#", "C++", "日本", "Café"];
    let mut ids = Vec::new();
    for name in names {
        let created = t
            .create_post(&token, &post_input(&format!("A post on {name}"), &[name]))
            .await;
        assert_eq!(created["topics"][0]["name"], name, "{created}");
        ids.push(created["id"].as_str().unwrap().to_string());
    }
    let stats = t.topic_stats().await;
    let mut slugs: Vec<&str> = stats.iter().map(|t| t["slug"].as_str().unwrap()).collect();
    slugs.sort_unstable();
    assert_eq!(slugs, ["c", "c-plus-plus", "c-sharp", "cafe", "日本"]);
    for (name, id) in names.iter().zip(&ids) {
        let path = format!("{POSTS}?topic={}", urlencode(name));
        assert_eq!(
            post_ids(&t, &path).await,
            std::slice::from_ref(id),
            "topic {name}"
        );
    }
    // Another spelling of the same name is the same topic: NFKC, case, Latin diacritics.
    let same = t
        .create_post(
            &token,
            &post_input("Fullwidth and accents", &["ｃ＃", "CAFE"]),
        )
        .await;
    let topic_ids: Vec<&str> = same["topics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    let by_slug = |slug: &str| {
        stats
            .iter()
            .find(|t| t["slug"] == slug)
            .map(|t| t["id"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(topic_ids, [by_slug("c-sharp"), by_slug("cafe")]);
    let refused = t
        .post_json_auth(POSTS, &token, &post_input("Only symbols", &["♯♯"]))
        .await;
    assert_eq!(refused.status(), 400);
    let body: Value = refused.json().await.unwrap();
    assert!(
        body.to_string().contains("letter or digit"),
        "names the rule: {body}"
    );
}

/// Percent-encodes every byte but ASCII letters and digits.
fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A topic as the rule before Unicode names stored it: public, with its ASCII-only slug.
fn legacy_topic(id: &str, name: &str, slug: &str) -> Vec<platform::dynamo::Item> {
    let topic = [
        ("pk", format!("TOPIC#{id}")),
        ("sk", "META".to_string()),
        ("id", id.to_string()),
        ("name", name.to_string()),
        ("displayName", name.to_string()),
        ("slug", slug.to_string()),
        ("categoryId", "other".to_string()),
        ("gsi1pk", "TOPICS".to_string()),
        ("gsi1sk", format!("other#01000#{slug}")),
        ("createdAt", "2024-01-01T00:00:00.000Z".to_string()),
    ];
    let guard = [
        ("pk", format!("TOPICSLUG#{slug}")),
        ("sk", "META".to_string()),
        ("topicId", id.to_string()),
    ];
    let mut topic: platform::dynamo::Item = topic
        .into_iter()
        .map(|(k, v)| (k.to_string(), platform::dynamo::s(v)))
        .collect();
    for counter in ["sortOrder", "totalPostCount", "followerCount"] {
        let value = if counter == "sortOrder" { 1000 } else { 0 };
        topic.insert(counter.to_string(), platform::dynamo::n(value));
    }
    // Every topic row holds its day ring, as the store writes it: no day yet.
    let ring = community::model::stats::Ring::default();
    for (name, values) in [("ringDays", ring.days), ("ringCounts", ring.counts)] {
        let list = values.iter().map(|v| platform::dynamo::n(*v)).collect();
        topic.insert(
            name.to_string(),
            aws_sdk_dynamodb::types::AttributeValue::L(list),
        );
    }
    let guard = guard
        .into_iter()
        .map(|(k, v)| (k.to_string(), platform::dynamo::s(v)))
        .collect();
    vec![topic, guard]
}

/// The community table's items whose `pk` starts with `prefix`.
async fn items_with(t: &TestStack, prefix: &str) -> Vec<platform::dynamo::Item> {
    t.scan("CommunityTable")
        .await
        .into_iter()
        .filter(|i| i.opt_string("pk").is_some_and(|pk| pk.starts_with(prefix)))
        .collect()
}

#[tokio::test]
async fn the_index_scheduler_moves_old_topic_slugs_once() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let plus = "6f1f6a53-8a1c-4bd4-9a43-6f5e8c1a0001";
    let cafe = "6f1f6a53-8a1c-4bd4-9a43-6f5e8c1a0002";
    let mut items = legacy_topic(plus, "C++", "c");
    items.extend(legacy_topic(cafe, "Café", "caf"));
    t.put_items("CommunityTable", items).await;
    // A topic of the new rule already holds `cafe`: the old "Café" cannot move onto it.
    let taken = t
        .create_post(&token, &post_input("Cafe culture", &["Cafe"]))
        .await;
    let cafe_now = taken["topics"][0]["id"].as_str().unwrap().to_string();
    assert_ne!(cafe_now, cafe);

    let scheduler = t.index_scheduler().await;
    scheduler.handle(index_schedule_event()).await.unwrap();
    let slug_of = |stats: &[Value], id: &str| {
        stats
            .iter()
            .find(|t| t["id"] == id)
            .map(|t| t["slug"].as_str().unwrap().to_string())
    };
    let stats = t.topic_stats().await;
    assert_eq!(slug_of(&stats, plus).as_deref(), Some("c-plus-plus"));
    assert_eq!(
        slug_of(&stats, cafe).as_deref(),
        Some("caf"),
        "its slug is taken"
    );
    let guards: Vec<String> = items_with(&t, "TOPICSLUG#")
        .await
        .iter()
        .map(|i| i.opt_string("pk").unwrap())
        .collect();
    assert!(
        guards.contains(&"TOPICSLUG#c-plus-plus".to_string()),
        "{guards:?}"
    );
    assert!(!guards.contains(&"TOPICSLUG#c".to_string()), "{guards:?}");
    assert!(
        items_with(&t, "MIGRATION#topic-slugs").await.is_empty(),
        "moved one: not over"
    );

    // A post naming "C++" now lands in the migrated topic; "C" is a topic of its own.
    let post = t
        .create_post(&token, &post_input("Templates again", &["C++", "C"]))
        .await;
    assert_eq!(post["topics"][0]["id"], plus);
    assert_ne!(post["topics"][1]["id"], plus);

    // The next run finds only the taken slug: the migration is marked over, and runs after
    // it change nothing.
    scheduler.handle(index_schedule_event()).await.unwrap();
    assert_eq!(items_with(&t, "MIGRATION#topic-slugs").await.len(), 1);
    // The topics' items, not the whole table: the post's own workers (summary, index) may
    // still be writing beside the runs.
    let topic_items = || async {
        let mut items = Vec::new();
        for prefix in ["TOPIC#", "TOPICSLUG#", "MIGRATION#topic-slugs"] {
            items.extend(items_with(&t, prefix).await);
        }
        let mut keys: Vec<String> = items
            .iter()
            .map(|i| {
                format!(
                    "{:?}",
                    (i.opt_string("pk"), i.opt_string("sk"), i.opt_string("slug"))
                )
            })
            .collect();
        keys.sort();
        keys
    };
    let before = topic_items().await;
    scheduler.handle(index_schedule_event()).await.unwrap();
    assert_eq!(topic_items().await, before);
    let stats = t.topic_stats().await;
    assert_eq!(slug_of(&stats, plus).as_deref(), Some("c-plus-plus"));
    assert_eq!(slug_of(&stats, cafe).as_deref(), Some("caf"));
}
