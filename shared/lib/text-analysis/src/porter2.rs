//! The Porter2 stemmer (Snowball English, the 3.x algorithm of `algorithms/english.sbl`), our
//! own code: `rust-stemmers` would link every Snowball language into the bootstrap.
//!
//! Words are lowercase ASCII letters (and apostrophes); anything else is returned unchanged,
//! so other scripts are matched exactly. Checked against the official fixture in
//! `tests/porter2.rs`.

/// Prefixes whose end is R1's start, whatever follows (`generate`, `university`, ...).
const R1_PREFIXES: [&[u8]; 9] = [
    b"gener", b"commun", b"arsen", b"past", b"univers", b"later", b"emerg", b"organ", b"inter",
];

/// Whole words with a fixed stem (Snowball's `exception1`).
const EXCEPTIONS: [(&str, &str); 15] = [
    ("skis", "ski"),
    ("skies", "sky"),
    ("idly", "idl"),
    ("gently", "gentl"),
    ("ugly", "ugli"),
    ("early", "earli"),
    ("only", "onli"),
    ("singly", "singl"),
    ("sky", "sky"),
    ("news", "news"),
    ("howe", "howe"),
    ("atlas", "atlas"),
    ("cosmos", "cosmos"),
    ("bias", "bias"),
    ("andes", "andes"),
];

const STEP2: [(&[u8], &[u8]); 25] = [
    (b"tional", b"tion"),
    (b"enci", b"ence"),
    (b"anci", b"ance"),
    (b"abli", b"able"),
    (b"entli", b"ent"),
    (b"izer", b"ize"),
    (b"ization", b"ize"),
    (b"ational", b"ate"),
    (b"ation", b"ate"),
    (b"ator", b"ate"),
    (b"alism", b"al"),
    (b"aliti", b"al"),
    (b"alli", b"al"),
    (b"fulness", b"ful"),
    (b"ousli", b"ous"),
    (b"ousness", b"ous"),
    (b"iveness", b"ive"),
    (b"iviti", b"ive"),
    (b"biliti", b"ble"),
    (b"bli", b"ble"),
    (b"ogist", b"og"),
    (b"ogi", b"og"),
    (b"fulli", b"ful"),
    (b"lessli", b"less"),
    (b"li", b""),
];

const STEP3: [(&[u8], &[u8]); 9] = [
    (b"tional", b"tion"),
    (b"ational", b"ate"),
    (b"alize", b"al"),
    (b"icate", b"ic"),
    (b"iciti", b"ic"),
    (b"ical", b"ic"),
    (b"ful", b""),
    (b"ness", b""),
    (b"ative", b""),
];

const STEP4: [&[u8]; 18] = [
    b"al", b"ance", b"ence", b"er", b"ic", b"able", b"ible", b"ant", b"ement", b"ment", b"ent",
    b"ism", b"ate", b"iti", b"ous", b"ive", b"ize", b"ion",
];

fn is_vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y')
}

/// The byte at `i`, or 0 (a non-vowel that matches no letter) outside the word.
fn at(w: &[u8], i: usize) -> u8 {
    w.get(i).copied().unwrap_or(0)
}

/// The longest entry of `table` that `w` ends with.
fn longest<'a, T: Copy>(w: &[u8], table: &'a [(&'a [u8], T)]) -> Option<(&'a [u8], T)> {
    table
        .iter()
        .filter(|(suffix, _)| w.ends_with(suffix))
        .max_by_key(|(suffix, _)| suffix.len())
        .copied()
}

/// Replaces the last `len` bytes of `w` with `with`.
fn replace_end(w: &mut Vec<u8>, len: usize, with: &[u8]) {
    w.truncate(w.len().saturating_sub(len));
    w.extend_from_slice(with);
}

/// The stem of `word` (lowercase). Words that are not lowercase ASCII letters (and
/// apostrophes) come back unchanged.
pub fn stem(word: &str) -> String {
    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_lowercase() || b == b'\'') {
        return word.to_string();
    }
    if let Some((_, stem)) = EXCEPTIONS.iter().find(|(w, _)| *w == word) {
        return (*stem).to_string();
    }
    if word.chars().count() < 3 {
        return word.to_string();
    }
    let mut w = word.as_bytes().to_vec();
    let y_found = prelude(&mut w);
    let (p1, p2) = regions(&w);
    step_1a(&mut w);
    step_1b(&mut w, p1);
    step_1c(&mut w);
    step_2(&mut w, p1);
    step_3(&mut w, p1, p2);
    step_4(&mut w, p2);
    step_5(&mut w, p1, p2);
    if y_found {
        for b in &mut w {
            if *b == b'Y' {
                *b = b'y';
            }
        }
    }
    // Only ASCII went in and only ASCII letters were written.
    String::from_utf8(w).unwrap_or_else(|_| word.to_string())
}

