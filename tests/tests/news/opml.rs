//! OPML import and export: a realistic file imported in the background with a result per
//! feed, the bounds of the file, who may see an import, and the round trip of an export into a
//! fresh account. Feeds are served on loopback; the stack's OPML worker does the work.

use std::collections::BTreeMap;
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use news::opml::parse_opml;
use serde_json::Value;
use stack_tests::content::{sqs_event, submit_id};
use stack_tests::feeds::{FeedDocument, FeedServer, ATOM, RSS2};
use stack_tests::server::closed_port;
use stack_tests::{assert_news_error, details, header, TestStack};

const OPML: &str = "/api/content/reader/opml";
const MY_SUBSCRIPTIONS: &str = "/api/users/users/me/subscriptions";

fn import(id: &str) -> String {
    format!("/api/content/reader/imports/{id}")
}

/// `POST /reader/opml` with `body` as `content_type`, as `token` (none: anonymous).
async fn post_opml(
    t: &TestStack,
    token: Option<&str>,
    content_type: &str,
    body: impl Into<Vec<u8>>,
) -> reqwest::Response {
    let mut request = t
        .http
        .post(t.url(OPML))
        .header("content-type", content_type)
        .body(body.into());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    t.send(request).await
}

/// Polls the import until it is done (at most 60 s); its last progress with every result.
async fn finished(t: &TestStack, token: &str, id: &str) -> Value {
    let mut last = Value::Null;
    for _ in 0..600 {
        let response = t.get_auth(&import(id), token).await;
        assert_eq!(response.status(), 200);
        last = response.json().await.unwrap();
        let done = last["done"].as_u64().unwrap();
        assert!(done <= last["total"].as_u64().unwrap(), "{last}");
        if last["status"] == "done" {
            assert_eq!(last["done"], last["total"], "{last}");
            return last;
        }
        assert_eq!(last["status"], "running");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the import did not finish: {last}");
}

/// Every feed (by URL) of `token`'s export, with its labels sorted.
async fn exported(t: &TestStack, token: &str) -> BTreeMap<String, Vec<String>> {
    let response = t.get_auth(OPML, token).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        header(response.headers(), "content-type"),
        "text/x-opml; charset=utf-8"
    );
    assert!(header(response.headers(), "content-disposition").starts_with("attachment"));
    let file = response.bytes().await.unwrap();
    let document = parse_opml(&file).expect("the export reads back");
    document
        .feeds
        .into_iter()
        .map(|mut feed| {
            feed.labels.sort();
            (feed.url, feed.labels)
        })
        .collect()
}

