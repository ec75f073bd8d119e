//! HTML fragments from feeds turned into plain text.
//!
//! Feed bodies are untrusted, often malformed HTML. This is not a browser: it is a small,
//! forgiving tokenizer that keeps the readable text, splits it into paragraphs at block
//! elements and throws away everything that is not prose (scripts, styles, embedded frames and
//! graphics, the document head). It never panics and runs in time linear in the input.

use std::borrow::Cow;

/// Elements whose whole content is discarded.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "iframe", "svg", "head", "template", "title", "object",
    "canvas", "audio", "video", "select", "textarea", "math", "xmp", "noembed", "noframes",
];

/// Dropped elements whose content is raw text: it ends only at the matching end tag, and any
/// `<` inside it is not markup.
const RAW_TEXT: &[&str] = &[
    "script", "style", "noscript", "iframe", "title", "textarea", "xmp", "noembed", "noframes",
];

/// Elements that start and end a paragraph.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "br",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
    "tr",
    "section",
    "article",
    "figure",
    "figcaption",
    "hr",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "caption",
    "header",
    "footer",
    "nav",
    "aside",
    "main",
    "address",
    "details",
    "summary",
    "form",
    "fieldset",
    "legend",
    "center",
    "body",
    "html",
    "hgroup",
];

/// Elements that separate words without ending a paragraph.
const SPACERS: &[&str] = &["td", "th", "img", "input", "wbr"];

/// The readable text of an HTML fragment as plain-text paragraphs: tags removed, entities
/// decoded, whitespace collapsed, empty paragraphs dropped.
pub fn html_to_paragraphs(html: &str) -> Vec<String> {
    let mut paragraphs = Vec::new();
    let mut current = String::new();
    walk(html, |event| match event {
        Event::Text(text) => current.push_str(&text),
        Event::Space => current.push(' '),
        Event::Break => flush(&mut current, &mut paragraphs),
        Event::Image(_) => current.push(' '),
    });
    flush(&mut current, &mut paragraphs);
    paragraphs
}

/// The readable text of an HTML fragment on one line: its paragraphs joined by a space.
pub fn html_to_text(html: &str) -> String {
    html_to_paragraphs(html).join(" ")
}

/// Plain text (no markup) split into paragraphs at blank lines, whitespace collapsed.
pub fn text_to_paragraphs(text: &str) -> Vec<String> {
    let normalised = text.replace("\r\n", "\n").replace('\r', "\n");
    normalised
        .split("\n\n")
        .map(collapse_whitespace)
        .filter(|p| !p.is_empty())
        .collect()
}

/// The `src` of the first meaningful `<img>` of a fragment (tracking pixels of size 0 or 1
/// and `data:` images are skipped), entities decoded, not yet resolved against any base URL.
pub fn first_image_src(html: &str) -> Option<String> {
    let mut found = None;
    walk(html, |event| {
        if let Event::Image(attrs) = event {
            if found.is_some() {
                return;
            }
            let tiny = |name| {
                attr_value(attrs, name)
                    .map(|v| matches!(v.trim(), "0" | "1" | "0px" | "1px"))
                    .unwrap_or(false)
            };
            if tiny("width") || tiny("height") {
                return;
            }
            let src = attr_value(attrs, "src")
                .or_else(|| attr_value(attrs, "data-src"))
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty() && !s.to_ascii_lowercase().starts_with("data:"));
            found = src;
        }
    });
    found
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

