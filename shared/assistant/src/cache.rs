//! The answer cache: the same operation with the same options on the same article text, with
//! the same provider, model and temperature, is answered once for everyone.
//!
//! Table (`GENAI_CACHE_TABLE`), one item per answer, partition key `pk` only:
//!
//! | attribute | value |
//! |---|---|
//! | `pk` | hex SHA-256 of the [`CacheKey`] inputs |
//! | `operation` | `summarize`, `explain`, `sentiment` or `qa` |
//! | `answer` | the response body, JSON |
//! | `createdAt` | ISO 8601 UTC |
//! | `expiresAt` | epoch seconds; the table's TTL attribute |
//!
//! Access patterns: read an answer (GetItem on `pk`); store an answer (PutItem, last writer
//! wins: two concurrent misses store equivalent answers). DynamoDB deletes expired items
//! within days, not at once (and emulators never do), so a read checks `expiresAt` too.
//! The cache never fails a request: a read or write error is logged and the request goes on
//! as a miss.

use std::time::Duration;

use aws_lc_rs::digest;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::Client;
use platform::aws::describe;
use platform::dynamo::{n, s, Attributes, Item};
use platform::llm::Provider;

use crate::model::{Answer, Task};
use crate::prompt::PROMPT_VERSION;

/// How long an answer is kept when `GENAI_CACHE_TTL_SECONDS` is unset: a week, about as long
/// as an article stays in the news.
pub const DEFAULT_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// The identity of one answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheKey(String);

impl CacheKey {
    /// Hashes everything that changes the answer: the operation and its options, the text,
    /// the provider, model and temperature, and the prompts' version. Each part is
    /// length-prefixed so that no two different inputs hash the same bytes.
    pub fn new(task: &Task, text: &str, provider: &Provider) -> Self {
        let temperature = format!("{:.3}", provider.temperature);
        let parts = [
            PROMPT_VERSION,
            task.operation().as_str(),
            &task.options(),
            provider.kind.as_str(),
            &provider.model,
            &temperature,
            text,
        ];
        let mut input = Vec::new();
        for part in parts {
            input.extend_from_slice(part.len().to_string().as_bytes());
            input.push(b':');
            input.extend_from_slice(part.as_bytes());
        }
        let hash = digest::digest(&digest::SHA256, &input);
        Self(hash.as_ref().iter().map(|b| format!("{b:02x}")).collect())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The cache table.
#[derive(Clone, Debug)]
pub struct AnswerCache {
    db: Client,
    table: String,
    ttl: Duration,
}

impl AnswerCache {
    pub fn new(db: Client, table: impl Into<String>, ttl: Duration) -> Self {
        Self {
            db,
            table: table.into(),
            ttl,
        }
    }

    /// The stored answer of `task`'s operation under `key`, unless absent, expired or
    /// unreadable.
    pub async fn get(&self, key: &CacheKey, task: &Task) -> Option<Answer> {
        let out = self
            .db
            .get_item()
            .table_name(&self.table)
            .key("pk", s(key.as_str()))
            .send()
            .await;
        let item = match out {
            Ok(out) => out.item?,
            Err(e) => {
                tracing::warn!(error = %describe(&e), "answer cache read failed; treating it as a miss");
                return None;
            }
        };
        let expires_at = item
            .get("expiresAt")
            .and_then(|v| v.as_n().ok())
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(0);
        if expires_at <= chrono::Utc::now().timestamp() {
            return None;
        }
        let operation = task.operation();
        if item.opt_string("operation").as_deref() != Some(operation.as_str()) {
            return None;
        }
        let json = item.opt_string("answer")?;
        match Answer::from_json(operation, &json) {
            Ok(answer) => Some(answer),
            Err(e) => {
                tracing::warn!(error = %e, key = key.as_str(), "unreadable cached answer ignored");
                None
            }
        }
    }

    /// Stores `answer` under `key` until the TTL runs out.
    pub async fn put(&self, key: &CacheKey, answer: &Answer) {
        let json = match serde_json::to_string(answer) {
            Ok(json) => json,
            Err(e) => {
                tracing::warn!(error = %e, "answer not cached: cannot serialise it");
                return;
            }
        };
        let now = chrono::Utc::now();
        let ttl = i64::try_from(self.ttl.as_secs()).unwrap_or(i64::MAX / 2);
        let item: Item = [
            ("pk", s(key.as_str())),
            ("operation", s(answer.operation().as_str())),
            ("answer", s(json)),
            (
                "createdAt",
                s(now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)),
            ),
            ("expiresAt", n(now.timestamp().saturating_add(ttl))),
        ]
        .into_iter()
        .map(|(k, v): (&str, AttributeValue)| (k.to_string(), v))
        .collect();
        if let Err(e) = self
            .db
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .send()
            .await
        {
            tracing::warn!(error = %describe(&e), "answer not cached: write failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{KnowledgeLevel, Question, SummaryLength, SummaryStyle};
    use platform::llm::LlmConfig;
    use platform::Env;

    fn provider(pairs: &[(&str, &str)]) -> Provider {
        let env: Env = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        LlmConfig::from_env(&env).resolve(None).expect("provider")
    }

    #[test]
    fn everything_that_changes_the_answer_changes_the_key() {
        let cloud = provider(&[]);
        let summary = Task::Summarize {
            length: SummaryLength::Short,
            style: SummaryStyle::Plain,
        };
        let key = CacheKey::new(&summary, "text", &cloud);
        assert_eq!(key, CacheKey::new(&summary, "text", &cloud), "stable");
        assert_eq!(key.as_str().len(), 64);
        let others = [
            CacheKey::new(&summary, "text!", &cloud),
            CacheKey::new(
                &Task::Summarize {
                    length: SummaryLength::Long,
                    style: SummaryStyle::Plain,
                },
                "text",
                &cloud,
            ),
            CacheKey::new(
                &Task::Summarize {
                    length: SummaryLength::Short,
                    style: SummaryStyle::Bullets,
                },
                "text",
                &cloud,
            ),
            CacheKey::new(
                &Task::Explain {
                    level: KnowledgeLevel::Child,
                },
                "text",
                &cloud,
            ),
            CacheKey::new(
                &Task::Qa {
                    question: Question::parse("Why?").expect("q"),
                },
                "text",
                &cloud,
            ),
            CacheKey::new(&summary, "text", &provider(&[("LLM_PROVIDER", "local")])),
            CacheKey::new(&summary, "text", &provider(&[("LLM_MODEL", "other")])),
            CacheKey::new(&summary, "text", &provider(&[("LLM_TEMPERATURE", "0.9")])),
        ];
        for (i, other) in others.iter().enumerate() {
            assert_ne!(&key, other, "variant {i}");
        }
    }
}
