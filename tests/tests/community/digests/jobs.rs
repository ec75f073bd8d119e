//! Digest jobs: admin jobs run by the worker to a final status, the daily schedule's one job
//! per user and day, and five workers of one day making one public digest.

use std::time::Duration;

use serde_json::{json, Value};
use stack_tests::community::assert_reason_error;
use stack_tests::llm::FakeLlm;
use stack_tests::stack::{Call, INTERNAL_TOKEN};
use stack_tests::TestStack;

use super::{
    admin_generate, follow, generate, generate_ok, get_digest, news, stack, the_days_news, ANSWER,
    DAY,
};

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
            "../../../../events/community-digest-scheduler/schedule.json"
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
async fn a_day_without_news_gives_its_public_claim_back() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm).await;
    let mut readers = Vec::new();
    for name in ["ann", "ben", "cat"] {
        readers.push(t.member(name).await.0);
    }
    let quiet_day = "2025-09-03";
    let query = format!("date={quiet_day}");
    let first = generate_ok(&t, &readers[0], &query).await;
    assert!(first["digest"].is_null(), "{first}");
    // The next generation of that day finds no claim left behind: it does not wait out the
    // claim (25 s, then "under way") before finding the day empty too.
    let started = std::time::Instant::now();
    let second = generate_ok(&t, &readers[1], &query).await;
    assert!(second["digest"].is_null(), "{second}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "waited {:?} for a claim a day without news kept",
        started.elapsed()
    );
    assert_eq!(llm.call_count(), 0);

    // News of that day comes in later: the next generation writes the day's digest.
    news(
        &t,
        "inland",
        &[(
            "q1",
            "Quiet day ends with a rail reopening",
            "transport",
            "2025-09-03T18:00:00.000Z",
        )],
    )
    .await;
    llm.reply(ANSWER);
    let third = generate_ok(&t, &readers[2], &query).await;
    assert_eq!(third["digest"]["digestType"], "PUBLIC", "{third}");
    assert_eq!(llm.call_count(), 1);
}
