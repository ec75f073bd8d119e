//! The Google Reader API driven as the apps drive it (NetNewsWire's requests, byte for byte
//! where it writes its own bodies), black-box through the local stack against the emulator,
//! with feeds served by the test on loopback.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::BTreeSet;

use reqwest::Response;
use serde_json::{json, Value};
use stack_tests::feeds::{FeedDocument, FeedServer};
use stack_tests::{details, TestStack};

const API: &str = "/api/greader/reader/api/0";
const READING_LIST: &str = "user/-/state/com.google/reading-list";
const READ: &str = "user/-/state/com.google/read";
const STARRED: &str = "user/-/state/com.google/starred";

/// An RSS feed of `items` items published over the last hours (within the read horizon, so
/// each starts unread), newest first.
fn recent_rss(title: &str, slug: &str, items: usize) -> String {
    let now = chrono::Utc::now();
    let mut out = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>{title}</title>\
         <link>https://{slug}.example.com/</link><description>d</description>"
    );
    for i in 0..items {
        let at = now - chrono::Duration::hours(i64::try_from(i).unwrap() + 1);
        out.push_str(&format!(
            "<item><title>{title} story {i}</title><link>https://{slug}.example.com/{i}</link>\
             <guid isPermaLink=\"false\">{slug}-{i}</guid><pubDate>{}</pubDate>\
             <description>Story {i} of {title} &amp; more.</description></item>",
            at.to_rfc2822()
        ));
    }
    out.push_str("</channel></rss>");
    out
}

/// An app signed in with an app password, as NetNewsWire signs in.
struct App<'a> {
    t: &'a TestStack,
    auth: String,
    token: String,
}

impl<'a> App<'a> {
    /// Creates an app password for the person of `jwt`, signs in with it (`ClientLogin`), and
    /// fetches the action token.
    async fn sign_in(t: &'a TestStack, username: &str, jwt: &str) -> App<'a> {
        let created = t
            .post_json_auth(
                "/api/users/users/me/app-passwords",
                jwt,
                &json!({"name": "NetNewsWire"}),
            )
            .await;
        assert_eq!(created.status(), 201);
        let password = created.json::<Value>().await.unwrap()["password"]
            .as_str()
            .unwrap()
            .to_string();
        let login = t
            .send(
                t.http
                    .post(t.url("/api/greader/accounts/ClientLogin"))
                    .form(&[("Email", username), ("Passwd", password.as_str())]),
            )
            .await;
        assert_eq!(login.status(), 200);
        let text = login.text().await.unwrap();
        let auth = text
            .lines()
            .find_map(|l| l.strip_prefix("Auth="))
            .expect("an Auth line")
            .to_string();
        let mut app = App {
            t,
            auth,
            token: String::new(),
        };
        let token = app.get("/token", "").await;
        assert_eq!(token.status(), 200);
        app.token = token.text().await.unwrap().trim_end().to_string();
        assert!(!app.token.is_empty());
        app
    }

    async fn get(&self, path: &str, query: &str) -> Response {
        let url = if query.is_empty() {
            self.t.url(&format!("{API}{path}"))
        } else {
            self.t.url(&format!("{API}{path}?{query}"))
        };
        self.t
            .send(
                self.t
                    .http
                    .get(url)
                    .header("authorization", format!("GoogleLogin auth={}", self.auth)),
            )
            .await
    }

    async fn get_json(&self, path: &str, query: &str) -> Value {
        let response = self.get(path, query).await;
        assert_eq!(response.status(), 200, "GET {path}?{query}");
        response.json().await.unwrap()
    }

    /// A form POST with the action token first, the body written as given.
    async fn post(&self, path: &str, body: &str) -> Response {
        self.t
            .send(
                self.t
                    .http
                    .post(self.t.url(&format!("{API}{path}")))
                    .header("authorization", format!("GoogleLogin auth={}", self.auth))
                    .header("content-type", "application/x-www-form-urlencoded")
                    .body(format!("T={}&{body}", self.token)),
            )
            .await
    }

    async fn post_ok(&self, path: &str, body: &str) {
        let response = self.post(path, body).await;
        let status = response.status();
        let text = response.text().await.unwrap();
        assert_eq!(
            (status.as_u16(), text.as_str()),
            (200, "OK"),
            "POST {path} {body}"
        );
    }

    /// Every item of a stream, following `continuation` `n` at a time; the pages' sizes.
    async fn whole_stream(&self, stream: &str, n: usize) -> (Vec<Value>, Vec<usize>) {
        let (mut items, mut pages) = (Vec::new(), Vec::new());
        let mut continuation: Option<String> = None;
        loop {
            let mut query = format!("n={n}&output=json");
            if let Some(c) = &continuation {
                query.push_str(&format!("&c={}", urlencode(c)));
            }
            let page = self
                .get_json(&format!("/stream/contents/{stream}"), &query)
                .await;
            let got = page["items"].as_array().unwrap().clone();
            pages.push(got.len());
            items.extend(got);
            continuation = page["continuation"].as_str().map(str::to_string);
            if continuation.is_none() {
                return (items, pages);
            }
            assert!(pages.len() < 50, "the continuation never ends");
        }
    }

    /// `unread-count`, by stream id.
    async fn unread(&self) -> std::collections::BTreeMap<String, u64> {
        let counts = self.get_json("/unread-count", "output=json").await;
        counts["unreadcounts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["id"].as_str().unwrap().to_string(),
                    c["count"].as_u64().unwrap(),
                )
            })
            .collect()
    }
}

