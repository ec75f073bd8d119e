//! The community's news digests through the local stack: generation for followers and
//! non-followers, skip and force, stories reported by several sources grouped into one event,
//! visibility, the deprecated persist, the item size bound, the job lifecycle through the
//! digest queue and worker, and the daily schedule. The news is stored in the content table
//! and read by the digests through the content API; the model is the tests' fake.

use std::time::Duration;

use news::model::TopicRef;
use news::store::{NewArticle, NewSource};
use platform::dynamo::item_size;
use serde_json::{json, Value};
use stack_tests::community::assert_reason_error;
use stack_tests::content::content_store;
use stack_tests::genai::llm_parameters;
use stack_tests::llm::FakeLlm;
use stack_tests::stack::{Call, INTERNAL_TOKEN};
use stack_tests::TestStack;

/// The day the tests' news is published on.
const DAY: &str = "2025-09-01";

async fn stack(llm: &FakeLlm) -> TestStack {
    TestStack::start_with(llm_parameters(llm)).await
}

/// Stores a source and its articles `(id, title, topic, published_at)` in the content table.
async fn news(t: &TestStack, source: &str, articles: &[(&str, &str, &str, &str)]) {
    let store = content_store(t).await;
    store
        .create_source(NewSource {
            id: source.into(),
            url: format!("http://127.0.0.1/{source}.xml"),
            title: format!("{source} News"),
            site_url: None,
            description: None,
        })
        .await
        .expect("source");
    for (id, title, topic, at) in articles {
        store
            .upsert_article(&NewArticle {
                id: (*id).into(),
                source_id: source.into(),
                source_title: format!("{source} News"),
                title: (*title).into(),
                link: Some(format!("https://{source}.example.com/{id}")),
                author: None,
                published_at: (*at).into(),
                summary: Some(format!("What {source} says about {title}.")),
                paragraphs: vec!["Body.".into()],
                topics: vec![TopicRef {
                    id: (*topic).into(),
                    name: capitalised(topic),
                }],
                image_url: None,
            })
            .await
            .expect("article");
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The day's news: one story reported by two sources in other words (energy), one by one source (weather),
/// and stories of the days around it.
async fn the_days_news(t: &TestStack) {
    news(
        t,
        "harbour",
        &[
            (
                "h1",
                "Harbour city opens its first tidal power station",
                "energy",
                "2025-09-01T08:00:00.000Z",
            ),
            (
                "h2",
                "Storm closes the coast road",
                "weather",
                "2025-09-01T12:00:00.000Z",
            ),
            (
                "h0",
                "Yesterday's energy prices",
                "energy",
                "2025-08-31T23:59:00.000Z",
            ),
            (
                "h3",
                "Tomorrow's energy prices",
                "energy",
                "2025-09-02T00:00:00.000Z",
            ),
        ],
    )
    .await;
    news(
        t,
        "coast",
        &[(
            "c1",
            "Tidal power station switched on in Harbour City",
            "energy",
            "2025-09-01T09:30:00.000Z",
        )],
    )
    .await;
}

const ANSWER: &str = r#"{"subtitle": "Tides and storms", "summary": "The harbour goes tidal while a storm closes the road.",
 "events": [{"index": 1, "headline": "Harbour switches on tidal power", "summaryBullets": ["The station powers 40,000 homes.", "It opened on Monday."]},
            {"index": 2, "headline": "Storm shuts the coast road", "summaryBullets": ["Drivers are diverted inland."]}]}"#;

async fn follow(t: &TestStack, token: &str, topics: Value) {
    let r = t
        .put_json_auth(
            "/api/users/users/me/settings",
            token,
            &json!({ "followedTopics": topics }),
        )
        .await;
    assert_eq!(r.status(), 200);
}

fn generate_path(user: &str, query: &str) -> String {
    format!("/api/v1/internal/digests/generate/users/{user}?{query}")
}

async fn generate(t: &TestStack, user: &str, query: &str) -> reqwest::Response {
    t.http
        .post(t.url(&generate_path(user, query)))
        .header("x-internal-service-token", INTERNAL_TOKEN)
        .call()
        .await
}

async fn generate_ok(t: &TestStack, user: &str, query: &str) -> Value {
    let r = generate(t, user, query).await;
    let status = r.status().as_u16();
    let body: Value = r.json().await.expect("json");
    assert_eq!(status, 200, "{body}");
    body
}

async fn get_digest(t: &TestStack, id: &str, token: Option<&str>) -> reqwest::Response {
    let mut request = t.http.get(t.url(&format!("/api/v1/digests/{id}")));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.call().await
}

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

async fn persist(t: &TestStack, body: &Value, token: Option<&str>) -> reqwest::Response {
    let mut request = t.http.post(t.url("/api/v1/internal/digests")).json(body);
    if let Some(token) = token {
        request = request.header("x-internal-service-token", token);
    }
    request.call().await
}

fn event(headline: &str) -> Value {
    json!({"headline": headline, "summaryBullets": ["One."], "topicIds": [],
           "sources": [{"sourceName": "Harbour News", "provider": "news.example.com",
                        "publishedAt": "2025-09-01T08:00:00Z", "title": headline}]})
}

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

async fn admin_generate(t: &TestStack, user: &str, query: &str, token: &str) -> reqwest::Response {
    t.http
        .post(t.url(&format!(
            "/api/v1/admin/digests/generate/users/{user}?{query}"
        )))
        .bearer_auth(token)
        .call()
        .await
}

/// The job once the worker has finished it.
async fn finished(t: &TestStack, id: &str, token: &str) -> Value {
    for _ in 0..100 {
        let job: Value = t
            .get_auth(&format!("/api/v1/admin/digests/jobs/{id}"), token)
            .await
            .json()
            .await
            .unwrap();
        if job["status"] != "PENDING" && job["status"] != "RUNNING" {
            return job;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("job {id} never finished");
}

#[tokio::test]
async fn admin_jobs_run_in_the_background_to_a_final_status() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm).await;
    the_days_news(&t).await;
    let admin = t.admin_token().await;
    let (alice, token) = t.member("alice").await;
    follow(&t, &token, json!(["energy"])).await;
    llm.reply(ANSWER);

    let r = admin_generate(&t, &alice, &format!("date={DAY}"), &admin).await;
    assert_eq!(r.status(), 202);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    let job: Value = r.json().await.unwrap();
    assert_eq!(job["status"], "PENDING");
    assert_eq!(job["targetUserId"], alice);
    assert_eq!(job["digestDate"], DAY);
    assert!(job["finishedAt"].is_null());
    assert_eq!(
        location,
        format!("/api/v1/admin/digests/jobs/{}", job["id"].as_str().unwrap())
    );
    let done = finished(&t, job["id"].as_str().unwrap(), &admin).await;
    assert_eq!(done["status"], "GENERATED", "{done}");
    assert!(done["finishedAt"].is_string());
    let digest = get_digest(&t, done["digestId"].as_str().unwrap(), Some(&token)).await;
    assert_eq!(digest.status(), 200);

    // Again without force: SKIPPED; for nobody: FAILED; both with a message.
    let again: Value = admin_generate(&t, &alice, &format!("date={DAY}"), &admin)
        .await
        .json()
        .await
        .unwrap();
    let again = finished(&t, again["id"].as_str().unwrap(), &admin).await;
    assert_eq!(again["status"], "SKIPPED");
    assert!(again["message"].as_str().unwrap().contains(DAY));
    let nobody = uuid::Uuid::new_v4().to_string();
    let failed: Value = admin_generate(&t, &nobody, "", &admin)
        .await
        .json()
        .await
        .unwrap();
    let yesterday = (chrono::Utc::now().date_naive() - chrono::Duration::days(1)).to_string();
    assert_eq!(
        failed["digestDate"], yesterday,
        "the date defaults to yesterday"
    );
    let failed = finished(&t, failed["id"].as_str().unwrap(), &admin).await;
    assert_eq!(failed["status"], "FAILED");
    assert!(failed["message"].as_str().unwrap().contains("No such user"));
    assert!(failed["finishedAt"].is_string());

    // Admins only.
    assert_reason_error(admin_generate(&t, &alice, "", &token).await, 403).await;
    let anonymous = t
        .http
        .post(t.url(&format!("/api/v1/admin/digests/generate/users/{alice}")))
        .call()
        .await;
    assert_reason_error(anonymous, 401).await;
    let job_path = format!("/api/v1/admin/digests/jobs/{}", job["id"].as_str().unwrap());
    assert_reason_error(t.get_auth(&job_path, &token).await, 403).await;
    assert_reason_error(t.get(&job_path).await, 401).await;
    let unknown = format!("/api/v1/admin/digests/jobs/{}", uuid::Uuid::new_v4());
    assert_reason_error(t.get_auth(&unknown, &admin).await, 404).await;
    assert_reason_error(
        admin_generate(&t, &alice, "date=tomorrow", &admin).await,
        400,
    )
    .await;
}

#[tokio::test]
async fn the_schedule_creates_one_job_per_user_and_day() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm).await;
    let mut users = Vec::new();
    for name in ["ann", "ben", "cat"] {
        users.push(t.member(name).await.0);
    }
    // The administrator the stack provisioned is a user too.
    let admin = stack_tests::tokens::claims(&t.admin_token().await);
    users.push(admin["sub"].as_str().unwrap().to_string());
    users.sort();
    // The user directory it pages through, two at a time.
    let page = |query: &'static str| {
        let t = &t;
        async move {
            let r = t
                .http
                .get(t.url(&format!("/api/users/internal/users?{query}")))
                .header("x-internal-service-token", INTERNAL_TOKEN)
                .call()
                .await;
            assert_eq!(r.status(), 200);
            r.json::<Value>().await.unwrap()
        }
    };
    let first = page("limit=2").await;
    assert_eq!(first["ids"], json!(users[..2]));
    let cursor = first["nextCursor"].as_str().unwrap().to_string();
    let second: Value = t
        .http
        .get(t.url(&format!(
            "/api/users/internal/users?limit=2&cursor={cursor}"
        )))
        .header("x-internal-service-token", INTERNAL_TOKEN)
        .call()
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(second["ids"], json!(users[2..]));
    assert!(second["nextCursor"].is_null());
    let no_token = t.http.get(t.url("/api/users/internal/users")).call().await;
    assert_eq!(no_token.status(), 401);

    let scheduler =
        community_digest_scheduler_function::handler(t.env("CommunityDigestSchedulerFunction"))
            .await
            .unwrap();
    let event = || {
        serde_json::from_str(include_str!(
            "../../../events/community-digest-scheduler/schedule.json"
        ))
        .unwrap()
    };
    scheduler.handle(event()).await.unwrap();
    scheduler.handle(event()).await.unwrap();
    let yesterday = (chrono::Utc::now().date_naive() - chrono::Duration::days(1)).to_string();
    let jobs: Vec<_> = t
        .scan("DigestsTable")
        .await
        .into_iter()
        .filter(|i| i["pk"].as_s().unwrap().starts_with("JOB#"))
        .collect();
    let mut targets: Vec<String> = jobs
        .iter()
        .map(|j| {
            assert_eq!(j["digestDate"].as_s().unwrap(), &yesterday);
            j["targetUserId"].as_s().unwrap().clone()
        })
        .collect();
    targets.sort();
    assert_eq!(
        targets, users,
        "exactly one job per user, though the schedule ran twice"
    );
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
async fn five_workers_of_one_day_make_one_public_digest_with_one_model_call() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm).await;
    the_days_news(&t).await;
    let mut readers = Vec::new();
    for name in ["ann", "ben", "cat", "dan", "eve"] {
        readers.push(t.member(name).await.0);
    }
    llm.reply(ANSWER);
    // A slow model: every generation starts before the first has written the digest.
    llm.delay(Some(Duration::from_millis(1_500)));
    let query = format!("date={DAY}");
    let outcomes =
        futures::future::join_all(readers.iter().map(|u| generate_ok(&t, u, &query))).await;
    let ids: Vec<&str> = outcomes
        .iter()
        .map(|o| o["digest"]["id"].as_str().expect("a digest"))
        .collect();
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
    assert!(outcomes
        .iter()
        .all(|o| o["digest"]["digestType"] == "PUBLIC"));
    assert_eq!(
        llm.call_count(),
        1,
        "one model call for the day's PUBLIC digest"
    );

    // A generation that fails gives its claim back: the next one writes the day's digest
    // at once (no wait for the claim to go stale).
    llm.delay(None);
    let next_day = "2025-09-02";
    news(
        &t,
        "inland",
        &[(
            "i1",
            "Inland rail reopens",
            "transport",
            "2025-09-02T10:00:00.000Z",
        )],
    )
    .await;
    llm.fail(500);
    let r = generate(&t, &readers[0], &format!("date={next_day}")).await;
    assert_eq!(r.status(), 502);
    llm.reply(ANSWER);
    let calls = llm.call_count();
    let started = std::time::Instant::now();
    let outcome = generate_ok(&t, &readers[1], &format!("date={next_day}")).await;
    assert_eq!(outcome["digest"]["digestType"], "PUBLIC", "{outcome}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "waited for a released claim"
    );
    assert_eq!(llm.call_count(), calls + 1);
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
