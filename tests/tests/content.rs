//! Document A's content service and the users side of subscriptions, black-box through the
//! local stack against the emulator, with feeds served by the test on loopback.

use std::collections::BTreeMap;
use std::time::Duration;

use aws_lambda_events::event::sqs::{SqsEvent, SqsMessage};
use serde_json::{json, Value};
use stack_tests::feeds::{generated_rss, FeedDocument, FeedServer, ATOM, HTML_PAGE, RSS2};
use stack_tests::{assert_news_error, details, TestStack};

const SOURCES: &str = "/api/content/sources";

async fn submit(t: &TestStack, token: &str, url: &str) -> reqwest::Response {
    t.http
        .post(t.url(SOURCES))
        .bearer_auth(token)
        .json(&json!({ "url": url }))
        .send()
        .await
        .expect("request")
}

async fn get(t: &TestStack, path: &str) -> Value {
    let response = t.http.get(t.url(path)).send().await.expect("request");
    assert_eq!(response.status(), 200, "GET {path}");
    response.json().await.expect("json")
}

async fn subscribe_as(t: &TestStack, token: &str, source_id: &str) -> reqwest::Response {
    t.http
        .post(t.url(&format!("/api/users/users/me/subscriptions/{source_id}")))
        .bearer_auth(token)
        .send()
        .await
        .expect("request")
}

async fn unsubscribe_as(t: &TestStack, token: &str, source_id: &str) -> reqwest::Response {
    t.http
        .delete(t.url(&format!("/api/users/users/me/subscriptions/{source_id}")))
        .bearer_auth(token)
        .send()
        .await
        .expect("request")
}

async fn settings(t: &TestStack, token: &str) -> Value {
    t.get_auth("/api/users/users/me/settings", token)
        .await
        .json()
        .await
        .expect("json")
}

