//! The model's part of a digest: each event's headline and bullets, and the digest's subtitle
//! and summary, written in **one** chat completion per digest (all events batched in one
//! prompt), so a digest costs exactly one LLM call however many events it has (a PUBLIC
//! digest assigned to other users costs none).
//!
//! The prompt lists every event with its articles' headlines and feed summaries (each cut to
//! [`PROMPT_TITLE_CHARS`] and [`PROMPT_SUMMARY_CHARS`]); with at most
//! [`crate::service::MAX_ARTICLES`] articles that is at most about 45,000 characters (about
//! 11,000 tokens), within every current chat model's context. The model answers a JSON object
//! (API.md, "Asking the model for structure"):
//! `{"subtitle", "summary", "events": [{"index", "headline", "summaryBullets"}]}`. Texts are
//! cut to the digest's bounds; an event the model left out keeps its first article's title as
//! headline and its summary as the one bullet. An answer without that JSON is an error: the
//! generation fails (the job is FAILED, the internal route answers 502).

use llm::{ChatRequest, Llm, LlmError, Message};
use serde_json::Value;

use crate::input::{bounds, clip, DigestDate, DigestType};
use crate::ports::ArticleRef;

/// The operation name of the call (metrics, logs).
pub const OPERATION: &str = "digest";
/// `max_tokens` of the call: room for 30 events' headlines and bullets.
pub const MAX_TOKENS: u32 = 4_000;
pub const PROMPT_TITLE_CHARS: usize = 300;
pub const PROMPT_SUMMARY_CHARS: usize = 400;

/// What the model wrote for one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenEvent {
    pub headline: String,
    pub bullets: Vec<String>,
}

/// What the model wrote for a digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub subtitle: Option<String>,
    pub summary: Option<String>,
    /// One per event, in the order asked.
    pub events: Vec<WrittenEvent>,
    pub model: String,
}

/// Why the model's part could not be written.
#[derive(Debug, Clone, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Llm(#[from] LlmError),
}

const SYSTEM: &str = "You are a news editor writing a daily news digest. You only use the \
facts in the articles given. Answer with one JSON object and nothing else.";

/// The prompt of one digest.
pub fn prompt(
    kind: DigestType,
    date: DigestDate,
    topics: &[String],
    events: &[Vec<&ArticleRef>],
) -> String {
    let mut text = String::new();
    let audience = match kind {
        DigestType::Personal => format!(
            "a reader who follows these topics: {}",
            if topics.is_empty() {
                "(any)".to_string()
            } else {
                topics.join(", ")
            }
        ),
        DigestType::Public => "every reader".to_string(),
    };
    text.push_str(&format!(
        "Write the news digest of {} for {audience}.\n\
         Each event below is one story; its articles are reports of it by different sources.\n\
         Answer this JSON object:\n\
         {{\"subtitle\": \"one line, at most 150 characters\", \
         \"summary\": \"2 to 4 sentences on the day\", \
         \"events\": [{{\"index\": 1, \"headline\": \"a neutral headline\", \
         \"summaryBullets\": [\"2 to 4 short factual bullets\"]}}]}}\n\
         with one entry in events for every event, by its index.\n\n",
        date.long_name()
    ));
    for (i, articles) in events.iter().enumerate() {
        text.push_str(&format!("Event {}:\n", i + 1));
        for a in articles {
            text.push_str(&format!(
                "- [{}] {}\n",
                clip(&a.source_title, 100),
                clip(a.title.trim(), PROMPT_TITLE_CHARS)
            ));
            let summary = a.summary.trim();
            if !summary.is_empty() {
                text.push_str(&format!("  {}\n", clip(summary, PROMPT_SUMMARY_CHARS)));
            }
        }
        text.push('\n');
    }
    text
}

/// Asks the model (one call) and reads its answer.
pub async fn write(
    llm: &Llm,
    kind: DigestType,
    date: DigestDate,
    topics: &[String],
    events: &[Vec<&ArticleRef>],
) -> Result<Written, WriteError> {
    let provider = llm.provider().await?;
    let request = ChatRequest {
        operation: OPERATION,
        messages: vec![
            Message::system(SYSTEM),
            Message::user(prompt(kind, date, topics, events)),
        ],
        max_tokens: Some(MAX_TOKENS),
    };
    let completion = llm.complete(&provider, &request).await?;
    let value = llm::json_in_answer(&completion.content)
        .filter(Value::is_object)
        .ok_or_else(|| {
            llm.unusable_answer(OPERATION, &provider, "no JSON object in the digest answer")
        })?;
    Ok(read_answer(&value, events, provider.model))
}

