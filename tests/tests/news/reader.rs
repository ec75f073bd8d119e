//! The reader's per-person state through the stack: unread counts that follow marks and
//! "mark all as read" (per source, label and everything, with a `before`), the read horizon,
//! labels filtering the stream and the counts, starred paging by cursor, saved articles
//! imported as starred, concurrency and redelivery holding the counts exact, 401s and 400s
//! naming the field, and unsubscribing removing the person's reader row.

use chrono::{Duration, Utc};
use futures::future::join_all;
use serde_json::{json, Value};
use stack_tests::content::{partition, submit_id};
use stack_tests::feeds::{FeedDocument, FeedServer};
use stack_tests::users::ME;
use stack_tests::{assert_news_error, details, TestStack};

const SUBSCRIPTIONS: &str = "/api/content/reader/subscriptions";
const LABELS: &str = "/api/content/reader/labels";
const COUNTS: &str = "/api/content/reader/counts";
const ARTICLES: &str = "/api/content/reader/articles";
const MARKS: &str = "/api/content/reader/marks";
const MARK_ALL_READ: &str = "/api/content/reader/mark-all-read";

/// An RSS feed of `recent` articles published 1, 2, ... hours ago (`{name}-1` the newest) and
/// `old` articles published over 40 days ago, past the 30-day horizon.
fn recent_rss(name: &str, recent: usize, old: usize) -> String {
    let now = Utc::now();
    let mut out = format!(
        "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>{name}</title>\
         <link>https://{name}.example.com/</link><description>d</description>\n"
    );
    let items = (1..=recent)
        .map(|i| (format!("{name}-{i}"), now - Duration::hours(i as i64)))
        .chain((1..=old).map(|i| {
            (
                format!("{name}-old-{i}"),
                now - Duration::days(40) - Duration::hours(i as i64),
            )
        }));
    for (guid, at) in items {
        out.push_str(&format!(
            "<item><title>{guid}</title><link>https://{name}.example.com/{guid}</link>\
             <guid isPermaLink=\"false\">{guid}</guid><pubDate>{}</pubDate>\
             <description>About {guid}.</description></item>\n",
            at.to_rfc2822()
        ));
    }
    out.push_str("</channel></rss>\n");
    out
}

/// A person subscribed to feeds of their own on one stack.
struct Reader {
    t: TestStack,
    _feeds: FeedServer,
    token: String,
    user_id: String,
    sources: Vec<String>,
}

/// A stack, a feed server, and `username` subscribed (through identity) to one feed per
/// `(name, recent, old)`.
async fn reader_with(username: &str, feeds_wanted: &[(&str, usize, usize)]) -> Reader {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let (user, token) = t.user(username).await;
    let mut sources = Vec::new();
    for (name, recent, old) in feeds_wanted {
        let url = feeds.put(
            &format!("/{name}.xml"),
            FeedDocument::rss(recent_rss(name, *recent, *old)),
        );
        let id = submit_id(&t, &token, &url).await;
        assert_eq!(t.subscribe(&token, &id).await.status(), 200, "subscribe");
        sources.push(id);
    }
    Reader {
        t,
        _feeds: feeds,
        token,
        user_id: user["id"].as_str().expect("id").to_string(),
        sources,
    }
}

impl Reader {
    async fn get(&self, path: &str) -> Value {
        let response = self.t.get_auth(path, &self.token).await;
        assert_eq!(response.status(), 200, "GET {path}");
        response.json().await.expect("json")
    }

    async fn post(&self, path: &str, body: Value) -> reqwest::Response {
        self.t.post_json_auth(path, &self.token, &body).await
    }

    async fn mark(&self, ids: &[String], body: Value) {
        let mut body = body;
        body["ids"] = json!(ids);
        let response = self.post(MARKS, body).await;
        assert_eq!(response.status(), 200, "marks");
    }

    async fn mark_all_read(&self, body: Value) {
        let response = self.post(MARK_ALL_READ, body).await;
        assert_eq!(response.status(), 204, "mark-all-read");
    }