fn published(articles: &Value) -> Vec<String> {
    articles["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|a| a["publishedAt"].as_str().expect("publishedAt").to_string())
        .collect()
}

#[tokio::test]
async fn submitted_feed_shows_its_articles_and_topics_at_once() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/circuit.xml", FeedDocument::rss(RSS2));
    let (_, token) = t.user("reader").await;

    let created = submit(&t, &token, &url).await;
    assert_eq!(created.status(), 201);
    let source: Value = created.json().await.expect("json");
    let id = source["id"].as_str().expect("id").to_string();
    assert_eq!(source["title"], "The Daily Circuit & Co.");
    assert_eq!(source["url"], url);
    assert_eq!(source["siteUrl"], "https://circuit.example.com/");
    assert_eq!(source["subscriberCount"], 0);
    assert!(source["lastFetchedAt"].is_string(), "{source}");
    assert!(source["createdAt"].is_string(), "{source}");

    // The same feed again, spelled differently, is the same source: 200, not a new one.
    let again_url = url.replace("http://", "HTTP://") + "#latest";
    let again = submit(&t, &token, &again_url).await;
    assert_eq!(again.status(), 200);
    let again: Value = again.json().await.expect("json");
    assert_eq!(again["id"], id.as_str());
    assert_eq!(
        feeds.hits("/circuit.xml").full,
        1,
        "known URL not refetched"
    );

    let listed = get(&t, SOURCES).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    assert_eq!(listed[0]["id"], id.as_str());
    assert_eq!(get(&t, &format!("{SOURCES}/{id}")).await["id"], id.as_str());

    // Articles: the envelope, newest first, plain-text paragraphs.
    let page = get(&t, &format!("/api/content/articles?sourceId={id}")).await;
    assert_eq!(page["totalElements"], 6, "{page}");
    assert_eq!(page["totalPages"], 1);
    assert_eq!(page["page"], 0);
    assert_eq!(page["size"], 20);
    let dates = published(&page);
    let mut sorted = dates.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(dates, sorted, "newest first");
    assert!(
        page["content"][0].get("paragraphs").is_none(),
        "lists leave bodies out"
    );

    let chips = page["content"]
        .as_array()
        .expect("content")
        .iter()
        .find(|a| a["title"] == "Chipmakers race to 2 nm — and beyond")
        .expect("chips article")
        .clone();
    let article = get(
        &t,
        &format!(
            "/api/content/articles/{}",
            chips["id"].as_str().expect("id")
        ),
    )
    .await;
    assert_eq!(article["sourceId"], id.as_str());
    assert_eq!(article["sourceTitle"], "The Daily Circuit & Co.");
    assert_eq!(article["author"], "Priya Raman");
    assert_eq!(
        article["link"],
        "https://circuit.example.com/2025/03/04/chipmakers-2nm"
    );
    assert_eq!(article["publishedAt"], "2025-03-04T09:30:00.000Z");
    assert_eq!(
        article["paragraphs"],
        json!([
            "Three foundries say they will ship 2 nm parts next year — a claim analysts call “ambitious”.",
            "The first wafers are due in Q3… if the lithography tools arrive on time.",
            "A test wafer © Circuit"
        ])
    );
    assert_eq!(
        article["topics"],
        json!([{"id": "tech", "name": "Tech"}, {"id": "semiconductors", "name": "Semiconductors"},
               {"id": "science-space", "name": "Science & Space"}])
    );
    assert_eq!(
        article["imageUrl"],
        "https://cdn.circuit.example.com/thumbs/2nm.jpg"
    );

    // Topics, and the articles of one topic.
    let topics = get(&t, "/api/content/topics").await;
    let tech = topics
        .as_array()
        .expect("topics")
        .iter()
        .find(|topic| topic["id"] == "tech")
        .expect("tech topic")
        .clone();
    assert_eq!(tech["name"], "Tech");
    let tech_count = tech["articleCount"].as_i64().expect("count");
    assert!(tech_count >= 1);
    let by_topic = get(&t, "/api/content/articles?topicId=tech").await;
    assert_eq!(by_topic["totalElements"], tech_count);
    assert!(by_topic["content"]
        .as_array()
        .expect("content")
        .iter()
        .all(|a| a["topics"]
            .as_array()
            .is_some_and(|ts| ts.iter().any(|x| x["id"] == "tech"))));

    // Paging: 6 articles in pages of 4.
    let first = get(&t, "/api/content/articles?size=4").await;
    let second = get(&t, "/api/content/articles?size=4&page=1").await;
    assert_eq!(first["totalPages"], 2);
    assert_eq!(first["content"].as_array().map(Vec::len), Some(4));
    assert_eq!(second["content"].as_array().map(Vec::len), Some(2));
    let mut all = published(&first);
    all.extend(published(&second));
    let mut sorted = all.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(all, sorted);
    let beyond = get(&t, "/api/content/articles?size=4&page=7").await;
    assert_eq!(beyond["content"], json!([]));
    assert_eq!(beyond["totalElements"], 6);
}

#[tokio::test]
async fn atom_feeds_are_read_too() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/climate.atom", FeedDocument::atom(ATOM));
    let (_, token) = t.user("atomreader").await;
    let created = submit(&t, &token, &url).await;
    assert_eq!(created.status(), 201);
    let source: Value = created.json().await.expect("json");
    assert_eq!(source["title"], "Field Notes on Climate");
    let page = get(
        &t,
        &format!(
            "/api/content/articles?sourceId={}",
            source["id"].as_str().expect("id")
        ),
    )
    .await;
    assert_eq!(page["totalElements"], 4);
}

