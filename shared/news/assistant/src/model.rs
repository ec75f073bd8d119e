//! The GenAI request and responses (the assistant's "GenAI request fields" and "GenAI response
//! fields"), and the validated job a request becomes.

use std::fmt;

use llm::ProviderKind;
use platform::{FieldError, FieldErrors, Invalid};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The longest article text accepted (characters): far beyond a long news article, well
/// within the context window of current models.
pub const MAX_TEXT_CHARS: usize = 100_000;
pub const MAX_QUESTION_CHARS: usize = 2_000;
pub const MAX_ARTICLE_ID_CHARS: usize = 200;

/// The request body every GenAI operation takes. Exactly one of `articleId` or `text`;
/// the other fields are read by the operation they belong to and ignored by the others.
/// (The function's contract adds the "exactly one" and, for `qa`, the required `question`.)
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GenAiRequest {
    /// An article of the content service; its headline and body paragraphs are the text.
    /// Not blank, at most 200 characters, no control characters.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = String, max_length = 200, pattern = "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000-\\u001f\\u007f-\\u009f]*$", example = "3f2b9c0d1e")]
    pub article_id: Option<String>,
    /// Raw article text: not blank, at most 100000 characters.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = String, max_length = 100000, pattern = "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]")]
    pub text: Option<String>,
    /// Summarize only (default `medium`).
    pub length: Option<SummaryLength>,
    /// Summarize only (default `plain`).
    pub style: Option<SummaryStyle>,
    /// Explain only (default `beginner`).
    pub knowledge_level: Option<KnowledgeLevel>,
    /// QA only, required there (not blank, at most 2000 characters).
    pub question: Option<String>,
}

/// A field that may be absent but, when present, is not `null` (as the contract says).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SummaryLength {
    Short,
    #[default]
    Medium,
    Long,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SummaryStyle {
    #[default]
    Plain,
    Bullets,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum KnowledgeLevel {
    Child,
    #[default]
    Beginner,
    Intermediate,
    Expert,
}

/// The four GenAI operations (the `endpoint` label of the metrics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    Summarize,
    Explain,
    Sentiment,
    Qa,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Summarize => "summarize",
            Self::Explain => "explain",
            Self::Sentiment => "sentiment",
            Self::Qa => "qa",
        }
    }
}

/// The id of an article in the content service (not blank, at most 200 characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArticleId(String);