    async fn counts(&self) -> Value {
        self.get(COUNTS).await
    }

    async fn unread_of(&self, source: &str) -> u64 {
        let counts = self.counts().await;
        counts["sources"]
            .as_array()
            .expect("sources")
            .iter()
            .find(|c| c["sourceId"] == source)
            .map_or(0, |c| c["unread"].as_u64().expect("unread"))
    }

    /// Every article of a stream query (all pages), as `(title, read, starred)`.
    async fn stream(&self, query: &str) -> Vec<(String, bool, bool)> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..100 {
            let mut path = format!("{ARTICLES}?size=7&{query}");
            if let Some(c) = &cursor {
                path.push_str(&format!("&cursor={c}"));
            }
            let page = self.get(&path).await;
            for item in page["items"].as_array().expect("items") {
                out.push((
                    item["title"].as_str().expect("title").to_string(),
                    item["read"].as_bool().expect("read"),
                    item["starred"].as_bool().expect("starred"),
                ));
            }
            match page["nextCursor"].as_str() {
                Some(next) => cursor = Some(next.to_string()),
                None => return out,
            }
        }
        panic!("the stream did not end");
    }

    /// Article ids by title, from the whole stream.
    async fn ids_by_title(&self) -> std::collections::HashMap<String, String> {
        let page = self.get(&format!("{ARTICLES}?size=100")).await;
        page["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|i| {
                (
                    i["title"].as_str().expect("title").to_string(),
                    i["id"].as_str().expect("id").to_string(),
                )
            })
            .collect()
    }
}

fn titles(items: &[(String, bool, bool)]) -> Vec<&str> {
    items.iter().map(|(t, _, _)| t.as_str()).collect()
}

#[tokio::test]
async fn counts_follow_marks_mark_all_read_and_the_horizon() {
    let r = reader_with("rita", &[("alpha", 10, 3)]).await;
    let source = r.sources[0].clone();
    let ids = r.ids_by_title().await;
    let id = |title: &str| ids[title].clone();
    assert_eq!(
        ids.len(),
        13,
        "the stream lists articles past the horizon too"
    );

    // Articles past the horizon count as read; the rest are unread.
    let counts = r.counts().await;
    assert_eq!(counts["total"], 10, "{counts}");
    assert_eq!(r.unread_of(&source).await, 10);
    let all = r.stream("order=oldest").await;
    assert_eq!(all.len(), 13, "the stream shows the old ones too");
    assert!(all[..3].iter().all(|(_, read, _)| *read), "{all:?}");
    assert!(all[3..].iter().all(|(_, read, _)| !*read), "{all:?}");

    r.mark(&[id("alpha-1"), id("alpha-2")], json!({"read": true}))
        .await;
    assert_eq!(r.unread_of(&source).await, 8);
    r.mark(&[id("alpha-2")], json!({"read": false})).await;
    assert_eq!(r.unread_of(&source).await, 9);

    // Everything of the source published more than 5.5 hours ago: alpha-6 to alpha-10.
    let before = (Utc::now() - Duration::minutes(330)).to_rfc3339();
    r.mark_all_read(json!({"sourceId": source, "before": before}))
        .await;
    assert_eq!(r.unread_of(&source).await, 4, "alpha-2 to alpha-5");
    // Kept unread after the watermark.
    r.mark(&[id("alpha-8")], json!({"read": false})).await;
    assert_eq!(r.unread_of(&source).await, 5);
    let unread = r.stream("state=unread").await;
    assert_eq!(
        titles(&unread),
        vec!["alpha-2", "alpha-3", "alpha-4", "alpha-5", "alpha-8"]
    );
    let oldest = r.stream("state=unread&order=oldest").await;
    assert_eq!(
        titles(&oldest),
        vec!["alpha-8", "alpha-5", "alpha-4", "alpha-3", "alpha-2"]
    );
    let read = r.stream("state=read").await;
    assert_eq!(read.len(), 13 - 5, "{read:?}");
    assert!(read.iter().all(|(_, read, _)| *read));

    // A time window on publication.
    let after = (Utc::now() - Duration::minutes(270)).to_rfc3339();
    let window = r.stream(&format!("after={}", urlencode(&after))).await;
    assert_eq!(
        titles(&window),
        vec!["alpha-1", "alpha-2", "alpha-3", "alpha-4"]
    );

    // Everything, now: one write.
    r.mark_all_read(json!({})).await;
    let counts = r.counts().await;
    assert_eq!(counts["total"], 0, "{counts}");
    assert!(r.stream("state=unread").await.is_empty());
    // A later unread mark still counts.
    r.mark(&[id("alpha-9")], json!({"read": false})).await;
    assert_eq!(r.counts().await["total"], 1);
    // Each "mark all as read" was one item of the person's partition.
    let reader_items = partition(&r.t, &format!("READER#{}", r.user_id)).await;
    assert_eq!(reader_items.len(), 2, "SUB# and ALL: {reader_items:?}");
}

