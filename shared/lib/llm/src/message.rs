//! What a chat completion sends and what comes back.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ProviderFailure;

/// Who says a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: Role::System,
            content: content.into(),
        }
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }
}

/// One chat completion to ask for.
#[derive(Clone, Debug)]
pub struct ChatRequest {
    /// What the call is for (`summarize`, `digest`, ...): the `endpoint` label of the metrics.
    pub operation: &'static str,
    pub messages: Vec<Message>,
    /// The most tokens the answer may take (`max_tokens`): what one call can cost at most.
    /// `None` leaves it to the provider (unbounded up to the model's context).
    pub max_tokens: Option<u32>,
}

/// Token counts, when the provider reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// The model's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub content: String,
    pub usage: Option<Usage>,
}

/// Reads an OpenAI chat-completions body.
pub fn parse_completion(bytes: &[u8]) -> Result<Completion, ProviderFailure> {
    #[derive(Deserialize)]
    struct Body {
        choices: Vec<Choice>,
        usage: Option<Value>,
    }
    #[derive(Deserialize)]
    struct Choice {
        message: ChoiceMessage,
    }
    #[derive(Deserialize)]
    struct ChoiceMessage {
        content: Option<String>,
    }
    let body: Body = serde_json::from_slice(bytes)
        .map_err(|e| ProviderFailure::InvalidResponse(format!("not a chat completion: {e}")))?;
    let content = body
        .choices
        .into_iter()
        .next()
        .and_then(|c| c.message.content)
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .ok_or_else(|| ProviderFailure::InvalidResponse("the completion has no content".into()))?;
    // Usage is optional and some servers send partial or null counts: use it only when whole.
    let usage = body.usage.and_then(|u| serde_json::from_value(u).ok());
    Ok(Completion { content, usage })
}

/// The most dimensions an embedding may have (OpenAI's largest model has 3,072).
pub const MAX_EMBEDDING_DIMENSIONS: usize = 8_192;

/// Reads an OpenAI embeddings body: `expected` vectors, in input order (by `index`), all of
/// one dimension of at most [`MAX_EMBEDDING_DIMENSIONS`], every number finite.
pub fn parse_embeddings(bytes: &[u8], expected: usize) -> Result<Vec<Vec<f32>>, ProviderFailure> {
    #[derive(Deserialize)]
    struct Body {
        data: Vec<Datum>,
    }
    #[derive(Deserialize)]
    struct Datum {
        index: usize,
        embedding: Vec<f32>,
    }
    let bad = |reason: String| ProviderFailure::InvalidResponse(reason);
    let body: Body =
        serde_json::from_slice(bytes).map_err(|e| bad(format!("not an embeddings answer: {e}")))?;
    if body.data.len() != expected {
        return Err(bad(format!(
            "{} embeddings for {expected} inputs",
            body.data.len()
        )));
    }
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; expected];
    for datum in body.data {
        let slot = vectors
            .get_mut(datum.index)
            .ok_or_else(|| bad(format!("embedding index {} out of range", datum.index)))?;
        if slot.replace(datum.embedding).is_some() {
            return Err(bad(format!("embedding index {} repeated", datum.index)));
        }
    }
    let vectors: Vec<Vec<f32>> = vectors.into_iter().flatten().collect();
    let dimensions = vectors.first().map_or(0, Vec::len);
    if dimensions == 0 || dimensions > MAX_EMBEDDING_DIMENSIONS {
        return Err(bad(format!("embeddings of {dimensions} dimensions")));
    }
    if vectors
        .iter()
        .any(|v| v.len() != dimensions || v.iter().any(|x| !x.is_finite()))
    {
        return Err(bad(
            "embeddings of mixed dimensions or non-finite values".into()
        ));
    }
    Ok(vectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_embeddings_in_input_order() {
        let v = parse_embeddings(
            br#"{"object":"list","data":[{"index":1,"embedding":[0.0,1.0]},{"index":0,"embedding":[1.0,0.5]}],"model":"m"}"#,
            2,
        )
        .expect("embeddings");
        assert_eq!(v, vec![vec![1.0, 0.5], vec![0.0, 1.0]]);
        for (bad, expected) in [
            (&br#"{"data":[{"index":0,"embedding":[1.0]}]}"#[..], 2),
            (
                br#"{"data":[{"index":0,"embedding":[1.0]},{"index":0,"embedding":[1.0]}]}"#,
                2,
            ),
            (
                br#"{"data":[{"index":0,"embedding":[1.0]},{"index":1,"embedding":[1.0,2.0]}]}"#,
                2,
            ),
            (br#"{"data":[{"index":3,"embedding":[1.0]}]}"#, 1),
            (br#"{"data":[{"index":0,"embedding":[]}]}"#, 1),
            (b"not json", 1),
        ] {
            assert!(
                matches!(
                    parse_embeddings(bad, expected),
                    Err(ProviderFailure::InvalidResponse(_))
                ),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn parses_completions() {
        let c = parse_completion(
            br#"{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":" Hi. "}}],
                "usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#,
        )
        .expect("completion");
        assert_eq!(c.content, "Hi.");
        assert_eq!(
            c.usage,
            Some(Usage {
                prompt_tokens: 12,
                completion_tokens: 3
            })
        );
        let no_usage =
            parse_completion(br#"{"choices":[{"message":{"content":"ok"}}],"usage":null}"#)
                .expect("completion");
        assert_eq!(no_usage.usage, None);
        for bad in [
            &b"not json"[..],
            br#"{"choices":[]}"#,
            br#"{"choices":[{"message":{"content":null}}]}"#,
            br#"{"choices":[{"message":{"content":"  "}}]}"#,
        ] {
            assert!(matches!(
                parse_completion(bad),
                Err(ProviderFailure::InvalidResponse(_))
            ));
        }
    }
}
