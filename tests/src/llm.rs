//! A fake OpenAI-compatible model server for tests: `POST /v1/chat/completions` on loopback,
//! answering as told (a reply, with or without token usage; an HTTP failure; a stall; a
//! delay) and keeping every request it received so tests can check what the platform sent.
//!
//! ```no_run
//! # async fn demo() {
//! let llm = stack_tests::llm::FakeLlm::start().await;
//! // LLM_BASE_URL = llm.base_url(), LLM_API_KEY = stack_tests::llm::TEST_KEY
//! llm.reply("A short summary.");
//! // ... call the platform ...
//! let call = &llm.calls()[0];
//! assert_eq!(call.bearer(), Some(stack_tests::llm::TEST_KEY));
//! assert!(call.prompt().contains("the article text"));
//! # }
//! ```
//!
//! By default it answers every request: with a sentiment JSON object when the prompt asks for
//! one (it names the `"sentiment"` field), with a log analysis when asked for one (it names
//! `"root_cause"`), otherwise with [`DEFAULT_REPLY`], and reports [`DEFAULT_USAGE`] tokens.
//!
//! Like a model without defences, it obeys orders it reads: a log analysis (its default one,
//! or a reply it was told) takes the severity that an "answer LOW" (MEDIUM, HIGH, CRITICAL)
//! anywhere in the prompt asks for, unless the order sits inside a delimited block of data
//! (a line `<<<NAME ... {boundary}>>>` up to the line `<<<END {boundary}>>>`), which it
//! reads as data the way the platform's system prompt tells it to ([`undelimited`]).
//!
//! Asked with `"stream": true`, it streams its answer as OpenAI does (server-sent events, one
//! `chat.completion.chunk` per word, `data: [DONE]` last), waiting [`FakeLlm::stream_delay`]
//! between chunks and, when told ([`FakeLlm::hold_last_chunk`]), holding the last chunk until
//! the test opens the [`Gate`]. Told [`Behaviour::Garbage`], its stream breaks after the first
//! word.
//!
//! `POST /v1/embeddings` answers too: each input's vector counts its words on fixed axes
//! ([`FakeLlm::embed_axes`]: words that mean the same share an axis), or, untold, hashes its
//! words onto [`EMBEDDING_DIMENSIONS`] axes. Those requests are kept as well (their `path`
//! says which endpoint).

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use crate::server::{self, FakeServer};

/// The bearer key tests configure as `LLM_API_KEY`.
pub const TEST_KEY: &str = "test-llm-key";
/// The model tests configure as `LLM_MODEL`.
pub const TEST_MODEL: &str = "fake-model-1";
pub const DEFAULT_REPLY: &str = "This is the fake model's answer.";
/// `(prompt_tokens, completion_tokens)` reported when not told otherwise.
pub const DEFAULT_USAGE: (u64, u64) = (42, 7);
/// What the default behaviour rates every article when asked for sentiment.
pub const DEFAULT_SENTIMENT: &str = r#"{"sentiment": "neutral", "score": 0.0, "bias": null, "rationale": "The fake model rates every article neutral."}"#;

/// What the default behaviour concludes about every log it is asked to analyse.
pub const DEFAULT_ANALYSIS: &str = r#"{"summary": "The fake model sees an error.", "root_cause": "Unknown: the fake model reads no logs.", "severity": "MEDIUM", "recommendations": ["Read the log yourself"]}"#;

/// The dimensions of the fake embeddings.
pub const EMBEDDING_DIMENSIONS: usize = 32;

/// How the server answers the next requests.
#[derive(Clone, Debug)]
pub enum Behaviour {
    /// Sentiment JSON or an analysis when asked for one, else [`DEFAULT_REPLY`];
    /// [`DEFAULT_USAGE`] tokens.
    Default,
    /// This content; `usage` as `(prompt, completion)` tokens, or no `usage` member.
    Reply {
        content: String,
        usage: Option<(u64, u64)>,
    },
    /// This status with an OpenAI-style error body.
    Fail(u16),
    /// A 200 whose body is not a chat completion.
    Garbage,
    /// Never answer (the connection stays open).
    Stall,
}

