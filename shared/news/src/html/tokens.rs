//! The HTML tokenizer: the tokenization rules of the HTML standard that matter for reading
//! the text, images and links of feed HTML, in one forward pass (time linear in the input,
//! no error is fatal).
//!
//! - Start tags: lowercased name, attributes (names lowercased; double-quoted, single-quoted,
//!   unquoted or no value; references decoded; the first of duplicates kept) and the
//!   self-closing flag. End tags: the lowercased name (attributes are read and ignored).
//! - Text, references decoded ([`super::references`]). A `<` that opens no tag (`< p`, `<3`,
//!   `<` at the end) is text; a tag cut off by the end of the input is dropped, as browsers do.
//! - Comments, doctypes, processing instructions and other `<!...>` / `<?...>` declarations
//!   are dropped; `<![CDATA[...]]>` is text, as an XML reader sees it (feeds wrap HTML in it).
//! - The content of `script`, `style`, `xmp`, `iframe`, `noembed`, `noframes` and `noscript`
//!   is text up to the matching end tag (for `script`, one not hidden in an old-style
//!   `<!-- ... -->`); of `title` and `textarea` too, references decoded; after `plaintext`
//!   everything is text. A self-closing spelling opens them as well (as html5gum's naive state
//!   switching did: this tokenizer has no tree to know the foreign elements where it does not).
//!
//! Left out, because the readers of this module never see the difference: the tree-building
//! stage (which this is not), the CR LF → LF and NUL → U+FFFD input clean-up in text (it is
//! done in names and attribute values; whitespace and controls in text are collapsed later),
//! doctype fields, parse errors and spans.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::references::decode;

/// A start tag's attributes, by lowercased name, values decoded.
pub(crate) type Attributes = BTreeMap<String, String>;

/// A token of markup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token<'a> {
    StartTag(StartTag),
    /// The lowercased name of an end tag.
    EndTag(String),
    /// Text, references decoded (a run of text may come as several tokens).
    Text(Cow<'a, str>),
}

/// A start tag, `<name attributes>` or `<name attributes/>`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct StartTag {
    /// Lowercased.
    pub(super) name: String,
    pub(super) attributes: Attributes,
    /// Written `<name/>` (which opens a raw-text element all the same).
    pub(super) self_closing: bool,
}

/// Elements whose content is text up to their end tag, and whether its references are
/// decoded in it (RCDATA) or not (RAWTEXT and script data).
const RAW_TEXT: &[(&str, bool)] = &[
    ("style", false),
    ("xmp", false),
    ("iframe", false),
    ("noembed", false),
    ("noframes", false),
    ("noscript", false),
    ("title", true),
    ("textarea", true),
];

/// The tokens of a markup document.
pub(super) fn tokens(src: &str) -> Tokens<'_> {
    Tokens {
        src,
        pos: 0,
        after_text: None,
        raw_text: None,
    }
}

/// The tokens of a markup document, an iterator.
#[derive(Debug)]
pub(super) struct Tokens<'a> {
    src: &'a str,
    /// Where the next token starts.
    pos: usize,
    /// A tag found after a run of text: the next token.
    after_text: Option<Token<'a>>,
    /// The raw-text element just opened: its content is read next.
    raw_text: Option<RawText>,
}

