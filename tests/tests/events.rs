//! Every file in `events/` goes through its function's handler the way `cargo lambda invoke
//! --data-file` delivers it: an API Gateway v2 event converted by `lambda_http`.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::BTreeSet;

use serde_json::Value;
use stack_tests::llm::{FakeLlm, TEST_KEY};
use stack_tests::router::{from_api_gateway_event, send};
use stack_tests::{repo_root, TestStack};

/// The status and JSON body (`Null` when not JSON) `router` answers to an event file.
async fn invoke(router: &axum::Router, event: &str) -> (u16, Value) {
    let answer = send(router, from_api_gateway_event(event)).await;
    (answer.status.as_u16(), answer.json_or_null())
}

#[tokio::test]
async fn every_event_file_gets_its_expected_status() {
    let root = repo_root().join("events");
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("expected.json")).expect("events/expected.json"),
    )
    .expect("manifest json");
    let entries = manifest["events"].as_array().expect("events array");

    // The manifest and the directory agree: no event file goes untested.
    let listed: BTreeSet<String> = entries
        .iter()
        .map(|e| e["file"].as_str().expect("file").to_string())
        .collect();
    let mut on_disk = BTreeSet::new();
    for dir in std::fs::read_dir(&root).expect("events dir") {
        let dir = dir.expect("entry").path();
        if dir.is_dir() {
            for file in std::fs::read_dir(&dir).expect("dir") {
                let file = file.expect("file").path();
                if file.extension().is_some_and(|e| e == "json") {
                    let rel = file.strip_prefix(&root).expect("relative");
                    on_disk.insert(rel.to_string_lossy().replace('\\', "/"));
                }
            }
        }
    }
    assert_eq!(
        listed, on_disk,
        "events/expected.json must list every event file"
    );

    let t = TestStack::start().await;
    // The GenAI events reach this OpenAI-compatible fake instead of a real model.
    let llm = FakeLlm::start().await;
    let mut token = None;
    for entry in entries {
        let file = entry["file"].as_str().expect("file");
        let function = entry["function"].as_str().expect("function");
        let env = t.env(function);
        let event = std::fs::read_to_string(root.join(file)).expect("event file");
        // Workers and schedules: the event as Lambda delivers it, straight to the handler.
        let worker = match function {
            "NewsFeedWorkerFunction" => Some(news_feed_worker_function::handler(env.clone()).await),
            "NewsPageReaderFunction" => Some(news_page_reader_function::handler(env.clone()).await),
            "NewsOpmlWorkerFunction" => Some(news_opml_worker_function::handler(env.clone()).await),
            "NewsSourceSweeperFunction" => {
                Some(news_source_sweeper_function::handler(env.clone()).await)
            }
            "CommunityIndexerFunction" => {
                Some(community_indexer_function::handler(env.clone()).await)
            }
            "CommunityViewsFunction" => Some(community_views_function::handler(env.clone()).await),
            "CommunitySummarizerFunction" => {
                Some(community_summarizer_function::handler(env.clone()).await)
            }
            "CommunitySweeperFunction" => {
                Some(community_sweeper_function::handler(env.clone()).await)
            }
            "RecipesSweeperFunction" => Some(recipes_sweeper_function::handler(env.clone()).await),
            "IncidentsProcessorFunction" => {
                Some(incidents_processor_function::handler(env.clone()).await)
            }
            "IncidentsIntelligenceSweeperFunction" => {
                Some(incidents_intelligence_sweeper_function::handler(env.clone()).await)
            }
            "IncidentsNotifierFunction" => {
                Some(incidents_notifier_function::handler(env.clone()).await)
            }
            "CommunityDigestWorkerFunction" => {
                Some(community_digest_worker_function::handler(env.clone()).await)
            }
            _ => None,
        };
        if let Some(handler) = worker {
            let batch = serde_json::from_str(&event).expect("SQS event");
            let response = handler
                .expect("handler")
                .handle(batch)
                .await
                .expect("batch handled");
            assert_eq!(
                u64::try_from(response.batch_item_failures.len()).ok(),
                entry["batchItemFailures"].as_u64(),
                "{file}"
            );
            continue;
        }
        // Custom resources: the request as CloudFormation sends it, straight to the handler.
        if function == "IdentityBootstrapFunction" {
            let handler = identity_bootstrap_function::handler(env.clone())
                .await
                .expect("handler");
            let request = serde_json::from_str(&event).expect("custom resource request");
            let outcome = handler.handle(request).await.expect("resource created");
            assert_eq!(
                Some(outcome.physical_id.as_str()),
                entry["physicalId"].as_str(),
                "{file}"
            );
            continue;
        }
        let schedule = match function {
            "CommunityIndexSchedulerFunction" => {
                Some(community_index_scheduler_function::handler(env.clone()).await)
            }
            "CommunityDigestSchedulerFunction" => {
                Some(community_digest_scheduler_function::handler(env.clone()).await)
            }
            "NewsFeedSchedulerFunction" => {
                Some(news_feed_scheduler_function::handler(env.clone()).await)
            }
            "IncidentsSweeperFunction" => {
                Some(incidents_sweeper_function::handler(env.clone()).await)
            }
            _ => None,
        };
        if let Some(handler) = schedule {
            let scheduled = serde_json::from_str(&event).expect("EventBridge event");
            handler
                .expect("handler")
                .handle(scheduled)
                .await
                .expect("schedule handled");
            continue;
        }
        let router = match function {
            "IdentityFunction" => identity_function::router(env).await.expect("router"),
            "NewsFunction" => news_function::router(env).await.expect("router"),
            "NewsIntakeFunction" => news_intake_function::router(env).await.expect("router"),
            "GreaderFunction" => news_greader_function::router(env).await.expect("router"),
            "CommunityFunction" => community_function::router(env).await.expect("router"),
            "CommunityUploadsFunction" => community_uploads_function::router(env)
                .await
                .expect("router"),
            "CommunityDigestsFunction" => community_digests_function::router(env)
                .await
                .expect("router"),
            "IncidentsIngestFunction" => incidents_ingest_function::router(env)
                .await
                .expect("router"),
            "IncidentsFunction" => incidents_function::router(env).await.expect("router"),
            "IncidentsMetricsFunction" => incidents_metrics_function::router(env)
                .await
                .expect("router"),
            "WebFunction" => web_function::router(env).await.expect("router"),
            "RecipesFunction" => recipes_function::router(env).await.expect("router"),
            "AssistantFunction" => assistant_function::router(
                env.with("LLM_BASE_URL", llm.base_url())
                    .with("LLM_API_KEY", TEST_KEY),
            )
            .await
            .expect("router"),
            "IncidentsIntelligenceFunction" => incidents_intelligence_function::router(
                env.with("LLM_BASE_URL", llm.base_url())
                    .with("LLM_API_KEY", TEST_KEY),
            )
            .await
            .expect("router"),
            other => panic!("no handler wired for {other} in this test"),
        };
        let (status, body) = invoke(&router, &event).await;
        assert_eq!(
            Some(u64::from(status)),
            entry["status"].as_u64(),
            "{file}: {body}"
        );
        if let Some(t) = body.get("token").and_then(Value::as_str) {
            token = Some(t.to_string());
        }
        if let Some(with_token) = entry.get("withLoginToken").and_then(Value::as_u64) {
            let token = token.as_deref().expect("a login event ran before");
            let event = event.replace("PASTE_THE_TOKEN_FROM_LOGIN", token);
            let (status, body) = invoke(&router, &event).await;
            assert_eq!(
                u64::from(status),
                with_token,
                "{file} with a real token: {body}"
            );
        }
    }
}