fn urlencode(text: &str) -> String {
    text.replace('+', "%2B").replace(':', "%3A")
}

#[tokio::test]
async fn labels_filter_the_stream_and_the_counts() {
    let r = reader_with("lena", &[("tech", 4, 0), ("news", 3, 0), ("misc", 2, 0)]).await;
    let (tech, news, misc) = (&r.sources[0], &r.sources[1], &r.sources[2]);
    let r = &r;
    let put = |source: &str, labels: Value| {
        let path = format!("{SUBSCRIPTIONS}/{source}/labels");
        let body = json!({ "labels": labels });
        async move { r.t.put_json_auth(&path, &r.token, &body).await }
    };
    let response = put(tech, json!(["Work", "Daily"])).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.json::<Value>().await.expect("json")["labels"],
        json!(["Work", "Daily"])
    );
    assert_eq!(put(news, json!(["Daily"])).await.status(), 200);

    let labels = r.get(LABELS).await;
    assert_eq!(
        labels["items"],
        json!([
            {"name": "Daily", "subscriptions": 2, "unread": 7, "newestAt": labels["items"][0]["newestAt"]},
            {"name": "Work", "subscriptions": 1, "unread": 4, "newestAt": labels["items"][1]["newestAt"]},
        ])
    );
    let daily = r.stream("label=Daily").await;
    assert_eq!(daily.len(), 7);
    assert!(titles(&daily)
        .iter()
        .all(|t| t.starts_with("tech") || t.starts_with("news")));
    let subs = r.get(SUBSCRIPTIONS).await;
    let labels_of = |id: &str| {
        subs["items"]
            .as_array()
            .expect("items")
            .iter()
            .find(|s| s["source"]["id"] == id)
            .map(|s| s["labels"].clone())
    };
    assert_eq!(labels_of(tech), Some(json!(["Work", "Daily"])));
    assert_eq!(labels_of(misc), Some(json!([])));

    // Mark a label read: one write, both of its sources follow, the other does not.
    r.mark_all_read(json!({"label": "Daily"})).await;
    assert_eq!(r.unread_of(tech).await, 0);
    assert_eq!(r.unread_of(news).await, 0);
    assert_eq!(r.unread_of(misc).await, 2);
    assert_eq!(r.counts().await["total"], 2);

    // Rename carries the watermark; a case-different name is another label.
    let rename =
        r.t.put_json_auth(
            &format!("{LABELS}/Daily"),
            &r.token,
            &json!({"name": "Morning"}),
        )
        .await;
    assert_eq!(rename.status(), 204);
    let names: Vec<Value> = r.get(LABELS).await["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|l| l["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("Morning"), json!("Work")]);
    assert_eq!(
        r.counts().await["total"],
        2,
        "the watermark moved with the label"
    );
    assert_eq!(r.stream("label=Morning").await.len(), 7);
    assert_news_error(
        r.t.get_auth(&format!("{ARTICLES}?label=morning"), &r.token)
            .await,
        404,
        "/reader/articles",
    )
    .await;

    // Delete: the label goes from every subscription, the subscriptions stay.
    let delete =
        r.t.delete_auth(&format!("{LABELS}/Morning"), &r.token)
            .await;
    assert_eq!(delete.status(), 204);
    let subs = r.get(SUBSCRIPTIONS).await;
    assert_eq!(subs["items"].as_array().expect("items").len(), 3);
    assert_eq!(
        r.get(LABELS).await["items"]
            .as_array()
            .expect("items")
            .len(),
        1
    );
    assert_news_error(
        r.t.delete_auth(&format!("{LABELS}/Morning"), &r.token)
            .await,
        404,
        "/reader/labels/Morning",
    )
    .await;
    // Unsubscribed sources take no labels.
    assert_news_error(
        put("0123456789abcdef0123456789abcdef", json!(["x"])).await,
        404,
        "/reader/subscriptions/0123456789abcdef0123456789abcdef/labels",
    )
    .await;
}

