//! A runbook's text into retrievable chunks: paragraphs (blank-line separated) packed up to
//! [`TARGET_CHARS`]; a heading (`#`, Markdown) starts a new chunk once the current one holds
//! [`MIN_BEFORE_HEADING`] characters, so a section's steps stay with their title; a paragraph
//! longer than [`MAX_CHARS`] is cut at sentence or line ends, and a sentence longer than that
//! at a space (or, without one, at [`TARGET_CHARS`]). No overlap: every character is in one
//! chunk, so a hit cites exactly one place.

/// What a chunk is filled to, in characters.
pub const TARGET_CHARS: usize = 1_200;
/// The longest chunk, in characters (a long paragraph is cut below it).
pub const MAX_CHARS: usize = 1_600;
/// A heading starts a new chunk when the current one is at least this long.
pub const MIN_BEFORE_HEADING: usize = 200;

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// `text` split into chunks (trimmed, none empty, each at most [`MAX_CHARS`] characters).
pub fn chunks(text: &str) -> Vec<String> {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    for paragraph in paragraphs(&normalized) {
        for piece in pieces(paragraph) {
            let heading = piece.starts_with('#');
            let fits = chars(&current) + 2 + chars(&piece) <= TARGET_CHARS;
            let flush = !current.is_empty()
                && (!fits || (heading && chars(&current) >= MIN_BEFORE_HEADING));
            if flush {
                out.push(std::mem::take(&mut current));
            }
            if !current.is_empty() {
                current.push_str("\n\n");
            }
            current.push_str(&piece);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The paragraphs of `text`: runs of non-blank lines, trimmed.
fn paragraphs(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut start: Option<usize> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        match (blank, start) {
            (true, Some(s)) => {
                found.push(text.get(s..offset).unwrap_or("").trim());
                start = None;
            }
            (false, None) => start = Some(offset),
            _ => {}
        }
        offset += line.len();
    }
    if let Some(s) = start {
        found.push(text.get(s..).unwrap_or("").trim());
    }
    found.retain(|p| !p.is_empty());
    found
}

/// A paragraph as pieces of at most [`MAX_CHARS`]: whole when it fits, else its sentences
/// (and lines) packed up to [`TARGET_CHARS`].
fn pieces(paragraph: &str) -> Vec<String> {
    if chars(paragraph) <= MAX_CHARS {
        return vec![paragraph.to_string()];
    }
    let mut out = Vec::new();
    let mut current = String::new();
    for sentence in sentences(paragraph) {
        for part in hard_split(sentence) {
            if !current.is_empty() && chars(&current) + 1 + chars(&part) > TARGET_CHARS {
                out.push(std::mem::take(&mut current));
            }
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(&part);
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Sentences and lines: cut after `.`, `!` or `?` followed by whitespace, and at line ends.
fn sentences(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut start = 0;
    let mut previous: Option<char> = None;
    for (i, c) in text.char_indices() {
        let cut = c == '\n' || (c.is_whitespace() && matches!(previous, Some('.' | '!' | '?')));
        if cut {
            let sentence = text.get(start..i).unwrap_or("").trim();
            if !sentence.is_empty() {
                found.push(sentence);
            }
            start = i + c.len_utf8();
        }
        previous = Some(c);
    }
    let last = text.get(start..).unwrap_or("").trim();
    if !last.is_empty() {
        found.push(last);
    }
    found
}

/// A sentence as parts of at most [`MAX_CHARS`]: cut at the last space before
/// [`TARGET_CHARS`], or at [`TARGET_CHARS`] characters when there is none.
fn hard_split(sentence: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest: Vec<char> = sentence.chars().collect();
    while rest.len() > MAX_CHARS {
        let window = rest.get(..TARGET_CHARS).unwrap_or(&rest);
        let cut = window
            .iter()
            .rposition(|c| c.is_whitespace())
            .filter(|i| *i > TARGET_CHARS / 2)
            .unwrap_or(TARGET_CHARS);
        let head: String = rest.drain(..cut).collect();
        out.push(head.trim().to_string());
        while rest.first().is_some_and(|c| c.is_whitespace()) {
            rest.remove(0);
        }
    }
    let tail: String = rest.into_iter().collect();
    if !tail.trim().is_empty() {
        out.push(tail.trim().to_string());
    }
    out.retain(|p| !p.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_paragraphs_pack_into_one_chunk() {
        let text = "# Disk full\n\nCheck df -h.\r\n\r\n\n  Delete old logs.  \n";
        assert_eq!(
            chunks(text),
            vec!["# Disk full\n\nCheck df -h.\n\nDelete old logs."]
        );
        assert!(chunks(" \n\n \t").is_empty());
    }

    #[test]
    fn chunks_stay_under_the_bounds_and_lose_nothing() {
        let sentence = "The replica lags behind the primary by several seconds. ";
        let paragraph = sentence.repeat(40);
        let text = format!("{paragraph}\n\n{}\n\n{paragraph}", "word ".repeat(700));
        let got = chunks(&text);
        assert!(got.len() >= 4, "{}", got.len());
        for chunk in &got {
            let n = chars(chunk);
            assert!(n > 0 && n <= MAX_CHARS, "{n}");
        }
        let words = |t: &str| t.split_whitespace().count();
        assert_eq!(got.iter().map(|c| words(c)).sum::<usize>(), words(&text));
    }

    #[test]
    fn a_word_longer_than_a_chunk_is_cut() {
        let text = "x".repeat(4_000);
        let got = chunks(&text);
        assert_eq!(got.iter().map(|c| chars(c)).sum::<usize>(), 4_000);
        assert!(got.iter().all(|c| chars(c) <= MAX_CHARS));
        let accents = "é".repeat(3_000);
        assert!(chunks(&accents).iter().all(|c| chars(c) <= MAX_CHARS));
    }

    #[test]
    fn headings_start_sections() {
        let intro = "Intro text. ".repeat(20);
        let text = format!("# Runbook\n\n{intro}\n\n## Failover\n\nPromote the replica.");
        let got = chunks(&text);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[1].starts_with("## Failover"));
        // A heading right after a short chunk stays with it.
        assert_eq!(chunks("# A\n\n## B\n\nstep").len(), 1);
    }
}
