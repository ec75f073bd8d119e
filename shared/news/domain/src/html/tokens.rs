//! The tokens of feed HTML, from html5gum (a tokenizer that follows the tokenization rules
//! of the WHATWG HTML standard: one forward pass, time linear in the input, no error fatal,
//! every named and numeric character reference decoded as a browser decodes it).
//!
//! What this module adds to html5gum's tokens, for reading the text, images and links of feed
//! HTML without a tree builder:
//! - Names are lowercased and references decoded by html5gum; attributes come as a map of
//!   lowercased names to decoded values, the first of duplicates kept. End tags are names.
//! - Comments, doctypes, processing instructions (bogus comments) and parse errors are
//!   dropped; `<![CDATA[...]]>` is text, as an XML reader sees it (feeds wrap HTML in it):
//!   the emitter says every node is foreign content, where the standard reads CDATA.
//! - The content of `script`, `style`, `xmp`, `iframe`, `noembed`, `noframes` and `noscript`
//!   is text up to the matching end tag, of `title` and `textarea` too (references decoded),
//!   and after `plaintext` everything is text: the tokenizer is switched to the state the
//!   tree builder would choose, after every start tag of those names (self-closing too:
//!   browsers ignore the `/` on HTML elements).

use std::borrow::Cow;
use std::collections::BTreeMap;

use html5gum::{
    DefaultEmitter, Emitter, ForwardingEmitter, HtmlString, State, StringReader, Tokenizer,
};

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

/// The state the tokenizer continues in after a start tag of this (lowercase) name.
fn state_after(name: &[u8]) -> Option<State> {
    match name {
        b"script" => Some(State::ScriptData),
        b"style" | b"xmp" | b"iframe" | b"noembed" | b"noframes" | b"noscript" => {
            Some(State::RawText)
        }
        b"title" | b"textarea" => Some(State::RcData),
        b"plaintext" => Some(State::PlainText),
        _ => None,
    }
}

/// html5gum's default emitter, with the state switches of [`state_after`], CDATA read as
/// text and no error tokens.
#[derive(Debug, Default)]
struct FeedEmitter {
    inner: DefaultEmitter,
    /// The name of the tag being read, and whether it is a start tag.
    tag_name: Vec<u8>,
    start_tag: bool,
}

impl ForwardingEmitter for FeedEmitter {
    type Token = html5gum::Token;

    fn inner(&mut self) -> &mut impl Emitter<Token = Self::Token> {
        &mut self.inner
    }

    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&mut self) -> bool {
        true
    }

    fn init_start_tag(&mut self) {
        self.tag_name.clear();
        self.start_tag = true;
        Emitter::init_start_tag(&mut self.inner);
    }

    fn init_end_tag(&mut self) {
        self.tag_name.clear();
        self.start_tag = false;
        Emitter::init_end_tag(&mut self.inner);
    }

    fn push_tag_name(&mut self, s: &[u8]) {
        self.tag_name.extend_from_slice(s);
        Emitter::push_tag_name(&mut self.inner, s);
    }

    fn emit_current_tag(&mut self) -> Option<State> {
        // The default emitter does not switch states (its own table misses `noframes`).
        let _ = Emitter::emit_current_tag(&mut self.inner);
        let next = if self.start_tag {
            state_after(&self.tag_name)
        } else {
            None
        };
        if next.is_some() {
            Emitter::init_string(&mut self.inner);
        }
        next
    }
}

/// The tokens of a markup document.
pub(super) fn tokens(src: &str) -> Tokens<'_> {
    Tokens {
        inner: Tokenizer::new_with_emitter(src, FeedEmitter::default()),
    }
}

/// The tokens of a markup document, an iterator.
#[derive(Debug)]
pub(super) struct Tokens<'a> {
    inner: Tokenizer<StringReader<'a>, FeedEmitter>,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        loop {
            let token = match self.inner.next()? {
                Ok(token) => token,
                // Reading a string cannot fail.
                Err(never) => match never {},
            };
            match token {
                html5gum::Token::StartTag(tag) => {
                    return Some(Token::StartTag(StartTag {
                        name: string(tag.name),
                        attributes: tag
                            .attributes
                            .into_iter()
                            .map(|(name, value)| (string(name), string(value.value)))
                            .collect(),
                        self_closing: tag.self_closing,
                    }))
                }
                html5gum::Token::EndTag(tag) => return Some(Token::EndTag(string(tag.name))),
                html5gum::Token::String(text) => {
                    return Some(Token::Text(Cow::Owned(string(text.value))))
                }
                html5gum::Token::Comment(_)
                | html5gum::Token::Doctype(_)
                | html5gum::Token::Error(_) => {}
            }
        }
    }
}

/// html5gum's bytes (UTF-8, as its input was) as a string.
fn string(bytes: HtmlString) -> String {
    String::from_utf8(bytes.0)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Decodes HTML character references as a browser does in text (every name of the HTML
/// standard, the legacy ones without their semicolon too, and every numeric reference).
/// Unknown references are left as they are; soft hyphens are dropped; CR LF and CR become LF
/// and NUL becomes U+FFFD (as in a browser's text).
pub fn decode_entities(src: &str) -> String {
    // Read as the content of a `<textarea>` whose end tag never comes: text, references
    // decoded, no markup.
    let mut tokenizer = Tokenizer::new_with_emitter(src, FeedEmitter::default());
    tokenizer.set_state(State::RcData);
    let mut out = String::with_capacity(src.len());
    for token in tokenizer {
        match token {
            Ok(html5gum::Token::String(text)) => out.push_str(&string(text.value)),
            Ok(_) => {}
            Err(never) => match never {},
        }
    }
    out.retain(|c| c != '\u{AD}');
    out
}

/// Calls `visit` with the lowercased name and attributes of every start tag of a markup
/// document, in order (comments are not looked into): feed discovery reads pages' links.
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
mod rules;