/// Decodes HTML character references: the common named ones and every numeric one.
/// Unknown references are left as they are.
pub fn decode_entities(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        match decode_one(rest) {
            Some((decoded, used)) => {
                if let Some(c) = decoded {
                    out.push(c);
                }
                rest = &rest[used..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Calls `visit` with the lowercased name and raw attribute text of every start tag of a
/// markup document, in order (comments and CDATA sections are not looked into).
pub(crate) fn for_each_start_tag(src: &str, mut visit: impl FnMut(&str, &str)) {
    let mut scanner = Scanner::new(src);
    while let Some(token) = scanner.next_token() {
        if let Token::Start { name, attrs, .. } = token {
            visit(&name, attrs);
        }
    }
}

/// The decoded value of attribute `name` in a start tag's raw attribute text.
pub(crate) fn attribute(attrs: &str, name: &str) -> Option<String> {
    attr_value(attrs, name)
}

fn flush(current: &mut String, paragraphs: &mut Vec<String>) {
    let text = collapse_whitespace(current);
    if !text.is_empty() {
        paragraphs.push(text);
    }
    current.clear();
}

/// What the walker reports to its caller.
enum Event<'a> {
    /// Decoded text.
    Text(Cow<'a, str>),
    /// A word separator.
    Space,
    /// A paragraph boundary.
    Break,
    /// An `<img>` tag, with its raw attribute text.
    Image(&'a str),
}

enum Token<'a> {
    Text(&'a str),
    Cdata(&'a str),
    Start {
        name: String,
        attrs: &'a str,
        self_closing: bool,
    },
    End {
        name: String,
    },
}

/// Walks the fragment, skipping dropped elements, and reports text, breaks and images.
fn walk<'a>(html: &'a str, mut emit: impl FnMut(Event<'a>)) {
    let mut scanner = Scanner::new(html);
    // The dropped element being skipped (not raw text: those are skipped by the scanner) and
    // how deeply it is nested in itself.
    let mut skipping: Option<(String, usize)> = None;
    while let Some(token) = scanner.next_token() {
        if let Some((name, depth)) = skipping.as_mut() {
            match &token {
                Token::Start {
                    name: n,
                    self_closing: false,
                    ..
                } if n == name => *depth += 1,
                Token::End { name: n } if n == name => {
                    *depth -= 1;
                    if *depth == 0 {
                        skipping = None;
                    }
                }
                // A missing </head> ends at <body>.
                Token::Start { name: n, .. } if name == "head" && n == "body" => skipping = None,
                // Raw text inside a skipped element must not be read as markup.
                Token::Start { name: n, .. } if RAW_TEXT.contains(&n.as_str()) => {
                    scanner.skip_raw_text(n)
                }
                _ => {}
            }
            continue;
        }
        match token {
            Token::Text(text) => emit(Event::Text(decode_entities(text))),
            Token::Cdata(text) => emit(Event::Text(Cow::Borrowed(text))),
            Token::Start {
                name,
                attrs,
                self_closing,
            } => {
                let name = name.as_str();
                if DROPPED.contains(&name) {
                    if self_closing && !RAW_TEXT.contains(&name) {
                        continue;
                    }
                    if RAW_TEXT.contains(&name) {
                        scanner.skip_raw_text(name);
                    } else {
                        skipping = Some((name.to_string(), 1));
                    }
                    emit(Event::Break);
                } else if name == "img" {
                    emit(Event::Image(attrs));
                } else if BLOCKS.contains(&name) {
                    emit(Event::Break);
                } else if SPACERS.contains(&name) {
                    emit(Event::Space);
                }
            }
            Token::End { name } => {
                let name = name.as_str();
                if BLOCKS.contains(&name) {
                    emit(Event::Break);
                } else if SPACERS.contains(&name) {
                    emit(Event::Space);
                }
            }
        }
    }
}

struct Scanner<'a> {
    src: &'a str,
    /// `src` with ASCII letters lowercased: same length, same character boundaries.
    lower: String,
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn new(src: &'a str) -> Self {
        Self {
            src,
            lower: src.to_ascii_lowercase(),
            pos: 0,
        }
    }

    fn bytes(&self) -> &[u8] {
        self.src.as_bytes()
    }

    /// Finds `needle` (ASCII, lowercase) at or after `from`, ignoring ASCII case.
    fn find_ci(&self, from: usize, needle: &str) -> Option<usize> {
        self.lower.get(from..)?.find(needle).map(|i| from + i)
    }

    /// Moves to the end tag of the raw-text element `name` (or the end of input).
    fn skip_raw_text(&mut self, name: &str) {
        let needle = format!("</{name}");
        let mut from = self.pos;
        loop {
            match self.find_ci(from, &needle) {
                Some(at) => {
                    let after = at + needle.len();
                    match self.bytes().get(after) {
                        None | Some(b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') => {
                            self.pos = at;
                            return;
                        }
                        Some(_) => from = after,
                    }
                }
                None => {
                    self.pos = self.src.len();
                    return;
                }
            }
        }
    }

    fn next_token(&mut self) -> Option<Token<'a>> {
        loop {
            let src = self.src;
            if self.pos >= src.len() {
                return None;
            }
            let start = self.pos;
            let lt = match src[start..].find('<') {
                Some(i) => start + i,
                None => {
                    self.pos = src.len();
                    return Some(Token::Text(&src[start..]));
                }
            };
            if lt > start {
                self.pos = lt;
                return Some(Token::Text(&src[start..lt]));
            }
            // At a '<'.
            let bytes = self.bytes();
            let next = bytes.get(lt + 1).copied();
            match next {
                Some(b'!') => {
                    if src[lt..].starts_with("<!--") {
                        self.pos = match src[lt + 2..].find("-->") {
                            Some(i) => lt + 2 + i + 3,
                            None => src.len(),
                        };
                        continue;
                    }
                    if self.lower[lt..].starts_with("<![cdata[") {
                        let body = lt + "<![CDATA[".len();
                        return Some(match src[body..].find("]]>") {
                            Some(i) => {
                                self.pos = body + i + 3;
                                Token::Cdata(&src[body..body + i])
                            }
                            None => {
                                self.pos = src.len();
                                Token::Cdata(&src[body..])
                            }
                        });
                    }
                    self.skip_to_gt(lt);
                    continue;
                }
                Some(b'?') => {
                    self.skip_to_gt(lt);
                    continue;
                }
                Some(b'/') => match bytes.get(lt + 2) {
                    Some(c) if c.is_ascii_alphabetic() => {
                        let name_end = tag_name_end(bytes, lt + 2);
                        let name = self.lower[lt + 2..name_end].to_string();
                        self.skip_to_gt(name_end);
                        return Some(Token::End { name });
                    }
                    _ => {
                        self.skip_to_gt(lt);
                        continue;
                    }
                },
                Some(c) if c.is_ascii_alphabetic() => {
                    let name_end = tag_name_end(bytes, lt + 1);
                    let name = self.lower[lt + 1..name_end].to_string();
                    return match tag_end(bytes, name_end) {
                        Some(gt) => {
                            self.pos = gt + 1;
                            let attrs = &src[name_end..gt];
                            let self_closing = attrs.trim_end().ends_with('/');
                            Some(Token::Start {
                                name,
                                attrs,
                                self_closing,
                            })
                        }
                        None => {
                            // An unterminated tag swallows the rest, as in a browser.
                            self.pos = src.len();
                            None
                        }
                    };
                }
                _ => {
                    // A lone '<' is text.
                    self.pos = lt + 1;
                    return Some(Token::Text(&src[lt..lt + 1]));
                }
            }
        }
    }

    /// Moves past the next '>' at or after `from` (or to the end of input).
    fn skip_to_gt(&mut self, from: usize) {
        self.pos = match self.src[from..].find('>') {
            Some(i) => from + i + 1,
            None => self.src.len(),
        };
    }
}

fn tag_name_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < bytes.len()
        && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'-' | b':' | b'_'))
    {
        i += 1;
    }
    i
}

/// The index of the '>' closing a start tag whose attributes begin at `from`; quoted
/// attribute values may contain '>'.
fn tag_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    let mut after_equals = false;
    while i < bytes.len() {
        match bytes[i] {
            b'>' => return Some(i),
            b'=' => after_equals = true,
            q @ (b'"' | b'\'') if after_equals => {
                match bytes[i + 1..].iter().position(|&b| b == q) {
                    Some(close) => i += close + 1,
                    None => return None,
                }
                after_equals = false;
            }
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => {}
            _ => after_equals = false,
        }
        i += 1;
    }
    None
}

