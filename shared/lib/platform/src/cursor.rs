//! List cursors that name a place in a newest-first list by a row's sort key: lowercase hex
//! of the key's printable ASCII, so a cursor is opaque text and any text its pattern allows
//! is a place in the list (the rows sorted before it), never an error past validation.

/// The most characters of a list cursor: the hex of a sort key of up to 200 characters.
pub const MAX_CURSOR_CHARS: usize = 400;

/// A list cursor as the contract gives it: lowercase hex of printable ASCII (a sort key).
pub const CURSOR_PATTERN: &str = "^(?:[2-7][0-9a-f]){1,200}$";

/// The cursor of the page after the row with this sort key.
pub fn encode_cursor(sort_key: &str) -> String {
    sort_key.bytes().map(|b| format!("{b:02x}")).collect()
}

/// The sort key a cursor names: any text [`CURSOR_PATTERN`] allows, nothing else.
pub fn decode_cursor(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_CURSOR_CHARS || !bytes.len().is_multiple_of(2) {
        return None;
    }
    let hex = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    };
    bytes
        .chunks_exact(2)
        .map(|pair| match *pair {
            [high, low] => {
                let high = hex(high).filter(|h| (2..=7).contains(h))?;
                Some(char::from(high * 16 + hex(low)?))
            }
            _ => None,
        })
        .collect()
}

/// The most characters of a text cursor: the hex of a sort key of up to 400 bytes of UTF-8.
pub const MAX_TEXT_CURSOR_CHARS: usize = 800;

/// A text cursor as the contract gives it: lowercase hex of bytes (a sort key in UTF-8).
pub const TEXT_CURSOR_PATTERN: &str = "^(?:[0-9a-f]{2}){1,400}$";

/// The sort key a text cursor (of a list keyed by any text, such as names) names: any text
/// [`TEXT_CURSOR_PATTERN`] allows, bytes that are not UTF-8 read as U+FFFD (still a place
/// in the list); nothing else.
pub fn decode_text_cursor(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_TEXT_CURSOR_CHARS || !bytes.len().is_multiple_of(2) {
        return None;
    }
    if !bytes
        .iter()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
    {
        return None;
    }
    let raw = (0..bytes.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    Some(String::from_utf8_lossy(&raw).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_are_exactly_their_pattern() {
        let sk = "2026-11-28T10:00:00.000Z#00000000-0000-4000-8000-000000000001";
        let text = encode_cursor(sk);
        assert!(text.len() <= MAX_CURSOR_CHARS);
        assert_eq!(decode_cursor(&text).as_deref(), Some(sk));
        // Any printable ASCII the pattern allows is a cursor: the rows sorted before it.
        assert_eq!(decode_cursor("20").as_deref(), Some(" "));
        assert_eq!(decode_cursor("7f").as_deref(), Some("\u{7f}"));
        assert!(decode_cursor(&"7a".repeat(200)).is_some());
        for junk in [
            "",
            "2",
            "1f",
            "80",
            "3A",
            "zz",
            "3g",
            "c3a9",
            &"7a".repeat(201),
        ] {
            assert_eq!(decode_cursor(junk), None, "{junk}");
        }
    }

    #[test]
    fn text_cursors_are_exactly_their_pattern() {
        let name = "Économie & société";
        assert_eq!(
            decode_text_cursor(&encode_cursor(name)).as_deref(),
            Some(name)
        );
        assert_eq!(decode_text_cursor("ff").as_deref(), Some("\u{fffd}"));
        assert_eq!(decode_text_cursor("00").as_deref(), Some("\u{0}"));
        assert!(decode_text_cursor(&"e9".repeat(400)).is_some());
        for junk in ["", "2", "3A", "zz", "+1", &"7a".repeat(401)] {
            assert_eq!(decode_text_cursor(junk), None, "{junk}");
        }
    }
}