#[tokio::test]
async fn bad_submissions_are_refused_naming_the_url() {
    let mut parameters = BTreeMap::new();
    parameters.insert("FeedFetchTimeoutSeconds".to_string(), "1".to_string());
    let t = TestStack::start_with(parameters).await;
    let feeds = FeedServer::start().await;
    let (_, token) = t.user("submitter").await;

    let anonymous = t
        .post_json(SOURCES, &json!({"url": "http://example.com/feed"}))
        .await;
    assert_news_error(anonymous, 401, "/sources").await;

    let cases = [
        (json!({}), "url: must not be blank"),
        (json!({"url": "   "}), "url: must not be blank"),
        (
            json!({"url": "ftp://example.com/feed.xml"}),
            "url: must use http or https",
        ),
        (
            json!({"url": "not a url"}),
            "url: is not a valid absolute URL",
        ),
    ];
    for (body, expected) in cases {
        let response = t
            .http
            .post(t.url(SOURCES))
            .bearer_auth(&token)
            .json(&body)
            .send()
            .await
            .expect("request");
        let error = assert_news_error(response, 400, "/sources").await;
        let details = details(&error);
        assert!(
            details.iter().any(|d| d.starts_with(expected)),
            "{body}: {details:?}"
        );
    }

    let html = feeds.put("/index.html", FeedDocument::html(HTML_PAGE));
    let missing = feeds.url("/missing.xml");
    let slow = feeds.put(
        "/slow.xml",
        FeedDocument::rss(RSS2).stalled(Duration::from_secs(5)),
    );
    for (url, expected) in [
        (html, "url: not an RSS, Atom or JSON feed"),
        (
            missing,
            "url: the feed server answered with HTTP status 404",
        ),
        (slow, "url: the feed server did not respond in time"),
    ] {
        let error = assert_news_error(submit(&t, &token, &url).await, 400, "/sources").await;
        let details = details(&error);
        assert!(
            details.iter().any(|d| d.starts_with(expected)),
            "{url}: {details:?}"
        );
    }
    // Nothing was stored for any of them.
    assert_eq!(get(&t, SOURCES).await, json!([]));
}

#[tokio::test]
async fn private_addresses_are_refused_unless_allowed() {
    let mut parameters = BTreeMap::new();
    parameters.insert("FeedAllowPrivateNetworks".to_string(), "false".to_string());
    let t = TestStack::start_with(parameters).await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/circuit.xml", FeedDocument::rss(RSS2));
    let (_, token) = t.user("ssrf").await;
    let error = assert_news_error(submit(&t, &token, &url).await, 400, "/sources").await;
    assert!(
        details(&error)
            .iter()
            .any(|d| d.contains("private or reserved network")),
        "{error}"
    );
    assert_eq!(feeds.hits("/circuit.xml").full, 0, "never contacted");
}

fn sqs_event(bodies: &[(&str, String)]) -> SqsEvent {
    let mut event = SqsEvent::default();
    event.records = bodies
        .iter()
        .map(|(id, body)| {
            let mut message = SqsMessage::default();
            message.message_id = Some(id.to_string());
            message.body = Some(body.clone());
            message.event_source = Some("aws:sqs".into());
            message
        })
        .collect();
    event
}

#[tokio::test]
async fn worker_refreshes_conditionally_and_redelivery_never_duplicates() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/news.xml", FeedDocument::rss(generated_rss("Wire", 0, 10)));
    let (_, token) = t.user("wire").await;
    let source: Value = submit(&t, &token, &url).await.json().await.expect("json");
    let id = source["id"].as_str().expect("id").to_string();
    let articles = format!("/api/content/articles?sourceId={id}&size=100");
    assert_eq!(get(&t, &articles).await["totalElements"], 10);

    let env = t
        .stack
        .function_env("FeedWorkerFunction")
        .expect("worker env")
        .clone();
    let worker = feed_worker_function::handler(env).await.expect("worker");
    let refresh = news::FeedRefresh::new(&id).to_json();

    // Unchanged feed: a conditional GET answered 304, nothing parsed or stored.
    let response = worker
        .handle(sqs_event(&[("m1", refresh.clone())]))
        .await
        .expect("batch");
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(
        feeds.hits("/news.xml"),
        stack_tests::feeds::Hits {
            full: 1,
            not_modified: 1
        }
    );
    assert_eq!(get(&t, &articles).await["totalElements"], 10);

    // A new edition with 5 more items, delivered twice in one batch and once more later.
    feeds.put("/news.xml", FeedDocument::rss(generated_rss("Wire", 0, 15)));
    let batch = sqs_event(&[("m2", refresh.clone()), ("m3", refresh.clone())]);
    let response = worker.handle(batch).await.expect("batch");
    assert!(response.batch_item_failures.is_empty());
    let response = worker
        .handle(sqs_event(&[("m4", refresh.clone())]))
        .await
        .expect("batch");
    assert!(response.batch_item_failures.is_empty());
    let page = get(&t, &articles).await;
    assert_eq!(page["totalElements"], 15, "no duplicates");
    let mut ids: Vec<String> = page["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|a| a["id"].as_str().expect("id").to_string())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 15);
    assert_eq!(get(&t, SOURCES).await[0]["title"], "Wire");

    // An unreadable message is a batch item failure (redelivered, then dead-lettered);
    // a message for a source that no longer exists is simply done.
    let response = worker
        .handle(sqs_event(&[
            ("junk", "not json".to_string()),
            (
                "gone",
                news::FeedRefresh::new("0123456789abcdef0123456789abcdef").to_json(),
            ),
        ]))
        .await
        .expect("batch");
    let failed: Vec<&str> = response
        .batch_item_failures
        .iter()
        .map(|f| f.item_identifier.as_str())
        .collect();
    assert_eq!(failed, vec!["junk"]);
}

