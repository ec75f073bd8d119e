//! The HTML tokenizer: html5gum, a WHATWG-compliant tokenizer with the full table of
//! character references, told to read CDATA sections as text (feeds wrap HTML in them) and
//! to read the content of `script`, `style` and the other raw-text elements as text.

use std::collections::BTreeMap;

use html5gum::{DefaultEmitter, Emitter, ForwardingEmitter, HtmlString, Spanned, State, Tokenizer};

pub(super) use html5gum::Token;

/// A start tag's attributes, by lowercased name.
pub(crate) type Attributes = BTreeMap<HtmlString, Spanned<HtmlString, ()>>;

/// The default emitter, reading `<![CDATA[...]]>` as text, as an XML reader would.
#[derive(Debug, Default)]
struct FeedHtml(DefaultEmitter);

impl ForwardingEmitter for FeedHtml {
    type Token = Token;

    fn inner(&mut self) -> &mut impl Emitter<Token = Self::Token> {
        &mut self.0
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&mut self) -> bool {
        true
    }
}

/// The tokens of a markup document (parse errors are recovered from and left out).
pub(super) fn tokens(src: &str) -> impl Iterator<Item = Token> + '_ {
    let mut emitter = FeedHtml::default();
    emitter.0.naively_switch_states(true);
    Tokenizer::new_with_emitter(src, emitter)
        .flatten()
        .filter(|token| !matches!(token, Token::Error(_)))
}

/// Bytes from the tokenizer as text (they are UTF-8: the input was).
pub(super) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Decodes HTML character references as a browser does in text: every named and numeric
/// one, the legacy names without their semicolon too. Unknown references are left as they
/// are; soft hyphens are dropped.
pub fn decode_entities(src: &str) -> String {
    if !src.contains('&') {
        return src.to_string();
    }
    let mut tokenizer = Tokenizer::new(src);
    // Text in which markup is not markup (as inside <textarea>), but references are decoded.
    tokenizer.set_state(State::RcData);
    let mut out = String::with_capacity(src.len());
    for token in tokenizer.flatten() {
        if let Token::String(decoded) = token {
            out.push_str(&String::from_utf8_lossy(&decoded.value));
        }
    }
    out.retain(|c| c != '\u{AD}');
    out
}

/// Calls `visit` with the lowercased name and attributes of every start tag of a markup
/// document, in order (comments are not looked into).
pub(crate) fn for_each_start_tag(src: &str, mut visit: impl FnMut(&str, &Attributes)) {
    for token in tokens(src) {
        if let Token::StartTag(tag) = token {
            visit(&text(&tag.name), &tag.attributes);
        }
    }
}

/// The decoded value of attribute `name` (lowercase).
pub(crate) fn attribute(attributes: &Attributes, name: &str) -> Option<String> {
    attributes.get(name.as_bytes()).map(|v| text(&v.value))
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