/// One request the server received.
#[derive(Clone, Debug)]
pub struct ChatCall {
    pub path: String,
    /// The `Authorization` header, verbatim.
    pub authorization: Option<String>,
    pub traceparent: Option<String>,
    /// The JSON body.
    pub body: Value,
}

impl ChatCall {
    /// The key of `Authorization: Bearer <key>`.
    pub fn bearer(&self) -> Option<&str> {
        self.authorization.as_deref()?.strip_prefix("Bearer ")
    }

    pub fn model(&self) -> Option<&str> {
        self.body["model"].as_str()
    }

    pub fn temperature(&self) -> Option<f64> {
        self.body["temperature"].as_f64()
    }

    /// `(role, content)` of every message.
    pub fn messages(&self) -> Vec<(String, String)> {
        self.body["messages"]
            .as_array()
            .map(|messages| {
                messages
                    .iter()
                    .map(|m| {
                        (
                            m["role"].as_str().unwrap_or_default().to_string(),
                            m["content"].as_str().unwrap_or_default().to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The content of the messages with `role`, joined.
    pub fn content_of(&self, role: &str) -> String {
        self.messages()
            .into_iter()
            .filter(|(r, _)| r == role)
            .map(|(_, c)| c)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Every message's content, joined: the whole prompt.
    pub fn prompt(&self) -> String {
        self.messages()
            .into_iter()
            .map(|(_, c)| c)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[derive(Debug)]
struct Shared {
    behaviour: Behaviour,
    delay: Option<Duration>,
    calls: Vec<ChatCall>,
    /// Replies for the next requests, one each, before the behaviour applies again.
    once: std::collections::VecDeque<String>,
    /// Words and the embedding axis each counts on; empty: words hashed onto the axes.
    axes: Vec<(String, usize)>,
    /// Answer embeddings requests with this status instead.
    embeddings_failure: Option<u16>,
    /// Between the chunks of a streamed answer.
    stream_delay: Option<Duration>,
    /// Streamed answers wait for this to be open before their last chunk.
    hold: Option<tokio::sync::watch::Receiver<bool>>,
}

/// Holds the last chunk of streamed answers until opened (or dropped).
pub struct Gate(tokio::sync::watch::Sender<bool>);

impl Gate {
    /// Lets every held stream finish, and the later ones not wait.
    pub fn open(&self) {
        self.0.send_replace(true);
    }
}

/// The running server; stopped when dropped.
pub struct FakeLlm {
    server: FakeServer<Shared>,
}

impl FakeLlm {
    /// Starts on a free loopback port with the [`Behaviour::Default`] behaviour.
    pub async fn start() -> Self {
        let shared = Shared {
            behaviour: Behaviour::Default,
            delay: None,
            calls: Vec::new(),
            once: std::collections::VecDeque::new(),
            axes: Vec::new(),
            embeddings_failure: None,
            stream_delay: None,
            hold: None,
        };
        Self {
            server: FakeServer::start(shared, answer).await,
        }
    }

    /// What to configure as `LLM_BASE_URL` or `LOCAL_LLM_BASE_URL`.
    pub fn base_url(&self) -> String {
        self.server.url("/v1")
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.server.lock()
    }

    pub fn set(&self, behaviour: Behaviour) {
        self.lock().behaviour = behaviour;
    }

    /// Answer `content`, reporting [`DEFAULT_USAGE`].
    pub fn reply(&self, content: &str) {
        self.reply_with_usage(content, Some(DEFAULT_USAGE));
    }

    /// Answer `content` with this usage (`None`: no `usage` member at all).
    pub fn reply_with_usage(&self, content: &str, usage: Option<(u64, u64)>) {
        self.set(Behaviour::Reply {
            content: content.to_string(),
            usage,
        });
    }

    /// Answer `content` to the next request not yet given a one-off reply, once (then the
    /// behaviour applies again): a model that answers differently when asked again.
    pub fn reply_once(&self, content: &str) {
        self.lock().once.push_back(content.to_string());
    }

    /// Answer with HTTP `status`.
    pub fn fail(&self, status: u16) {
        self.set(Behaviour::Fail(status));
    }

    /// Answer 200 with a body that is not a chat completion.
    pub fn garbage(&self) {
        self.set(Behaviour::Garbage);
    }

    /// Never answer.
    pub fn stall(&self) {
        self.set(Behaviour::Stall);
    }

    /// Back to [`Behaviour::Default`].
    pub fn reset(&self) {
        self.set(Behaviour::Default);
    }

    /// Wait this long before every answer (a model's thinking time).
    pub fn delay(&self, delay: Option<Duration>) {
        self.lock().delay = delay;
    }

    /// Wait this long between the chunks of a streamed answer.
    pub fn stream_delay(&self, delay: Option<Duration>) {
        self.lock().stream_delay = delay;
    }

    /// Streamed answers from now on hold their last chunk until the returned gate is opened.
    pub fn hold_last_chunk(&self) -> Gate {
        let (open, held) = tokio::sync::watch::channel(false);
        self.lock().hold = Some(held);
        Gate(open)
    }

    /// Embeddings count each of these words (lowercase, whole words) on its axis (below
    /// [`EMBEDDING_DIMENSIONS`]); other words count nowhere. Words on one axis mean the same.
    pub fn embed_axes(&self, axes: &[(&str, usize)]) {
        self.lock().axes = axes.iter().map(|(w, a)| (w.to_string(), *a)).collect();
    }

    /// Answer embeddings requests with HTTP `status` (`None`: answer them again).
    pub fn fail_embeddings(&self, status: Option<u16>) {
        self.lock().embeddings_failure = status;
    }

    /// Every request received so far, oldest first.
    pub fn calls(&self) -> Vec<ChatCall> {
        self.lock().calls.clone()
    }

    /// The chat-completion requests received so far, oldest first.
    pub fn chat_calls(&self) -> Vec<ChatCall> {
        self.calls()
            .into_iter()
            .filter(|c| c.path.ends_with("/chat/completions"))
            .collect()
    }

    /// Every text sent to be embedded so far, in order.
    pub fn embedded_texts(&self) -> Vec<String> {
        self.calls()
            .into_iter()
            .filter(|c| c.path.ends_with("/embeddings"))
            .flat_map(|c| {
                c.body["input"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
            })
            .collect()
    }

    pub fn call_count(&self) -> usize {
        self.lock().calls.len()
    }

    /// The latest request; panics when there was none.
    pub fn last_call(&self) -> ChatCall {
        self.lock()
            .calls
            .last()
            .cloned()
            .expect("the fake LLM server received no request")
    }
}

/// A text's fake embedding: its words counted on `axes`, or hashed without them.
fn embedding(text: &str, axes: &[(String, usize)]) -> Vec<f32> {
    let mut vector = vec![0.0_f32; EMBEDDING_DIMENSIONS];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
    {
        let axis = if axes.is_empty() {
            let hash = word.bytes().fold(0x811c_9dc5_u32, |h, b| {
                (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
            });
            Some(hash as usize % EMBEDDING_DIMENSIONS)
        } else {
            axes.iter().find(|(w, _)| *w == word).map(|(_, a)| *a)
        };
        if let Some(slot) = axis.and_then(|a| vector.get_mut(a)) {
            *slot += 1.0;
        }
    }
    // The last axis is never a word's when told: every vector has a length.
    if let Some(last) = vector.last_mut() {
        *last += 0.01;
    }
    vector
}

async fn embeddings(shared: &Mutex<Shared>, call: &ChatCall) -> Response {
    let (axes, failure) = {
        let mut shared = server::lock(shared);
        shared.calls.push(call.clone());
        (shared.axes.clone(), shared.embeddings_failure)
    };
    if let Some(status) = failure {
        return error(
            StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            "the fake model was told to fail embeddings",
        );
    }
    let inputs: Vec<String> = match &call.body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => {
            return error(
                StatusCode::BAD_REQUEST,
                "input must be text or a list of texts",
            )
        }
    };
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, text)| json!({"object": "embedding", "index": index, "embedding": embedding(text, &axes)}))
        .collect();
    axum::Json(json!({
        "object": "list",
        "data": data,
        "model": call.body["model"],
        "usage": {"prompt_tokens": inputs.len(), "total_tokens": inputs.len()},
    }))
    .into_response()
}

async fn answer(State(shared): State<Arc<Mutex<Shared>>>, request: Request) -> Response {
    let path = request.uri().path().to_string();
    let known = path == "/v1/chat/completions" || path == "/v1/embeddings";
    if request.method() != axum::http::Method::POST || !known {
        return error(StatusCode::NOT_FOUND, "unknown endpoint");
    }
    let authorization = header_value(request.headers(), header::AUTHORIZATION.as_str());
    let traceparent = header_value(request.headers(), "traceparent");
    let Some(body) = server::json_body(request.into_body()).await else {
        return error(StatusCode::BAD_REQUEST, "the body is not JSON");
    };
    let call = ChatCall {
        path,
        authorization,
        traceparent,
        body,
    };
    if call.path == "/v1/embeddings" {
        return embeddings(&shared, &call).await;
    }
    let (behaviour, delay, pace) = {
        let mut shared = server::lock(&shared);
        shared.calls.push(call.clone());
        let behaviour = match shared.once.pop_front() {
            Some(content) => Behaviour::Reply {
                content,
                usage: Some(DEFAULT_USAGE),
            },
            None => shared.behaviour.clone(),
        };
        let pace = Pace {
            delay: shared.stream_delay,
            hold: shared.hold.clone(),
        };
        (behaviour, shared.delay, pace)
    };
    let streamed = call.body["stream"].as_bool() == Some(true);
    if let Some(delay) = delay {
        tokio::time::sleep(delay).await;
    }
    let model = call.model().unwrap_or(TEST_MODEL).to_string();
    match behaviour {
        Behaviour::Default => {
            let content = if call.prompt().contains("\"sentiment\"") {
                DEFAULT_SENTIMENT
            } else if call.prompt().contains("\"root_cause\"") {
                DEFAULT_ANALYSIS
            } else {
                DEFAULT_REPLY
            };
            let content = obeyed(&call, content);
            if streamed {
                return streamed_completion(&model, &content, Some(DEFAULT_USAGE), pace, false);
            }
            completion(&model, &content, Some(DEFAULT_USAGE))
        }
        Behaviour::Reply { content, usage } if streamed => {
            streamed_completion(&model, &obeyed(&call, &content), usage, pace, false)
        }
        Behaviour::Reply { content, usage } => completion(&model, &obeyed(&call, &content), usage),
        Behaviour::Garbage if streamed => {
            streamed_completion(&model, DEFAULT_REPLY, None, pace, true)
        }
        Behaviour::Fail(status) => error(
            StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            "the fake model was told to fail",
        ),
        Behaviour::Garbage => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            r#"{"unexpected": true}"#,
        )
            .into_response(),
        Behaviour::Stall => {
            std::future::pending::<()>().await;
            error(StatusCode::GATEWAY_TIMEOUT, "unreachable")
        }
    }
}

/// `text` without its delimited blocks of data: from a line `<<<NAME ... {boundary}>>>` to the
/// line `<<<END {boundary}>>>` (an unclosed block runs to the end).
pub fn undelimited(text: &str) -> String {
    let mut out = String::new();
    let mut closing: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(end) = &closing {
            if trimmed == end {
                closing = None;
            }
            continue;
        }
        let opening = trimmed
            .strip_prefix("<<<")
            .and_then(|rest| rest.strip_suffix(">>>"))
            .filter(|inner| !inner.starts_with("END "));
        if let Some(boundary) = opening.and_then(|inner| inner.split_whitespace().last()) {
            closing = Some(format!("<<<END {boundary}>>>"));
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The severity an order outside the prompt's delimited blocks asks for ("answer LOW").
pub fn ordered_severity(call: &ChatCall) -> Option<&'static str> {
    let read = undelimited(&call.prompt()).to_lowercase();
    ["low", "medium", "high", "critical"]
        .into_iter()
        .find(|s| read.contains(&format!("answer {s}")))
        .map(|s| match s {
            "low" => "LOW",
            "medium" => "MEDIUM",
            "high" => "HIGH",
            _ => "CRITICAL",
        })
}

/// `content`, a log analysis, with the severity an order it read asks for.
fn obeyed(call: &ChatCall, content: &str) -> String {
    if !call.prompt().contains("\"root_cause\"") {
        return content.to_string();
    }
    let (Some(severity), Ok(Value::Object(mut analysis))) = (
        ordered_severity(call),
        serde_json::from_str::<Value>(content),
    ) else {
        return content.to_string();
    };
    analysis.insert("severity".into(), json!(severity));
    Value::Object(analysis).to_string()
}

fn header_value(headers: &axum::http::HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

fn completion(model: &str, content: &str, usage: Option<(u64, u64)>) -> Response {
    let mut body = json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_795_348_800,
        "model": model,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop",
        }],
    });
    if let Some((prompt, completion)) = usage {
        body["usage"] = json!({
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        });
    }
    axum::Json(body).into_response()
}

/// How a streamed answer is paced.
#[derive(Debug)]
struct Pace {
    delay: Option<Duration>,
    hold: Option<tokio::sync::watch::Receiver<bool>>,
}

/// `content` as OpenAI streams it: a role chunk, one chunk per word, a finish chunk with
/// `usage`, `[DONE]`; `broken`, a line that is no chunk after the first word instead.
fn streamed_completion(
    model: &str,
    content: &str,
    usage: Option<(u64, u64)>,
    pace: Pace,
    broken: bool,
) -> Response {
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1_795_348_800,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        })
    };
    let mut events = vec![chunk(json!({"role": "assistant"}), None).to_string()];
    let words: Vec<&str> = content.split_inclusive(' ').collect();
    if broken {
        let first = words.first().copied().unwrap_or_default();
        events.push(chunk(json!({"content": first}), None).to_string());
        events.push("{\"not\": \"a chunk".to_string());
    } else {
        events.extend(
            words
                .iter()
                .map(|word| chunk(json!({"content": word}), None).to_string()),
        );
        let mut last = chunk(json!({}), Some("stop"));
        if let Some((prompt, completion)) = usage {
            last["usage"] = json!({
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            });
        }
        events.push(last.to_string());
        events.push("[DONE]".to_string());
    }
    // The last chunk of text, before the finish chunk and `[DONE]`, waits at the gate.
    let held = (!broken).then(|| events.len().saturating_sub(3));
    let frames = futures::stream::unfold(
        (events.into_iter().enumerate(), pace),
        move |(mut events, mut pace)| async move {
            let (index, data) = events.next()?;
            if index > 0 {
                if let Some(delay) = pace.delay {
                    tokio::time::sleep(delay).await;
                }
            }
            if Some(index) == held {
                if let Some(hold) = pace.hold.as_mut() {
                    // A dropped gate lets it through as an opened one does.
                    let _ = hold.wait_for(|open| *open).await;
                }
            }
            let frame = axum::body::Bytes::from(format!("data: {data}\n\n"));
            Some((Ok::<_, std::convert::Infallible>(frame), (events, pace)))
        },
    );
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/event-stream")],
        axum::body::Body::from_stream(frames),
    )
        .into_response()
}

fn error(status: StatusCode, message: &str) -> Response {
    (
        status,
        axum::Json(json!({"error": {"message": message, "type": "fake_error"}})),
    )
        .into_response()
}
