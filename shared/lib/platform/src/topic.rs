//! The topic slug rule news and community share: a topic is the same topic in every system
//! when its slug is (API.md), so both compute it here.
//!
//! The slug of a name: NFKC, Latin diacritics folded to their base ("Café" → `cafe`,
//! "Straße" → `strasse`), lowercase; letters, marks and digits of any script kept as they are
//! ("日本" → `日本`); `#` and `+` after a letter or digit spelled `sharp` and `plus` ("C#" →
//! `c-sharp`, "C++" → `c-plus-plus`); every other run of characters one `-`, none at either
//! end; at most [`MAX_SLUG_CHARS`] characters. A URL carries it percent-encoded as UTF-8.

use icu_normalizer::ComposingNormalizerBorrowed;
use icu_properties::props::GeneralCategory;
use icu_properties::CodePointMapData;

/// Longest slug, in characters.
pub const MAX_SLUG_CHARS: usize = 60;

/// The slug of a topic name; empty when the name has no letter or digit.
pub fn slug(name: &str) -> String {
    let name = ComposingNormalizerBorrowed::new_nfkc().normalize(name);
    let mut out = String::new();
    let mut gap = false;
    for c in name.chars() {
        for folded in fold_latin(c).chars() {
            for lower in folded.to_lowercase() {
                if is_letter_mark_or_digit(lower) {
                    if gap && !out.is_empty() {
                        out.push('-');
                    }
                    gap = false;
                    out.push(lower);
                } else if let (Some(word), false) = (symbol_word(lower), out.is_empty()) {
                    out.push('-');
                    out.push_str(word);
                    gap = true;
                } else {
                    gap = true;
                }
            }
        }
    }
    if out.chars().count() > MAX_SLUG_CHARS {
        out = out.chars().take(MAX_SLUG_CHARS).collect();
        while out.ends_with('-') {
            out.pop();
        }
    }
    out
}

/// The slug the rule before Unicode names gave (ASCII letters and digits only, symbols
/// dropped): what topics stored before it carry, for their migration.
pub fn ascii_slug(name: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('-');
            }
            gap = false;
            out.push(c.to_ascii_lowercase());
        } else {
            gap = true;
        }
    }
    out
}

/// Letters, marks (a Devanagari vowel sign belongs to its word) and digits of any script
/// (`\p{L}`, `\p{M}`, `\p{N}`): what a slug keeps.
pub fn is_letter_mark_or_digit(c: char) -> bool {
    use GeneralCategory as G;
    matches!(
        CodePointMapData::<GeneralCategory>::new().get(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
            | G::NonspacingMark
            | G::SpacingMark
            | G::EnclosingMark
            | G::DecimalNumber
            | G::LetterNumber
            | G::OtherNumber
    )
}

/// The symbols that tell names apart ("C", "C#", "C++"), spelled as a word.
fn symbol_word(c: char) -> Option<&'static str> {
    match c {
        '#' => Some("sharp"),
        '+' => Some("plus"),
        _ => None,
    }
}

/// Latin letters with diacritics folded to their ASCII base ("é" → "e", "ß" → "ss"), so that
/// "Économie" and "economie" share a slug. Other characters are returned unchanged.
fn fold_latin(c: char) -> std::borrow::Cow<'static, str> {
    use std::borrow::Cow;
    let s = match c {
        'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' | 'Ā' | 'Ă' | 'Ą' => "A",
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'Æ' => "AE",
        'æ' => "ae",
        'Ç' | 'Ć' | 'Č' | 'Ĉ' | 'Ċ' => "C",
        'ç' | 'ć' | 'č' | 'ĉ' | 'ċ' => "c",
        'Ð' | 'Ď' | 'Đ' => "D",
        'ð' | 'ď' | 'đ' => "d",
        'È' | 'É' | 'Ê' | 'Ë' | 'Ē' | 'Ĕ' | 'Ė' | 'Ę' | 'Ě' => "E",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => "e",
        'Ğ' | 'Ĝ' | 'Ġ' | 'Ģ' => "G",
        'ğ' | 'ĝ' | 'ġ' | 'ģ' => "g",
        'Ì' | 'Í' | 'Î' | 'Ï' | 'Ī' | 'Į' | 'İ' => "I",
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => "i",
        'Ł' | 'Ľ' | 'Ĺ' | 'Ļ' => "L",
        'ł' | 'ľ' | 'ĺ' | 'ļ' => "l",
        'Ñ' | 'Ń' | 'Ň' | 'Ņ' => "N",
        'ñ' | 'ń' | 'ň' | 'ņ' => "n",
        'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ø' | 'Ō' | 'Ő' => "O",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
        'Œ' => "OE",
        'œ' => "oe",
        'Ŕ' | 'Ř' => "R",
        'ŕ' | 'ř' => "r",
        'Ś' | 'Š' | 'Ş' | 'Ș' => "S",
        'ś' | 'š' | 'ş' | 'ș' => "s",
        'ß' => "ss",
        'Ť' | 'Ţ' | 'Ț' => "T",
        'ť' | 'ţ' | 'ț' => "t",
        'Þ' => "TH",
        'þ' => "th",
        'Ù' | 'Ú' | 'Û' | 'Ü' | 'Ū' | 'Ů' | 'Ű' | 'Ų' => "U",
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' | 'ų' => "u",
        'Ý' | 'Ÿ' => "Y",
        'ý' | 'ÿ' => "y",
        'Ź' | 'Ż' | 'Ž' => "Z",
        'ź' | 'ż' | 'ž' => "z",
        _ => return Cow::Owned(c.to_string()),
    };
    Cow::Borrowed(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_names_keep_distinct_slugs() {
        let cases = [
            ("Public Transport", "public-transport"),
            ("C", "c"),
            ("C#", "c-sharp"),
            ("c♯", "c"),
            ("C++", "c-plus-plus"),
            ("F# and C#", "f-sharp-and-c-sharp"),
            ("#rust", "rust"),
            ("+1", "1"),
            ("日本", "日本"),
            ("Café", "cafe"),
            ("Cafe\u{301}", "cafe"),
            ("Straße", "strasse"),
            ("ＡＢＣ １２", "abc-12"),
            ("Москва", "москва"),
            ("हिन्दी", "हिन्दी"),
            ("Science & Space", "science-space"),
            ("AI/ML", "ai-ml"),
            ("  --Open-Source--  ", "open-source"),
            ("!!!", ""),
            ("", ""),
        ];
        for (name, expected) in cases {
            assert_eq!(slug(name), expected, "name {name:?}");
        }
        assert_ne!(slug("C"), slug("C#"));
        assert_ne!(slug("C#"), slug("C++"));
    }

    #[test]
    fn bounded_in_characters() {
        let long = slug(&"日本 ".repeat(40));
        assert!(long.chars().count() <= MAX_SLUG_CHARS);
        assert!(!long.ends_with('-'));
        assert_eq!(slug(&"a".repeat(80)).len(), MAX_SLUG_CHARS);
    }

    #[test]
    fn the_rule_before_unicode() {
        assert_eq!(ascii_slug("  C++ & Rust!! "), "c-rust");
        assert_eq!(ascii_slug("Café"), "caf");
        assert_eq!(ascii_slug("日本"), "");
    }
}
