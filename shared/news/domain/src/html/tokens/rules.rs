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
        tokenize(
            "<a href=\"/?a=1&amp;b=2&copy=3&copy;4&#38;5&notit&gt\">&lt;b&gt; &copy=&notit;</a>"
        ),
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
    let html = "<script><!--\ndocument.write('<script src=x.js></script>');\n//--></script>after";
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
        // Names are case-sensitive; unknown ones stay. Every name of the standard is
        // known, MathML and Fraktur ones too.
        ("&Amp; &foo;", "&Amp; &foo;"),
        (
            "&Afr; &bne; &ThickSpace;",
            "\u{1D504} =\u{20E5} \u{205F}\u{200A}",
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
