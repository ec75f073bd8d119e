//! What one model call may cost: the `max_tokens` of each operation's answer, so no request
//! can make the model write (and bill) more than its task needs.

use platform::{ConfigError, Env};

use crate::model::Operation;

/// The environment variable: `operation=tokens` pairs separated by commas.
pub const VARIABLE: &str = "LLM_MAX_TOKENS";
/// The accepted range of one operation's value.
const RANGE: std::ops::RangeInclusive<u32> = 16..=16_384;

/// `max_tokens` per operation. The defaults leave room over what each prompt asks for: a
/// long summary (250 words or 10 bullets) in 700, an expert explanation (four paragraphs) in
/// 900, the sentiment JSON in 300, a three-sentence answer in 300.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaxTokens {
    summarize: u32,
    explain: u32,
    sentiment: u32,
    qa: u32,
}

impl Default for MaxTokens {
    fn default() -> Self {
        Self {
            summarize: 700,
            explain: 900,
            sentiment: 300,
            qa: 300,
        }
    }
}

impl MaxTokens {
    /// Reads `summarize=700,qa=200`: an operation left out keeps its default.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut tokens = Self::default();
        for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (operation, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("{pair:?} is not operation=tokens"))?;
            let value = value
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|v| RANGE.contains(v))
                .ok_or_else(|| {
                    format!(
                        "{:?} is not a number of tokens from {} to {}",
                        value.trim(),
                        RANGE.start(),
                        RANGE.end()
                    )
                })?;
            let slot = match operation.trim() {
                "summarize" => &mut tokens.summarize,
                "explain" => &mut tokens.explain,
                "sentiment" => &mut tokens.sentiment,
                "qa" => &mut tokens.qa,
                other => {
                    return Err(format!(
                        "{other:?} is not an operation (summarize, explain, sentiment, qa)"
                    ))
                }
            };
            *slot = value;
        }
        Ok(tokens)
    }

    /// [`VARIABLE`], the defaults when unset.
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        Self::parse(env.get(VARIABLE).unwrap_or("")).map_err(|reason| ConfigError::Invalid {
            name: VARIABLE.into(),
            reason,
        })
    }

    pub fn of(&self, operation: Operation) -> u32 {
        match operation {
            Operation::Summarize => self.summarize,
            Operation::Explain => self.explain,
            Operation::Sentiment => self.sentiment,
            Operation::Qa => self.qa,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_left_out_keep_their_default() {
        let tokens = MaxTokens::parse(" qa=120 , summarize=2000").unwrap();
        assert_eq!(tokens.of(Operation::Qa), 120);
        assert_eq!(tokens.of(Operation::Summarize), 2000);
        assert_eq!(tokens.of(Operation::Sentiment), 300);
        assert_eq!(MaxTokens::parse("").unwrap(), MaxTokens::default());
        for bad in ["qa", "qa=0", "qa=100000", "digest=100", "qa=x"] {
            assert!(MaxTokens::parse(bad).is_err(), "{bad}");
        }
        let err = MaxTokens::from_env(&Env::new().with(VARIABLE, "qa=1")).unwrap_err();
        assert!(err.to_string().contains(VARIABLE), "{err}");
    }
}