/// The written parts from the model's JSON, bounded; events it left out fall back to their
/// first article.
pub fn read_answer(value: &Value, events: &[Vec<&ArticleRef>], model: String) -> Written {
    let string = |v: Option<&Value>, max: usize| {
        v.and_then(Value::as_str)
            .map(|s| clip(s.trim(), max))
            .filter(|s| !s.is_empty())
    };
    let answered: Vec<&Value> = value
        .get("events")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let written_for = |i: usize| -> Option<&Value> {
        let by_index = answered
            .iter()
            .copied()
            .find(|e| e.get("index").and_then(Value::as_u64) == u64::try_from(i + 1).ok());
        by_index.or_else(|| {
            // No indexes at all: take them in order.
            let indexed = answered.iter().any(|e| e.get("index").is_some());
            if indexed {
                None
            } else {
                answered.get(i).copied()
            }
        })
    };
    let events = events
        .iter()
        .enumerate()
        .map(|(i, articles)| {
            let first = articles.first();
            let fallback_headline = first
                .map(|a| clip(a.title.trim(), bounds::HEADLINE_CHARS))
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "Untitled story".to_string());
            let fallback_bullets: Vec<String> = first
                .map(|a| clip(a.summary.trim(), bounds::BULLET_CHARS))
                .filter(|s| !s.is_empty())
                .into_iter()
                .collect();
            match written_for(i) {
                Some(e) => {
                    let bullets: Vec<String> = e
                        .get("summaryBullets")
                        .or_else(|| e.get("bullets"))
                        .and_then(Value::as_array)
                        .map(|bs| {
                            bs.iter()
                                .filter_map(|b| string(Some(b), bounds::BULLET_CHARS))
                                .take(bounds::BULLETS_PER_EVENT)
                                .collect()
                        })
                        .unwrap_or_default();
                    WrittenEvent {
                        headline: string(e.get("headline"), bounds::HEADLINE_CHARS)
                            .unwrap_or(fallback_headline),
                        bullets: if bullets.is_empty() {
                            fallback_bullets
                        } else {
                            bullets
                        },
                    }
                }
                None => WrittenEvent {
                    headline: fallback_headline,
                    bullets: fallback_bullets,
                },
            }
        })
        .collect();
    Written {
        subtitle: string(value.get("subtitle"), bounds::SUBTITLE_CHARS),
        summary: string(value.get("summary"), bounds::SUMMARY_CHARS),
        events,
        model,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn article(title: &str, summary: &str) -> ArticleRef {
        ArticleRef {
            id: title.into(),
            title: title.into(),
            summary: summary.into(),
            source_id: "s".into(),
            source_title: "Harbour News".into(),
            link: None,
            published_at: "2025-09-01T10:00:00.000Z".into(),
            topics: vec![],
        }
    }

    #[test]
    fn answers_are_matched_by_index_and_missing_events_fall_back() {
        let a = article("Tidal station opens", "It powers 40,000 homes.");
        let b = article("Bridge closed", "Storm damage.");
        let events = vec![vec![&a], vec![&b]];
        let value = serde_json::json!({
            "subtitle": "A calm day",
            "summary": "Two stories.",
            "events": [{"index": 1, "headline": "Harbour goes tidal", "summaryBullets": ["40,000 homes", ""]}]
        });
        let written = read_answer(&value, &events, "m".into());
        assert_eq!(written.subtitle.as_deref(), Some("A calm day"));
        assert_eq!(written.events[0].headline, "Harbour goes tidal");
        assert_eq!(written.events[0].bullets, vec!["40,000 homes"]);
        assert_eq!(written.events[1].headline, "Bridge closed");
        assert_eq!(written.events[1].bullets, vec!["Storm damage."]);
    }

    #[test]
    fn the_prompt_lists_every_event_and_article() {
        let a = article("Tidal station opens", "It powers 40,000 homes.");
        let b = article("Tidal station opens!", "");
        let p = prompt(
            DigestType::Personal,
            DigestDate::parse("d", "2025-09-01").unwrap(),
            &["energy".into()],
            &[vec![&a, &b]],
        );
        assert!(p.contains("Monday, 1 September 2025"));
        assert!(p.contains("energy"));
        assert!(p.contains("Event 1:"));
        assert!(p.contains("Tidal station opens!"));
        assert!(!p.contains("Event 2:"));
    }
}