#[tokio::test]
async fn a_failing_feed_is_backed_off() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let url = feeds.put(
        "/flaky.xml",
        FeedDocument::rss(generated_rss("Flaky", 0, 3)),
    );
    let (_, token) = t.user("flaky").await;
    let source: Value = submit(&t, &token, &url).await.json().await.expect("json");
    let id = source["id"].as_str().expect("id").to_string();
    feeds.put("/flaky.xml", FeedDocument::html("<html>maintenance</html>"));

    let worker_env = t
        .stack
        .function_env("FeedWorkerFunction")
        .expect("env")
        .clone();
    let worker = feed_worker_function::handler(worker_env)
        .await
        .expect("worker");
    let response = worker
        .handle(sqs_event(&[("m1", news::FeedRefresh::new(&id).to_json())]))
        .await
        .expect("batch");
    assert!(
        response.batch_item_failures.is_empty(),
        "the back-off replaces SQS retries"
    );

    // Backed off: not due even after the normal refresh interval.
    let scheduler_env = t
        .stack
        .function_env("FeedSchedulerFunction")
        .expect("env")
        .clone();
    let scheduler = feed_scheduler_function::FeedScheduler::from_env(&scheduler_env)
        .await
        .expect("scheduler");
    let now = chrono::Utc::now();
    assert_eq!(
        scheduler
            .run(now + chrono::Duration::minutes(16))
            .await
            .expect("run"),
        0
    );
    assert_eq!(
        scheduler
            .run(now + chrono::Duration::minutes(31))
            .await
            .expect("run"),
        1
    );
    assert_eq!(
        get(&t, &format!("/api/content/articles?sourceId={id}")).await["totalElements"],
        3
    );
}

#[tokio::test]
async fn scheduler_enqueues_due_sources_for_the_worker() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/due.xml", FeedDocument::rss(generated_rss("Due", 0, 4)));
    let (_, token) = t.user("due").await;
    let source: Value = submit(&t, &token, &url).await.json().await.expect("json");
    let id = source["id"].as_str().expect("id").to_string();

    let env = t
        .stack
        .function_env("FeedSchedulerFunction")
        .expect("env")
        .clone();
    let scheduler = feed_scheduler_function::FeedScheduler::from_env(&env)
        .await
        .expect("scheduler");
    let now = chrono::Utc::now();
    assert_eq!(
        scheduler.run(now).await.expect("run"),
        0,
        "just fetched: not due"
    );

    // Due in 15 minutes: enqueued, and the stack's SQS poller hands it to the worker.
    feeds.put("/due.xml", FeedDocument::rss(generated_rss("Due", 0, 6)));
    assert_eq!(
        scheduler
            .run(now + chrono::Duration::minutes(16))
            .await
            .expect("run"),
        1
    );
    let articles = format!("/api/content/articles?sourceId={id}");
    let mut total = Value::Null;
    for _ in 0..100 {
        total = get(&t, &articles).await["totalElements"].clone();
        if total == 6 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(total, 6, "the worker stored the new items");
    assert_eq!(feeds.hits("/due.xml").full, 2);
}

