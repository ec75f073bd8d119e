//! Subscriptions: shared sources live while someone subscribes, the content side needs the
//! `source.write` scope, counts stay exact under concurrency, and deleting an account
//! unsubscribes it from everything.

use serde_json::{json, Value};
use stack_tests::content::{
    self, submit_id, submitted_feed, subscribed_feed, SubmittedFeed, ARTICLES, TOPICS,
};
use stack_tests::feeds::{generated_rss, FeedDocument, FeedServer, ATOM, RSS2};
use stack_tests::users::{password, ME, SETTINGS};
use stack_tests::{assert_news_error, details, Call, TestStack};

/// A source id nothing has.
const UNKNOWN: &str = "0123456789abcdef0123456789abcdef";

/// Asserts that source `id` is gone, and with it every article at once, and every topic once
/// the stack's sweeper has run (within 20 s).
async fn assert_source_gone_with_everything(t: &TestStack, id: &str) {
    assert_news_error(
        t.get(&content::source(id)).await,
        404,
        &format!("/sources/{id}"),
    )
    .await;
    assert_eq!(t.get_json(ARTICLES).await["totalElements"], 0);
    let mut topics = Value::Null;
    for _ in 0..200 {
        topics = t.get_json(TOPICS).await;
        if topics == json!([]) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("topics left after the sweep: {topics}");
}

async fn subscriber_count(t: &TestStack, id: &str) -> Value {
    t.get_json(&content::source(id)).await["subscriberCount"].clone()
}

#[tokio::test]
async fn subscriptions_follow_the_sharing_rules() {
    let SubmittedFeed {
        t,
        token: alice_token,
        source_id: id,
        ..
    } = submitted_feed("alice", "/shared.xml", FeedDocument::rss(RSS2)).await;
    let (_, bob_token) = t.user("bob").await;

    // Subscribe both (the second call for alice is a no-op).
    for token in [&alice_token, &bob_token, &alice_token] {
        let response = t.subscribe(token, &id).await;
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["id"], id.as_str());
        assert_eq!(body["title"], "The Daily Circuit & Co.");
    }
    assert_eq!(subscriber_count(&t, &id).await, 2);
    assert_eq!(
        t.settings(&alice_token).await["enabledSourceIds"],
        json!([id])
    );
    assert_eq!(
        t.settings(&bob_token).await["enabledSourceIds"],
        json!([id])
    );

    // Unknown sources are 404 on both routes.
    assert_news_error(
        t.subscribe(&alice_token, UNKNOWN).await,
        404,
        &format!("/users/me/subscriptions/{UNKNOWN}"),
    )
    .await;
    assert_news_error(
        t.unsubscribe(&alice_token, "..%2F..%2Fsources").await,
        404,
        "/users/me/subscriptions/..%2F..%2Fsources",
    )
    .await;

    // Enabled sources must be subscriptions.
    let refused = t
        .put_json_auth(
            SETTINGS,
            &alice_token,
            &json!({"enabledSourceIds": [id, UNKNOWN]}),
        )
        .await;
    let error = assert_news_error(refused, 400, "/users/me/settings").await;
    assert_eq!(
        details(&error),
        vec![format!(
            "enabledSourceIds: not subscribed to source {UNKNOWN}"
        )]
    );
    let disable = t
        .put_json_auth(SETTINGS, &alice_token, &json!({"enabledSourceIds": []}))
        .await;
    assert_eq!(disable.status(), 200);

    // Alice leaves: the source stays for bob.
    let left = t.unsubscribe(&alice_token, &id).await;
    assert_eq!(left.status(), 200);
    let left: Value = left.json().await.expect("json");
    assert_eq!(left["subscriberCount"], 1);
    assert!(left.get("deleted").is_none());
    assert_eq!(subscriber_count(&t, &id).await, 1);
    assert_eq!(
        t.settings(&alice_token).await["enabledSourceIds"],
        json!([])
    );

    // Bob, the last subscriber, leaves: the source and its articles are gone.
    let last = t.unsubscribe(&bob_token, &id).await;
    assert_eq!(last.status(), 204);
    assert_source_gone_with_everything(&t, &id).await;
    assert_eq!(t.settings(&bob_token).await["enabledSourceIds"], json!([]));
    assert_eq!(
        t.settings(&alice_token).await["enabledSourceIds"],
        json!([])
    );
    // Again: the source is unknown now.
    assert_eq!(t.unsubscribe(&bob_token, &id).await.status(), 404);
}

