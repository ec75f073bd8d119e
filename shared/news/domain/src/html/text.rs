//! Plain-text helpers: paragraphs of text without markup, whitespace, and cutting at a word.

/// Plain text (no markup) split into paragraphs at blank lines, whitespace collapsed.
pub fn text_to_paragraphs(text: &str) -> Vec<String> {
    let normalised = text.replace("\r\n", "\n").replace('\r', "\n");
    normalised
        .split("\n\n")
        .map(collapse_whitespace)
        .filter(|p| !p.is_empty())
        .collect()
}

/// Collapses every run of whitespace (and control characters) to one space and trims; drops
/// invisible characters (soft hyphen, zero-width space, byte-order mark).
pub fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if matches!(c, '\u{00AD}' | '\u{200B}' | '\u{FEFF}') {
            continue;
        }
        if c.is_whitespace() || c.is_control() {
            pending_space = true;
            continue;
        }
        if pending_space && !out.is_empty() {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    out
}

/// Shortens plain text to at most `max_chars` characters, cutting at a word boundary when one
/// is reasonably close and marking the cut with an ellipsis (which counts towards the limit).
pub fn truncate_words(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    if max_chars == 0 {
        return String::new();
    }
    let keep = max_chars - 1; // room for the ellipsis
    let cut = text
        .char_indices()
        .nth(keep)
        .map(|(i, _)| i)
        .unwrap_or(text.len());
    let head = &text[..cut];
    // Cut at the last space if it is in the second half; a single long word is cut hard.
    let head = match head.rfind(' ') {
        Some(space) if head[..space].chars().count() >= keep / 2 => &head[..space],
        _ => head,
    };
    let head = head.trim_end_matches(|c: char| c.is_whitespace() || ",;:-–—".contains(c));
    format!("{head}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_paragraphs() {
        assert_eq!(
            text_to_paragraphs("One\nline.\r\n\r\nTwo  words\n\n\n\n"),
            vec!["One line.", "Two words"]
        );
    }

    #[test]
    fn truncates_at_word_boundary() {
        assert_eq!(truncate_words("short", 10), "short");
        assert_eq!(
            truncate_words("the quick brown fox jumps", 12),
            "the quick…"
        );
        assert_eq!(truncate_words("abcdefghijklmnop", 8), "abcdefg…");
        assert_eq!(truncate_words("héllo wörld ünïcode", 13), "héllo wörld…");
        assert!(truncate_words(&"word ".repeat(300), 500).chars().count() <= 500);
    }
}
