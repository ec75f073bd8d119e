//! A chat completion asked for with `stream: true`: the provider's server-sent events read as
//! they arrive, each `data:` line's `choices[0].delta.content` handed on as a piece of text.
//!
//! Bounded like the whole-answer call: the provider's timeout covers the whole stream, one
//! event line may take at most [`MAX_LINE_BYTES`], the answer at most [`MAX_ANSWER_BYTES`].

use std::time::Instant;

use serde::Deserialize;

use super::Llm;
use crate::config::Provider;
use crate::error::{LlmError, ProviderFailure};
use crate::message::Usage;
use crate::metrics::{COMPLETION_TOKENS, LATENCY, PROMPT_TOKENS};

/// The longest one event line may be before the stream is refused as unreadable.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// The most text one streamed answer may add up to.
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// What one `data:` line of the provider's stream says.
#[derive(Debug, PartialEq)]
pub enum StreamEvent {
    /// A piece of the answer (possibly empty: a role-only or finish chunk).
    Delta(String),
    /// The token counts some servers send in the last chunk.
    Usage(Usage),
    /// `data: [DONE]`.
    Done,
}

/// Splits the provider's bytes into `data:` payloads, however the network cut them.
#[derive(Debug, Default)]
pub struct SseLines {
    partial: Vec<u8>,
}

impl SseLines {
    /// The events completed by `bytes`; an over-long line or a chunk that is not a completion
    /// chunk is an unreadable answer.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<StreamEvent>, ProviderFailure> {
        let mut events = Vec::new();
        for &byte in bytes {
            if byte != b'\n' {
                if self.partial.len() >= MAX_LINE_BYTES {
                    return Err(ProviderFailure::InvalidResponse(format!(
                        "a stream line is longer than {MAX_LINE_BYTES} bytes"
                    )));
                }
                self.partial.push(byte);
                continue;
            }
            let line = std::mem::take(&mut self.partial);
            let line = String::from_utf8(line).map_err(|_| {
                ProviderFailure::InvalidResponse("a stream line is not UTF-8".into())
            })?;
            events.extend(parse_line(line.trim_end_matches('\r'))?);
        }
        Ok(events)
    }
}

/// One line: comments, blank lines and other fields carry nothing; `data:` lines carry a chunk.
fn parse_line(line: &str) -> Result<Vec<StreamEvent>, ProviderFailure> {
    #[derive(Deserialize)]
    struct Chunk {
        #[serde(default)]
        choices: Vec<Choice>,
        usage: Option<serde_json::Value>,
    }
    #[derive(Deserialize)]
    struct Choice {
        delta: Option<Delta>,
    }
    #[derive(Deserialize)]
    struct Delta {
        content: Option<String>,
    }
    let Some(data) = line.strip_prefix("data:") else {
        return Ok(Vec::new());
    };
    let data = data.trim();
    if data == "[DONE]" {
        return Ok(vec![StreamEvent::Done]);
    }
    let chunk: Chunk = serde_json::from_str(data).map_err(|e| {
        ProviderFailure::InvalidResponse(format!("not a chat completion chunk: {e}"))
    })?;
    let mut events = Vec::new();
    let text = chunk
        .choices
        .into_iter()
        .next()
        .and_then(|c| c.delta)
        .and_then(|d| d.content);
    if let Some(text) = text {
        events.push(StreamEvent::Delta(text));
    }
    // Usage is optional and some servers send partial or null counts: use it only when whole.
    if let Some(usage) = chunk.usage.and_then(|u| serde_json::from_value(u).ok()) {
        events.push(StreamEvent::Usage(usage));
    }
    Ok(events)
}

/// An answer being streamed: [`CompletionStream::next`] until `None`, then
/// [`CompletionStream::content`] is the whole answer.
pub struct CompletionStream {
    llm: Llm,
    provider: Provider,
    operation: &'static str,
    response: reqwest::Response,
    lines: SseLines,
    pending: std::collections::VecDeque<String>,
    content: String,
    usage: Option<Usage>,
    started: Instant,
    /// The provider sent `[DONE]` or closed the stream.
    provider_done: bool,
    /// The end (or a failure) was reported to the caller.
    finished: bool,
}

impl CompletionStream {
    pub(crate) fn new(
        llm: Llm,
        provider: Provider,
        operation: &'static str,
        response: reqwest::Response,
        started: Instant,
    ) -> Self {
        Self {
            llm,
            provider,
            operation,
            response,
            lines: SseLines::default(),
            pending: std::collections::VecDeque::new(),
            content: String::new(),
            usage: None,
            started,
            provider_done: false,
            finished: false,
        }
    }