#[tokio::test]
async fn content_subscriptions_need_the_source_write_scope() {
    let SubmittedFeed {
        t,
        user,
        token,
        source_id: id,
        ..
    } = submitted_feed("scoped", "/scoped.xml", FeedDocument::rss(RSS2)).await;
    let user_id = user["id"].as_str().expect("user id");
    let path = format!("/sources/{id}/subscribers/{user_id}");
    let url = t.url(&format!("/api/content{path}"));

    for method in [reqwest::Method::POST, reqwest::Method::DELETE] {
        let anonymous = t.http.request(method.clone(), &url).call().await;
        assert_news_error(anonymous, 401, &path).await;
        let as_user = t
            .http
            .request(method.clone(), &url)
            .bearer_auth(&token)
            .call()
            .await;
        assert_news_error(as_user, 403, &path).await;
    }
    assert_eq!(subscriber_count(&t, &id).await, 0);

    let service = t.service_token().await;
    let added = t.http.post(&url).bearer_auth(&service).call().await;
    assert_eq!(added.status(), 200);
    let added: Value = added.json().await.expect("json");
    assert_eq!(added["id"], id.as_str());
    assert_eq!(added["subscriberCount"], 1);
    let removed = t.http.delete(&url).bearer_auth(&service).call().await;
    assert_eq!(removed.status(), 200);
    let removed: Value = removed.json().await.expect("json");
    assert_eq!(removed["id"], id.as_str());
    assert_eq!(removed["subscriberCount"], 0);
    assert_eq!(removed["deleted"], true);
}

