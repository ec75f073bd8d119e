//! The incident platform's intelligence as tests use it: a stack whose cloud and local models
//! are two [`FakeLlm`]s, the model's analysis answers, runbooks, and the routes' requests.

use std::collections::BTreeMap;

use reqwest::Response;
use serde_json::{json, Value};

use crate::llm::{FakeLlm, TEST_KEY, TEST_MODEL};
use crate::stack::TestStack;

pub const ANALYZE: &str = "/api/v1/analyze";
pub const ANALYSES: &str = "/api/v1/analyses";
pub const QUERY: &str = "/api/v1/analyses/query";
pub const DOCUMENTS: &str = "/api/v1/rag/documents";
pub const SEARCH: &str = "/api/v1/rag/search";
pub const HEALTH: &str = "/health";
/// The model the local provider is asked for in these stacks.
pub const LOCAL_MODEL: &str = "local-model-1";
/// The embeddings model of the hybrid stacks.
pub const EMBEDDINGS_MODEL: &str = "fake-embeddings-1";

/// A stack whose cloud provider is `cloud` and local provider `local`, plus `extra`
/// parameters.
pub async fn stack(cloud: &FakeLlm, local: &FakeLlm, extra: &[(&str, &str)]) -> TestStack {
    let mut parameters = BTreeMap::from([
        ("LlmBaseUrl".to_string(), cloud.base_url()),
        ("LlmApiKey".to_string(), TEST_KEY.to_string()),
        ("LlmModel".to_string(), TEST_MODEL.to_string()),
        ("LocalLlmBaseUrl".to_string(), local.base_url()),
        ("LocalLlmModel".to_string(), LOCAL_MODEL.to_string()),
    ]);
    for (k, v) in extra {
        parameters.insert(k.to_string(), v.to_string());
    }
    TestStack::start_with(parameters).await
}

/// The JSON object the model is asked for.
pub fn answer(summary: &str, severity: &str, recommendations: &[&str]) -> String {
    json!({
        "summary": summary,
        "root_cause": format!("Root cause of: {summary}"),
        "severity": severity,
        "recommendations": recommendations,
    })
    .to_string()
}

impl TestStack {
    /// `POST /api/v1/analyze` with `body`, whatever it answers.
    pub async fn analyze(&self, token: &str, body: &Value) -> Response {
        self.post_json_auth(ANALYZE, token, body).await
    }

    /// [`TestStack::analyze`], which must answer 200; the analysis.
    pub async fn analyze_ok(&self, token: &str, body: &Value) -> Value {
        let response = self.analyze(token, body).await;
        let status = response.status();
        let value: Value = response.json().await.expect("json");
        assert_eq!(status, 200, "analyze: {value}");
        value
    }

    /// Adds a runbook, which must answer 201; the document.
    pub async fn runbook(&self, token: &str, title: &str, content: &str) -> Value {
        let response = self
            .post_json_auth(
                DOCUMENTS,
                token,
                &json!({"title": title, "content": content, "tags": ["runbook"]}),
            )
            .await;
        let status = response.status();
        let value: Value = response.json().await.expect("json");
        assert_eq!(status, 201, "add runbook {title}: {value}");
        value
    }

    /// `POST /api/v1/rag/search`, which must answer 200; the hits.
    pub async fn search(&self, token: &str, query: &str, top_k: usize) -> Vec<Value> {
        let response = self
            .post_json_auth(SEARCH, token, &json!({"query": query, "top_k": top_k}))
            .await;
        let status = response.status();
        let value: Value = response.json().await.expect("json");
        assert_eq!(status, 200, "search {query}: {value}");
        value.as_array().cloned().expect("a list")
    }

    /// The titles of a search's hits, best first.
    pub async fn search_titles(&self, token: &str, query: &str, top_k: usize) -> Vec<String> {
        self.search(token, query, top_k)
            .await
            .iter()
            .map(|hit| hit["title"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// `POST /api/v1/analyses/query`, which must answer 200; the analyses.
    pub async fn query_analyses(&self, token: &str, body: &Value) -> Vec<Value> {
        let response = self.post_json_auth(QUERY, token, body).await;
        let status = response.status();
        let value: Value = response.json().await.expect("json");
        assert_eq!(status, 200, "query {body}: {value}");
        value.as_array().cloned().expect("a list")
    }
}
