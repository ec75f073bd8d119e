//! The analyzer: lowercase, fold accents, split into tokens, drop stop words, stem.
//! "Café Running" → `cafe`, `run`. The same analysis must serve indexing and queries, so
//! every index built on it (community search, incident runbooks) calls these functions.

use crate::fold_table::FOLD;
use crate::porter2;

/// Tokens shorter than this (in bytes) are dropped.
pub const MIN_TOKEN_BYTES: usize = 2;
/// Tokens longer than this (in bytes) are dropped: no word is, and a term is part of a key.
pub const MAX_TOKEN_BYTES: usize = 32;
/// Longer runs of digits are not numbers anyone searches for (ids, hashes).
pub const MAX_NUMBER_DIGITS: usize = 12;

/// The Snowball English stop list, without apostrophes (the tokenizer drops them), and
/// without contractions that fold into ordinary words (`we'll` → `well`, `she'd` → `shed`).
const STOP_WORDS: &[&str] = &[
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "arent",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "cannot",
    "cant",
    "could",
    "couldnt",
    "did",
    "didnt",
    "do",
    "does",
    "doesnt",
    "doing",
    "dont",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadnt",
    "has",
    "hasnt",
    "have",
    "havent",
    "having",
    "he",
    "hed",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "if",
    "im",
    "in",
    "into",
    "is",
    "isnt",
    "it",
    "its",
    "itself",
    "ive",
    "me",
    "more",
    "most",
    "mustnt",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "ought",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shant",
    "she",
    "should",
    "shouldnt",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "theyd",
    "theyll",
    "theyre",
    "theyve",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "wasnt",
    "we",
    "were",
    "werent",
    "weve",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "with",
    "wont",
    "would",
    "wouldnt",
    "you",
    "youd",
    "youll",
    "your",
    "youre",
    "yours",
    "yourself",
    "yourselves",
    "youve",
];

/// True for a stop word (after folding).
pub fn is_stop_word(token: &str) -> bool {
    STOP_WORDS.contains(&token)
}

/// `c` (already lowercase) folded to ASCII when it is a Latin letter with an accent or a
/// ligature; `None` when it stays as it is.
pub fn fold_char(c: char) -> Option<&'static str> {
    FOLD.binary_search_by_key(&c, |(from, _)| *from)
        .ok()
        .and_then(|i| FOLD.get(i))
        .map(|(_, to)| *to)
}

/// `text` lowercased and accent-folded (combining marks dropped).
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        if ('\u{0300}'..='\u{036f}').contains(&c) {
            continue;
        }
        match fold_char(c) {
            Some(folded) => out.push_str(folded),
            None => out.push(c),
        }
    }
    out
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}' | '\u{02bc}')
}

/// How a text is cut into tokens: maximal alphanumeric runs of its folded form
/// (apostrophes inside a run dropped, a trailing `'s` removed), 2-32 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tokenizer {
    /// Figures stay whole: a `.`, `:` or dash between digits joins them (`:` and dashes
    /// made `-`), a `,` between digits is dropped ("6.1", "1,200" → `1200`, "2–1", "10:30"
    /// → `10-30`), and a token starting with a digit is kept at any length up to 32 bytes.
    /// Without it, numbers of at most [`MAX_NUMBER_DIGITS`] digits are kept (ids and hashes
    /// are not searched for) and punctuation splits figures.
    pub figures: bool,
}

impl Tokenizer {
    /// The indexes' tokenizer (community search, the incidents' retrieval): [`tokens`].
    pub const SEARCH: Self = Self { figures: false };
    /// The news headlines' (digest stories): scores, times and amounts are words there.
    pub const FIGURES: Self = Self { figures: true };

    /// The tokens of `text`, folded, before stop words and stemming.
    pub fn tokens(&self, text: &str) -> Vec<String> {
        let folded = fold(text);
        let mut out = Vec::new();
        let mut current = String::new();
        let mut previous: Option<char> = None;
        let mut chars = folded.chars().peekable();
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            let between_digits = self.figures
                && !current.is_empty()
                && previous.is_some_and(|p| p.is_ascii_digit())
                && next.is_some_and(|n| n.is_ascii_digit());
            if c.is_alphanumeric() {
                current.push(c);
            } else if between_digits && c == '.' {
                current.push('.');
            } else if between_digits && (c == ':' || is_dash(c)) {
                current.push('-');
            } else if between_digits && c == ',' {
                // A thousands separator: "1,200" is 1200.
            } else if is_apostrophe(c)
                && !current.is_empty()
                && next.is_some_and(char::is_alphanumeric)
            {
                // Kept as ' for now, so a trailing 's can be recognised.
                current.push('\'');
            } else if !current.is_empty() {
                self.finish(&mut current, &mut out);
            }
            previous = Some(c);
        }
        if !current.is_empty() {
            self.finish(&mut current, &mut out);
        }
        out
    }

    /// `token` pushed onto `out` when it is one, then cleared.
    fn finish(&self, token: &mut String, out: &mut Vec<String>) {
        if let Some(stripped) = token.strip_suffix("'s") {
            let len = stripped.len();
            token.truncate(len);
        }
        token.retain(|c| !is_apostrophe(c));
        let kept = if self.figures {
            let figure = token.starts_with(|c: char| c.is_ascii_digit());
            token.len() <= MAX_TOKEN_BYTES && (figure || token.len() >= MIN_TOKEN_BYTES)
        } else {
            let digits = token.chars().all(|c| c.is_ascii_digit());
            (MIN_TOKEN_BYTES..=MAX_TOKEN_BYTES).contains(&token.len())
                && !(digits && token.len() > MAX_NUMBER_DIGITS)
        };
        if kept {
            out.push(std::mem::take(token));
        } else {
            token.clear();
        }
    }
}