#[tokio::test]
async fn subscriptions_follow_the_sharing_rules() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/shared.xml", FeedDocument::rss(RSS2));
    let (alice, alice_token) = t.user("alice").await;
    let (_, bob_token) = t.user("bob").await;
    let source: Value = submit(&t, &alice_token, &url)
        .await
        .json()
        .await
        .expect("json");
    let id = source["id"].as_str().expect("id").to_string();

    // Subscribe both (the second call for alice is a no-op).
    for token in [&alice_token, &bob_token, &alice_token] {
        let response = subscribe_as(&t, token, &id).await;
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["id"], id.as_str());
        assert_eq!(body["title"], "The Daily Circuit & Co.");
    }
    assert_eq!(
        get(&t, &format!("{SOURCES}/{id}")).await["subscriberCount"],
        2
    );
    assert_eq!(
        settings(&t, &alice_token).await["enabledSourceIds"],
        json!([id])
    );
    assert_eq!(
        settings(&t, &bob_token).await["enabledSourceIds"],
        json!([id])
    );

    // Unknown sources are 404 on both routes.
    let unknown = "0123456789abcdef0123456789abcdef";
    assert_news_error(
        subscribe_as(&t, &alice_token, unknown).await,
        404,
        &format!("/users/me/subscriptions/{unknown}"),
    )
    .await;
    assert_news_error(
        unsubscribe_as(&t, &alice_token, "..%2F..%2Fsources").await,
        404,
        "/users/me/subscriptions/..%2F..%2Fsources",
    )
    .await;

    // Enabled sources must be subscriptions.
    let refused = t
        .http
        .put(t.url("/api/users/users/me/settings"))
        .bearer_auth(&alice_token)
        .json(&json!({"enabledSourceIds": [id, unknown]}))
        .send()
        .await
        .expect("request");
    let error = assert_news_error(refused, 400, "/users/me/settings").await;
    assert_eq!(
        details(&error),
        vec![format!(
            "enabledSourceIds: not subscribed to source {unknown}"
        )]
    );
    let disable = t
        .http
        .put(t.url("/api/users/users/me/settings"))
        .bearer_auth(&alice_token)
        .json(&json!({"enabledSourceIds": []}))
        .send()
        .await
        .expect("request");
    assert_eq!(disable.status(), 200);

    // Alice leaves: the source stays for bob.
    let left = unsubscribe_as(&t, &alice_token, &id).await;
    assert_eq!(left.status(), 200);
    let left: Value = left.json().await.expect("json");
    assert_eq!(left["subscriberCount"], 1);
    assert!(left.get("deleted").is_none());
    assert_eq!(
        get(&t, &format!("{SOURCES}/{id}")).await["subscriberCount"],
        1
    );
    assert_eq!(
        settings(&t, &alice_token).await["enabledSourceIds"],
        json!([])
    );

    // Bob, the last subscriber, leaves: the source and its articles are gone.
    let last = unsubscribe_as(&t, &bob_token, &id).await;
    assert_eq!(last.status(), 204);
    assert_news_error(
        t.http
            .get(t.url(&format!("{SOURCES}/{id}")))
            .send()
            .await
            .expect("request"),
        404,
        &format!("/sources/{id}"),
    )
    .await;
    assert_eq!(get(&t, "/api/content/articles").await["totalElements"], 0);
    assert_eq!(get(&t, "/api/content/topics").await, json!([]));
    assert_eq!(
        settings(&t, &bob_token).await["enabledSourceIds"],
        json!([])
    );
    assert_eq!(
        settings(&t, &alice_token).await["enabledSourceIds"],
        json!([])
    );
    // Again: the source is unknown now.
    assert_eq!(unsubscribe_as(&t, &bob_token, &id).await.status(), 404);
    let _ = alice;
}