/// How the content of a raw-text element ends.
#[derive(Debug, Clone, Copy)]
enum RawText {
    /// At the end tag of this name (lowercase); references decoded or not.
    EndTag(&'static str, bool),
    /// At `</script>`, unless it is inside `<!--` `<script>` ... `-->` (script data).
    Script,
    /// With the document (`plaintext`).
    Never,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        if let Some(token) = self.after_text.take() {
            return Some(token);
        }
        let src = self.src;
        if let Some(raw_text) = self.raw_text.take() {
            let rest = src.get(self.pos..).unwrap_or_default();
            let (content, references) = match raw_text {
                RawText::EndTag(name, references) => (
                    rest.get(..raw_text_len(rest, name)).unwrap_or(rest),
                    references,
                ),
                RawText::Script => (rest.get(..script_len(rest)).unwrap_or(rest), false),
                RawText::Never => (rest, false),
            };
            self.pos += content.len();
            if !content.is_empty() {
                return Some(Token::Text(if references {
                    decode(content, false)
                } else {
                    Cow::Borrowed(content)
                }));
            }
        }
        let bytes = src.as_bytes();
        let mut text_start = self.pos;
        let mut from = self.pos;
        while let Some(lt) = find_byte(bytes, from, b'<') {
            let Some((token, end)) = self.markup(lt) else {
                from = lt + 1; // not markup: the `<` is text
                continue;
            };
            self.pos = end;
            if lt > text_start {
                self.after_text = token;
                return Some(text(src.get(text_start..lt).unwrap_or_default()));
            }
            if token.is_some() {
                return token;
            }
            // A comment or the like between two runs of text.
            text_start = end;
            from = end;
        }
        self.pos = src.len();
        let rest = src.get(text_start..).unwrap_or_default();
        (!rest.is_empty()).then(|| text(rest))
    }
}

impl<'a> Tokens<'a> {
    /// The markup starting with the `<` at `lt`: its token (none for a comment, a doctype or
    /// a tag cut off by the end of the input) and where it ends; `None` if the `<` is text.
    /// Opening a raw-text element switches to reading its content.
    fn markup(&mut self, lt: usize) -> Option<(Option<Token<'a>>, usize)> {
        let src = self.src;
        let bytes = src.as_bytes();
        let at = lt + 1;
        match *bytes.get(at)? {
            b if b.is_ascii_alphabetic() => {
                let Some((tag, end)) = tag(src, at) else {
                    return Some((None, src.len()));
                };
                self.raw_text = raw_text(&tag.name);
                Some((Some(Token::StartTag(tag)), end))
            }
            b'/' => match *bytes.get(at + 1)? {
                b if b.is_ascii_alphabetic() => Some(match tag(src, at + 1) {
                    Some((tag, end)) => (Some(Token::EndTag(tag.name)), end),
                    None => (None, src.len()),
                }),
                // `</>` is dropped.
                b'>' => Some((None, at + 2)),
                _ => Some((None, bogus_comment_end(bytes, at + 1))),
            },
            b'!' => {
                let rest = bytes.get(at + 1..).unwrap_or_default();
                if rest.starts_with(b"--") {
                    Some((None, comment_end(bytes, at + 3)))
                } else if rest.starts_with(b"[CDATA[") {
                    let start = at + 8;
                    let content = src.get(start..).unwrap_or_default();
                    Some(match content.find("]]>") {
                        Some(len) => (
                            cdata(content.get(..len).unwrap_or_default()),
                            start + len + 3,
                        ),
                        None => (cdata(content), src.len()),
                    })
                } else {
                    Some((None, bogus_comment_end(bytes, at + 1)))
                }
            }
            b'?' => Some((None, bogus_comment_end(bytes, at + 1))),
            _ => None,
        }
    }
}

/// The tag whose name starts at `start` (after `<` or `</`) and where it ends; `None` when
/// the input ends inside it.
fn tag(src: &str, start: usize) -> Option<(StartTag, usize)> {
    let bytes = src.as_bytes();
    let name_end = find(bytes, start, |b| is_space(b) || b == b'/' || b == b'>')?;
    let mut tag = StartTag {
        name: clean(src.get(start..name_end)?).to_ascii_lowercase(),
        ..StartTag::default()
    };
    let mut at = name_end;
    loop {
        at = skip_spaces(bytes, at);
        match *bytes.get(at)? {
            b'>' => return Some((tag, at + 1)),
            b'/' => {
                at += 1;
                tag.self_closing = *bytes.get(at)? == b'>';
            }
            _ => {
                // The first character of a name may be anything, `=` included.
                let name_end = find(bytes, at + 1, |b| {
                    is_space(b) || matches!(b, b'/' | b'>' | b'=')
                })?;
                let name = clean(src.get(at..name_end)?).to_ascii_lowercase();
                at = skip_spaces(bytes, name_end);
                let mut value = String::new();
                if *bytes.get(at)? == b'=' {
                    at = skip_spaces(bytes, at + 1);
                    match *bytes.get(at)? {
                        quote @ (b'"' | b'\'') => {
                            let close = find_byte(bytes, at + 1, quote)?;
                            value = attribute_value(src.get(at + 1..close)?);
                            at = close + 1;
                        }
                        // `<a href=>`: an empty value.
                        b'>' => {}
                        _ => {
                            let end = find(bytes, at, |b| is_space(b) || b == b'>')?;
                            value = attribute_value(src.get(at..end)?);
                            at = end;
                        }
                    }
                }
                tag.attributes.entry(name).or_insert(value);
            }
        }
    }
}