/// Drops a leading apostrophe; marks consonant `y`s (initial, or after a vowel) as `Y`.
fn prelude(w: &mut Vec<u8>) -> bool {
    if w.first() == Some(&b'\'') {
        w.remove(0);
    }
    let mut found = false;
    let mut prev: Option<u8> = None;
    for b in w.iter_mut() {
        if *b == b'y' && prev.is_none_or(is_vowel) {
            *b = b'Y';
            found = true;
        }
        prev = Some(*b);
    }
    found
}

/// The position after the first non-vowel that follows a vowel, from `from`.
fn after_vowel_consonant(w: &[u8], from: usize) -> Option<usize> {
    let vowel = (from..w.len()).find(|&i| is_vowel(at(w, i)))?;
    let consonant = (vowel + 1..w.len()).find(|&i| !is_vowel(at(w, i)))?;
    Some(consonant + 1)
}

/// R1 and R2's starts.
fn regions(w: &[u8]) -> (usize, usize) {
    let len = w.len();
    let p1 = R1_PREFIXES
        .iter()
        .filter(|p| w.starts_with(p))
        .map(|p| p.len())
        .max()
        .or_else(|| after_vowel_consonant(w, 0));
    match p1 {
        Some(p1) => (p1, after_vowel_consonant(w, p1).unwrap_or(len)),
        None => (len, len),
    }
}

/// A short syllable ending at `end`: non-vowel (not w, x or Y), vowel, non-vowel; or a vowel
/// and a non-vowel starting the word; or `past`.
fn short_syllable(w: &[u8], end: usize) -> bool {
    let Some(word) = w.get(..end) else {
        return false;
    };
    let last = at(word, end.wrapping_sub(1));
    let vowel = at(word, end.wrapping_sub(2));
    if end >= 3 {
        let first = at(word, end - 3);
        if !is_vowel(last)
            && !matches!(last, b'w' | b'x' | b'Y')
            && is_vowel(vowel)
            && !is_vowel(first)
        {
            return true;
        }
    }
    (end == 2 && !is_vowel(last) && is_vowel(vowel)) || word.ends_with(b"past")
}

fn step_1a(w: &mut Vec<u8>) {
    for suffix in [&b"'s'"[..], b"'s", b"'"] {
        if w.ends_with(suffix) {
            w.truncate(w.len() - suffix.len());
            break;
        }
    }
    let len = w.len();
    if w.ends_with(b"sses") {
        replace_end(w, 4, b"ss");
    } else if w.ends_with(b"ied") || w.ends_with(b"ies") {
        let with: &[u8] = if len > 4 { b"i" } else { b"ie" };
        replace_end(w, 3, with);
    } else if w.ends_with(b"us") || w.ends_with(b"ss") {
    } else if w.ends_with(b"s") {
        // A vowel before the letter preceding the s: `gaps` → `gap`, but `gas` stays.
        if w.get(..len.saturating_sub(2))
            .is_some_and(|s| s.iter().any(|&b| is_vowel(b)))
        {
            w.truncate(len - 1);
        }
    }
}

