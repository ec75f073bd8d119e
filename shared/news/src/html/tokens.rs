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
//!   everything is text. A self-closing spelling opens them as well (browsers ignore the `/`
//!   on HTML elements; with no tree, this cannot tell the SVG/MathML ones where they would not).
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
#[cfg(test)] // The feed reader no longer scans feeds as markup.
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

/// The rules of the tokenizer, one test each.
#[cfg(test)]
mod rules {
    use std::time::{Duration, Instant};

    use super::*;

    /// The tokens of `src`, owned, runs of text merged.
    fn tokenize(src: &str) -> Vec<Token<'static>> {
        let mut out: Vec<Token<'static>> = Vec::new();
        for token in tokens(src) {
            match (out.last_mut(), token) {
                (Some(Token::Text(before)), Token::Text(more)) => before.to_mut().push_str(&more),
                (_, Token::Text(text)) => out.push(Token::Text(Cow::Owned(text.into_owned()))),
                (_, Token::StartTag(tag)) => out.push(Token::StartTag(tag)),
                (_, Token::EndTag(name)) => out.push(Token::EndTag(name)),
            }
        }
        out
    }

    fn start(name: &str, attributes: &[(&str, &str)]) -> Token<'static> {
        Token::StartTag(StartTag {
            name: name.to_string(),
            attributes: attributes
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            self_closing: false,
        })
    }

    fn self_closing(name: &str, attributes: &[(&str, &str)]) -> Token<'static> {
        match start(name, attributes) {
            Token::StartTag(tag) => Token::StartTag(StartTag {
                self_closing: true,
                ..tag
            }),
            other => other,
        }
    }

    fn end(name: &str) -> Token<'static> {
        Token::EndTag(name.to_string())
    }

    fn txt(text: &str) -> Token<'static> {
        Token::Text(Cow::Owned(text.to_string()))
    }

    #[test]
    fn start_and_end_tags_are_lowercased_with_their_attributes() {
        assert_eq!(
            tokenize("<DIV Class=\"a\" ID=b>x</DiV>"),
            vec![
                start("div", &[("class", "a"), ("id", "b")]),
                txt("x"),
                end("div")
            ]
        );
        assert_eq!(
            tokenize("<br/><br /><hr\n/><media:thumbnail URL='u'/>"),
            vec![
                self_closing("br", &[]),
                self_closing("br", &[]),
                self_closing("hr", &[]),
                self_closing("media:thumbnail", &[("url", "u")]),
            ]
        );
        // A `/` not right before the `>` is no self-closing mark; `/` between names splits them.
        assert_eq!(
            tokenize("<br / ><a/b>"),
            vec![start("br", &[]), start("a", &[("b", "")])]
        );
        // End tags: attributes and self-closing marks are read and ignored.
        assert_eq!(
            tokenize("</P class=\"x>y\"></br/>"),
            vec![end("p"), end("br")]
        );
        assert_eq!(tokenize("<P\tid=x\r\n>"), vec![start("p", &[("id", "x")])]);
    }

    #[test]
    fn attribute_values_quoted_unquoted_and_missing() {
        assert_eq!(
            tokenize(r#"<a b="1 2" c='3 "4"' d=5/6 e f = "7" g=>"#),
            vec![start(
                "a",
                &[
                    ("b", "1 2"),
                    ("c", "3 \"4\""),
                    ("d", "5/6"),
                    ("e", ""),
                    ("f", "7"),
                    ("g", "")
                ]
            )]
        );
        // Quotes and `>` in values; a missing space after a quoted value.
        assert_eq!(
            tokenize(r#"<a b=">" c='<p>'d="x"e=a"b>"#),
            vec![start(
                "a",
                &[("b", ">"), ("c", "<p>"), ("d", "x"), ("e", "a\"b")]
            )]
        );
        // An unquoted value takes the `/`; `=` may start a name; names are lowercased.
        assert_eq!(
            tokenize("<img src=/x.jpg/><a =x SRC>"),
            vec![
                start("img", &[("src", "/x.jpg/")]),
                start("a", &[("=x", ""), ("src", "")])
            ]
        );
        // Values keep their whitespace, with CR LF read as LF and NUL as U+FFFD.
        assert_eq!(
            tokenize("<a title=' x\r\ny\0 '>"),
            vec![start("a", &[("title", " x\ny\u{FFFD} ")])]
        );
    }

    #[test]
    fn duplicate_attributes_keep_the_first() {
        assert_eq!(
            tokenize(r#"<a href="/1" HREF="/2" href=/3 title>"#),
            vec![start("a", &[("href", "/1"), ("title", "")])]
        );
    }

    #[test]
    fn references_are_decoded_in_text_and_attribute_values() {
        assert_eq!(
            tokenize("<a href=\"/?a=1&amp;b=2&copy=3&copy;4&#38;5&notit&gt\">&lt;b&gt; &copy=&notit;</a>"),
            vec![
                // In a value, a legacy name followed by `=` or a letter is not a reference.
                start("a", &[("href", "/?a=1&b=2&copy=3©4&5&notit>")]),
                txt("<b> ©=¬it;"),
                end("a")
            ]
        );
        assert_eq!(
            tokenize("<img alt=caf&eacute src='x&amp'>"),
            vec![start("img", &[("alt", "café"), ("src", "x&")])]
        );
    }

    #[test]
    fn comments_doctypes_and_processing_instructions_are_dropped() {
        for html in [
            "a<!-- x <p>y</p> -->b",
            "a<!---->b",
            "a<!-->b",
            "a<!--->b",
            "a<!-- x --!>b",
            "a<!-- -- - x -->b",
            "a<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0//EN\">b",
            "a<?xml version=\"1.0\" encoding=\"utf-8\"?>b",
            "a<!ELEMENT br EMPTY>b",
            "a<!-b>b",
            "a</>b",
            "a</3 x>b",
            "a<![cdata[x]]>b",
        ] {
            assert_eq!(tokenize(html), vec![txt("ab")], "{html:?}");
        }
        // Unterminated, they run to the end.
        for html in [
            "a<!-- <p>b</p>",
            "a<!DOCTYPE html",
            "a<?php echo 1; ",
            "a</ 3",
        ] {
            assert_eq!(tokenize(html), vec![txt("a")], "{html:?}");
        }
    }

    #[test]
    fn cdata_sections_are_text_as_they_are() {
        assert_eq!(
            tokenize("<p><![CDATA[a &amp; <b>x</b> ]]]></p>"),
            vec![start("p", &[]), txt("a &amp; <b>x</b> ]"), end("p")]
        );
        assert_eq!(tokenize("a<![CDATA[]]>b"), vec![txt("ab")]);
        assert_eq!(
            tokenize("a<![CDATA[b <p>c"),
            vec![txt("ab <p>c")],
            "unterminated: to the end"
        );
    }

    #[test]
    fn raw_text_elements_are_text_to_their_end_tag() {
        for name in [
            "script", "style", "xmp", "iframe", "noembed", "noframes", "noscript",
        ] {
            let html = format!(
                "<{name} a=b><p>&amp;</p></{name}x></{}\n>x",
                name.to_uppercase()
            );
            assert_eq!(
                tokenize(&html),
                vec![
                    start(name, &[("a", "b")]),
                    txt(&format!("<p>&amp;</p></{name}x>")),
                    end(name),
                    txt("x")
                ],
                "{name}"
            );
        }
        // Escapable raw text: references are decoded.
        for name in ["title", "textarea"] {
            let html = format!("<{name}><p>&amp;</p></{name}>x");
            assert_eq!(
                tokenize(&html),
                vec![start(name, &[]), txt("<p>&</p>"), end(name), txt("x")],
                "{name}"
            );
        }
        // A self-closing spelling opens them all the same; unclosed, they run to the end.
        assert_eq!(
            tokenize("<script/>a<p></script>b<style>c<p></style"),
            vec![
                self_closing("script", &[]),
                txt("a<p>"),
                end("script"),
                txt("b"),
                start("style", &[]),
                txt("c<p></style")
            ]
        );
        assert_eq!(
            tokenize("<plaintext>a</plaintext><p>b"),
            vec![start("plaintext", &[]), txt("a</plaintext><p>b")]
        );
    }

    #[test]
    fn old_style_script_comments_hide_their_end_tags() {
        let html =
            "<script><!--\ndocument.write('<script src=x.js></script>');\n//--></script>after";
        assert_eq!(
            tokenize(html),
            vec![
                start("script", &[]),
                txt("<!--\ndocument.write('<script src=x.js></script>');\n//-->"),
                end("script"),
                txt("after")
            ]
        );
        // Without a nested `<script>`, or once the comment is closed, `</script>` ends it.
        assert_eq!(
            tokenize("<script><!-- a </script>b"),
            vec![
                start("script", &[]),
                txt("<!-- a "),
                end("script"),
                txt("b")
            ]
        );
        assert_eq!(
            tokenize("<script><!--><script></script>b"),
            vec![
                start("script", &[]),
                txt("<!--><script>"),
                end("script"),
                txt("b")
            ]
        );
    }

    #[test]
    fn a_less_than_sign_that_opens_nothing_is_text() {
        for html in ["a < b", "<3 <=> <-", "a<", "<>", "a</", "< p>x"] {
            assert_eq!(tokenize(html), vec![txt(html)], "{html:?}");
        }
        assert_eq!(tokenize("<<p>>"), vec![txt("<"), start("p", &[]), txt(">")]);
    }

    #[test]
    fn tags_cut_off_by_the_end_are_dropped() {
        for html in [
            "x<a b=\">",
            "x<a b='>y</a>",
            "x<p",
            "x</p",
            "x<a b",
            "x<a b=",
            "x<img src=a.jpg",
            "x<br/",
            "x<a\n",
        ] {
            assert_eq!(tokenize(html), vec![txt("x")], "{html:?}");
        }
    }

    #[test]
    fn numeric_references() {
        let cases = [
            ("&#39;&#x27;&#X27;&#0000039;", "''''"),
            ("&#39x &#x41g", "'x Ag"),
            (
                "&#128;&#130;&#133;&#145;&#150;&#151;&#153;&#159;",
                "€‚…‘–—™Ÿ",
            ),
            ("&#129;&#x8D;&#x9D;", "\u{81}\u{8D}\u{9D}"),
            (
                "&#0;&#xD800;&#xDFFF;&#x110000;",
                "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}",
            ),
            ("&#99999999999999999999999999;", "\u{FFFD}"),
            ("&#x10FFFF;&#xFFFF;&#160;", "\u{10FFFF}\u{FFFF}\u{A0}"),
            ("&#; &#x; &#xg; &# 1; &#-1;", "&#; &#x; &#xg; &# 1; &#-1;"),
        ];
        for (input, expected) in cases {
            assert_eq!(decode_entities(input), expected, "{input:?}");
        }
    }

    #[test]
    fn named_references() {
        let cases = [
            ("&eacute;&eacute &Eacute &copy2024", "éé É ©2024"),
            // The longest legacy name wins when the whole name is unknown.
            ("&notin; &notit; &ampamp; &ltx", "∉ ¬it; &amp; <x"),
            // Names are case-sensitive; unknown ones and those left out of the table stay.
            (
                "&Amp; &foo; &Afr; &bne; &ThickSpace;",
                "&Amp; &foo; &Afr; &bne; &ThickSpace;",
            ),
            ("&mdash &hellip", "&mdash &hellip"),
            // HTML5 names beyond HTML 4.01.
            (
                "&apos;&AMP;&TRADE;&hyphen;&bullet;&ccaron;&Lstrok;&numero;",
                "'&™‐•čŁ№",
            ),
            ("&lang;&rang;", "⟨⟩"),
            ("a&shy;b&#173;c\u{AD}d", "abcd"),
            ("&&;& amp;&#38;amp;", "&&;& amp;&amp;"),
        ];
        for (input, expected) in cases {
            assert_eq!(decode_entities(input), expected, "{input:?}");
        }
    }

    /// Inputs built to make a careless tokenizer quadratic (or deeply recursive): each of
    /// them, 100,000 repetitions long, is read in well under the time a quadratic reading
    /// would take.
    #[test]
    fn hostile_input_runs_in_linear_time() {
        const N: usize = 100_000;
        let numbered = |f: fn(usize) -> String| (0..N).map(f).collect::<String>();
        let inputs: Vec<(&str, String)> = vec![
            ("less-than signs", "<".repeat(N)),
            ("end-tag openers", "</".repeat(N)),
            ("a never-closed tag", "<a".repeat(N)),
            (
                "a never-closed value",
                format!("<a b=\"{}", "<a b=\"".repeat(N)),
            ),
            (
                "distinct attributes",
                format!("<a {}>", numbered(|i| format!("a{i} "))),
            ),
            ("duplicate attributes", format!("<a {}>", "a=1 ".repeat(N))),
            ("dashes in a comment", format!("<!--{}", "-".repeat(N))),
            ("comment openers", "<!--".repeat(N)),
            ("CDATA openers", "<![CDATA[".repeat(N)),
            ("bogus comments", "<!".repeat(N)),
            (
                "deep nesting",
                format!("{}x{}", "<div>".repeat(N), "</div>".repeat(N)),
            ),
            ("deep dropped nesting", format!("{}x", "<svg>".repeat(N))),
            ("near end tags", format!("<script>{}", "</scrip".repeat(N))),
            (
                "script escapes",
                format!("<script><!--{}", "<script></script>".repeat(N)),
            ),
            ("ampersands", "&".repeat(N)),
            ("long names", format!("&{}", "a".repeat(N))),
            (
                "long legacy names",
                "&notaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".repeat(N / 10),
            ),
            ("long numbers", format!("&#{}", "9".repeat(N))),
            (
                "references in values",
                format!("<a b=\"{}\">", "&amp".repeat(N)),
            ),
        ];
        for (what, input) in &inputs {
            let started = Instant::now();
            let tokens = tokens(input).count();
            let paragraphs = crate::html::html_to_paragraphs(input);
            let decoded = decode_entities(input);
            let elapsed = started.elapsed();
            assert!(tokens <= input.len() && !decoded.is_empty(), "{what}");
            assert!(paragraphs.len() <= input.len(), "{what}");
            // Linear: under a second unoptimised on a busy machine; quadratic: 10^10 steps.
            assert!(elapsed < Duration::from_secs(10), "{what}: {elapsed:?}");
        }
        // What those are read as.
        assert_eq!(tokenize(&"<".repeat(N)), vec![txt(&"<".repeat(N))]);
        assert!(tokenize(&"<a".repeat(N)).is_empty());
        assert_eq!(
            tokenize(&format!("<a {}>", numbered(|i| format!("a{i} "))))
                .first()
                .map(|t| match t {
                    Token::StartTag(tag) => tag.attributes.len(),
                    _ => 0,
                }),
            Some(N)
        );
    }
}
