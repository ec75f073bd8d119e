//! Reading the model's sentiment answer: a JSON object with the response's own field names
//! (`sentiment`, `score`, `bias`, `rationale`), bare or in a fenced code block.
//!
//! Lenient where the meaning is clear (case, a numeric string, a score out of range is
//! clamped, an unknown bias is `unclear`), strict where it is not: without a recognisable
//! sentiment and a numeric score the answer cannot be used (the caller answers 502).

use llm::json_in_answer;
use serde_json::Value;

use crate::model::{Bias, Sentiment};

/// The usable part of a sentiment answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub sentiment: Sentiment,
    pub score: f64,
    pub bias: Option<Bias>,
    pub rationale: String,
}

/// Why a sentiment answer cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnreadableRating(String);

impl From<&str> for UnreadableRating {
    fn from(reason: &str) -> Self {
        Self(reason.to_string())
    }
}

/// Parses the model's answer, or says why it cannot be used.
pub fn parse(answer: &str) -> Result<Reading, UnreadableRating> {
    let value = json_in_answer(answer).ok_or("the answer holds no JSON object")?;
    let Value::Object(object) = value else {
        return Err("the answer's JSON is not an object".into());
    };
    let sentiment = match object.get("sentiment").and_then(Value::as_str) {
        Some(s) => match s.trim().to_ascii_lowercase().as_str() {
            "positive" => Sentiment::Positive,
            "neutral" => Sentiment::Neutral,
            "negative" => Sentiment::Negative,
            other => {
                return Err(UnreadableRating(format!(
                    "sentiment {other:?} is not positive, neutral or negative"
                )))
            }
        },
        None => return Err("sentiment is missing or not a string".into()),
    };
    let score = match object.get("score") {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
    .filter(|s| s.is_finite())
    .ok_or("score is missing or not a number")?
    .clamp(-1.0, 1.0);
    let bias = match object.get("bias") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(match s.trim().to_ascii_lowercase().as_str() {
            "left" => Bias::Left,
            "center" | "centre" => Bias::Center,
            "right" => Bias::Right,
            _ => Bias::Unclear,
        }),
        Some(_) => Some(Bias::Unclear),
    };
    let rationale = object
        .get("rationale")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or_default()
        .to_string();
    Ok(Reading {
        sentiment,
        score,
        bias,
        rationale,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_plain_object() {
        let r = parse(
            r#"{"sentiment":"positive","score":0.6,"bias":"center","rationale":" Upbeat. "}"#,
        )
        .expect("usable");
        assert_eq!(
            r,
            Reading {
                sentiment: Sentiment::Positive,
                score: 0.6,
                bias: Some(Bias::Center),
                rationale: "Upbeat.".into()
            }
        );
    }

    #[test]
    fn tolerates_fences_case_strings_and_clamps() {
        let r = parse(
            "Sure! Here is the analysis:\n```json\n{\"sentiment\": \"NEGATIVE\", \"score\": \"-3\", \
             \"bias\": \"far-left\", \"rationale\": \"Grim.\"}\n```",
        )
        .expect("usable");
        assert_eq!(r.sentiment, Sentiment::Negative);
        assert_eq!(r.score, -1.0);
        assert_eq!(r.bias, Some(Bias::Unclear), "unknown bias maps to unclear");
        let high = parse(r#"{"sentiment":"positive","score":7,"bias":null}"#).expect("usable");
        assert_eq!(high.score, 1.0);
        assert_eq!(high.bias, None);
        assert_eq!(high.rationale, "");
        let odd_bias = parse(r#"{"sentiment":"neutral","score":0,"bias":3}"#).expect("usable");
        assert_eq!(odd_bias.bias, Some(Bias::Unclear));
        let centre = parse(r#"{"sentiment":"neutral","score":0,"bias":"Centre"}"#).expect("usable");
        assert_eq!(centre.bias, Some(Bias::Center));
    }

    #[test]
    fn unusable_answers_say_why() {
        for (answer, why) in [
            ("I think it is positive.", "no JSON"),
            ("[1, 2]", "not an object"),
            (r#"{"score": 0.5}"#, "sentiment"),
            (r#"{"sentiment": "happy", "score": 0.5}"#, "happy"),
            (r#"{"sentiment": "positive"}"#, "score"),
            (r#"{"sentiment": "positive", "score": "very"}"#, "score"),
        ] {
            let err = parse(answer).expect_err(answer).to_string();
            assert!(err.contains(why), "{answer}: {err}");
        }
    }
}
