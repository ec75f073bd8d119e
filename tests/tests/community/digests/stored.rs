//! Stored digests: the deprecated persist, one item however long the events, a user's
//! digests paged by cursor, and no digest dated later than tomorrow.

use platform::dynamo::item_size;
use serde_json::{json, Value};
use stack_tests::community::assert_reason_error;
use stack_tests::llm::FakeLlm;
use stack_tests::stack::INTERNAL_TOKEN;

use super::{admin_generate, event, generate, get_digest, persist, stack, DAY};

#[tokio::test]
async fn the_deprecated_persist_keeps_working() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm).await;
    let (alice, token) = t.member("alice").await;
    let body = json!({"digestType": "PERSONAL", "targetUserId": alice, "digestDate": DAY,
        "title": "Ignored title", "subtitle": "Sub", "summary": "Sum",
        "events": [event("Tidal power"), event("Storm")], "topics": [],
        "eventCount": 99, "model": "m", "generatedAt": "2025-09-01T23:00:00Z"});
    let r = persist(&t, &body, Some(INTERNAL_TOKEN)).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["deprecation"], "true");
    let stored: Value = r.json().await.unwrap();
    assert_eq!(
        stored["title"],
        "Your news digest for Monday, 1 September 2025"
    );
    assert_eq!(stored["eventCount"], 2);
    assert_eq!(stored["sourceCount"], 1);
    let list: Value = t
        .get_auth("/api/v1/digests/me", &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["content"][0]["id"], stored["id"]);

    // targetUserId must fit digestType.
    let mut public_with_user = body.clone();
    public_with_user["digestType"] = json!("PUBLIC");
    let e = assert_reason_error(
        persist(&t, &public_with_user, Some(INTERNAL_TOKEN)).await,
        400,
    )
    .await;
    assert!(
        e["message"].as_str().unwrap().contains("targetUserId"),
        "{e}"
    );
    let mut personal_without = body.clone();
    personal_without["targetUserId"] = Value::Null;
    let e = assert_reason_error(
        persist(&t, &personal_without, Some(INTERNAL_TOKEN)).await,
        400,
    )
    .await;
    assert!(
        e["message"].as_str().unwrap().contains("targetUserId"),
        "{e}"
    );
    assert_reason_error(persist(&t, &body, None).await, 401).await;
    assert_reason_error(persist(&t, &body, Some("wrong")).await, 401).await;
}

#[tokio::test]
async fn a_digest_with_many_long_events_fits_one_item() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm).await;
    // 50 events with long texts in 4-byte characters: about 730 KB as sent (under the 1 MiB
    // body limit), far more than one item holds.
    let wide = |n: usize| "😀".repeat(n);
    let events: Vec<Value> = (0..50)
        .map(|i| {
            json!({"headline": format!("{i}{}", wide(298)),
                   "summaryBullets": vec![wide(500); 5],
                   "topicIds": (0..20).map(|_| uuid::Uuid::new_v4().to_string()).collect::<Vec<_>>(),
                   "sources": (0..2).map(|j| json!({"sourceName": format!("{j}{}", wide(99)),
                        "provider": wide(100), "publishedAt": "2025-09-01T08:00:00Z", "title": wide(100)}))
                        .collect::<Vec<_>>()})
        })
        .collect();
    let sent = serde_json::to_vec(&events).unwrap().len();
    assert!(sent > 600_000 && sent < 1_000_000, "{sent}");
    let body = json!({"digestType": "PUBLIC", "digestDate": DAY, "events": events});
    let r = persist(&t, &body, Some(INTERNAL_TOKEN)).await;
    assert_eq!(r.status(), 200);
    let stored: Value = r.json().await.unwrap();
    let kept = stored["events"].as_array().unwrap().len();
    assert!(kept > 0 && kept < 50, "cut to fit: {kept}");
    assert_eq!(stored["eventCount"], kept);
    // As DynamoDB measures it, under its 400 KB limit.
    let largest = t
        .scan("DigestsTable")
        .await
        .iter()
        .map(item_size)
        .max()
        .unwrap();
    assert!(largest <= 400 * 1024, "{largest} bytes");
    assert!(largest > 300 * 1024, "close to the bound: {largest} bytes");
    let read: Value = get_digest(&t, stored["id"].as_str().unwrap(), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(read["events"].as_array().unwrap().len(), kept);
}