#[tokio::test]
async fn starred_pages_by_cursor_and_saved_articles_come_over_once() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let (user, token) = t.user("sam").await;
    let url = feeds.put("/s.xml", FeedDocument::rss(recent_rss("star", 9, 0)));
    let source = submit_id(&t, &token, &url).await;
    assert_eq!(t.subscribe(&token, &source).await.status(), 200);
    // Saved before the reader existed (identity's list), read through the plain content API.
    let page: Value = t
        .get_json(&format!("/api/content/articles?sourceId={source}&size=20"))
        .await;
    let by_title: std::collections::HashMap<String, String> = page["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|a| {
            (
                a["title"].as_str().expect("t").to_string(),
                a["id"].as_str().expect("id").to_string(),
            )
        })
        .collect();
    for title in ["star-9", "star-8"] {
        let saved = t
            .put_json_auth(
                &format!("/api/users/users/me/saved/{}", by_title[title]),
                &token,
                &json!({}),
            )
            .await;
        assert!(saved.status().is_success(), "{}", saved.status());
    }
    let r = Reader {
        t,
        _feeds: feeds,
        token,
        user_id: user["id"].as_str().expect("id").to_string(),
        sources: vec![source],
    };
    // The first reader call brings them over as starred, identity's newest first.
    let starred = r.stream("state=starred").await;
    assert_eq!(titles(&starred), vec!["star-8", "star-9"]);
    assert!(starred.iter().all(|(_, _, s)| *s));

    // Star five more, one at a time, so their starred times differ.
    for title in ["star-1", "star-2", "star-3", "star-4", "star-5"] {
        r.mark(&[by_title[title].clone()], json!({"starred": true}))
            .await;
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    // Starring again changes nothing.
    r.mark(&[by_title["star-3"].clone()], json!({"starred": true}))
        .await;
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut path = format!("{ARTICLES}?state=starred&size=3");
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        let page = r.get(&path).await;
        let names: Vec<String> = page["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|i| i["title"].as_str().expect("title").to_string())
            .collect();
        pages.push(names);
        match page["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(
        pages,
        vec![
            vec!["star-5", "star-4", "star-3"],
            vec!["star-2", "star-1", "star-8"],
            vec!["star-9"],
        ]
    );
    r.mark(&[by_title["star-4"].clone()], json!({"starred": false}))
        .await;
    let starred = r.stream("state=starred").await;
    assert_eq!(
        titles(&starred),
        vec!["star-5", "star-3", "star-2", "star-1", "star-8", "star-9"]
    );
    assert_eq!(
        partition(&r.t, &format!("STARRED#{}", r.user_id))
            .await
            .len(),
        6,
        "one starred row each"
    );
    // Starred state shows in the main stream, and reading does not unstar.
    r.mark(&[by_title["star-5"].clone()], json!({"read": true}))
        .await;
    let all = r.stream("").await;
    let five = all.iter().find(|(t, _, _)| t == "star-5").expect("star-5");
    assert_eq!((five.1, five.2), (true, true));
}

#[tokio::test]
async fn concurrent_and_redelivered_marks_keep_counts_exact() {
    let r = reader_with("cory", &[("busy", 30, 0)]).await;
    let source = r.sources[0].clone();
    let ids = r.ids_by_title().await;
    let id = |i: usize| ids[&format!("busy-{i}")].clone();

    // 20 concurrent requests marking overlapping windows read: 1..=24 in all.
    let requests = (0..20).map(|k| {
        let window: Vec<String> = (1 + k..=5 + k).map(id).collect();
        r.post(MARKS, json!({"ids": window, "read": true}))
    });
    for response in join_all(requests).await {
        assert_eq!(response.status(), 200);
    }
    assert_eq!(r.unread_of(&source).await, 6, "busy-25 to busy-30");

    // Redelivery: the same marks five more times change nothing.
    for _ in 0..5 {
        let again = (0..4).map(|k| {
            let window: Vec<String> = (1 + k..=5 + k).map(id).collect();
            r.post(MARKS, json!({"ids": window, "read": true}))
        });
        join_all(again).await;
    }
    assert_eq!(r.unread_of(&source).await, 6);

    // Mark-all-read racing unread marks: whatever the order, the count is what the stream
    // shows, and marks set after the watermark count.
    let race_unread = r.post(MARKS, json!({"ids": [id(2), id(3)], "read": false}));
    let race_all = r.post(MARK_ALL_READ, json!({"sourceId": source}));
    let (a, b) = tokio::join!(race_unread, race_all);
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 204));
    let count = r.unread_of(&source).await;
    let listed = r.stream("state=unread").await;
    assert_eq!(count, listed.len() as u64, "{listed:?}");
    assert!(count <= 2, "{count}");
    let flagged = r
        .stream("")
        .await
        .iter()
        .filter(|(_, read, _)| !read)
        .count();
    assert_eq!(flagged as u64, count);

    // Concurrent stars and unstars of overlapping articles leave one starred row each.
    let stars = (0..10).map(|k| {
        r.post(
            MARKS,
            json!({"ids": [id(1 + k % 3), id(4)], "starred": true}),
        )
    });
    join_all(stars).await;
    let starred = r.stream("state=starred").await;
    assert_eq!(starred.len(), 4, "{starred:?}");
    // Then 20 concurrent unread marks on half, each counted once.
    let unread = (0..20).map(|k| r.post(MARKS, json!({"ids": [id(10 + k % 10)], "read": false})));
    join_all(unread).await;
    assert_eq!(r.unread_of(&source).await, count + 10);
}