fn step_1b(w: &mut Vec<u8>, p1: usize) {
    let len = w.len();
    for suffix in [&b"eedly"[..], b"eed"] {
        if w.ends_with(suffix) {
            let start = len - suffix.len();
            if start >= p1 && !matches!(w.get(..start), Some(b"proc" | b"exc" | b"succ")) {
                replace_end(w, suffix.len(), b"ee");
            }
            return;
        }
    }
    let suffix_len = if w.ends_with(b"ingly") {
        5
    } else if w.ends_with(b"edly") {
        4
    } else if w.ends_with(b"ing") {
        3
    } else if w.ends_with(b"ed") {
        2
    } else {
        return;
    };
    let start = len - suffix_len;
    let stem = w.get(..start).unwrap_or_default();
    if suffix_len == 3 && w.ends_with(b"ing") {
        // dying → die; inning, outing, ... stay.
        if matches!(
            stem,
            b"inn" | b"out" | b"cann" | b"herr" | b"earr" | b"even"
        ) {
            return;
        }
        if stem.len() == 2 && stem.ends_with(b"y") && !is_vowel(at(stem, 0)) {
            replace_end(w, 4, b"ie");
            return;
        }
    }
    if !stem.iter().any(|&b| is_vowel(b)) {
        return;
    }
    w.truncate(start);
    if w.ends_with(b"at") || w.ends_with(b"bl") || w.ends_with(b"iz") {
        w.push(b'e');
        return;
    }
    let doubles: [&[u8]; 9] = [
        b"bb", b"dd", b"ff", b"gg", b"mm", b"nn", b"pp", b"rr", b"tt",
    ];
    if doubles.iter().any(|d| w.ends_with(d)) {
        if !(w.len() == 3 && matches!(at(w, 0), b'a' | b'e' | b'o')) {
            w.pop();
        }
        return;
    }
    if w.len() == p1 && short_syllable(w, w.len()) {
        w.push(b'e');
    }
}

fn step_1c(w: &mut [u8]) {
    let len = w.len();
    if len >= 3 && matches!(at(w, len - 1), b'y' | b'Y') && !is_vowel(at(w, len - 2)) {
        if let Some(last) = w.last_mut() {
            *last = b'i';
        }
    }
}

fn step_2(w: &mut Vec<u8>, p1: usize) {
    let Some((suffix, with)) = longest(w, &STEP2) else {
        return;
    };
    let start = w.len() - suffix.len();
    if start < p1 {
        return;
    }
    let before = at(w, start.wrapping_sub(1));
    let allowed = match suffix {
        b"ogi" => before == b'l',
        b"li" => matches!(
            before,
            b'c' | b'd' | b'e' | b'g' | b'h' | b'k' | b'm' | b'n' | b'r' | b't'
        ),
        _ => true,
    };
    if allowed {
        replace_end(w, suffix.len(), with);
    }
}

fn step_3(w: &mut Vec<u8>, p1: usize, p2: usize) {
    let Some((suffix, with)) = longest(w, &STEP3) else {
        return;
    };
    let start = w.len() - suffix.len();
    if start >= p1 && (suffix != b"ative" || start >= p2) {
        replace_end(w, suffix.len(), with);
    }
}

fn step_4(w: &mut Vec<u8>, p2: usize) {
    let Some(suffix) = STEP4
        .iter()
        .filter(|s| w.ends_with(s))
        .max_by_key(|s| s.len())
    else {
        return;
    };
    let start = w.len() - suffix.len();
    if start < p2 {
        return;
    }
    if *suffix == b"ion" && !matches!(at(w, start.wrapping_sub(1)), b's' | b't') {
        return;
    }
    w.truncate(start);
}

fn step_5(w: &mut Vec<u8>, p1: usize, p2: usize) {
    let len = w.len();
    let start = len.saturating_sub(1);
    match w.last() {
        Some(b'e') if start >= p2 || (start >= p1 && !short_syllable(w, start)) => {
            w.truncate(start);
        }
        Some(b'l') if start >= p2 && at(w, start.wrapping_sub(1)) == b'l' => {
            w.truncate(start);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn stems_common_words() {
        for (word, expected) in [
            ("running", "run"),
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "tie"),
            ("generously", "generous"),
            ("dying", "die"),
            ("inning", "inning"),
            ("proceed", "proceed"),
            ("hopping", "hop"),
            ("hoped", "hope"),
            ("national", "nation"),
            ("skies", "sky"),
            ("by", "by"),
            ("café", "café"),
            ("covid19", "covid19"),
        ] {
            assert_eq!(stem(word), expected, "{word}");
        }
    }
}