/// The decoded value of attribute `wanted` in a start tag's raw attribute text.
fn attr_value(attrs: &str, wanted: &str) -> Option<String> {
    let bytes = attrs.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // Skip separators.
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
            i += 1;
        }
        let name_start = i;
        while i < bytes.len()
            && !bytes[i].is_ascii_whitespace()
            && !matches!(bytes[i], b'=' | b'/' | b'>')
        {
            i += 1;
        }
        if i == name_start {
            i += 1;
            continue;
        }
        let name = &attrs[name_start..i];
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = None;
        if bytes.get(i) == Some(&b'=') {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            match bytes.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let start = i + 1;
                    let end = bytes[start..]
                        .iter()
                        .position(|&b| b == q)
                        .map(|p| start + p)
                        .unwrap_or(bytes.len());
                    value = Some(&attrs[start..end]);
                    i = (end + 1).min(bytes.len());
                }
                Some(_) => {
                    let start = i;
                    while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    value = Some(&attrs[start..i]);
                }
                None => {}
            }
        }
        if name.eq_ignore_ascii_case(wanted) {
            return Some(decode_entities(value.unwrap_or("")).into_owned());
        }
    }
    None
}

/// Decodes the reference at the start of `s` (which begins with '&'). Returns the character
/// (None for one that decodes to nothing) and the bytes used, or None when it is no reference.
fn decode_one(s: &str) -> Option<(Option<char>, usize)> {
    let bytes = s.as_bytes();
    if bytes.get(1) == Some(&b'#') {
        let (hex, digits_start) = match bytes.get(2) {
            Some(b'x' | b'X') => (true, 3),
            _ => (false, 2),
        };
        let mut i = digits_start;
        let mut value: u32 = 0;
        while let Some(&b) = bytes.get(i) {
            let digit = if hex {
                (b as char).to_digit(16)
            } else {
                (b as char).to_digit(10)
            };
            let Some(digit) = digit else { break };
            value = value
                .saturating_mul(if hex { 16 } else { 10 })
                .saturating_add(digit);
            i += 1;
        }
        if i == digits_start {
            return None;
        }
        if bytes.get(i) == Some(&b';') {
            i += 1;
        }
        return Some((Some(numeric_char(value)), i));
    }
    let mut i = 1;
    while i < bytes.len() && i <= 32 && bytes[i].is_ascii_alphanumeric() {
        i += 1;
    }
    if i == 1 {
        return None;
    }
    let name = &s[1..i];
    if bytes.get(i) == Some(&b';') {
        return named_entity(name).map(|c| (c, i + 1));
    }
    // A few legacy references are recognised without their semicolon.
    let legacy = match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "nbsp" => '\u{a0}',
        _ => return None,
    };
    Some((Some(legacy), i))
}

