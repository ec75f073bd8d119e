//! Generation: a personal digest for followers and the day's public one for the others,
//! skip unless forced, and who may read which.

use serde_json::{json, Value};
use stack_tests::community::assert_reason_error;
use stack_tests::llm::FakeLlm;
use stack_tests::stack::Call;

use super::{
    follow, generate, generate_ok, generate_path, get_digest, stack, the_days_news, ANSWER, DAY,
};

#[tokio::test]
async fn followers_get_a_personal_digest_and_others_the_days_public_one() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm).await;
    the_days_news(&t).await;
    let (alice, alice_token) = t.member("alice").await;
    let (bob, bob_token) = t.member("bob").await;
    let (carol, _) = t.member("carol").await;
    follow(&t, &alice_token, json!(["energy"])).await;
    llm.reply(ANSWER);

    let outcome = generate_ok(&t, &alice, &format!("date={DAY}")).await;
    assert_eq!(outcome["status"], "GENERATED", "{outcome}");
    let digest = &outcome["digest"];
    assert_eq!(digest["digestType"], "PERSONAL");
    assert_eq!(digest["digestDate"], DAY);
    assert_eq!(
        digest["title"],
        "Your news digest for Monday, 1 September 2025"
    );
    assert_eq!(digest["subtitle"], "Tides and storms");
    // Only the followed topic's story of that day, reported twice: one event, two sources.
    let events = digest["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{digest}");
    assert_eq!(events[0]["headline"], "Harbour switches on tidal power");
    assert_eq!(events[0]["summaryBullets"].as_array().unwrap().len(), 2);
    let sources = events[0]["sources"].as_array().unwrap();
    let names: Vec<&str> = sources
        .iter()
        .map(|s| s["sourceName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["coast News", "harbour News"], "newest report first");
    assert_eq!(sources[0]["provider"], "coast.example.com");
    assert_eq!(digest["eventCount"], 1);
    assert_eq!(digest["sourceCount"], 2);
    assert_eq!(
        digest["previewHeadlines"],
        json!(["Harbour switches on tidal power"])
    );
    assert!(digest["readTimeMinutes"].as_i64().unwrap() >= 1);
    // Following created the community's topic: the digest names it by its community id.
    let community_topic = t.topic("energy").await.expect("community topic");
    assert_eq!(digest["topics"][0]["id"], community_topic["id"]);
    assert_eq!(digest["topics"][0]["name"], community_topic["name"]);
    assert_eq!(events[0]["topicIds"][0], digest["topics"][0]["id"]);
    assert_eq!(digest["model"], stack_tests::llm::TEST_MODEL);
    // One model call wrote the whole digest; it saw both reports and nothing off-topic or
    // off the day.
    assert_eq!(llm.call_count(), 1);
    let prompt = llm.last_call().prompt();
    assert!(
        prompt.contains("Harbour city opens its first tidal power station"),
        "{prompt}"
    );
    assert!(
        prompt.contains("Tidal power station switched on in Harbour City"),
        "{prompt}"
    );
    assert!(
        !prompt.contains("Storm") && !prompt.contains("prices"),
        "{prompt}"
    );

    // Bob follows nothing: the day's PUBLIC digest, generated now from all its news.
    let public = generate_ok(&t, &bob, &format!("date={DAY}")).await;
    assert_eq!(public["status"], "GENERATED", "{public}");
    assert_eq!(public["digest"]["digestType"], "PUBLIC");
    assert_eq!(
        public["digest"]["title"],
        "News digest for Monday, 1 September 2025"
    );
    assert_eq!(public["digest"]["eventCount"], 2);
    assert_eq!(public["digest"]["sourceCount"], 2);
    assert_eq!(llm.call_count(), 2);
    // Carol too follows nothing: the same PUBLIC digest, assigned without a model call.
    let again = generate_ok(&t, &carol, &format!("date={DAY}")).await;
    assert_eq!(again["digest"]["id"], public["digest"]["id"]);
    assert_eq!(
        llm.call_count(),
        2,
        "the PUBLIC digest is generated once a day"
    );

    // Each user's list holds their digest of the day.
    let mine = |token: String| {
        let t = &t;
        async move {
            let r = t.get_auth("/api/v1/digests/me", &token).await;
            assert_eq!(r.status(), 200);
            r.json::<Value>().await.unwrap()
        }
    };
    let alices = mine(alice_token).await;
    assert_eq!(alices["totalElements"], 1);
    assert_eq!(alices["content"][0]["id"], digest["id"]);
    assert!(
        alices["content"][0].get("events").is_none(),
        "summaries only"
    );
    let bobs = mine(bob_token).await;
    assert_eq!(bobs["content"][0]["id"], public["digest"]["id"]);
    assert_eq!(bobs["content"][0]["digestType"], "PUBLIC");
}

#[tokio::test]
async fn a_second_generation_skips_unless_forced() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm).await;
    the_days_news(&t).await;
    let (alice, token) = t.member("alice").await;
    follow(&t, &token, json!(["energy", "weather"])).await;
    llm.reply(ANSWER);
    let first = generate_ok(&t, &alice, &format!("date={DAY}")).await;
    assert_eq!(first["digest"]["eventCount"], 2);
    let skipped = generate_ok(&t, &alice, &format!("date={DAY}")).await;
    assert_eq!(skipped["status"], "SKIPPED", "{skipped}");
    assert!(skipped["digest"].is_null());
    assert!(skipped["message"].as_str().unwrap().contains(DAY));
    assert_eq!(llm.call_count(), 1, "a skip costs no model call");

    let forced = generate_ok(&t, &alice, &format!("date={DAY}&force=true")).await;
    assert_eq!(forced["status"], "GENERATED");
    assert_ne!(forced["digest"]["id"], first["digest"]["id"]);
    assert_eq!(llm.call_count(), 2);
    // The forced digest replaced the first: gone, and the list still holds one day.
    let old = first["digest"]["id"].as_str().unwrap();
    assert_reason_error(get_digest(&t, old, Some(&token)).await, 404).await;
    let list: Value = t
        .get_auth("/api/v1/digests/me", &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["totalElements"], 1);
    assert_eq!(list["content"][0]["id"], forced["digest"]["id"]);

    // A day without news in the followed topics: SKIPPED, no digest.
    let quiet = generate_ok(&t, &alice, "date=2025-09-05").await;
    assert_eq!(quiet["status"], "SKIPPED");
    // Bad input, unknown users, and the internal token.
    assert_reason_error(generate(&t, &alice, "force=maybe").await, 400).await;
    assert_reason_error(generate(&t, &alice, "date=01/09/2025").await, 400).await;
    assert_reason_error(generate(&t, "not-a-uuid", "").await, 400).await;
    let nobody = uuid::Uuid::new_v4().to_string();
    assert_reason_error(generate(&t, &nobody, &format!("date={DAY}")).await, 404).await;
    let no_token = t.http.post(t.url(&generate_path(&alice, ""))).call().await;
    assert_reason_error(no_token, 401).await;
    // The model failing is a 502, and nothing is stored.
    llm.fail(500);
    let (dave, dave_token) = t.member("dave").await;
    follow(&t, &dave_token, json!(["energy"])).await;
    assert_reason_error(generate(&t, &dave, &format!("date={DAY}")).await, 502).await;
    let list: Value = t
        .get_auth("/api/v1/digests/me", &dave_token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["totalElements"], 0);
}

