//! WebSub push, black-box through the local stack with a fake hub on loopback: a feed naming a
//! hub is subscribed through it when submitted, the hub's verification is answered, a signed
//! delivery is readable within seconds (a badly signed one stores nothing), leases are renewed
//! at the source's refresh, and the source's retirement unsubscribes it.

use std::time::{Duration, Instant};

use news::websub::sign;
use news::FeedRefresh;
use serde_json::Value;
use stack_tests::content::{
    feed_worker, fetch_item, make_due, partition, sqs_event, submit, ARTICLES,
};
use stack_tests::feeds::{FeedDocument, FeedServer};
use stack_tests::websub::{atom_with_hub, FakeHub, HubRequest};
use stack_tests::{assert_news_error, details, TestStack};

/// A stack, a hub, a feed naming the hub, and a user who submitted and subscribed to it.
struct Pushed {
    t: TestStack,
    hub: FakeHub,
    feeds: FeedServer,
    feed_url: String,
    token: String,
    source_id: String,
}

async fn pushed_feed(username: &str, lease_seconds: u64) -> Pushed {
    let t = TestStack::start().await;
    let hub = FakeHub::start(lease_seconds).await;
    let feeds = FeedServer::start().await;
    let feed_url = feeds.url("/pushed.xml");
    feeds.put(
        "/pushed.xml",
        FeedDocument::atom(atom_with_hub(&feed_url, &hub.url(), &[("1", "First post")])),
    );
    let (_, token) = t.user(username).await;
    let response = submit(&t, &token, &feed_url).await;
    assert_eq!(response.status(), 201, "submit");
    let source: Value = response.json().await.unwrap();
    let source_id = source["id"].as_str().unwrap().to_string();
    assert_eq!(t.subscribe(&token, &source_id).await.status(), 200);
    Pushed {
        t,
        hub,
        feeds,
        feed_url,
        token,
        source_id,
    }
}

