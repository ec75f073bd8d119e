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

/// The tokens of `text`, folded, before stop words and stemming: maximal alphanumeric runs
/// (apostrophes inside a run dropped, a trailing `'s` removed), 2-32 bytes, numbers of at
/// most 12 digits.
pub fn tokens(text: &str) -> Vec<String> {
    let folded = fold(text);
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = folded.chars().peekable();
    let finish = |token: &mut String, out: &mut Vec<String>| {
        if let Some(stripped) = token.strip_suffix("'s") {
            let len = stripped.len();
            token.truncate(len);
        }
        token.retain(|c| !is_apostrophe(c));
        let digits = token.chars().all(|c| c.is_ascii_digit());
        if (MIN_TOKEN_BYTES..=MAX_TOKEN_BYTES).contains(&token.len())
            && !(digits && token.len() > MAX_NUMBER_DIGITS)
        {
            out.push(std::mem::take(token));
        } else {
            token.clear();
        }
    };
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() {
            current.push(c);
        } else if is_apostrophe(c)
            && !current.is_empty()
            && chars.peek().is_some_and(|n| n.is_alphanumeric())
        {
            // Kept as ' for now, so a trailing 's can be recognised.
            current.push('\'');
        } else if !current.is_empty() {
            finish(&mut current, &mut out);
        }
    }
    if !current.is_empty() {
        finish(&mut current, &mut out);
    }
    out
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