fn numeric_char(value: u32) -> char {
    // The C1 range is read as Windows-1252, as browsers do.
    const CP1252: [u32; 32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013,
        0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ];
    let value = match value {
        0 => 0xFFFD,
        0x80..=0x9F => CP1252[(value - 0x80) as usize],
        v => v,
    };
    char::from_u32(value).unwrap_or('\u{FFFD}')
}

/// Latin-1 names in code point order, from U+00A0.
const LATIN1: [&str; 96] = [
    "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf",
    "laquo", "not", "shy", "reg", "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro",
    "para", "middot", "cedil", "sup1", "ordm", "raquo", "frac14", "frac12", "frac34", "iquest",
    "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil", "Egrave", "Eacute",
    "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute",
    "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute",
    "THORN", "szlig", "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig", "ccedil",
    "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde",
    "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute", "ucirc",
    "uuml", "yacute", "thorn", "yuml",
];

const OTHER_NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("OElig", 'Œ'),
    ("oelig", 'œ'),
    ("Scaron", 'Š'),
    ("scaron", 'š'),
    ("Yuml", 'Ÿ'),
    ("fnof", 'ƒ'),
    ("circ", 'ˆ'),
    ("tilde", '˜'),
    ("ensp", '\u{2002}'),
    ("emsp", '\u{2003}'),
    ("thinsp", '\u{2009}'),
    ("zwnj", '\u{200C}'),
    ("zwj", '\u{200D}'),
    ("lrm", '\u{200E}'),
    ("rlm", '\u{200F}'),
    ("ndash", '–'),
    ("mdash", '—'),
    ("lsquo", '‘'),
    ("rsquo", '’'),
    ("sbquo", '‚'),
    ("ldquo", '“'),
    ("rdquo", '”'),
    ("bdquo", '„'),
    ("dagger", '†'),
    ("Dagger", '‡'),
    ("bull", '•'),
    ("hellip", '…'),
    ("permil", '‰'),
    ("prime", '′'),
    ("Prime", '″'),
    ("lsaquo", '‹'),
    ("rsaquo", '›'),
    ("oline", '‾'),
    ("frasl", '⁄'),
    ("euro", '€'),
    ("trade", '™'),
    ("larr", '←'),
    ("uarr", '↑'),
    ("rarr", '→'),
    ("darr", '↓'),
    ("harr", '↔'),
    ("minus", '−'),
    ("le", '≤'),
    ("ge", '≥'),
    ("ne", '≠'),
    ("asymp", '≈'),
    ("infin", '∞'),
    ("hyphen", '‐'),
    ("dash", '‐'),
    ("half", '½'),
    ("starf", '★'),
    ("check", '✓'),
];