/// How the content of an element of this (lowercase) name is read, if it is raw text.
fn raw_text(name: &str) -> Option<RawText> {
    match name {
        "plaintext" => return Some(RawText::Never),
        "script" => return Some(RawText::Script),
        _ => {}
    }
    RAW_TEXT
        .iter()
        .find(|(raw, _)| *raw == name)
        .map(|&(raw, references)| RawText::EndTag(raw, references))
}

/// The length of the content of a raw-text element: up to its end tag, or all of `src`.
fn raw_text_len(src: &str, name: &str) -> usize {
    let bytes = src.as_bytes();
    let mut from = 0;
    while let Some(lt) = find_byte(bytes, from, b'<') {
        if tag_named(bytes, lt + 1, b"/", name) {
            return lt;
        }
        from = lt + 1;
    }
    src.len()
}

/// The length of the content of a `script`: up to `</script>`, except that an old-style
/// `<!-- document.write("<script>...</script>") -->` hides the end tags it holds, as in
/// browsers (the script data escape states of the standard).
fn script_len(src: &str) -> usize {
    #[derive(PartialEq)]
    enum State {
        Data,
        /// After `<!--`.
        Escaped,
        /// After `<!--` and `<script>`: `</script>` goes back to `Escaped`.
        DoubleEscaped,
    }
    let bytes = src.as_bytes();
    let mut state = State::Data;
    let mut dashes = 0; // the `-` just before, which with a `>` close the `<!--`
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        match (&state, b) {
            (_, b'-') => {
                dashes += 1;
                at += 1;
                continue;
            }
            (State::Escaped | State::DoubleEscaped, b'>') if dashes >= 2 => state = State::Data,
            (State::Data, b'<') if bytes.get(at..).is_some_and(|r| r.starts_with(b"<!--")) => {
                state = State::Escaped;
                at += 4;
                dashes = 2; // `<!-->` is closed at once
                continue;
            }
            (State::Data | State::Escaped, b'<') if tag_named(bytes, at + 1, b"/", "script") => {
                return at;
            }
            (State::Escaped, b'<') if tag_named(bytes, at + 1, b"", "script") => {
                state = State::DoubleEscaped;
            }
            (State::DoubleEscaped, b'<') if tag_named(bytes, at + 1, b"/", "script") => {
                state = State::Escaped;
            }
            _ => {}
        }
        dashes = 0;
        at += 1;
    }
    src.len()
}

/// Whether `bytes` from `at` hold `prefix` and then the tag name `name` (in any case) ended
/// by a space, `/` or `>`: `</name>` or `<name ` after the `<`.
fn tag_named(bytes: &[u8], at: usize, prefix: &[u8], name: &str) -> bool {
    let name_at = at + prefix.len();
    let name_end = name_at + name.len();
    bytes.get(at..name_at) == Some(prefix)
        && bytes
            .get(name_at..name_end)
            .is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes()))
        && bytes
            .get(name_end)
            .is_some_and(|&b| is_space(b) || b == b'/' || b == b'>')
}