#[tokio::test]
async fn personal_digests_are_their_users_and_public_ones_everyones() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm).await;
    assert_reason_error(t.get("/api/v1/digests/public/latest").await, 404).await;
    the_days_news(&t).await;
    let (alice, alice_token) = t.member("alice").await;
    let (bob, bob_token) = t.member("bob").await;
    follow(&t, &alice_token, json!(["energy"])).await;
    llm.reply(ANSWER);
    let personal = generate_ok(&t, &alice, &format!("date={DAY}")).await["digest"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let public = generate_ok(&t, &bob, &format!("date={DAY}")).await["digest"]["id"]
        .as_str()
        .unwrap()
        .to_string();

    assert_eq!(
        get_digest(&t, &personal, Some(&alice_token)).await.status(),
        200
    );
    assert_reason_error(get_digest(&t, &personal, Some(&bob_token)).await, 404).await;
    assert_reason_error(get_digest(&t, &personal, None).await, 404).await;
    for token in [None, Some(bob_token.as_str()), Some(alice_token.as_str())] {
        let r = get_digest(&t, &public, token).await;
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["events"].as_array().unwrap().len(), 2);
    }
    assert_reason_error(get_digest(&t, &public, Some("not-a-token")).await, 401).await;
    assert_reason_error(get_digest(&t, "nope", None).await, 400).await;
    assert_reason_error(
        get_digest(&t, &uuid::Uuid::new_v4().to_string(), None).await,
        404,
    )
    .await;

    let latest = t.get_json("/api/v1/digests/public/latest").await;
    assert_eq!(latest["id"], public);
    // My digests needs a user token.
    assert_reason_error(t.get("/api/v1/digests/me").await, 401).await;
    assert_reason_error(
        t.get_auth("/api/v1/digests/me?size=21", &alice_token).await,
        400,
    )
    .await;
    assert_reason_error(
        t.get_auth("/api/v1/digests/me?page=50", &alice_token).await,
        400,
    )
    .await;
}