    /// The next non-empty piece of the answer; `None` once the provider has finished. An
    /// answer that ends without any text is an unreadable answer, as a whole one would be.
    pub async fn next(&mut self) -> Option<Result<String, LlmError>> {
        if self.finished {
            return None;
        }
        match self.advance().await {
            Ok(Some(piece)) => Some(Ok(piece)),
            Ok(None) => {
                self.finished = true;
                if self.content.trim().is_empty() {
                    return Some(Err(self.fail(ProviderFailure::InvalidResponse(
                        "the completion has no content".into(),
                    ))));
                }
                self.record_success();
                None
            }
            Err(failure) => {
                self.finished = true;
                Some(Err(self.fail(failure)))
            }
        }
    }

    /// Everything streamed so far, trimmed as a whole answer is.
    pub fn content(&self) -> &str {
        self.content.trim()
    }

    async fn advance(&mut self) -> Result<Option<String>, ProviderFailure> {
        loop {
            if let Some(piece) = self.pending.pop_front() {
                return Ok(Some(piece));
            }
            if self.provider_done {
                return Ok(None);
            }
            let chunk = self.response.chunk().await.map_err(|e| {
                if e.is_timeout() || self.started.elapsed() >= self.provider.timeout {
                    ProviderFailure::Timeout(self.provider.timeout)
                } else {
                    ProviderFailure::Unreachable(crate::error::error_chain(&e))
                }
            })?;
            let Some(chunk) = chunk else {
                // A server that closes without `[DONE]` has still said all it will say.
                self.provider_done = true;
                continue;
            };
            for event in self.lines.push(&chunk)? {
                match event {
                    StreamEvent::Delta(text) if text.is_empty() => {}
                    StreamEvent::Delta(text) => {
                        if self.content.len() + text.len() > MAX_ANSWER_BYTES {
                            return Err(ProviderFailure::InvalidResponse(format!(
                                "the answer is larger than {MAX_ANSWER_BYTES} bytes"
                            )));
                        }
                        self.content.push_str(&text);
                        self.pending.push_back(text);
                    }
                    StreamEvent::Usage(usage) => self.usage = Some(usage),
                    StreamEvent::Done => {
                        self.provider_done = true;
                        break;
                    }
                }
            }
        }
    }

    fn record_success(&self) {
        let labels = self.labels();
        self.llm
            .otel()
            .record(&LATENCY, self.started.elapsed().as_secs_f64(), &labels);
        if let Some(usage) = self.usage {
            self.llm
                .otel()
                .add(&PROMPT_TOKENS, usage.prompt_tokens, &labels);
            self.llm
                .otel()
                .add(&COMPLETION_TOKENS, usage.completion_tokens, &labels);
        }
    }

    fn fail(&self, failure: ProviderFailure) -> LlmError {
        self.llm.otel().record(
            &LATENCY,
            self.started.elapsed().as_secs_f64(),
            &self.labels(),
        );
        self.llm
            .count_failure(self.operation, self.provider.kind, &failure);
        LlmError::Provider {
            provider: self.provider.kind,
            failure,
        }
    }

    fn labels(&self) -> [(&'static str, &'static str); 2] {
        [
            ("endpoint", self.operation),
            ("provider", self.provider.kind.as_str()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_read_however_the_network_cuts_them() {
        let body = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n\
            : a comment\n\
            data: {\"choices\":[{\"delta\":{\"content\":\"Tidal \"}}]}\r\n\r\n\
            data: {\"choices\":[{\"delta\":{\"content\":\"power\"},\"finish_reason\":\"stop\"}]}\n\n\
            data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n\
            data: [DONE]\n\n";
        for cut in [1, 7, 64, body.len()] {
            let mut lines = SseLines::default();
            let mut events = Vec::new();
            for piece in body.as_bytes().chunks(cut) {
                events.extend(lines.push(piece).expect("readable"));
            }
            assert_eq!(
                events,
                [
                    StreamEvent::Delta("Tidal ".into()),
                    StreamEvent::Delta("power".into()),
                    StreamEvent::Usage(Usage {
                        prompt_tokens: 3,
                        completion_tokens: 2
                    }),
                    StreamEvent::Done,
                ],
                "cut every {cut} bytes"
            );
        }
    }

    #[test]
    fn an_endless_line_or_a_foreign_chunk_is_unreadable() {
        let mut lines = SseLines::default();
        let endless = vec![b'a'; MAX_LINE_BYTES + 1];
        assert!(matches!(
            lines.push(&endless),
            Err(ProviderFailure::InvalidResponse(_))
        ));
        let mut lines = SseLines::default();
        assert!(matches!(
            lines.push(b"data: {not json}\n"),
            Err(ProviderFailure::InvalidResponse(_))
        ));
    }
}