#[tokio::test]
async fn my_digests_page_by_cursor_past_the_numbered_pages() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm).await;
    let (alice, token) = t.member("alice").await;
    let days = [
        "2025-09-01",
        "2025-09-02",
        "2025-09-03",
        "2025-09-04",
        "2025-09-05",
    ];
    for day in days {
        let body = json!({"digestType": "PERSONAL", "targetUserId": alice, "digestDate": day,
            "summary": "Sum", "events": [event("Tide")], "topics": [],
            "generatedAt": "2025-09-06T00:00:00Z"});
        assert_eq!(persist(&t, &body, Some(INTERNAL_TOKEN)).await.status(), 200);
    }
    // Newest first, two a page, each page naming the next by its last day.
    let mut seen = Vec::new();
    let mut path = "/api/v1/digests/me?size=2".to_string();
    loop {
        let page = t.get_auth(&path, &token).await;
        assert_eq!(page.status(), 200, "{path}");
        let page: Value = page.json().await.unwrap();
        assert_eq!(page["totalElements"], 5);
        for d in page["content"].as_array().unwrap() {
            seen.push(d["digestDate"].as_str().unwrap().to_string());
        }
        match page["nextCursor"].as_str() {
            Some(cursor) => {
                assert_eq!(Some(cursor), seen.last().map(String::as_str));
                path = format!("/api/v1/digests/me?size=2&cursor={cursor}");
            }
            None => {
                assert!(page.get("nextCursor").is_none(), "{page}");
                break;
            }
        }
    }
    let mut newest_first: Vec<String> = days.iter().map(|d| d.to_string()).collect();
    newest_first.reverse();
    assert_eq!(seen, newest_first);
    // Exactly a page left: no cursor after it.
    let last: Value = t
        .get_auth("/api/v1/digests/me?size=1&cursor=2025-09-02", &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(last["content"][0]["digestDate"], "2025-09-01");
    assert!(last.get("nextCursor").is_none(), "{last}");
    // A cursor wins over a page number.
    let both: Value = t
        .get_auth("/api/v1/digests/me?size=1&page=3&cursor=2025-09-02", &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(both["content"][0]["digestDate"], "2025-09-01");
    // A cursor is a day.
    for query in ["cursor=yesterday", "cursor=", "cursor=2025-02-30"] {
        assert_reason_error(
            t.get_auth(&format!("/api/v1/digests/me?{query}"), &token)
                .await,
            400,
        )
        .await;
    }
}

#[tokio::test]
async fn digests_are_dated_no_later_than_tomorrow() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm).await;
    let admin = t.admin_token().await;
    let (alice, _) = t.member("alice").await;
    let public = |date: &str| json!({"digestType": "PUBLIC", "digestDate": date, "events": [event("Tidal power")]});
    let today = chrono::Utc::now().date_naive();
    let tomorrow = (today + chrono::Duration::days(1)).to_string();
    let day_after = (today + chrono::Duration::days(2)).to_string();
    let long_ago = (today - chrono::Duration::days(3_651)).to_string();
    for date in ["2999-01-01", day_after.as_str(), long_ago.as_str()] {
        let e =
            assert_reason_error(persist(&t, &public(date), Some(INTERNAL_TOKEN)).await, 400).await;
        assert!(
            e["message"].as_str().unwrap().contains("digestDate"),
            "{date}: {e}"
        );
        let e = assert_reason_error(generate(&t, &alice, &format!("date={date}")).await, 400).await;
        assert!(
            e["message"].as_str().unwrap().contains("date"),
            "{date}: {e}"
        );
        let e = assert_reason_error(
            admin_generate(&t, &alice, &format!("date={date}"), &admin).await,
            400,
        )
        .await;
        assert!(
            e["message"].as_str().unwrap().contains("date"),
            "{date}: {e}"
        );
    }
    let r = persist(&t, &public(&tomorrow), Some(INTERNAL_TOKEN)).await;
    assert_eq!(r.status(), 200, "tomorrow is in the window");
    let stored: Value = r.json().await.unwrap();

    // A PUBLIC digest dated 2999 that older code stored never becomes the latest.
    let table = t.table("DigestsTable");
    let client = t.dynamodb().await;
    let item = client
        .get_item()
        .table_name(&table)
        .key(
            "pk",
            s(&format!("DIGEST#{}", stored["id"].as_str().unwrap())),
        )
        .key("sk", s("DIGEST"))
        .send()
        .await
        .expect("get")
        .item
        .expect("the stored digest");
    let mut future = item.clone();
    let future_id = uuid::Uuid::new_v4().to_string();
    future.insert("pk".into(), s(&format!("DIGEST#{future_id}")));
    future.insert("id".into(), s(&future_id));
    future.insert("digestDate".into(), s("2999-01-01"));
    future.insert("gsi1sk".into(), s("2999-01-01#2026-01-01T00:00:00.000Z"));
    t.put_items("DigestsTable", vec![future]).await;
    let latest = t.get_json("/api/v1/digests/public/latest").await;
    assert_eq!(latest["id"], stored["id"]);
}

fn s(v: &str) -> aws_sdk_dynamodb::types::AttributeValue {
    aws_sdk_dynamodb::types::AttributeValue::S(v.to_string())
}