async fn subscribed_ids(t: &TestStack, token: &str) -> Vec<String> {
    let body: Value = t
        .get_auth(MY_SUBSCRIPTIONS, token)
        .await
        .json()
        .await
        .unwrap();
    let mut ids: Vec<String> = body["sourceIds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn an_import_subscribes_and_labels_each_feed_and_reports_it() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let rss = feeds.put("/circuit.xml", FeedDocument::rss(RSS2));
    let atom = feeds.put("/atom.xml", FeedDocument::atom(ATOM));
    // A page that names no feed, on a server with none at the usual paths (`/atom.xml` of the
    // feed server would be discovered): nothing to subscribe to.
    let site = FeedServer::start().await;
    let page = site.put(
        "/about.html",
        FeedDocument::html(
            "<html><head><title>About</title></head><body><p>No feed here.</p></body></html>",
        ),
    );
    let unreachable = format!("http://127.0.0.1:{}/feed.xml", closed_port());
    let (alice_profile, alice) = t.user("alice").await;
    // Alice already reads the Atom feed.
    let atom_id = submit_id(&t, &alice, &atom).await;
    assert_eq!(t.subscribe(&alice, &atom_id).await.status(), 200);

    // Nested folders as Feedly and Inoreader export them, the RSS feed in two folders, a
    // category, a page that is not a feed, a server that is down, and an address that is not
    // http(s).
    let file = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head><title>alice in another reader</title><dateCreated>Mon, 01 Dec 2025 10:00:00 GMT</dateCreated></head>
  <body>
    <outline text="Tech" title="Tech">
      <outline text="Electronics">
        <outline type="rss" text="The Daily Circuit" title="The Daily Circuit" xmlUrl="{rss}" htmlUrl="https://circuit.example/"/>
      </outline>
      <outline type="rss" text="Atom feed" xmlUrl="{atom}" category="/Reading/Later"/>
    </outline>
    <outline text="Favourites">
      <outline type="rss" text="The Daily Circuit again" xmlUrl="{rss}"/>
      <outline type="rss" text="About page" xmlUrl="{page}"/>
    </outline>
    <outline text="Gone" xmlUrl="{unreachable}"/>
    <outline text="Gopher" xmlUrl="gopher://example.org/feed"/>
  </body>
</opml>"#
    );
    let response = post_opml(&t, Some(&alice), "text/x-opml", file).await;
    assert_eq!(response.status(), 202);
    let location = header(response.headers(), "location").to_string();
    let started: Value = response.json().await.unwrap();
    assert_eq!(started["status"], "running");
    assert_eq!(started["total"], 5, "the repeated feed counts once");
    assert_eq!(started["done"], 0);
    let id = started["id"].as_str().unwrap().to_string();
    assert_eq!(location, import(&id));

    let progress = finished(&t, &alice, &id).await;
    let results = progress["results"].as_array().unwrap();
    assert_eq!(results.len(), 5);
    let outcomes: Vec<(&str, &str)> = results
        .iter()
        .map(|r| (r["url"].as_str().unwrap(), r["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        outcomes,
        [
            (rss.as_str(), "subscribed"),
            (atom.as_str(), "alreadySubscribed"),
            (page.as_str(), "notAFeed"),
            (unreachable.as_str(), "unreachable"),
            ("gopher://example.org/feed", "invalid"),
        ],
        "{progress}"
    );
    assert_eq!(results[0]["title"], "The Daily Circuit");
    assert_eq!(
        results[0]["labels"],
        serde_json::json!(["Tech", "Electronics", "Favourites"])
    );
    assert_eq!(results[1]["sourceId"], atom_id.as_str());
    for failed in &results[2..] {
        assert!(failed.get("sourceId").is_none(), "{failed}");
        assert!(
            failed["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{failed}"
        );
    }

    // Identity records both subscriptions; the reader has their labels.
    let rss_id = results[0]["sourceId"].as_str().unwrap().to_string();
    let mut expected = vec![rss_id, atom_id.clone()];
    expected.sort();
    assert_eq!(subscribed_ids(&t, &alice).await, expected);
    let labels = exported(&t, &alice).await;
    assert_eq!(labels.len(), 2, "{labels:?}");
    assert_eq!(labels[&rss], ["Electronics", "Favourites", "Tech"]);
    assert_eq!(labels[&atom], ["Later", "Reading", "Tech"]);

    // The results page by cursor, in the file's order.
    let mut paged = Vec::new();
    let mut path = format!("{}?size=2", import(&id));
    loop {
        let page: Value = t.get_auth(&path, &alice).await.json().await.unwrap();
        assert_eq!(page["done"], 5);
        let rows = page["results"].as_array().unwrap();
        assert!(rows.len() <= 2);
        paged.extend(rows.iter().map(|r| r["url"].as_str().unwrap().to_string()));
        match page["nextCursor"].as_str() {
            Some(cursor) => path = format!("{}?size=2&cursor={cursor}", import(&id)),
            None => break,
        }
    }
    let in_order: Vec<String> = outcomes.iter().map(|(u, _)| u.to_string()).collect();
    assert_eq!(paged, in_order);

    // Redelivery: the first feed's message again changes nothing. Then as if its first
    // delivery had subscribed and stopped before its result: the result is gone and `done` one
    // short; delivered again, it reports what the first delivery saw (subscribed, not
    // already subscribed) and `done` is exact again.
    let message = serde_json::json!({
        "importId": id,
        "userId": alice_profile["id"],
        "index": 0,
        "url": rss,
        "title": "The Daily Circuit",
        "labels": ["Tech", "Electronics", "Favourites"],
    })
    .to_string();
    let worker = news_opml_worker_function::handler(t.env("NewsOpmlWorkerFunction"))
        .await
        .unwrap();
    let answer = worker
        .handle(sqs_event(&[("again", message.clone())]))
        .await
        .unwrap();
    assert!(answer.batch_item_failures.is_empty());
    assert_eq!(
        finished(&t, &alice, &id).await["results"],
        progress["results"]
    );
    let table = t.table("ContentTable");
    let dynamo = t.dynamodb().await;
    let pk = AttributeValue::S(format!("IMPORT#{id}"));
    dynamo
        .delete_item()
        .table_name(&table)
        .key("pk", pk.clone())
        .key("sk", AttributeValue::S("RESULT#0000".into()))
        .send()
        .await
        .unwrap();
    dynamo
        .update_item()
        .table_name(&table)
        .key("pk", pk)
        .key("sk", AttributeValue::S("META".into()))
        .update_expression("ADD done :less")
        .expression_attribute_values(":less", AttributeValue::N("-1".into()))
        .send()
        .await
        .unwrap();
    let rerun: Value = t.get_auth(&import(&id), &alice).await.json().await.unwrap();
    assert_eq!(
        (&rerun["status"], &rerun["done"]),
        (&Value::from("running"), &Value::from(4))
    );
    let answer = worker
        .handle(sqs_event(&[("after-a-crash", message)]))
        .await
        .unwrap();
    assert!(answer.batch_item_failures.is_empty());
    assert_eq!(
        finished(&t, &alice, &id).await["results"],
        progress["results"]
    );

    // Nobody else sees it; an id that cannot be an import is not found either.
    let (_, bob) = t.user("bob").await;
    assert_news_error(
        t.get_auth(&import(&id), &bob).await,
        404,
        &format!("/reader/imports/{id}"),
    )
    .await;
    assert_news_error(
        t.get_auth(&import("not-an-import"), &alice).await,
        404,
        "/reader/imports/not-an-import",
    )
    .await;
    let bad = assert_news_error(
        t.get_auth(&format!("{}?size=0", import(&id)), &alice).await,
        400,
        &format!("/reader/imports/{id}"),
    )
    .await;
    assert!(details(&bad)[0].starts_with("size:"), "{bad}");
}

#[tokio::test]
async fn a_bad_file_is_refused_naming_what_is_wrong() {
    let t = TestStack::start().await;
    let (_, alice) = t.user("opml-bounds").await;
    let one_feed = r#"<opml version="2.0"><body><outline xmlUrl="http://127.0.0.1:9/feed.xml"/></body></opml>"#;

    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "too big",
            format!(
                "<opml><body>{}</body></opml>",
                " ".repeat(news::opml::MAX_OPML_BYTES)
            )
            .into_bytes(),
            "file:",
        ),
        (
            "too many feeds",
            format!(
                "<opml><body>{}</body></opml>",
                (0..=1000)
                    .map(|i| format!("<outline xmlUrl=\"https://example.org/{i}\"/>"))
                    .collect::<String>()
            )
            .into_bytes(),
            "outlines:",
        ),
        ("not XML", b"{\"feeds\": []}".to_vec(), "file:"),
        ("not OPML", b"<rss version=\"2.0\"><channel/></rss>".to_vec(), "file:"),
        (
            "unclosed",
            b"<opml><body><outline xmlUrl=\"https://example.org/f\">".to_vec(),
            "file:",
        ),
        (
            "an entity bomb",
            br#"<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><opml><body><outline text="&c;" xmlUrl="https://example.org/f"/></body></opml>"#.to_vec(),
            "file:",
        ),
        (
            "no feed",
            b"<opml><body><outline text=\"empty folder\"/></body></opml>".to_vec(),
            "outlines:",
        ),
    ];
    for (case, body, field) in cases {
        let error = assert_news_error(
            post_opml(&t, Some(&alice), "application/xml", body).await,
            400,
            "/reader/opml",
        )
        .await;
        assert!(
            details(&error).iter().any(|d| d.starts_with(field)),
            "{case}: {error}"
        );
    }
    assert_news_error(
        post_opml(&t, Some(&alice), "application/json", one_feed).await,
        415,
        "/reader/opml",
    )
    .await;
    // A form with the file in it is accepted; a form without one names `file`.
    let form = |part: &str| {
        format!(
            "--b0undary\r\nContent-Disposition: form-data; {part}\r\nContent-Type: text/x-opml\r\n\r\n{one_feed}\r\n--b0undary--\r\n"
        )
    };
    let multipart = "multipart/form-data; boundary=b0undary";
    let response = post_opml(
        &t,
        Some(&alice),
        multipart,
        form("name=\"upload\"; filename=\"feeds.opml\""),
    )
    .await;
    assert_eq!(response.status(), 202);
    let error = assert_news_error(
        post_opml(&t, Some(&alice), multipart, form("name=\"notes\"")).await,
        400,
        "/reader/opml",
    )
    .await;
    assert!(details(&error)[0].starts_with("file:"), "{error}");

    // Without a token: 401, on every route.
    assert_news_error(
        post_opml(&t, None, "text/x-opml", one_feed).await,
        401,
        "/reader/opml",
    )
    .await;
    assert_news_error(t.get(OPML).await, 401, "/reader/opml").await;
    assert_news_error(
        t.get(&import("0123456789abcdef0123456789abcdef")).await,
        401,
        "/reader/imports/0123456789abcdef0123456789abcdef",
    )
    .await;
}

#[tokio::test]
async fn an_export_imported_into_a_fresh_account_gives_the_same_subscriptions_and_labels() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let circuit = feeds.put("/circuit.xml", FeedDocument::rss(RSS2));
    let atom = feeds.put("/atom.xml", FeedDocument::atom(ATOM));
    let plain = feeds.put(
        "/plain.xml",
        FeedDocument::rss(stack_tests::feeds::generated_rss("Plain and simple", 0, 3)),
    );
    let file = format!(
        r#"<opml version="1.0"><body>
  <outline title="News &amp; views"><outline xmlUrl="{circuit}"/><outline xmlUrl="{atom}"/></outline>
  <outline title="Later"><outline xmlUrl="{atom}"/></outline>
  <outline xmlUrl="{plain}" text="Plain"/>
</body></opml>"#
    );
    let (_, alice) = t.user("roundtrip-a").await;
    let started: Value = post_opml(&t, Some(&alice), "text/xml", file)
        .await
        .json()
        .await
        .unwrap();
    let progress = finished(&t, &alice, started["id"].as_str().unwrap()).await;
    assert!(
        progress["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["outcome"] == "subscribed"),
        "{progress}"
    );
    let alices = exported(&t, &alice).await;
    assert_eq!(alices[&circuit], ["News & views"]);
    assert_eq!(alices[&atom], ["Later", "News & views"]);
    assert!(alices[&plain].is_empty());

    // Bob imports alice's export as it is and ends up with the same.
    let export = t
        .get_auth(OPML, &alice)
        .await
        .bytes()
        .await
        .unwrap()
        .to_vec();
    let (_, bob) = t.user("roundtrip-b").await;
    let response = post_opml(&t, Some(&bob), "text/x-opml", export).await;
    assert_eq!(response.status(), 202);
    let started: Value = response.json().await.unwrap();
    assert_eq!(started["total"], 3);
    let progress = finished(&t, &bob, started["id"].as_str().unwrap()).await;
    assert!(
        progress["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["outcome"] == "subscribed"),
        "{progress}"
    );
    assert_eq!(exported(&t, &bob).await, alices);
    assert_eq!(
        subscribed_ids(&t, &bob).await,
        subscribed_ids(&t, &alice).await
    );
}

#[tokio::test]
async fn a_retired_sources_feed_imported_again_is_a_fresh_source() {
    let feed = stack_tests::content::subscribed_feed(
        "returner",
        "/returning.xml",
        FeedDocument::rss(stack_tests::feeds::generated_rss("Returning", 0, 15)),
    )
    .await;
    let t = &feed.t;
    let id = feed.source_id.clone();
    // Its last subscriber leaves: the source is retired, gone to subscribers, and its sweep
    // takes ten of its articles before it is lost.
    let store = stack_tests::content::content_store(t).await;
    store
        .unsubscribe(&id, feed.user["id"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(t.subscribe(&feed.token, &id).await.status(), 404);
    let partial = news::sweep::Sweeper::new(store, chrono::Duration::minutes(60), 10);
    assert_eq!(
        partial.step(&id).await.unwrap(),
        news::store::SweepStep::Swept { articles: 10 }
    );
    assert_eq!(
        stack_tests::content::article_items_of(t, &id).await.len(),
        5
    );

    // The same feed in a file from another reader: the worker revives it (its old fetch state
    // deleted in the same transaction) and subscribes the importer.
    let url = feed.feeds.url("/returning.xml");
    let file = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<opml version="1.0"><head><title>back</title></head>
<body><outline type="rss" text="Returning" xmlUrl="{url}"/></body></opml>"#
    );
    let response = post_opml(t, Some(&feed.token), "text/xml", file).await;
    assert_eq!(response.status(), 202);
    let started: Value = response.json().await.unwrap();
    let progress = finished(t, &feed.token, started["id"].as_str().unwrap()).await;
    let result = &progress["results"][0];
    assert_eq!(result["outcome"], "subscribed", "{progress}");
    assert_eq!(result["sourceId"], id.as_str());
    assert_eq!(
        subscribed_ids(t, &feed.token).await,
        std::slice::from_ref(&id)
    );
    assert_eq!(
        stack_tests::content::article_items_of(t, &id).await.len(),
        15,
        "every entry back"
    );
}