/// A hyphen, a dash or a minus sign.
fn is_dash(c: char) -> bool {
    matches!(c, '-' | '\u{2010}'..='\u{2015}' | '\u{2212}')
}

/// The tokens of `text`, folded, before stop words and stemming ([`Tokenizer::SEARCH`]):
/// maximal alphanumeric runs (apostrophes inside a run dropped, a trailing `'s` removed),
/// 2-32 bytes, numbers of at most 12 digits.
pub fn tokens(text: &str) -> Vec<String> {
    Tokenizer::SEARCH.tokens(text)
}

/// The terms of `text` in order: tokens without stop words, stemmed.
pub fn terms(text: &str) -> Vec<String> {
    tokens(text)
        .into_iter()
        .filter(|t| !is_stop_word(t))
        .map(|t| porter2::stem(&t))
        .filter(|t| !t.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_whole_only_for_headlines() {
        let text = "Arsenal 2\u{2013}1 at 10:30, 1,200 fans; 6.1 quake";
        assert_eq!(
            Tokenizer::FIGURES.tokens(text),
            ["arsenal", "2-1", "at", "10-30", "1200", "fans", "6.1", "quake"]
        );
        assert_eq!(
            tokens(text),
            ["arsenal", "at", "10", "30", "200", "fans", "quake"]
        );
    }

    #[test]
    fn folds_case_accents_and_ligatures() {
        assert_eq!(fold("Café Crème"), "cafe creme");
        assert_eq!(
            fold("Straße Æther Œuvre Øre Łódź Đakovo Þór ıstanbul"),
            "strasse aether oeuvre ore lodz dakovo thor istanbul"
        );
        assert_eq!(
            fold("Ångström Ñandú Šťastný Ḍḥ ỳ"),
            "angstrom nandu stastny dh y"
        );
        // Combining marks are dropped: e + U+0301.
        assert_eq!(fold("cafe\u{301}"), "cafe");
        // İ lowercases to i + a combining dot.
        assert_eq!(fold("İzmir"), "izmir");
        // Other scripts stay, lowercased.
        assert_eq!(fold("Москва ΑΘΗΝΑ 東京"), "москва αθηνα 東京");
    }

    #[test]
    fn fold_table_is_sorted_lowercase_ascii() {
        assert!(FOLD.len() > 290);
        assert!(FOLD.windows(2).all(|w| w[0].0 < w[1].0));
        for (from, to) in FOLD {
            assert!(!from.is_uppercase(), "{from}");
            assert!(
                !to.is_empty() && to.bytes().all(|b| b.is_ascii_lowercase()),
                "{from}"
            );
        }
    }

    #[test]
    fn tokens_are_alphanumeric_runs_within_bounds() {
        assert_eq!(
            tokens("Don't stop: O'Neil's e-mail, x 2026 1234567890123 covid19!"),
            ["dont", "stop", "oneil", "mail", "2026", "covid19"]
        );
        assert_eq!(tokens("’quoted’ it’s"), ["quoted", "it"]);
        let long = "a".repeat(33);
        assert_eq!(
            tokens(&format!("{long} {}", "b".repeat(32))),
            ["b".repeat(32)]
        );
        assert_eq!(tokens("123456789012"), ["123456789012"]);
        assert!(tokens("").is_empty());
    }

    #[test]
    fn stop_words_are_dropped_and_words_stemmed() {
        assert!(is_stop_word("the") && is_stop_word("dont") && is_stop_word("theyre"));
        assert!(!is_stop_word("well") && !is_stop_word("shell") && !is_stop_word("hell"));
        assert_eq!(terms("Café Running"), ["cafe", "run"]);
        assert_eq!(
            terms("The runners were running over the hills"),
            ["runner", "run", "hill"]
        );
        assert!(terms("to be or not to be").is_empty());
    }
}