#[tokio::test]
async fn concurrent_subscribes_and_last_unsubscribes_stay_exact() {
    let SubmittedFeed {
        t, source_id: id, ..
    } = submitted_feed("busy", "/busy.xml", FeedDocument::rss(RSS2)).await;
    let service = t.service_token().await;
    let member = |n: usize| format!("/api/content/sources/{id}/subscribers/user-{n}");

    let subscribes = (0..20).map(|n| {
        let request = t.http.post(t.url(&member(n))).bearer_auth(&service);
        async move { request.call().await.status() }
    });
    let statuses = futures::future::join_all(subscribes).await;
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    assert_eq!(subscriber_count(&t, &id).await, 20);

    for n in 2..20 {
        let response = t.delete_auth(&member(n), &service).await;
        assert_eq!(response.status(), 200);
    }
    assert_eq!(subscriber_count(&t, &id).await, 2);
    let lasts = (0..2).map(|n| {
        let request = t.http.delete(t.url(&member(n))).bearer_auth(&service);
        async move {
            let response = request.call().await;
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
    assert_source_gone_with_everything(&t, &id).await;
}

/// A popular source under churn: 16 members joining and leaving over and over beside two who
/// stay. No leave may fail for another's (the condition does not hang on the exact count),
/// and the count ends exact.
#[tokio::test]
async fn subscribers_churning_on_one_source_never_fail_and_the_count_stays_exact() {
    const CLIENTS: usize = 16;
    const ROUNDS: usize = 12;
    let SubmittedFeed {
        t, source_id: id, ..
    } = submitted_feed("churn", "/churn.xml", FeedDocument::rss(RSS2)).await;
    let service = t.service_token().await;
    let member = |n: usize| format!("/api/content/sources/{id}/subscribers/user-{n}");
    for stays in [CLIENTS, CLIENTS + 1] {
        let response = t.http.post(t.url(&member(stays))).bearer_auth(&service);
        assert_eq!(response.call().await.status(), 200);
    }
    // The submitter stays subscribed too.
    let before = subscriber_count(&t, &id).await.as_i64().expect("count");

    let clients = (0..CLIENTS).map(|n| {
        let t = &t;
        let service = &service;
        let path = member(n);
        async move {
            let mut failures = Vec::new();
            for _ in 0..ROUNDS {
                for join in [true, false] {
                    let request = if join {
                        t.http.post(t.url(&path))
                    } else {
                        t.http.delete(t.url(&path))
                    };
                    let status = request.bearer_auth(service).call().await.status();
                    if status != 200 {
                        failures.push((join, status));
                    }
                }
            }
            failures
        }
    });
    let failures: Vec<_> = futures::future::join_all(clients)
        .await
        .into_iter()
        .flatten()
        .collect();
    assert!(
        failures.is_empty(),
        "{} failed: {failures:?}",
        failures.len()
    );
    assert_eq!(subscriber_count(&t, &id).await, before);
}

#[tokio::test]
async fn deleting_an_account_unsubscribes_everything() {
    let t = TestStack::start().await;
    let feeds = FeedServer::start().await;
    let shared_url = feeds.put("/shared.xml", FeedDocument::rss(RSS2));
    let solo_url = feeds.put("/solo.atom", FeedDocument::atom(ATOM));
    let (_, carol) = t.user("carol").await;
    let (_, dave) = t.user("dave").await;
    let shared_id = submit_id(&t, &carol, &shared_url).await;
    let solo_id = submit_id(&t, &carol, &solo_url).await;
    for (token, id) in [
        (&carol, &shared_id),
        (&carol, &solo_id),
        (&dave, &shared_id),
    ] {
        assert_eq!(t.subscribe(token, id).await.status(), 200);
    }

    let deleted = t.delete_auth(ME, &carol).await;
    assert_eq!(deleted.status(), 204);

    assert_eq!(subscriber_count(&t, &shared_id).await, 1);
    assert_eq!(
        t.get(&content::source(&solo_id)).await.status(),
        404,
        "carol was the solo source's last subscriber"
    );
    let login = t.login_as("carol", &password("carol")).await;
    assert_news_error(login, 401, "/auth/login").await;
    // The name and email are free again.
    t.register("carol").await;
}

#[tokio::test]
async fn disabling_a_source_keeps_the_subscription() {
    const SUBSCRIPTIONS: &str = "/api/users/users/me/subscriptions";
    let t = TestStack::for_product(stack_tests::Product::News).await;
    let feeds = FeedServer::start().await;
    let (_, token) = t.user("toggler").await;
    let one = submit_id(&t, &token, &feeds.put("/one.xml", FeedDocument::rss(RSS2))).await;
    let two = submit_id(&t, &token, &feeds.put("/two.xml", FeedDocument::atom(ATOM))).await;
    for id in [&one, &two] {
        assert_eq!(t.subscribe(&token, id).await.status(), 200);
    }
    let mut both = vec![one.clone(), two.clone()];
    both.sort();
    async fn subscribed(t: &TestStack, token: &str) -> Value {
        let response = t.get_auth(SUBSCRIPTIONS, token).await;
        response.json::<Value>().await.expect("json")["sourceIds"].clone()
    }
    assert_eq!(subscribed(&t, &token).await, json!(both));

    // Disabled: out of enabledSourceIds, still a subscriber, the source still counts it.
    let settings = t
        .put_json_auth(SETTINGS, &token, &json!({"enabledSourceIds": [two]}))
        .await;
    assert_eq!(settings.status(), 200);
    assert_eq!(t.settings(&token).await["enabledSourceIds"], json!([two]));
    assert_eq!(subscribed(&t, &token).await, json!(both));
    assert_eq!(subscriber_count(&t, &one).await, 1);
    // Enabled again.
    let settings = t
        .put_json_auth(SETTINGS, &token, &json!({"enabledSourceIds": [two, one]}))
        .await;
    assert_eq!(settings.status(), 200);
    assert_news_error(t.get(SUBSCRIPTIONS).await, 401, "/users/me/subscriptions").await;
}

#[tokio::test]
async fn a_join_or_a_leave_writes_two_units_to_each_of_two_partitions_and_no_index() {
    let SubmittedFeed {
        t, source_id: id, ..
    } = subscribed_feed(
        "joined",
        "/joined.xml",
        FeedDocument::rss(generated_rss("Joined", 0, 3)),
    )
    .await;
    let service = t.service_token().await;
    let table = t.table("ContentTable");
    let prefix = table.strip_suffix("ContentTable").unwrap();
    let meter = stack_tests::keyheat::Meter::start(&stack_tests::emulator(), prefix).await;
    let path = format!("/api/content/sources/{id}/subscribers/member-1");
    for _ in 0..3 {
        meter.take().await;
        let joined = t.http.post(t.url(&path)).bearer_auth(&service).call().await;
        assert_eq!(joined.status(), 200);
        let left = t.delete_auth(&path, &service).await;
        assert_eq!(left.status(), 200);
        let mut writes: Vec<(String, String, f64)> = meter
            .take()
            .await
            .into_iter()
            .filter(|u| u.table == table && u.write_units > 0.0)
            .map(|u| (u.index, u.key, u.write_units))
            .collect();
        writes.sort_by(|a, b| a.1.cmp(&b.1));
        // The membership put and delete, and the count's two updates: 2 units each (in a
        // transaction), so 200 joins and leaves a second take 400 WCU/s of either partition;
        // the person's reader row comes and goes with the membership, in their own partition.
        assert_eq!(
            writes,
            vec![
                (String::new(), "READER#member-1".to_string(), 4.0),
                (String::new(), format!("SOURCE#{id}"), 4.0),
                (String::new(), format!("SOURCE#{id}#COUNTS"), 4.0),
            ]
        );
    }
}