/// Where a comment whose text starts at `start` (after `<!--`) ends: after `-->` or `--!>`
/// (`<!-->` and `<!--->` are empty comments), or at the end of the input.
fn comment_end(bytes: &[u8], start: usize) -> usize {
    let rest = bytes.get(start..).unwrap_or_default();
    if rest.starts_with(b">") {
        return start + 1;
    }
    if rest.starts_with(b"->") {
        return start + 2;
    }
    let mut from = start;
    while let Some(dash) = find_byte(bytes, from, b'-') {
        let after = bytes.get(dash..).unwrap_or_default();
        if after.starts_with(b"-->") {
            return dash + 3;
        }
        if after.starts_with(b"--!>") {
            return dash + 4;
        }
        from = dash + 1;
    }
    bytes.len()
}

/// Where a bogus comment (a doctype, `<?xml ...?>`, `</3`) ends: after the next `>`.
fn bogus_comment_end(bytes: &[u8], start: usize) -> usize {
    find_byte(bytes, start, b'>').map_or(bytes.len(), |gt| gt + 1)
}

/// An attribute value as a browser sees it: cleaned up, references decoded.
fn attribute_value(src: &str) -> String {
    decode(&clean(src), true).into_owned()
}

/// The standard's clean-up of the input, for the names and values callers read as they are
/// (text is not cleaned up: whitespace and controls are collapsed later): CR LF and CR
/// become LF, NUL becomes U+FFFD.
fn clean(src: &str) -> Cow<'_, str> {
    if !src.contains(['\r', '\0']) {
        return Cow::Borrowed(src);
    }
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push('\n');
            }
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn text(src: &str) -> Token<'_> {
    Token::Text(decode(src, false))
}

/// A CDATA section's content: text as it is (an empty one is no token).
fn cdata(content: &str) -> Option<Token<'_>> {
    (!content.is_empty()).then_some(Token::Text(Cow::Borrowed(content)))
}

/// Whitespace in HTML (with CR, which the standard turns into LF first).
fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

fn skip_spaces(bytes: &[u8], from: usize) -> usize {
    find(bytes, from, |b| !is_space(b)).unwrap_or(bytes.len())
}

/// The index of the first byte at or after `from` that matches.
fn find(bytes: &[u8], from: usize, matches: impl Fn(u8) -> bool) -> Option<usize> {
    let position = bytes.get(from..)?.iter().position(|&b| matches(b))?;
    Some(from + position)
}

fn find_byte(bytes: &[u8], from: usize, byte: u8) -> Option<usize> {
    find(bytes, from, |b| b == byte)
}

/// Decodes HTML character references as a browser does in text: the named ones of
/// [`super::references`] (the legacy names without their semicolon too) and every numeric
/// one. Unknown references are left as they are; soft hyphens are dropped; CR LF and CR
/// become LF and NUL becomes U+FFFD (as in a browser's text).
pub fn decode_entities(src: &str) -> String {
    let mut out = decode(&clean(src), false).into_owned();
    out.retain(|c| c != '\u{AD}');
    out
}

/// Calls `visit` with the lowercased name and attributes of every start tag of a markup
/// document, in order (comments are not looked into).
pub(crate) fn for_each_start_tag(src: &str, mut visit: impl FnMut(&str, &Attributes)) {
    for token in tokens(src) {
        if let Token::StartTag(tag) = token {
            visit(&tag.name, &tag.attributes);
        }
    }
}

/// The decoded value of attribute `name` (lowercase).
pub(crate) fn attribute(attributes: &Attributes, name: &str) -> Option<String> {
    attributes.get(name).cloned()
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
    fn start_tags_of_xml_with_their_attributes() {
        let xml = r#"<rss><item><media:thumbnail url="/a.jpg?x=1&amp;y=2"/><description><![CDATA[<item>]]></description></item></rss>"#;
        let mut seen = Vec::new();
        for_each_start_tag(xml, |name, attributes| {
            seen.push((name.to_string(), attribute(attributes, "url")));
        });
        let names: Vec<&str> = seen.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, vec!["rss", "item", "media:thumbnail", "description"]);
        assert_eq!(
            seen.get(2).and_then(|(_, url)| url.as_deref()),
            Some("/a.jpg?x=1&y=2")
        );
    }
}