fn urlencode(text: &str) -> String {
    url_escape(text)
}

/// Percent-encodes everything but unreserved characters.
fn url_escape(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn categories(item: &Value) -> BTreeSet<String> {
    item["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn an_app_reads_marks_and_organises_like_netnewswire() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let tech = feeds.put(
        "/tech.xml",
        FeedDocument::rss(recent_rss("Tech Daily", "tech", 7)),
    );
    let world = feeds.put(
        "/world.xml",
        FeedDocument::rss(recent_rss("World Weekly", "world", 3)),
    );
    let (_, jwt) = t.user("alice").await;
    let app = App::sign_in(&t, "alice", &jwt).await;

    // Who is signed in.
    let me = app.get_json("/user-info", "").await;
    assert_eq!(me["userName"], "alice");
    assert!(me["userId"].as_str().is_some_and(|id| !id.is_empty()));

    // Subscribe: quickadd (NetNewsWire's "add feed"), then subscription/edit into a folder.
    let added = app
        .post(
            "/subscription/quickadd",
            &format!("quickadd={}", url_escape(&tech)),
        )
        .await;
    assert_eq!(added.status(), 200);
    let added: Value = added.json().await.unwrap();
    assert_eq!(added["numResults"], 1);
    assert_eq!(added["streamName"], "Tech Daily");
    let tech_stream = added["streamId"].as_str().unwrap().to_string();
    assert!(
        tech_stream.starts_with("feed/") && tech_stream.len() == 5 + 32,
        "{tech_stream}"
    );
    app.post_ok(
        "/subscription/edit",
        &format!(
            "ac=subscribe&s=feed/{}&a=user/-/label/News",
            url_escape(&world)
        ),
    )
    .await;

    // The subscription list and the folders.
    let list = app.get_json("/subscription/list", "output=json").await;
    let subscriptions = list["subscriptions"].as_array().unwrap();
    assert_eq!(subscriptions.len(), 2, "{list}");
    let world_sub = subscriptions
        .iter()
        .find(|s| s["title"] == "World Weekly")
        .unwrap();
    let world_stream = world_sub["id"].as_str().unwrap().to_string();
    assert_eq!(world_sub["url"], world.as_str());
    assert_eq!(
        world_sub["categories"],
        json!([{"id": "user/-/label/News", "label": "News"}])
    );
    let tags = app.get_json("/tag/list", "output=json").await;
    assert_eq!(
        tags["tags"],
        json!([{"id": STARRED}, {"id": "user/-/label/News", "label": "News", "type": "folder", "unread_count": 3}])
    );

    // The reading list, 4 at a time: every article once, newest first.
    let (items, pages) = app.whole_stream(READING_LIST, 4).await;
    assert_eq!(pages, vec![4, 4, 2], "page sizes");
    assert_eq!(items.len(), 10);
    let ids: BTreeSet<&str> = items.iter().map(|i| i["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 10, "no item twice");
    assert!(items.iter().all(|i| i["id"]
        .as_str()
        .unwrap()
        .starts_with("tag:google.com,2005:reader/item/")));
    let published: Vec<i64> = items
        .iter()
        .map(|i| i["published"].as_i64().unwrap())
        .collect();
    assert!(
        published.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {published:?}"
    );
    assert!(items.iter().all(|i| !categories(i).contains(READ)));

    // NetNewsWire's sync: unread ids, then their contents by long-form id.
    let unread_ids = app
        .get_json(
            "/stream/items/ids",
            &format!("n=1000&output=json&s={READING_LIST}&xt={READ}"),
        )
        .await;
    let refs = unread_ids["itemRefs"].as_array().unwrap();
    assert_eq!(refs.len(), 10);
    let decimal: Vec<i64> = refs
        .iter()
        .map(|r| r["id"].as_str().unwrap().parse().unwrap())
        .collect();
    assert!(
        decimal.iter().all(|d| *d >= 0),
        "short forms fit clients' signed parsers"
    );
    let body = decimal
        .iter()
        .take(3)
        .map(|d| format!("i=tag:google.com,2005:reader/item/{d:016x}"))
        .collect::<Vec<_>>()
        .join("&");
    let contents = app
        .post("/stream/items/contents", &format!("output=json&{body}"))
        .await;
    assert_eq!(contents.status(), 200);
    let contents: Value = contents.json().await.unwrap();
    assert_eq!(contents["items"].as_array().unwrap().len(), 3);

    // Mark two read (long form, as NetNewsWire) and one starred (short form, as Liferea).
    let first = items[0]["id"].as_str().unwrap();
    let second = items[1]["id"].as_str().unwrap();
    app.post_ok("/edit-tag", &format!("i={first}&i={second}&a={READ}"))
        .await;
    app.post_ok("/edit-tag", &format!("i={}&a={STARRED}", decimal[5]))
        .await;
    let counts = app.unread().await;
    assert_eq!(counts[READING_LIST], 8);
    assert_eq!(counts[&tech_stream] + counts[&world_stream], 8);
    let starred = app
        .get_json(&format!("/stream/contents/{STARRED}"), "output=json")
        .await;
    let starred = starred["items"].as_array().unwrap();
    assert_eq!(starred.len(), 1);
    assert!(categories(&starred[0]).contains(STARRED));
    let (again, _) = app.whole_stream(READING_LIST, 20).await;
    let read: Vec<&str> = again
        .iter()
        .filter(|i| categories(i).contains(READ))
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(read.len(), 2);
    assert!(read.contains(&first) && read.contains(&second));

    // Unread again, as an app's "mark unread" sends it.
    app.post_ok("/edit-tag", &format!("i={second}&r={READ}"))
        .await;
    assert_eq!(app.unread().await[READING_LIST], 9);

    // Mark all of a feed read: its count drops to 0, the others' stay.
    let world_unread = app.unread().await[&world_stream];
    let now_us = chrono::Utc::now().timestamp_micros();
    app.post_ok("/mark-all-as-read", &format!("s={tech_stream}&ts={now_us}"))
        .await;
    let counts = app.unread().await;
    assert_eq!(counts[&tech_stream], 0);
    assert_eq!(counts[&world_stream], world_unread);
    assert_eq!(counts[READING_LIST], world_unread);
    assert_eq!(counts["user/-/label/News"], world_unread);
    let unread_only = app
        .get_json(
            &format!("/stream/contents/{READING_LIST}"),
            &format!("xt={READ}&n=50"),
        )
        .await;
    assert_eq!(
        unread_only["items"].as_array().unwrap().len() as u64,
        world_unread
    );

    // Move the tech feed into a folder, as NetNewsWire's drag does (`ac=edit`, `a=`).
    app.post_ok(
        "/subscription/edit",
        &format!("s={tech_stream}&ac=edit&a=user/-/label/Tech%20%26%20Science"),
    )
    .await;
    let list = app.get_json("/subscription/list", "output=json").await;
    let tech_sub = list["subscriptions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == tech_stream.as_str())
        .cloned()
        .unwrap();
    assert_eq!(
        tech_sub["categories"],
        json!([{"id": "user/-/label/Tech & Science", "label": "Tech & Science"}])
    );
    let folder = app
        .get_json("/stream/contents/user/-/label/Tech%20%26%20Science", "n=50")
        .await;
    assert_eq!(folder["items"].as_array().unwrap().len(), 7);

    // Everything read: the reading list's count is 0.
    app.post_ok("/mark-all-as-read", &format!("s={READING_LIST}"))
        .await;
    assert_eq!(app.unread().await[READING_LIST], 0);
}

#[tokio::test]
async fn refusals_answer_as_the_servers_do() {
    let t = TestStack::start().await;
    let (_, jwt) = t.user("bob").await;

    // No header, another scheme, an Auth nobody issued: 401 `Unauthorized!`, as FreshRSS.
    for authorization in [
        None,
        Some(format!("Bearer {jwt}")),
        Some("GoogleLogin auth=bob/nope".to_string()),
    ] {
        let mut request = t
            .http
            .get(t.url(&format!("{API}/unread-count?output=json")));
        if let Some(a) = &authorization {
            request = request.header("authorization", a);
        }
        let response = t.send(request).await;
        assert_eq!(response.status(), 401, "{authorization:?}");
        assert_eq!(
            response.headers()["google-bad-token"].to_str().unwrap(),
            "true"
        );
        assert!(response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain"));
        assert_eq!(response.text().await.unwrap(), "Unauthorized!");
    }

    let app = App::sign_in(&t, "bob", &jwt).await;
    // A wrong action token is refused; FeedMe's empty one and Reeder's `x` are taken.
    let wrong = app
        .t
        .send(
            app.t
                .http
                .post(app.t.url(&format!("{API}/mark-all-as-read")))
                .header("authorization", format!("GoogleLogin auth={}", app.auth))
                .header("content-type", "application/x-www-form-urlencoded")
                .body(format!("T=forged&s={READING_LIST}")),
        )
        .await;
    assert_eq!(wrong.status(), 401);
    for token in ["", "x"] {
        let response = app
            .t
            .send(
                app.t
                    .http
                    .post(app.t.url(&format!("{API}/mark-all-as-read")))
                    .header("authorization", format!("GoogleLogin auth={}", app.auth))
                    .body(format!("T={token}&s={READING_LIST}")),
            )
            .await;
        assert_eq!(response.status(), 200, "T={token:?}");
    }

    // Bad input is a 400 in the news reader's error body, naming the field.
    for (path, query, field) in [
        (
            "/stream/contents/user/-/state/com.google/reading-list",
            "n=lots",
            "n",
        ),
        ("/stream/contents/user/-/state/com.google/nonsense", "", "s"),
        ("/stream/items/ids", "output=json", "s"),
        (
            "/stream/contents/user/-/state/com.google/reading-list",
            "c=not-a-cursor",
            "c",
        ),
    ] {
        let response = app.get(path, query).await;
        assert_eq!(response.status(), 400, "{path}?{query}");
        let body: Value = response.json().await.unwrap();
        assert!(
            details(&body)
                .iter()
                .any(|d| d.starts_with(&format!("{field}:"))),
            "{path}?{query}: {body}"
        );
    }
    let response = app.post("/edit-tag", &format!("i=zz&a={READ}")).await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert!(details(&body).iter().any(|d| d.starts_with("i:")), "{body}");

    // A feed that is not one: quickadd answers no result, as FreshRSS and Miniflux.
    let feeds = FeedServer::start().await;
    let page = feeds.put(
        "/page.html",
        FeedDocument::html("<html><body>hi</body></html>"),
    );
    let response = app
        .post(
            "/subscription/quickadd",
            &format!("quickadd={}", url_escape(&page)),
        )
        .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["numResults"], 0, "{body}");

    // Ids of articles that do not exist change nothing and are no error.
    app.post_ok(
        "/edit-tag",
        &format!("i=tag:google.com,2005:reader/item/0000000000000001&a={READ}"),
    )
    .await;
    // The unauthenticated ping.
    let ping = t.get("/api/greader/reader/ping").await;
    assert_eq!(ping.status(), 200);
    assert_eq!(ping.text().await.unwrap(), "OK");
}
