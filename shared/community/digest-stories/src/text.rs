//! Text normalisation for headlines: the platform's tokenizer (`text_analysis`, lowercase,
//! accent folding) with figures kept whole, then stop words and light English stemming.
//! "Séisme: 6.1 quakes KILLED three" → `seism`, `6.1`, `quak`, `kill`, `three`.
//!
//! The stop words and the stemmer are this crate's own, not the search analyzer's (the
//! Snowball list, Porter2): clustering needs news boilerplate ("live updates", "breaking",
//! "says") dropped, and only that the forms of one word in one day's news meet
//! ("quake"/"quakes", "kills"/"killed"/"killing", "cuts"/"cutting"). The figures in the crate
//! docs were measured with this stemmer.

use text_analysis::Tokenizer;

/// Function words and the words of news boilerplate ("live updates", "breaking", "says"),
/// after folding. Sorted, for binary search.
const STOP_WORDS: &[&str] = &[
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "amid",
    "an",
    "and",
    "any",
    "are",
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
    "breaking",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "latest",
    "live",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "new",
    "news",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "said",
    "same",
    "say",
    "says",
    "she",
    "should",
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
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "update",
    "updates",
    "us",
    "very",
    "was",
    "watch",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// True for a stop word (after folding).
pub fn is_stop_word(token: &str) -> bool {
    STOP_WORDS.binary_search(&token).is_ok()
}

/// The tokens of `text`, folded, before stop words and stemming ([`Tokenizer::FIGURES`]:
/// "6.1", "1,200" → `1200`, "2–1", "10:30" → `10-30` stay whole; a trailing `'s` removed).
pub fn tokens(text: &str) -> Vec<String> {
    Tokenizer::FIGURES.tokens(text)
}

fn is_vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y')
}

/// A light English stemmer, for matching the inflections of one word, not for linguistics:
/// plural and third-person `-s`/`-es`/`-ies`, `-ed`, `-ing`, then a doubled final consonant
/// undoubled and a final `-e` dropped, so "rise", "rises", "rising" and "rised" all give
/// `ris` (but "three" stays), "stopped" and "stops" give `stop`. Only ASCII words of four bytes or more whose
/// stem keeps a vowel are changed; numbers and other scripts are returned as they are.
pub fn stem(word: &str) -> String {
    let bytes = word.as_bytes();
    if bytes.len() < 4 || !bytes.iter().all(u8::is_ascii_lowercase) {
        return word.to_string();
    }
    let has_vowel = |s: &str| s.bytes().any(is_vowel);
    let mut stem: String = if let Some(s) = word.strip_suffix("ies") {
        format!("{s}y")
    } else if word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        word.to_string()
    } else if let Some(s) = word.strip_suffix("sses") {
        format!("{s}ss")
    } else if let Some(s) = word.strip_suffix('s') {
        s.to_string()
    } else if word.ends_with("eed") {
        word.to_string()
    } else if let Some(s) = word
        .strip_suffix("ed")
        .filter(|s| s.len() >= 3 && has_vowel(s))
    {
        s.to_string()
    } else if let Some(s) = word
        .strip_suffix("ing")
        .filter(|s| s.len() >= 3 && has_vowel(s))
    {
        s.to_string()
    } else {
        word.to_string()
    };
    let b = stem.as_bytes();
    let n = b.len();
    if n >= 4 {
        if let (Some(&last), Some(&before)) = (b.get(n - 1), b.get(n - 2)) {
            let doubled = last == before && !is_vowel(last) && !matches!(last, b'l' | b's' | b'z');
            let silent_e =
                last == b'e' && before != b'e' && has_vowel(stem.get(..n - 1).unwrap_or_default());
            if doubled || silent_e {
                stem.pop();
            }
        }
    }
    stem
}

/// The terms of the words of `text` written with a capital letter where a sentence does not
/// start (names: "Malatya", "Okafor", "ECB"), for the caller to weigh more. A text in title
/// case (most words of four letters or more capitalised, as some sources write headlines)
/// names nothing this way.
pub fn capitalised_terms(text: &str) -> Vec<String> {
    let mut sentence_start = true;
    let mut names = Vec::new();
    let (mut long_words, mut capitalised_long) = (0_usize, 0_usize);
    for chunk in text.split_whitespace() {
        let word = chunk.trim_start_matches(|c: char| !c.is_alphanumeric());
        let capitalised = word.starts_with(char::is_uppercase);
        if !sentence_start && word.chars().filter(|c| c.is_alphabetic()).count() >= 4 {
            long_words += 1;
            capitalised_long += usize::from(capitalised);
        }
        if capitalised && !sentence_start {
            names.extend(terms(word));
        }
        sentence_start = chunk.ends_with(['.', '!', '?', ':']);
    }
    if long_words >= 3 && capitalised_long * 10 > long_words * 6 {
        return Vec::new();
    }
    names
}

/// The terms of `text` in order: tokens without stop words, stemmed.
pub fn terms(text: &str) -> Vec<String> {
    tokens(text)
        .into_iter()
        .filter(|t| !is_stop_word(t))
        .map(|t| stem(&t))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn folds_and_keeps_numbers_and_scores() {
        assert_eq!(
            terms("Séisme: 6.1 quakes KILLED three in Turkey's east"),
            ["seism", "6.1", "quak", "kill", "three", "turkey", "east"]
        );
        assert_eq!(terms("Arsenal 2–1 Chelsea"), ["arsenal", "2-1", "chelsea"]);
        assert_eq!(
            terms("1,200 homes; 10:30 kick-off"),
            ["1200", "hom", "10-30", "kick"]
        );
        assert_eq!(terms("Straße, Łódź, Æsir"), ["strass", "lodz", "aesir"]);
    }

    #[test]
    fn names_are_capitalised_words_inside_sentences() {
        assert_eq!(
            capitalised_terms(
                "Deadly quake hits Malatya. Rescuers from AFAD search Turkey's rubble"
            ),
            ["malatya", "afad", "turkey"]
        );
        // A headline in title case names nothing.
        assert!(capitalised_terms("Deadly Quake Hits Malatya As Buildings Collapse").is_empty());
    }

    #[test]
    fn inflections_of_a_word_meet() {
        for group in [
            &["rise", "rises", "rising", "rised"][..],
            &["quake", "quakes"],
            &["kill", "kills", "killed", "killing"],
            &["stop", "stops", "stopped", "stopping"],
            &["cut", "cuts", "cutting"],
            &["strike", "strikes", "striking"],
            &["rally", "rallies"],
            &["win", "wins", "winning"],
        ] {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            assert!(
                stems.windows(2).all(|w| w[0] == w[1]),
                "{group:?} → {stems:?}"
            );
        }
        // Words the stemmer must leave alone.
        for word in [
            "bus", "analysis", "need", "speed", "fall", "pass", "red", "6.1",
        ] {
            assert_eq!(stem(word), word, "{word}");
        }
    }
}
