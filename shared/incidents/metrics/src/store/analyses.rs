//! The counts of a log analysis: by mode, provider and outcome, and the model's latency.

use std::time::Duration;

use platform::dynamo::request::Update;
use platform::dynamo::DynamoError;

use super::{shard_for, Metrics, MAX_PROVIDER_CHARS, OTHER};
use crate::catalog;

/// How an analysis ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    Error,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Error => "error",
        }
    }
}

/// One log analysis, as the intelligence function counts it.
#[derive(Clone, Debug)]
pub struct Analysis<'a> {
    /// The analysis's own id: [`Metrics::record_analysis`] counts an id once.
    pub id: &'a str,
    /// `local` or `cloud` (anything else is counted as [`OTHER`]).
    pub mode: &'a str,
    /// The provider that answered (or was asked), e.g. `openai`, `ollama`.
    pub provider: &'a str,
    pub outcome: Outcome,
    /// How long the model took; `None` when no model was called.
    pub latency: Option<Duration>,
}

impl Metrics {
    /// Analysis `analysis` counted, and its model latency observed: for a transaction of
    /// the caller's whose own condition makes a retry a no-op (else use
    /// [`Metrics::record_analysis`]).
    pub fn analysis_updates(&self, analysis: &Analysis) -> Vec<Update> {
        let shard = shard_for(analysis.id);
        let mode = match analysis.mode {
            "local" | "cloud" => analysis.mode,
            _ => OTHER,
        };
        let provider = provider_label(analysis.provider);
        let mut updates = vec![self.add(
            &catalog::ANALYSES,
            &[mode, provider, analysis.outcome.as_str()],
            1,
            shard,
        )];
        if let Some(latency) = analysis.latency {
            let ms = u64::try_from(latency.as_millis()).unwrap_or(u64::MAX);
            updates.push(self.observe(&catalog::LLM_LATENCY, &[mode, provider], ms, shard));
        }
        updates
    }

    /// Counts `analysis` once, however often it is recorded (its id's marker in the same
    /// transaction). True when this call counted it.
    pub async fn record_analysis(&self, analysis: &Analysis<'_>) -> Result<bool, DynamoError> {
        let mut updates = vec![self.marker(&format!("analysis:{}", analysis.id))];
        updates.extend(self.analysis_updates(analysis));
        self.commit_once(updates).await
    }
}

/// A provider name as a label value: itself when short and plain, else [`OTHER`].
fn provider_label(provider: &str) -> &str {
    let plain = !provider.is_empty()
        && provider.chars().count() <= MAX_PROVIDER_CHARS
        && provider
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-'));
    if plain {
        provider
    } else {
        OTHER
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use platform::dynamo::AttributeValue;

    use super::*;
    use crate::store::tests::metrics;

    #[test]
    fn analysis_labels_are_bounded() {
        assert_eq!(provider_label("openai"), "openai");
        assert_eq!(provider_label("llama.cpp:8b-q4"), "llama.cpp:8b-q4");
        assert_eq!(provider_label(""), OTHER);
        assert_eq!(provider_label("a b"), OTHER);
        assert_eq!(provider_label(&"x".repeat(65)), OTHER);
        let m = metrics();
        let updates = m.analysis_updates(&Analysis {
            id: "a1",
            mode: "weird",
            provider: "openai",
            outcome: Outcome::Ok,
            latency: Some(Duration::from_millis(1_200)),
        });
        assert_eq!(updates.len(), 2);
        assert!(matches!(
            updates[0].get_key().as_ref().unwrap().get("sk"),
            Some(AttributeValue::S(sk)) if sk.contains(r#"mode="other""#)
        ));
        let no_latency = m.analysis_updates(&Analysis {
            latency: None,
            outcome: Outcome::Error,
            ..Analysis {
                id: "a2",
                mode: "local",
                provider: "ollama",
                outcome: Outcome::Ok,
                latency: None,
            }
        });
        assert_eq!(no_latency.len(), 1);
    }
}
