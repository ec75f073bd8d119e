//! HTML fragments from feeds turned into plain text.
//!
//! Feed bodies are untrusted, often malformed HTML. This is not a browser: the fragment is
//! tokenized as a browser would (html5gum, through [`tokens`]) and walked once,
//! keeping the readable text, splitting it into paragraphs at block elements and throwing away
//! everything that is not prose (scripts, styles, embedded frames and graphics, the document
//! head). It never panics and runs in time linear in the input. [`text`] holds the helpers for
//! text without markup.

mod text;
mod tokens;

use std::borrow::Cow;

pub use self::text::{collapse_whitespace, text_to_paragraphs, truncate_words};
pub use self::tokens::decode_entities;
pub(crate) use self::tokens::{attribute, for_each_start_tag};
use self::tokens::{tokens, Attributes, Token};

/// Elements whose whole content is discarded.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "iframe", "svg", "head", "template", "title", "object",
    "canvas", "audio", "video", "select", "textarea", "math", "xmp", "noembed", "noframes",
];

/// Dropped elements whose content is raw text (the tokenizer reads it as text up to the
/// matching end tag): a self-closing spelling still opens them.
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

/// The `src` of the first meaningful `<img>` of a fragment (tracking pixels of size 0 or 1
/// and `data:` images are skipped), entities decoded, not yet resolved against any base URL.
pub fn first_image_src(html: &str) -> Option<String> {
    let mut found = None;
    walk(html, |event| {
        if let Event::Image(attributes) = event {
            if found.is_some() {
                return;
            }
            let tiny = |name| {
                attribute(&attributes, name)
                    .map(|v| matches!(v.trim(), "0" | "1" | "0px" | "1px"))
                    .unwrap_or(false)
            };
            if tiny("width") || tiny("height") {
                return;
            }
            let src = attribute(&attributes, "src")
                .or_else(|| attribute(&attributes, "data-src"))
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty() && !s.to_ascii_lowercase().starts_with("data:"));
            found = src;
        }
    });
    found
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
    /// An `<img>` tag, with its attributes.
    Image(Attributes),
}

/// Walks the fragment, skipping dropped elements, and reports text, breaks and images.
fn walk(html: &str, mut emit: impl FnMut(Event<'_>)) {
    // The dropped element being skipped, and how deeply it is nested in itself.
    let mut skipping: Option<(String, usize)> = None;
    for token in tokens(html) {
        if let Some((name, depth)) = skipping.as_mut() {
            match &token {
                Token::StartTag(tag) if !tag.self_closing && tag.name == *name => *depth += 1,
                Token::EndTag(end) if end == name => {
                    *depth -= 1;
                    if *depth == 0 {
                        skipping = None;
                    }
                }
                // A missing </head> ends at <body>.
                Token::StartTag(tag) if name == "head" && tag.name == "body" => skipping = None,
                _ => {}
            }
            continue;
        }
        match token {
            Token::Text(text) => emit(Event::Text(text)),
            Token::StartTag(tag) => {
                let name = tag.name.as_str();
                if DROPPED.contains(&name) {
                    if tag.self_closing && !RAW_TEXT.contains(&name) {
                        continue;
                    }
                    skipping = Some((tag.name, 1));
                    emit(Event::Break);
                } else if name == "img" {
                    emit(Event::Image(tag.attributes));
                } else if BLOCKS.contains(&name) {
                    emit(Event::Break);
                } else if SPACERS.contains(&name) {
                    emit(Event::Space);
                }
            }
            Token::EndTag(name) => {
                if BLOCKS.contains(&name.as_str()) {
                    emit(Event::Break);
                } else if SPACERS.contains(&name.as_str()) {
                    emit(Event::Space);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn old_style_scripts_do_not_leak_into_the_text() {
        let html = "<p>Before</p><script><!--\ndocument.write('<script src=\"x.js\"></script>');\n//--></script><p>After</p>";
        assert_eq!(html_to_paragraphs(html), vec!["Before", "After"]);
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
                let pick = usize::try_from(seed % pieces.len() as u64).unwrap_or(0);
                s.push_str(pieces[pick]);
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