/// The titles of the source's articles, newest first.
async fn titles(t: &TestStack, source_id: &str) -> Vec<String> {
    let page = t
        .get_json(&format!("{ARTICLES}?sourceId={source_id}&size=100"))
        .await;
    page["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap().to_string())
        .collect()
}

/// The source's `WEBSUB` item.
async fn websub_item(t: &TestStack, source_id: &str) -> Option<stack_tests::stack::Item> {
    partition(t, &format!("SOURCE#{source_id}"))
        .await
        .into_iter()
        .find(|i| i.get("sk").and_then(|v| v.as_s().ok()).map(String::as_str) == Some("WEBSUB"))
}

fn text(item: &stack_tests::stack::Item, name: &str) -> String {
    item.get(name)
        .and_then(|v| v.as_s().ok())
        .cloned()
        .unwrap_or_default()
}

#[tokio::test]
async fn a_hub_delivers_a_post_readable_within_seconds_and_forgeries_store_nothing() {
    let p = pushed_feed("websub_reader", 7 * 24 * 3600).await;
    let (t, hub) = (&p.t, &p.hub);

    // The submission asked the hub, which verified the callback.
    let verified = hub.wait_for_verifications("subscribe", 1).await;
    assert!(verified[0].confirmed, "{verified:?}");
    let request: HubRequest = hub.requests()[0].clone();
    assert_eq!(request.mode, "subscribe");
    assert_eq!(request.topic, p.feed_url);
    assert_eq!(
        request.callback,
        t.url(&format!("/api/content/websub/{}", p.source_id))
    );
    let secret = request.secret.clone().expect("hub.secret");
    assert_eq!(secret.len(), 64, "{secret}");
    assert_eq!(request.lease_seconds.as_deref(), Some("604800"));
    let item = websub_item(t, &p.source_id).await.expect("WEBSUB item");
    assert_eq!(text(&item, "state"), "subscribed");
    assert_eq!(text(&item, "secret"), secret);
    assert!(!text(&fetch_item(t, &p.source_id).await, "pushUntil").is_empty());
    assert_eq!(titles(t, &p.source_id).await, vec!["First post"]);

    // A forged delivery (another secret, no signature, a malformed one) is acknowledged and
    // stores nothing.
    let forged = atom_with_hub(&p.feed_url, &hub.url(), &[("666", "Forged post")]);
    for signature in [
        Some(sign("not-the-secret", forged.as_bytes())),
        None,
        Some("sha256=nothex".to_string()),
        Some(sign(&secret, b"another body")),
    ] {
        let response = hub.deliver(&request, &forged, signature.clone()).await;
        assert_eq!(response.status(), 202, "{signature:?}");
    }
    assert_eq!(titles(t, &p.source_id).await, vec!["First post"]);

    // The publisher posts; the hub pushes the feed, signed.
    let posted = atom_with_hub(
        &p.feed_url,
        &hub.url(),
        &[("2", "Pushed post"), ("1", "First post")],
    );
    let started = Instant::now();
    let response = hub
        .deliver(&request, &posted, Some(sign(&secret, posted.as_bytes())))
        .await;
    assert_eq!(response.status(), 202);
    let mut readable = None;
    for _ in 0..50 {
        if titles(t, &p.source_id)
            .await
            .contains(&"Pushed post".to_string())
        {
            readable = Some(started.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let readable = readable.expect("the pushed post is readable within 5 s");
    println!("pushed post readable after {readable:?}");
    assert_eq!(
        titles(t, &p.source_id).await,
        vec!["Pushed post", "First post"]
    );

    // Redelivery is a no-op.
    let again = hub
        .deliver(&request, &posted, Some(sign(&secret, posted.as_bytes())))
        .await;
    assert_eq!(again.status(), 202);
    assert_eq!(titles(t, &p.source_id).await.len(), 2);

    // The feed server was fetched once (the submission): the post came by push.
    assert_eq!(p.feeds.hits("/pushed.xml").full, 1);
}

#[tokio::test]
async fn verification_confirms_only_what_was_asked() {
    let p = pushed_feed("websub_verifier", 7 * 24 * 3600).await;
    let t = &p.t;
    p.hub.wait_for_verifications("subscribe", 1).await;
    let callback = format!("/api/content/websub/{}", p.source_id);
    let get = |query: String| {
        let path = format!("{callback}?{query}");
        async move { t.get(&path).await }
    };
    let topic = urlencode(&p.feed_url);

    // Another topic, or an unknown source: 404.
    let other = get(
        "hub.mode=subscribe&hub.topic=https%3A%2F%2Fevil.example%2F&hub.challenge=x&hub.lease_seconds=60"
            .to_string(),
    )
    .await;
    assert_news_error(other, 404, &format!("/websub/{}", p.source_id)).await;
    let unknown = t
        .get(&format!(
            "/api/content/websub/{}?hub.mode=subscribe&hub.topic={topic}&hub.challenge=x",
            "0".repeat(32)
        ))
        .await;
    assert_eq!(unknown.status(), 404);
    // An unsubscription the source did not ask for (it is live): 404.
    let unasked = get(format!(
        "hub.mode=unsubscribe&hub.topic={topic}&hub.challenge=x"
    ))
    .await;
    assert_eq!(unasked.status(), 404);

    // The hub renewing: the challenge echoed as text, the lease recorded.
    let renewed = get(format!(
        "hub.mode=subscribe&hub.topic={topic}&hub.challenge=abc%20123&hub.lease_seconds=3600"
    ))
    .await;
    assert_eq!(renewed.status(), 200);
    assert!(renewed
        .headers()
        .get("content-type")
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    assert_eq!(renewed.text().await.unwrap(), "abc 123");
    let item = websub_item(t, &p.source_id).await.unwrap();
    assert_eq!(
        item.get("leaseSeconds")
            .and_then(|v| v.as_n().ok())
            .map(String::as_str),
        Some("3600")
    );

    // Malformed requests name their field.
    for (query, field) in [
        (format!("hub.topic={topic}&hub.challenge=x"), "hub.mode"),
        (
            format!("hub.mode=publish&hub.topic={topic}&hub.challenge=x"),
            "hub.mode",
        ),
        (
            "hub.mode=subscribe&hub.challenge=x".to_string(),
            "hub.topic",
        ),
        (
            format!("hub.mode=subscribe&hub.topic={topic}"),
            "hub.challenge",
        ),
        (
            format!("hub.mode=subscribe&hub.topic={topic}&hub.challenge=x&hub.lease_seconds=soon"),
            "hub.lease_seconds",
        ),
        (
            format!(
                "hub.mode=subscribe&hub.topic={topic}&hub.challenge={}",
                "c".repeat(1025)
            ),
            "hub.challenge",
        ),
    ] {
        let error = assert_news_error(
            get(query.clone()).await,
            400,
            &format!("/websub/{}", p.source_id),
        )
        .await;
        assert!(
            details(&error).iter().any(|d| d.starts_with(field)),
            "{query}: {error}"
        );
    }

    // The hub denies: recorded, acknowledged; deliveries are refused from then on (410).
    let denied = get(format!(
        "hub.mode=denied&hub.topic={topic}&hub.reason=quota"
    ))
    .await;
    assert_eq!(denied.status(), 204);
    let item = websub_item(t, &p.source_id).await.unwrap();
    assert_eq!(text(&item, "state"), "denied");
    let request = p.hub.requests()[0].clone();
    let body = atom_with_hub(&p.feed_url, &p.hub.url(), &[("9", "Late")]);
    let secret = request.secret.clone().unwrap();
    let late = p
        .hub
        .deliver(&request, &body, Some(sign(&secret, body.as_bytes())))
        .await;
    assert_eq!(late.status(), 410);
}

#[tokio::test]
async fn leases_are_renewed_at_refreshes_and_retirement_unsubscribes() {
    // A lease of an hour: less than a day, so the next refresh renews it.
    let p = pushed_feed("websub_renewer", 3600).await;
    let t = &p.t;
    p.hub.wait_for_verifications("subscribe", 1).await;
    let first = p.hub.requests()[0].clone();
    let fetch = fetch_item(t, &p.source_id).await;
    let push_until = text(&fetch, "pushUntil");
    let until = chrono::DateTime::parse_from_rfc3339(&push_until).unwrap();
    let left = until.with_timezone(&chrono::Utc) - chrono::Utc::now();
    assert!(
        left > chrono::Duration::minutes(55) && left <= chrono::Duration::minutes(60),
        "{push_until}"
    );

    // The source's refresh comes: the feed is unchanged (304), the lease is renewed with the
    // same secret, and the hub verifies again.
    let due = make_due(t, &p.source_id).await;
    let worker = feed_worker(t).await;
    let response = worker
        .handle(sqs_event(&[(
            "m1",
            FeedRefresh::due(&p.source_id, &due).to_json(),
        )]))
        .await
        .unwrap();
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(p.feeds.hits("/pushed.xml").not_modified, 1);
    let renewals: Vec<HubRequest> = p
        .hub
        .requests()
        .into_iter()
        .filter(|r| r.mode == "subscribe")
        .collect();
    assert_eq!(renewals.len(), 2, "{renewals:?}");
    assert_eq!(renewals[1].secret, first.secret);
    assert_eq!(renewals[1].callback, first.callback);
    let verified = p.hub.wait_for_verifications("subscribe", 2).await;
    assert!(verified[1].confirmed, "{verified:?}");
    // A pushed source is polled hourly, the fallback.
    let next = text(&fetch_item(t, &p.source_id).await, "nextFetchAt");
    let next = chrono::DateTime::parse_from_rfc3339(&next).unwrap();
    assert!(
        next.with_timezone(&chrono::Utc) - chrono::Utc::now() > chrono::Duration::minutes(50),
        "{next}"
    );

    // The last subscriber leaves: the source retires, and its sweep asks the hub to stop;
    // the hub's verification of the unsubscription is confirmed.
    assert!(t
        .unsubscribe(&p.token, &p.source_id)
        .await
        .status()
        .is_success());
    let unsubscribed = p.hub.wait_for_verifications("unsubscribe", 1).await;
    assert!(unsubscribed[0].confirmed, "{unsubscribed:?}");
    let stop: Vec<HubRequest> = p
        .hub
        .requests()
        .into_iter()
        .filter(|r| r.mode == "unsubscribe")
        .collect();
    assert_eq!(stop.len(), 1, "{stop:?}");
    assert_eq!(stop[0].topic, p.feed_url);
    assert_eq!(stop[0].callback, first.callback);
    // A delivery from then on is gone (the hub may drop the subscription).
    let body = atom_with_hub(&p.feed_url, &p.hub.url(), &[("3", "After")]);
    let secret = first.secret.clone().unwrap();
    let after = p
        .hub
        .deliver(&first, &body, Some(sign(&secret, body.as_bytes())))
        .await;
    assert_eq!(after.status(), 410);
}

fn urlencode(raw: &str) -> String {
    raw.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