#[tokio::test]
async fn reader_routes_need_a_user_token_and_name_bad_fields() {
    let r = reader_with("bree", &[("edge", 2, 0)]).await;
    for path in [SUBSCRIPTIONS, LABELS, COUNTS, ARTICLES] {
        assert_news_error(r.t.get(path).await, 401, &path["/api/content".len()..]).await;
    }
    for path in [MARKS, MARK_ALL_READ] {
        assert_news_error(
            r.t.post_json(path, &json!({"ids": ["x"], "read": true}))
                .await,
            401,
            &path["/api/content".len()..],
        )
        .await;
    }
    let bad_gets = [
        ("size=0", "size"),
        ("size=101", "size"),
        ("state=new", "state"),
        ("order=sideways", "order"),
        ("after=yesterday", "after"),
        ("cursor=zz", "cursor"),
        ("label=a%2Fb", "label"),
        ("label=%20", "label"),
    ];
    for (query, field) in bad_gets {
        let body = assert_news_error(
            r.t.get_auth(&format!("{ARTICLES}?{query}"), &r.token).await,
            400,
            "/reader/articles",
        )
        .await;
        assert!(
            details(&body)
                .iter()
                .any(|d| d.starts_with(&format!("{field}:"))),
            "{query}: {body}"
        );
    }
    let bad_posts = [
        (MARKS, json!({"read": true}), "ids"),
        (MARKS, json!({"ids": [], "read": true}), "ids"),
        (MARKS, json!({"ids": [" "], "read": true}), "ids"),
        (MARKS, json!({"ids": ["a"], "read": "yes"}), "read"),
        (MARK_ALL_READ, json!({"before": "soon"}), "before"),
    ];
    for (path, body, field) in bad_posts {
        let answer = assert_news_error(
            r.post(path, body.clone()).await,
            400,
            &path["/api/content".len()..],
        )
        .await;
        assert!(
            details(&answer)
                .iter()
                .any(|d| d.starts_with(&format!("{field}:"))),
            "{body}: {answer}"
        );
    }
    let too_many: Vec<String> = (0..11).map(|i| format!("l{i}")).collect();
    let path = format!("{SUBSCRIPTIONS}/{}/labels", r.sources[0]);
    for labels in [
        json!(too_many),
        json!(["a/b"]),
        json!([""]),
        json!(["tab\there"]),
    ] {
        let answer = assert_news_error(
            r.t.put_json_auth(&path, &r.token, &json!({ "labels": labels }))
                .await,
            400,
            &path["/api/content".len()..],
        )
        .await;
        assert!(
            details(&answer).iter().any(|d| d.starts_with("labels:")),
            "{answer}"
        );
    }
}

