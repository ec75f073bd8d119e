//! The GenAI function as tests use it: a stack whose model is a [`FakeLlm`], the article the
//! tests ask about, and its answers with their cache header.

use std::collections::BTreeMap;

use reqwest::Response;
use serde_json::Value;

use crate::header;
use crate::llm::{FakeLlm, TEST_KEY, TEST_MODEL};
use crate::stack::{Call, TestStack};

/// The function's header saying whether the answer came from the cache (`hit`/`miss`).
pub const CACHE_HEADER: &str = "x-genai-cache";

/// The article every GenAI test and bench asks about.
pub const ARTICLE: &str = "Harbour city opens its first tidal power station\n\n\
    The station, built over four years under the old harbour wall, will supply 40,000 homes \
    when the tide turns twice a day.\n\n\
    Fishermen worried about the harbour's eels; the operator says the turbines turn slowly \
    enough for fish to pass.";

/// The stack parameters that make `llm` the GenAI function's cloud provider.
pub fn llm_parameters(llm: &FakeLlm) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("LlmBaseUrl".to_string(), llm.base_url()),
        ("LlmApiKey".to_string(), TEST_KEY.to_string()),
        ("LlmModel".to_string(), TEST_MODEL.to_string()),
    ])
}

/// A stack whose GenAI function talks to `llm` as its cloud provider, plus `extra` parameters.
pub async fn stack(llm: &FakeLlm, extra: &[(&str, &str)]) -> TestStack {
    let mut parameters = llm_parameters(llm);
    for (k, v) in extra {
        parameters.insert(k.to_string(), v.to_string());
    }
    TestStack::start_with(parameters).await
}

/// The GenAI function's own URL (no `/api/ai` prefix).
pub fn function_url(t: &TestStack) -> String {
    t.function_url("AssistantFunction")
}

/// A 200 answer's body and cache header; panics on any other status.
pub async fn ok_json(response: Response) -> (Value, String) {
    let status = response.status().as_u16();
    let cache = header(response.headers(), CACHE_HEADER).to_string();
    let body: Value = response.json().await.expect("json body");
    assert_eq!(status, 200, "{body}");
    (body, cache)
}

/// `POST url` with a JSON body.
pub async fn post(t: &TestStack, url: &str, body: &Value) -> Response {
    t.http.post(url).json(body).call().await
}