#[tokio::test]
async fn content_subscriptions_need_the_source_write_scope() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/scoped.xml", FeedDocument::rss(RSS2));
    let (user, token) = t.user("scoped").await;
    let source: Value = submit(&t, &token, &url).await.json().await.expect("json");
    let id = source["id"].as_str().expect("id").to_string();
    let user_id = user["id"].as_str().expect("user id");
    let path = format!("/sources/{id}/subscribers/{user_id}");
    let url = t.url(&format!("/api/content{path}"));

    for method in [reqwest::Method::POST, reqwest::Method::DELETE] {
        let anonymous = t
            .http
            .request(method.clone(), &url)
            .send()
            .await
            .expect("request");
        assert_news_error(anonymous, 401, &path).await;
        let as_user = t
            .http
            .request(method.clone(), &url)
            .bearer_auth(&token)
            .send()
            .await
            .expect("request");
        assert_news_error(as_user, 403, &path).await;
    }
    assert_eq!(
        get(&t, &format!("{SOURCES}/{id}")).await["subscriberCount"],
        0
    );

    let service = t.service_token().await;
    let added = t
        .http
        .post(&url)
        .bearer_auth(&service)
        .send()
        .await
        .expect("request");
    assert_eq!(added.status(), 200);
    let added: Value = added.json().await.expect("json");
    assert_eq!(added["id"], id.as_str());
    assert_eq!(added["subscriberCount"], 1);
    let removed = t
        .http
        .delete(&url)
        .bearer_auth(&service)
        .send()
        .await
        .expect("request");
    assert_eq!(removed.status(), 200);
    let removed: Value = removed.json().await.expect("json");
    assert_eq!(removed["id"], id.as_str());
    assert_eq!(removed["subscriberCount"], 0);
    assert_eq!(removed["deleted"], true);
}

#[tokio::test]
async fn concurrent_subscribes_and_last_unsubscribes_stay_exact() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let url = feeds.put("/busy.xml", FeedDocument::rss(RSS2));
    let (_, token) = t.user("busy").await;
    let source: Value = submit(&t, &token, &url).await.json().await.expect("json");
    let id = source["id"].as_str().expect("id").to_string();
    let service = t.service_token().await;
    let member = |n: usize| t.url(&format!("/api/content/sources/{id}/subscribers/user-{n}"));

    let subscribes = (0..20).map(|n| {
        let request = t.http.post(member(n)).bearer_auth(&service);
        async move { request.send().await.expect("request").status() }
    });
    let statuses = futures::future::join_all(subscribes).await;
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    assert_eq!(
        get(&t, &format!("{SOURCES}/{id}")).await["subscriberCount"],
        20
    );

    for n in 2..20 {
        let response = t
            .http
            .delete(member(n))
            .bearer_auth(&service)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), 200);
    }
    assert_eq!(
        get(&t, &format!("{SOURCES}/{id}")).await["subscriberCount"],
        2
    );
    let lasts = (0..2).map(|n| {
        let request = t.http.delete(member(n)).bearer_auth(&service);
        async move {
            let response = request.send().await.expect("request");
            (
                response.status(),
                response.json::<Value>().await.expect("json"),
            )
        }
    });
    let results = futures::future::join_all(lasts).await;
    assert!(results.iter().all(|(s, _)| *s == 200), "{results:?}");
    assert!(
        results.iter().any(|(_, body)| body["deleted"] == true),
        "{results:?}"
    );
    assert_news_error(
        t.http
            .get(t.url(&format!("{SOURCES}/{id}")))
            .send()
            .await
            .expect("request"),
        404,
        &format!("/sources/{id}"),
    )
    .await;
    assert_eq!(get(&t, "/api/content/articles").await["totalElements"], 0);
    assert_eq!(get(&t, "/api/content/topics").await, json!([]));
}