#[tokio::test]
async fn unsubscribing_removes_the_reader_row_and_aliases_resolve() {
    let r = reader_with("una", &[("gone", 3, 0), ("kept", 2, 0)]).await;
    let (gone, kept) = (&r.sources[0], &r.sources[1]);
    let response =
        r.t.put_json_auth(
            &format!("{SUBSCRIPTIONS}/{gone}/labels"),
            &r.token,
            &json!({"labels": ["x"]}),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(r.counts().await["total"], 5);
    assert!(r.t.unsubscribe(&r.token, gone).await.status().is_success());
    let subs = r.get(SUBSCRIPTIONS).await;
    let listed: Vec<&str> = subs["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|s| s["source"]["id"].as_str().expect("id"))
        .collect();
    assert_eq!(listed, vec![kept.as_str()]);
    let rows = partition(&r.t, &format!("READER#{}", r.user_id)).await;
    assert!(
        rows.iter()
            .all(|item| item["sk"].as_s().ok() != Some(&format!("SUB#{gone}"))),
        "{rows:?}"
    );
    assert_eq!(r.counts().await["total"], 2);
    assert_eq!(r.get(LABELS).await["items"], json!([]));
    assert_news_error(
        r.t.get_auth(&format!("{ARTICLES}?sourceId={gone}"), &r.token)
            .await,
        404,
        "/reader/articles",
    )
    .await;

    // Every stored article has its item-id alias: its first 16 hex digits.
    let ids = r.ids_by_title().await;
    let store = stack_tests::content::content_store(&r.t).await;
    let reader = news::Reader::new(store, 30);
    let items: Vec<news::input::reader::ItemId> = ids
        .values()
        .map(|id| news::input::reader::ItemId::of_article(id).expect("hex"))
        .collect();
    let resolved = reader.resolve_items(&items).await.expect("resolve");
    assert_eq!(resolved.len(), ids.len());
    for (item, article) in resolved {
        assert!(article.as_str().starts_with(&item.hex()));
        assert_eq!(
            news::input::reader::ItemId::parse("i", &item.short_form().to_string()).ok(),
            Some(item)
        );
    }
}

/// Rows as the API stores them, written straight into the table: `sources` sources of `per`
/// unread articles each (those of `index` 0 and 1 with their article items), all subscribed
/// by the person.
async fn many_sources(t: &TestStack, user: &str, sources: usize, per: usize) {
    use aws_sdk_dynamodb::types::AttributeValue as A;
    let now = Utc::now();
    let s = |v: String| A::S(v);
    let mut items = vec![std::collections::HashMap::from([
        ("pk".to_string(), s(format!("READER#{user}"))),
        ("sk".to_string(), s("ALL".into())),
        (
            "importedAt".to_string(),
            s("2026-01-01T00:00:00.000Z".into()),
        ),
    ])];
    for k in 0..sources {
        let id = format!("{:032x}", 0xbeef_0000_u64 + k as u64);
        let pk = format!("SOURCE#{id}");
        items.push(std::collections::HashMap::from([
            ("pk".to_string(), s(pk.clone())),
            ("sk".to_string(), s("META".into())),
            ("id".to_string(), s(id.clone())),
            (
                "url".to_string(),
                s(format!("https://many.example.com/{k}")),
            ),
            ("title".to_string(), s(format!("Many {k}"))),
            (
                "createdAt".to_string(),
                s("2026-01-01T00:00:00.000Z".into()),
            ),
        ]));
        items.push(std::collections::HashMap::from([
            ("pk".to_string(), s(format!("{pk}#COUNTS"))),
            ("sk".to_string(), s("COUNTS".into())),
            ("subscriberCount".to_string(), A::N("1".into())),
            ("articleCount".to_string(), A::N(per.to_string())),
        ]));
        items.push(std::collections::HashMap::from([
            ("pk".to_string(), s(format!("READER#{user}"))),
            ("sk".to_string(), s(format!("SUB#{id}"))),
            ("sourceId".to_string(), s(id.clone())),
        ]));
        for i in 0..per {
            let article = format!("{:08x}{:08x}{:016x}", i, 0xc000_0000_u64 + k as u64, 0);
            let at = (now - Duration::seconds((i * sources + k) as i64 + 60))
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            items.push(std::collections::HashMap::from([
                ("pk".to_string(), s(pk.clone())),
                ("sk".to_string(), s(format!("ART#{at}#{article}"))),
                ("articleId".to_string(), s(article.clone())),
                ("aliased".to_string(), A::Bool(true)),
            ]));
            items.push(std::collections::HashMap::from([
                ("pk".to_string(), s(format!("ARTICLE#{article}"))),
                ("sk".to_string(), s("META".into())),
                ("id".to_string(), s(article.clone())),
                ("sourceId".to_string(), s(id.clone())),
                ("sourceTitle".to_string(), s(format!("Many {k}"))),
                ("title".to_string(), s(format!("many-{k}-{i}"))),
                ("publishedAt".to_string(), s(at)),
                ("paragraphs".to_string(), A::L(Vec::new())),
                ("topics".to_string(), A::L(Vec::new())),
            ]));
        }
    }
    t.put_items("ContentTable", items).await;
}

#[tokio::test]
async fn a_reader_of_many_sources_pages_the_merged_stream_in_order() {
    let t = TestStack::start().await;
    let (user, token) = t.user("mona").await;
    let id = user["id"].as_str().expect("id").to_string();
    many_sources(&t, &id, 60, 3).await;
    let r = Reader {
        t,
        _feeds: FeedServer::start().await,
        token,
        user_id: id,
        sources: Vec::new(),
    };
    assert_eq!(r.counts().await["total"], 180);
    let first = r.get(&format!("{ARTICLES}?state=unread&size=20")).await;
    let titles: Vec<&str> = first["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["title"].as_str().expect("title"))
        .collect();
    let expected: Vec<String> = (0..20).map(|k| format!("many-{k}-0")).collect();
    assert_eq!(titles, expected);
    let all = r.stream("state=unread").await;
    assert_eq!(all.len(), 180);
    let oldest = r.stream("order=oldest").await;
    assert_eq!(oldest.first().map(|t| t.0.as_str()), Some("many-59-2"));
    assert_eq!(oldest.len(), 180);
}

#[tokio::test]
async fn filters_given_together_intersect() {
    let r = reader_with("ines", &[("one", 3, 0), ("two", 2, 0)]).await;
    let (one, two) = (&r.sources[0], &r.sources[1]);
    let path = format!("{SUBSCRIPTIONS}/{one}/labels");
    let labelled =
        r.t.put_json_auth(&path, &r.token, &json!({"labels": ["Daily"]}))
            .await;
    assert_eq!(labelled.status(), 200);

    // A subscription named with a label it carries is its stream; without it, a 404.
    let both = r.stream(&format!("sourceId={one}&label=Daily")).await;
    assert_eq!(titles(&both), vec!["one-1", "one-2", "one-3"]);
    for query in [
        format!("sourceId={two}&label=Daily"),
        format!("sourceId={one}&label=Other"),
    ] {
        assert_news_error(
            r.t.get_auth(&format!("{ARTICLES}?{query}"), &r.token).await,
            404,
            "/reader/articles",
        )
        .await;
    }

    // The starred of a subscription or a label: theirs only, by publication.
    let ids = r.ids_by_title().await;
    r.mark(
        &[ids["one-2"].clone(), ids["two-1"].clone()],
        json!({"starred": true}),
    )
    .await;
    let starred_one = r.stream(&format!("sourceId={one}&state=starred")).await;
    assert_eq!(titles(&starred_one), vec!["one-2"]);
    let starred_daily = r.stream("label=Daily&state=starred").await;
    assert_eq!(titles(&starred_daily), vec!["one-2"]);
    assert_eq!(titles(&r.stream("state=starred").await).len(), 2);

    // Mark all read on a subscription named with its label: that subscription only.
    r.mark_all_read(json!({"sourceId": one, "label": "Daily"}))
        .await;
    assert_eq!(r.unread_of(one).await, 0);
    assert_eq!(r.unread_of(two).await, 2);
    assert_news_error(
        r.post(MARK_ALL_READ, json!({"sourceId": two, "label": "Daily"}))
            .await,
        404,
        "/reader/mark-all-read",
    )
    .await;
    assert_eq!(r.unread_of(two).await, 2);

    // Marks naming neither state change nothing.
    let answer = r.post(MARKS, json!({"ids": [ids["two-2"].clone()]})).await;
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.json::<Value>().await.expect("json")["marked"], 0);
    assert_eq!(r.unread_of(two).await, 2);
}

#[tokio::test]
async fn deleting_an_account_deletes_its_reading_state_and_only_its() {
    let r = reader_with("rhea", &[("kept", 3, 0), ("solo", 2, 0)]).await;
    let (kept, solo) = (&r.sources[0], &r.sources[1]);
    let (other, other_token) = r.t.user("otto").await;
    let other_id = other["id"].as_str().expect("id").to_string();
    assert_eq!(r.t.subscribe(&other_token, kept).await.status(), 200);
    let path = format!("{SUBSCRIPTIONS}/{kept}/labels");
    for token in [&r.token, &other_token] {
        let labelled =
            r.t.put_json_auth(&path, token, &json!({"labels": ["Daily"]}))
                .await;
        assert_eq!(labelled.status(), 200);
    }
    let ids = r.ids_by_title().await;
    let marked = [ids["kept-1"].clone(), ids["solo-1"].clone()];
    r.mark(&marked, json!({"read": true, "starred": true}))
        .await;
    r.mark_all_read(json!({"label": "Daily"})).await;
    let theirs =
        r.t.post_json_auth(
            MARKS,
            &other_token,
            &json!({"ids": [ids["kept-1"].clone()], "starred": true}),
        )
        .await;
    assert_eq!(theirs.status(), 200);
    let partitions = |user: &str| {
        [
            format!("READER#{user}"),
            format!("STARRED#{user}"),
            format!("MARKS#{user}#{kept}"),
            format!("MARKS#{user}#{solo}"),
        ]
    };
    for pk in &partitions(&r.user_id)[..3] {
        assert!(!partition(&r.t, pk).await.is_empty(), "{pk} before");
    }

    // Only identity's service token reaches the content service's deletion route.
    assert_news_error(
        r.t.delete_auth(&format!("/api/content/readers/{}", r.user_id), &r.token)
            .await,
        403,
        &format!("/readers/{}", r.user_id),
    )
    .await;
    assert_eq!(r.t.delete_auth(ME, &r.token).await.status(), 204);
    for pk in partitions(&r.user_id) {
        assert_eq!(partition(&r.t, &pk).await, vec![], "{pk} after");
    }
    // The other reader keeps everything.
    assert_eq!(
        partition(&r.t, &format!("STARRED#{other_id}")).await.len(),
        1
    );
    assert!(!partition(&r.t, &format!("READER#{other_id}"))
        .await
        .is_empty());
    let counts = r.t.get_auth(COUNTS, &other_token).await;
    assert_eq!(counts.status(), 200);
}