/// The character a named reference stands for; `Some(None)` for references that decode to
/// nothing visible (the soft hyphen).
fn named_entity(name: &str) -> Option<Option<char>> {
    if name == "shy" {
        return Some(None);
    }
    if let Some(index) = LATIN1.iter().position(|n| *n == name) {
        return char::from_u32(0xA0 + index as u32).map(Some);
    }
    OTHER_NAMED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, c)| Some(*c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_named_and_numeric_entities() {
        let cases = [
            ("Fish &amp; chips", "Fish & chips"),
            ("&lt;b&gt; &quot;x&quot; &apos;y&apos;", "<b> \"x\" 'y'"),
            ("a&nbsp;b", "a\u{a0}b"),
            ("&mdash;&ndash;&hellip;", "—–…"),
            ("&lsquo;q&rsquo; &ldquo;q&rdquo;", "‘q’ “q”"),
            ("&copy; &reg; &trade; &euro;", "© ® ™ €"),
            ("caf&eacute; &Uuml;ber &szlig;", "café Über ß"),
            ("&#8217;&#x2019;&#X2019;", "’’’"),
            ("&#146;", "’"),
            ("&#0;&#xD800;&#99999999999;", "\u{FFFD}\u{FFFD}\u{FFFD}"),
            ("AT&T &unknown; & &#; &#x;", "AT&T &unknown; & &#; &#x;"),
            ("&amp tail", "& tail"),
            ("co&shy;operate", "cooperate"),
            ("&amp;amp;", "&amp;"),
        ];
        for (input, expected) in cases {
            assert_eq!(decode_entities(input), expected, "input {input:?}");
        }
    }

    #[test]
    fn paragraphs_from_blocks() {
        let html = "<p>One <b>bold</b> move.</p><p>Two<br>Three</p><div>Four<div>Five</div></div>\
                    <ul><li>a</li><li>b</li></ul><h2>Head</h2>tail";
        assert_eq!(
            html_to_paragraphs(html),
            vec![
                "One bold move.",
                "Two",
                "Three",
                "Four",
                "Five",
                "a",
                "b",
                "Head",
                "tail"
            ]
        );
    }

    #[test]
    fn drops_scripts_styles_and_friends() {
        let html = r#"<html><head><title>T</title><style>p { color: red }</style></head>
            <body><p>Keep</p><script type="text/javascript">var x = "<p>no</p>"; if (a < b) {}</script>
            <noscript><p>Enable JS</p></noscript><iframe src="x">frame</iframe>
            <svg viewBox="0 0 1 1"><svg><text>inner</text></svg><text>outer</text></svg>
            <SCRIPT>alert(1)</SCRIPT ><p>Also kept</p></body></html>"#;
        assert_eq!(html_to_paragraphs(html), vec!["Keep", "Also kept"]);
    }

    #[test]
    fn head_without_end_tag_ends_at_body() {
        assert_eq!(
            html_to_paragraphs("<head><meta charset=utf-8><body><p>Body text"),
            vec!["Body text"]
        );
    }

    #[test]
    fn comments_cdata_doctype_and_processing_instructions() {
        let html = "<!DOCTYPE html><?xml version=\"1.0\"?><!-- hidden <p>x</p> -->\
                    <p>a <![CDATA[b & <c>]]> d</p><!-- unterminated";
        assert_eq!(html_to_paragraphs(html), vec!["a b & <c> d"]);
    }

    #[test]
    fn attributes_with_angle_brackets_and_lone_less_than() {
        let html = r#"<p title="a > b" data-x='<p>'>x < y and y > z</p>"#;
        assert_eq!(html_to_paragraphs(html), vec!["x < y and y > z"]);
    }

    #[test]
    fn whitespace_collapsed_and_empty_paragraphs_dropped() {
        let html = "<p>  a \n\t b&nbsp;&nbsp;c </p><p> </p><p>&nbsp;</p><div><p></p></div>\
                    <table><tr><td>x</td><td>y</td></tr></table>";
        assert_eq!(html_to_paragraphs(html), vec!["a b c", "x y"]);
        assert_eq!(html_to_text("<p>a</p><p>b</p>"), "a b");
        assert!(html_to_paragraphs("").is_empty());
        assert!(html_to_paragraphs("   ").is_empty());
    }

    #[test]
    fn inline_tags_do_not_split_words() {
        assert_eq!(
            html_to_text("<b>bo</b><i>ld</i> <a href=x>link</a>"),
            "bold link"
        );
    }

    #[test]
    fn first_image_skips_pixels_and_data_urls() {
        let html = r#"<img src="data:image/png;base64,AAAA"><img width="1" height="1" src="/pixel.gif">
            <p><img alt="x" src='/a.jpg?x=1&amp;y=2'></p><img src="/b.jpg">"#;
        assert_eq!(first_image_src(html).as_deref(), Some("/a.jpg?x=1&y=2"));
        assert_eq!(first_image_src("<p>none</p>"), None);
        assert_eq!(
            first_image_src("<script><img src=/no.jpg></script><img src=/yes.jpg>").as_deref(),
            Some("/yes.jpg")
        );
    }

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

    /// Odd and malformed inputs: nothing may panic, and no markup may leak.
    #[test]
    fn survives_malformed_input() {
        let mut inputs: Vec<String> = [
            "<",
            ">",
            "<<>>",
            "</",
            "</>",
            "<!",
            "<!-",
            "<!--",
            "<!-->",
            "<![CDATA[",
            "<![CDATA[x",
            "<?",
            "&",
            "&#",
            "&#x",
            "&#xZZ;",
            "&;",
            "<a",
            "<a href=\"",
            "<a href='x",
            "<p",
            "<p/",
            "</p",
            "<script>",
            "<script>x</scrip",
            "<style",
            "<svg><svg>",
            "<head>",
            "<b><i></b></i>",
            "é<é>é",
            "<p>日本語</p>",
            "<\u{0}>",
            "&#1114112;",
            "<a =\"\">x</a>",
            "<img src=>",
            "<img src",
            "\u{FEFF}<p>bom</p>",
            "<p>\u{1F600}</p>",
            "<div<p>>x",
            "<<p>>",
            "a</ b>c",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Every split point of a realistic fragment (truncated documents are common).
        let doc = r#"<div class="a"><p>Caf&eacute; <b>bold</b> &amp; <a href="/x?a=1&b=2">link</a></p><!-- c --><script>if(a<b){}</script><img src="/i.jpg"><![CDATA[cd]]></div>"#;
        for i in 0..=doc.len() {
            if doc.is_char_boundary(i) {
                inputs.push(doc[..i].to_string());
                inputs.push(doc[i..].to_string());
            }
        }
        // A small deterministic pseudo-random soup of markup fragments.
        let pieces = [
            "<", ">", "/", "!", "-", "&", ";", "#", "x", "p", "script", "\"", "'", "=", "[", "]",
            "CDATA", " ", "é", "amp", "svg", "\n", "?", "br",
        ];
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..3000 {
            let mut s = String::new();
            for _ in 0..(seed % 40) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                s.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            inputs.push(s);
        }
        for input in &inputs {
            let paragraphs = html_to_paragraphs(input);
            for p in &paragraphs {
                assert!(!p.is_empty());
                assert_eq!(p.trim(), p);
                assert!(!p.contains("  "));
            }
            let _ = first_image_src(input);
            let _ = decode_entities(input);
            let _ = truncate_words(input, 7);
        }
    }
}