#[tokio::test]
async fn deleting_an_account_unsubscribes_everything() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let shared_url = feeds.put("/shared.xml", FeedDocument::rss(RSS2));
    let solo_url = feeds.put("/solo.atom", FeedDocument::atom(ATOM));
    let (_, carol) = t.user("carol").await;
    let (_, dave) = t.user("dave").await;
    let shared: Value = submit(&t, &carol, &shared_url)
        .await
        .json()
        .await
        .expect("json");
    let solo: Value = submit(&t, &carol, &solo_url)
        .await
        .json()
        .await
        .expect("json");
    let shared_id = shared["id"].as_str().expect("id").to_string();
    let solo_id = solo["id"].as_str().expect("id").to_string();
    for (token, id) in [
        (&carol, &shared_id),
        (&carol, &solo_id),
        (&dave, &shared_id),
    ] {
        assert_eq!(subscribe_as(&t, token, id).await.status(), 200);
    }

    let deleted = t
        .http
        .delete(t.url("/api/users/users/me"))
        .bearer_auth(&carol)
        .send()
        .await
        .expect("request");
    assert_eq!(deleted.status(), 204);

    assert_eq!(
        get(&t, &format!("{SOURCES}/{shared_id}")).await["subscriberCount"],
        1
    );
    assert_eq!(
        t.http
            .get(t.url(&format!("{SOURCES}/{solo_id}")))
            .send()
            .await
            .expect("request")
            .status(),
        404,
        "carol was the solo source's last subscriber"
    );
    let login = t
        .post_json(
            "/api/users/auth/login",
            &json!({"username": "carol", "password": "password-carol"}),
        )
        .await;
    assert_news_error(login, 401, "/auth/login").await;
    // The name and email are free again.
    t.register("carol").await;
}

#[tokio::test]
async fn saved_articles_come_back_in_the_order_asked() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let url = feeds.put(
        "/saved.xml",
        FeedDocument::rss(generated_rss("Saved", 0, 5)),
    );
    let (_, token) = t.user("saver").await;
    submit(&t, &token, &url).await;
    let page = get(&t, "/api/content/articles").await;
    let mut ids: Vec<String> = page["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|a| a["id"].as_str().expect("id").to_string())
        .collect();
    ids.reverse();
    let mut asked = ids.clone();
    asked.insert(2, "no-such-article".into());

    let saved = |body: Value, token: Option<&str>| {
        let mut request = t
            .http
            .post(t.url("/api/content/articles/saved"))
            .json(&body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send()
    };
    let response = saved(json!({ "ids": asked }), Some(&token))
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    let articles: Value = response.json().await.expect("json");
    let got: Vec<&str> = articles
        .as_array()
        .expect("array")
        .iter()
        .map(|a| a["id"].as_str().expect("id"))
        .collect();
    assert_eq!(got, ids.iter().map(String::as_str).collect::<Vec<_>>());

    assert_news_error(
        saved(json!({"ids": ids}), None).await.expect("request"),
        401,
        "/articles/saved",
    )
    .await;
    let too_many: Vec<String> = (0..101).map(|n| format!("a{n}")).collect();
    let error = assert_news_error(
        saved(json!({ "ids": too_many }), Some(&token))
            .await
            .expect("request"),
        400,
        "/articles/saved",
    )
    .await;
    assert_eq!(details(&error), vec!["ids: must list at most 100 ids"]);
    let error = assert_news_error(
        saved(json!({ "ids": "abc" }), Some(&token))
            .await
            .expect("request"),
        400,
        "/articles/saved",
    )
    .await;
    assert!(details(&error)[0].starts_with("ids: "), "{error}");
}

#[tokio::test]
async fn article_queries_are_validated() {
    let t = TestStack::start().await;
    for (query, field) in [
        ("size=0", "size"),
        ("size=101", "size"),
        ("page=-1", "page"),
        ("page=abc", "page"),
    ] {
        let response = t
            .http
            .get(t.url(&format!("/api/content/articles?{query}")))
            .send()
            .await
            .expect("request");
        let error = assert_news_error(response, 400, "/articles").await;
        assert!(
            details(&error)[0].starts_with(&format!("{field}: ")),
            "{query}: {error}"
        );
    }
    let missing = t
        .http
        .get(t.url("/api/content/articles/nope"))
        .send()
        .await
        .expect("request");
    assert_news_error(missing, 404, "/articles/nope").await;
    assert_eq!(
        get(&t, "/api/content/actuator/health").await,
        json!({"status": "UP"})
    );
}
