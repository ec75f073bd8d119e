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
//! | `createdAt` | RFC 3339 UTC, milliseconds |
//! | `expiresAt` | epoch seconds; the table's TTL attribute |
//!
//! Access patterns: read an answer ([`AnswerCache::get`]: GetItem on `pk`); store an answer
//! ([`AnswerCache::put`]: PutItem, last writer wins: two concurrent misses store equivalent
//! answers). DynamoDB deletes expired items within days, not at once (and emulators never
//! do), so a read checks `expiresAt` too. The cache never fails a request: a read or write
//! error is logged and the request goes on as a miss.

use std::time::Duration;

use llm::Provider;
use platform::clock::rfc3339;
use platform::dynamo::{n, s, Attributes, DynamoError, Item, Table};
use platform::Clock;
use ring::digest;

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

    fn item_key(&self) -> Item {
        Item::from([("pk".to_string(), s(self.as_str()))])
    }
}

/// The cache table.
#[derive(Clone, Debug)]
pub struct AnswerCache {
    table: Table,
    ttl: Duration,
    clock: Clock,
}

impl AnswerCache {
    pub fn new(table: Table, ttl: Duration, clock: Clock) -> Self {
        Self { table, ttl, clock }
    }

    /// The stored answer of `task`'s operation under `key`, unless absent, expired or
    /// unreadable; an error when the table cannot be read (never a miss: a miss pays the model).
    pub async fn get(&self, key: &CacheKey, task: &Task) -> Result<Option<Answer>, DynamoError> {
        let item = self.table.get_eventual(key.item_key()).await?;
        Ok(item.and_then(|item| self.answer_in(&item, key, task)))
    }

    /// Stores `answer` under `key` until the TTL runs out.
    pub async fn put(&self, key: &CacheKey, answer: &Answer) {
        let Some(item) = self.item_for(key, answer) else {
            return;
        };
        let written = self.table.put_item().set_item(Some(item)).send().await;
        if let Err(e) = written {
            let error = self.table.fail("PutItem", &e);
            tracing::warn!(%error, "answer not cached: write failed");
        }
    }

    /// The answer a stored item holds, if it is still fresh and of `task`'s operation.
    fn answer_in(&self, item: &Item, key: &CacheKey, task: &Task) -> Option<Answer> {
        // An unreadable expiry counts as expired.
        let expires_at = item
            .opt_int(self.table.name(), "expiresAt")
            .ok()
            .flatten()
            .unwrap_or(0);
        if expires_at <= self.clock.now().timestamp() {
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

    /// The item that stores `answer` from now until the TTL runs out.
    fn item_for(&self, key: &CacheKey, answer: &Answer) -> Option<Item> {
        let json = match serde_json::to_string(answer) {
            Ok(json) => json,
            Err(e) => {
                tracing::warn!(error = %e, "answer not cached: cannot serialise it");
                return None;
            }
        };
        let now = self.clock.now();
        let ttl = i64::try_from(self.ttl.as_secs()).unwrap_or(i64::MAX / 2);
        let mut item = key.item_key();
        item.extend([
            ("operation".to_string(), s(answer.operation().as_str())),
            ("answer".to_string(), s(json)),
            ("createdAt".to_string(), s(rfc3339(now))),
            (
                "expiresAt".to_string(),
                n(now.timestamp().saturating_add(ttl)),
            ),
        ]);
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{KnowledgeLevel, QaResponse, Question, SummaryLength, SummaryStyle};
    use chrono::{TimeZone, Utc};
    use llm::{LlmConfig, ProviderKind};
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

    #[test]
    fn a_stored_answer_is_served_until_it_expires() {
        let start = Utc
            .with_ymd_and_hms(2026, 11, 23, 12, 0, 0)
            .single()
            .expect("date");
        let clock = Clock::fixed(start);
        let table = Table::offline("cache");
        let cache = AnswerCache::new(table, Duration::from_secs(60), clock.clone());
        let qa = Task::Qa {
            question: Question::parse("Who?").expect("q"),
        };
        let key = CacheKey::new(&qa, "text", &provider(&[]));
        let answer = Answer::Qa(QaResponse {
            answer: "Nobody.".into(),
            model: "m".into(),
            provider: ProviderKind::Cloud,
        });
        let item = cache.item_for(&key, &answer).expect("item");
        assert_eq!(
            item.opt_string("createdAt").as_deref(),
            Some("2026-11-23T12:00:00.000Z")
        );
        assert_eq!(cache.answer_in(&item, &key, &qa), Some(answer));
        assert_eq!(
            cache.answer_in(&item, &key, &Task::Sentiment),
            None,
            "another operation's answer is not served"
        );
        clock.advance(chrono::Duration::seconds(60));
        assert_eq!(cache.answer_in(&item, &key, &qa), None, "expired");
    }
}