impl ArticleId {
    /// The request's `articleId`.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        let id = raw.trim();
        let problem = |reason: String| FieldError::new("articleId", reason);
        if raw.chars().any(char::is_control) {
            Err(problem("must not contain control characters".into()))
        } else if id.is_empty() {
            Err(problem("must not be blank".into()))
        } else if id.chars().count() > MAX_ARTICLE_ID_CHARS {
            Err(problem(format!(
                "must be at most {MAX_ARTICLE_ID_CHARS} characters"
            )))
        } else {
            Ok(Self(id.to_string()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ArticleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The text the model works on: not blank, at most [`MAX_TEXT_CHARS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArticleText(String);

impl ArticleText {
    /// The request's `text`.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        let text = raw.trim();
        if text.is_empty() {
            Err(FieldError::new("text", "must not be blank"))
        } else if text.chars().count() > MAX_TEXT_CHARS {
            Err(FieldError::new(
                "text",
                format!("must be at most {MAX_TEXT_CHARS} characters"),
            ))
        } else {
            Ok(Self(text.to_string()))
        }
    }

    /// A fetched article: its headline and paragraphs, cut at [`MAX_TEXT_CHARS`] when longer.
    /// `None` when the body has no paragraph with text.
    pub fn from_article(title: &str, paragraphs: &[String]) -> Option<Self> {
        let body: Vec<&str> = paragraphs
            .iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .collect();
        if body.is_empty() {
            return None;
        }
        let mut text = String::new();
        let title = title.trim();
        if !title.is_empty() {
            text.push_str(title);
            text.push_str("\n\n");
        }
        text.push_str(&body.join("\n\n"));
        if let Some((cut, _)) = text.char_indices().nth(MAX_TEXT_CHARS) {
            text.truncate(cut);
        }
        Some(Self(text))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A QA question: not blank, at most [`MAX_QUESTION_CHARS`], whitespace collapsed (so that
/// the same question spelled with other spacing shares a cache entry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question(String);

impl Question {
    /// The request's `question`.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        let question = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        if question.is_empty() {
            Err(FieldError::new("question", "must not be blank"))
        } else if question.chars().count() > MAX_QUESTION_CHARS {
            Err(FieldError::new(
                "question",
                format!("must be at most {MAX_QUESTION_CHARS} characters"),
            ))
        } else {
            Ok(Self(question))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Where the text comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Article(ArticleId),
    Text(ArticleText),
}

/// What to do with the text, options resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Task {
    Summarize {
        length: SummaryLength,
        style: SummaryStyle,
    },
    Explain {
        level: KnowledgeLevel,
    },
    Sentiment,
    Qa {
        question: Question,
    },
}

impl Task {
    pub fn operation(&self) -> Operation {
        match self {
            Self::Summarize { .. } => Operation::Summarize,
            Self::Explain { .. } => Operation::Explain,
            Self::Sentiment => Operation::Sentiment,
            Self::Qa { .. } => Operation::Qa,
        }
    }

    /// The options as one canonical string (part of the cache key).
    pub fn options(&self) -> String {
        match self {
            Self::Summarize { length, style } => format!("length={length:?};style={style:?}"),
            Self::Explain { level } => format!("knowledgeLevel={level:?}"),
            Self::Sentiment => String::new(),
            Self::Qa { question } => format!("question={}", question.as_str()),
        }
    }
}

/// A validated request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub input: Input,
    pub task: Task,
}

impl GenAiRequest {
    /// Validates the request for `operation`, reporting every field problem at once.
    pub fn into_job(self, operation: Operation) -> Result<Job, Invalid> {
        let mut errors = FieldErrors::new();
        let input = match (&self.article_id, &self.text) {
            (Some(id), None) => errors.check(ArticleId::parse(id)).map(Input::Article),
            (None, Some(text)) => errors.check(ArticleText::parse(text)).map(Input::Text),
            (Some(_), Some(_)) => {
                errors.add("articleId", "give either articleId or text, not both");
                None
            }
            (None, None) => {
                errors.add("articleId", "exactly one of articleId or text is required");
                None
            }
        };
        let task = match operation {
            Operation::Summarize => Some(Task::Summarize {
                length: self.length.unwrap_or_default(),
                style: self.style.unwrap_or_default(),
            }),
            Operation::Explain => Some(Task::Explain {
                level: self.knowledge_level.unwrap_or_default(),
            }),
            Operation::Sentiment => Some(Task::Sentiment),
            Operation::Qa => match &self.question {
                None => {
                    errors.add("question", "is required");
                    None
                }
                Some(q) => errors
                    .check(Question::parse(q))
                    .map(|question| Task::Qa { question }),
            },
        };
        errors.finish()?;
        // Both are set when nothing was recorded; the else branch only satisfies the types.
        let (Some(input), Some(task)) = (input, task) else {
            return Err(Invalid::field("body", "is invalid"));
        };
        Ok(Job { input, task })
    }
}

/// The `summarize` response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SummarizeResponse {
    pub summary: String,
    /// The model that answered.
    #[schema(example = "gpt-4o-mini")]
    pub model: String,
    pub provider: ProviderKind,
}

/// The `explain` response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExplainResponse {
    pub explanation: String,
    /// The level the explanation is written for.
    pub knowledge_level: KnowledgeLevel,
    pub model: String,
    pub provider: ProviderKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Sentiment {
    Positive,
    Neutral,
    Negative,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Bias {
    Left,
    Center,
    Right,
    Unclear,
}

/// The `sentiment` response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SentimentResponse {
    pub sentiment: Sentiment,
    /// From -1.0 (very negative) to 1.0 (very positive).
    #[schema(minimum = -1.0, maximum = 1.0, example = 0.4)]
    pub score: f64,
    /// Political bias; `null` when the article is not political.
    pub bias: Option<Bias>,
    /// Why the model rated it so.
    pub rationale: String,
    pub model: String,
    pub provider: ProviderKind,
}

/// The `qa` response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QaResponse {
    /// Taken only from the article; says so when the article does not answer the question.
    pub answer: String,
    pub model: String,
    pub provider: ProviderKind,
}

/// Any operation's answer; serialises as that operation's response body.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Answer {
    Summary(SummarizeResponse),
    Explanation(ExplainResponse),
    Sentiment(SentimentResponse),
    Qa(QaResponse),
}

impl Answer {
    pub fn operation(&self) -> Operation {
        match self {
            Self::Summary(_) => Operation::Summarize,
            Self::Explanation(_) => Operation::Explain,
            Self::Sentiment(_) => Operation::Sentiment,
            Self::Qa(_) => Operation::Qa,
        }
    }

    /// Reads a stored answer of `operation` back.
    pub fn from_json(operation: Operation, json: &str) -> Result<Self, serde_json::Error> {
        Ok(match operation {
            Operation::Summarize => Self::Summary(serde_json::from_str(json)?),
            Operation::Explain => Self::Explanation(serde_json::from_str(json)?),
            Operation::Sentiment => Self::Sentiment(serde_json::from_str(json)?),
            Operation::Qa => Self::Qa(serde_json::from_str(json)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(json: serde_json::Value) -> GenAiRequest {
        serde_json::from_value(json).expect("request")
    }

    fn details(err: Invalid) -> Vec<String> {
        err.errors().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn exactly_one_of_article_id_or_text() {
        let both = request(serde_json::json!({"articleId": "a", "text": "t"}));
        assert_eq!(
            details(both.into_job(Operation::Sentiment).expect_err("both")),
            ["articleId: give either articleId or text, not both"]
        );
        let neither = GenAiRequest::default();
        assert_eq!(
            details(neither.into_job(Operation::Summarize).expect_err("neither")),
            ["articleId: exactly one of articleId or text is required"]
        );
        let blank = request(serde_json::json!({"text": " \n\t "}));
        assert_eq!(
            details(blank.into_job(Operation::Summarize).expect_err("blank")),
            ["text: must not be blank"]
        );
        let blank_id = request(serde_json::json!({"articleId": " "}));
        assert_eq!(
            details(
                blank_id
                    .into_job(Operation::Summarize)
                    .expect_err("blank id")
            ),
            ["articleId: must not be blank"]
        );
        let long = request(serde_json::json!({"text": "x".repeat(MAX_TEXT_CHARS + 1)}));
        assert_eq!(
            details(long.into_job(Operation::Summarize).expect_err("long")),
            ["text: must be at most 100000 characters"]
        );
    }

    #[test]
    fn options_default_and_qa_needs_a_question() {
        let job = request(serde_json::json!({"text": " Some news. "}))
            .into_job(Operation::Summarize)
            .expect("job");
        assert_eq!(
            job,
            Job {
                input: Input::Text(ArticleText("Some news.".into())),
                task: Task::Summarize {
                    length: SummaryLength::Medium,
                    style: SummaryStyle::Plain
                }
            }
        );
        let explain = request(serde_json::json!({"articleId": "a1", "length": "short"}))
            .into_job(Operation::Explain)
            .expect("length is ignored by explain");
        assert_eq!(
            explain.task,
            Task::Explain {
                level: KnowledgeLevel::Beginner
            }
        );
        let missing = request(serde_json::json!({}));
        assert_eq!(
            details(missing.into_job(Operation::Qa).expect_err("two problems")),
            [
                "articleId: exactly one of articleId or text is required",
                "question: is required"
            ]
        );
        let spaced = request(serde_json::json!({"text": "t", "question": "  Who\n won? "}))
            .into_job(Operation::Qa)
            .expect("qa");
        assert_eq!(spaced.task.options(), "question=Who won?");
        let blank = request(serde_json::json!({"text": "t", "question": "  "}));
        assert_eq!(
            details(blank.into_job(Operation::Qa).expect_err("blank")),
            ["question: must not be blank"]
        );
    }

    #[test]
    fn enums_and_unknown_fields_are_checked_by_the_parser() {
        let bad_enum = serde_json::from_value::<GenAiRequest>(
            serde_json::json!({"text": "t", "knowledgeLevel": "genius"}),
        );
        assert!(bad_enum.is_err());
        let unknown =
            serde_json::from_value::<GenAiRequest>(serde_json::json!({"text": "t", "lenght": 1}));
        assert!(unknown.is_err());
        let all = request(serde_json::json!({
            "text": "t", "length": "long", "style": "bullets", "knowledgeLevel": "expert"
        }));
        assert_eq!(all.length, Some(SummaryLength::Long));
        assert_eq!(all.style, Some(SummaryStyle::Bullets));
        assert_eq!(all.knowledge_level, Some(KnowledgeLevel::Expert));
    }

    #[test]
    fn article_text_from_headline_and_paragraphs() {
        let text = ArticleText::from_article(
            " Headline ",
            &[
                "First.".to_string(),
                "  ".to_string(),
                "Second.".to_string(),
            ],
        )
        .expect("content");
        assert_eq!(text.as_str(), "Headline\n\nFirst.\n\nSecond.");
        assert_eq!(ArticleText::from_article("Only a title", &[]), None);
        assert_eq!(
            ArticleText::from_article("T", &[" ".to_string()]),
            None,
            "blank paragraphs are no content"
        );
        let long = ArticleText::from_article("", &["é".repeat(MAX_TEXT_CHARS + 10)]).expect("cut");
        assert_eq!(long.as_str().chars().count(), MAX_TEXT_CHARS);
    }

    #[test]
    fn answers_round_trip_as_their_response_bodies() {
        let answer = Answer::Sentiment(SentimentResponse {
            sentiment: Sentiment::Negative,
            score: -0.5,
            bias: None,
            rationale: "r".into(),
            model: "m".into(),
            provider: ProviderKind::Local,
        });
        let json = serde_json::to_string(&answer).expect("json");
        assert_eq!(
            json,
            r#"{"sentiment":"negative","score":-0.5,"bias":null,"rationale":"r","model":"m","provider":"local"}"#
        );
        assert_eq!(
            Answer::from_json(Operation::Sentiment, &json).expect("back"),
            answer
        );
        assert!(Answer::from_json(Operation::Summarize, &json).is_err());
    }
}
