//! A post's text is CommonMark (with GitHub's tables and strikethrough); the community renders
//! it on the server into a safe subset of HTML, the post's `contentHtml`, and reduces it to
//! plain text for generated excerpts. Pure: no I/O.
//!
//! The renderer writes only the elements it knows, never any markup of the author's:
//!
//! - paragraphs, `em`, `strong`, `del`, `code`, `pre><code class="language-x"` (the fenced
//!   block's first info word), `ul`/`ol` (`start`), `li`, `blockquote`, `hr`, `br`, tables;
//! - headings shifted one level down (`#` is an `h2`): the page's own title is its only `h1`;
//! - links only to `http:`, `https:` and `mailto:` with `rel="nofollow ugc noopener"`; any
//!   other destination (`javascript:`, `data:`, relative) keeps its text without a link;
//! - images become links to the image with the alt text (the web client loads no picture a
//!   post names: no tracking pixels, and its CSP need not widen);
//! - raw HTML (blocks and inline) is shown as text, escaped;
//! - a line break inside a paragraph is a `<br>`, so text written before Markdown (plain lines)
//!   keeps its lines.
//!
//! Every text and attribute value is escaped (`&`, `<`, `>`, `"`, `'`), so nothing the author
//! writes can open a tag or leave an attribute.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

/// The `rel` of every link a post holds: user content, not endorsed, no opener.
pub const LINK_REL: &str = "nofollow ugc noopener";

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

/// The safe HTML of a post's Markdown `text`.
pub fn to_html(text: &str) -> String {
    let mut out = Html {
        html: String::with_capacity(text.len().saturating_add(text.len() / 4)),
        links: Vec::new(),
        image: None,
        in_table_head: false,
    };
    for event in Parser::new_ext(text, options()) {
        out.event(event);
    }
    out.html
}

/// The text a reader sees of a post's Markdown `text`, whitespace collapsed: for excerpts.
pub fn to_plain_text(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    for event in Parser::new_ext(text, options()) {
        match event {
            Event::Text(t) | Event::Code(t) | Event::Html(t) | Event::InlineHtml(t) => {
                plain.push_str(&t);
            }
            Event::SoftBreak | Event::HardBreak | Event::Rule => plain.push(' '),
            // Blocks and cells end a word; inline ends (a link's, emphasis') do not.
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::HtmlBlock
                | TagEnd::TableCell,
            ) => plain.push(' '),
            _ => {}
        }
    }
    plain.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A link destination a post may carry, as written in `href`; `None`: shown as text only.
fn safe_url(link_type: LinkType, dest: &str) -> Option<String> {
    let dest = dest.trim();
    if link_type == LinkType::Email {
        return (!dest.is_empty()).then(|| format!("mailto:{dest}"));
    }
    let lower = dest.get(..8).unwrap_or(dest).to_ascii_lowercase();
    let allowed = ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| lower.starts_with(scheme));
    allowed.then(|| dest.to_string())
}

/// Escapes `text` for an element's content or a quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

struct Html {
    html: String,
    /// For each open link: whether it was written as an `<a>` (a refused one writes none).
    links: Vec<bool>,
    /// While inside an image: its destination (if safe) and the alt text so far.
    image: Option<(Option<String>, String)>,
    in_table_head: bool,
}

fn heading(level: HeadingLevel) -> &'static str {
    match level {
        HeadingLevel::H1 => "h2",
        HeadingLevel::H2 => "h3",
        HeadingLevel::H3 => "h4",
        HeadingLevel::H4 => "h5",
        HeadingLevel::H5 | HeadingLevel::H6 => "h6",
    }
}

impl Html {
    fn push(&mut self, s: &str) {
        self.html.push_str(s);
    }

    fn text(&mut self, t: &str) {
        escape_into(&mut self.html, t);
    }

    /// Text with its line ends as `<br>` (raw HTML shown as text keeps its lines; the block's
    /// end takes its last one off).
    fn lines(&mut self, t: &str) {
        let mut parts = t.split('\n').peekable();
        while let Some(part) = parts.next() {
            self.text(part);
            if parts.peek().is_some() {
                self.push("<br>\n");
            }
        }
    }

    fn event(&mut self, event: Event<'_>) {
        // Inside an image, everything is its alt text.
        if let Some((_, alt)) = &mut self.image {
            match event {
                Event::End(TagEnd::Image) => self.end_image(),
                Event::Text(t) | Event::Code(t) => alt.push_str(&t),
                Event::SoftBreak | Event::HardBreak => alt.push(' '),
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                self.push("<code>");
                self.text(&t);
                self.push("</code>");
            }
            Event::Html(t) => self.lines(&t),
            Event::InlineHtml(t)
            | Event::InlineMath(t)
            | Event::DisplayMath(t)
            | Event::FootnoteReference(t) => self.text(&t),
            Event::SoftBreak | Event::HardBreak => self.push("<br>\n"),
            Event::Rule => self.push("<hr>\n"),
            Event::TaskListMarker(done) => self.push(if done { "[x] " } else { "[ ] " }),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::HtmlBlock => self.push("<p>"),
            Tag::Heading { level, .. } => {
                self.push("<");
                self.push(heading(level));
                self.push(">");
            }
            Tag::BlockQuote(_) => self.push("<blockquote>\n"),
            Tag::CodeBlock(kind) => {
                let language = match &kind {
                    CodeBlockKind::Fenced(info) => info.split_whitespace().next(),
                    CodeBlockKind::Indented => None,
                };
                match language {
                    Some(language) => {
                        self.push("<pre><code class=\"language-");
                        self.text(language);
                        self.push("\">");
                    }
                    None => self.push("<pre><code>"),
                }
            }
            Tag::List(Some(1)) => self.push("<ol>\n"),
            Tag::List(Some(start)) => {
                self.push("<ol start=\"");
                self.push(&start.to_string());
                self.push("\">\n");
            }
            Tag::List(None) => self.push("<ul>\n"),
            Tag::Item => self.push("<li>"),
            // Column alignment is left out: it needs inline styles, which the client's CSP refuses.
            Tag::Table(_) => self.push("<table>\n"),
            Tag::TableHead => {
                self.in_table_head = true;
                self.push("<thead><tr>");
            }
            Tag::TableRow => self.push("<tr>"),
            Tag::TableCell => self.push(if self.in_table_head { "<th>" } else { "<td>" }),
            Tag::Emphasis => self.push("<em>"),
            Tag::Strong => self.push("<strong>"),
            Tag::Strikethrough => self.push("<del>"),
            Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            } => match safe_url(link_type, &dest_url) {
                Some(href) => {
                    self.push("<a href=\"");
                    self.text(&href);
                    self.push("\"");
                    if !title.is_empty() {
                        self.push(" title=\"");
                        self.text(&title);
                        self.push("\"");
                    }
                    self.push(" rel=\"");
                    self.push(LINK_REL);
                    self.push("\">");
                    self.links.push(true);
                }
                None => self.links.push(false),
            },
            Tag::Image {
                link_type,
                dest_url,
                ..
            } => self.image = Some((safe_url(link_type, &dest_url), String::new())),
            // Not enabled (footnotes, definitions, metadata, super/subscript): text only.
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.push("</p>\n"),
            TagEnd::HtmlBlock => {
                if self.html.ends_with("<br>\n") {
                    self.html.truncate(self.html.len() - "<br>\n".len());
                }
                self.push("</p>\n");
            }
            TagEnd::Heading(level) => {
                self.push("</");
                self.push(heading(level));
                self.push(">\n");
            }
            TagEnd::BlockQuote(_) => self.push("</blockquote>\n"),
            TagEnd::CodeBlock => self.push("</code></pre>\n"),
            TagEnd::List(true) => self.push("</ol>\n"),
            TagEnd::List(false) => self.push("</ul>\n"),
            TagEnd::Item => self.push("</li>\n"),
            TagEnd::Table => self.push("</tbody></table>\n"),
            TagEnd::TableHead => {
                self.in_table_head = false;
                self.push("</tr></thead><tbody>\n");
            }
            TagEnd::TableRow => self.push("</tr>\n"),
            TagEnd::TableCell => self.push(if self.in_table_head { "</th>" } else { "</td>" }),
            TagEnd::Emphasis => self.push("</em>"),
            TagEnd::Strong => self.push("</strong>"),
            TagEnd::Strikethrough => self.push("</del>"),
            TagEnd::Link if self.links.pop() == Some(true) => self.push("</a>"),
            _ => {}
        }
    }

    fn end_image(&mut self) {
        let Some((href, alt)) = self.image.take() else {
            return;
        };
        let alt = alt.trim();
        let label = if alt.is_empty() { "image" } else { alt };
        match href {
            Some(href) => {
                self.push("<a href=\"");
                self.text(&href);
                self.push("\" rel=\"");
                self.push(LINK_REL);
                self.push("\" class=\"image-link\">");
                self.text(label);
                self.push("</a>");
            }
            None => self.text(label),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn renders_the_subset() {
        let html = to_html("# Title\n\nSome *em* and **strong** and `a<b`.\n\n- one\n- two\n\n3. three\n4. four\n\n> quoted\n\n---\n");
        assert_eq!(
            html,
            "<h2>Title</h2>\n<p>Some <em>em</em> and <strong>strong</strong> and <code>a&lt;b</code>.</p>\n\
             <ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<ol start=\"3\">\n<li>three</li>\n<li>four</li>\n</ol>\n\
             <blockquote>\n<p>quoted</p>\n</blockquote>\n<hr>\n"
        );
    }

    #[test]
    fn code_blocks_keep_their_text() {
        let code = "fn main() {\n    let x = \"<b>&amp;</b>\";\n\tprintln!(\"{x}\");\n}\n";
        let html = to_html(&format!("```rust ignore\n{code}```\n"));
        let inner = html
            .strip_prefix("<pre><code class=\"language-rust\">")
            .unwrap()
            .strip_suffix("</code></pre>\n")
            .unwrap();
        let unescaped = inner
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&");
        assert_eq!(unescaped, code);
        assert_eq!(
            to_html("```\"><script>\nx\n```"),
            "<pre><code class=\"language-&quot;&gt;&lt;script&gt;\">x\n</code></pre>\n"
        );
    }

    #[test]
    fn links_only_to_safe_schemes() {
        assert_eq!(
            to_html("[a](https://example.com/?q=1&r=\"2\" \"T\")"),
            "<p><a href=\"https://example.com/?q=1&amp;r=&quot;2&quot;\" title=\"T\" rel=\"nofollow ugc noopener\">a</a></p>\n"
        );
        assert_eq!(
            to_html("<me@example.com>"),
            "<p><a href=\"mailto:me@example.com\" rel=\"nofollow ugc noopener\">me@example.com</a></p>\n"
        );
        for bad in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](&#106;avascript:alert(1))",
            "[x](java\\script:alert(1))",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x](vbscript:msgbox)",
            "[x](/relative)",
            "[x]( javascript:alert(1))",
        ] {
            assert_eq!(to_html(bad), "<p>x</p>\n", "{bad}");
        }
    }

    #[test]
    fn raw_html_and_images_are_inert() {
        let corpus = [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "hi <b onclick=\"alert(1)\">there</b>",
            "<a href=\"javascript:alert(1)\">x</a>",
            "![x\" onerror=\"alert(1)](javascript:alert(1))",
            "![a](https://example.com/a.png\" onerror=\"alert(1))",
            "&lt;script&gt;alert(1)&lt;/script&gt;",
            "&#60;img src=x onerror=alert(1)&#62;",
            "<iframe src=\"data:text/html,<script>alert(1)</script>\"></iframe>",
            "<svg/onload=alert(1)>",
            "[x](https://a.example/\"onmouseover=\"alert(1))",
            "<style>*{}</style><form action=x><input></form>",
        ];
        for text in corpus {
            let html = to_html(text);
            // Every `<` of the output opens one of the renderer's own tags (text is escaped):
            // each must be an allowed element with allowed attributes and a safe href.
            for tag in html.split('<').skip(1) {
                let tag = tag.split('>').next().unwrap();
                let (name, mut rest) = tag.split_once(' ').unwrap_or((tag, ""));
                assert!(
                    [
                        "p", "/p", "br", "a", "/a", "code", "/code", "strong", "/strong", "em",
                        "/em"
                    ]
                    .contains(&name),
                    "{text} gave <{tag}> in {html}"
                );
                while !rest.trim().is_empty() {
                    let (key, after) = rest.trim_start().split_once("=\"").unwrap();
                    let (value, after) = after.split_once('"').unwrap();
                    assert!(
                        ["href", "rel", "title", "class"].contains(&key),
                        "{text}: {tag}"
                    );
                    if key == "href" {
                        assert!(
                            value.starts_with("https://") || value.starts_with("mailto:"),
                            "{text}: {tag}"
                        );
                    }
                    rest = after;
                }
            }
        }
        assert_eq!(
            to_html("![a cat](https://example.com/cat.png)"),
            "<p><a href=\"https://example.com/cat.png\" rel=\"nofollow ugc noopener\" class=\"image-link\">a cat</a></p>\n"
        );
        assert_eq!(to_html("![x](javascript:alert(1))"), "<p>x</p>\n");
    }

    #[test]
    fn plain_lines_keep_their_breaks() {
        assert_eq!(
            to_html("first line\nsecond line\n\nnext paragraph"),
            "<p>first line<br>\nsecond line</p>\n<p>next paragraph</p>\n"
        );
    }

    #[test]
    fn raw_html_blocks_keep_their_lines_as_text() {
        assert_eq!(
            to_html("<div>\n<b>hi</b>\n</div>\n\nafter"),
            "<p>&lt;div&gt;<br>\n&lt;b&gt;hi&lt;/b&gt;<br>\n&lt;/div&gt;</p>\n<p>after</p>\n"
        );
    }

    #[test]
    fn headings_never_h1() {
        assert_eq!(to_html("###### six"), "<h6>six</h6>\n");
        assert!(!to_html("# a\n\nb\n===\n").contains("<h1"));
    }

    #[test]
    fn tables() {
        assert_eq!(
            to_html("| a | b |\n|:--|--:|\n| 1 | 2 |\n"),
            "<table>\n<thead><tr><th>a</th><th>b</th></tr></thead><tbody>\n<tr><td>1</td><td>2</td></tr>\n</tbody></table>\n"
        );
    }

    #[test]
    fn plain_text_drops_markup() {
        assert_eq!(
            to_plain_text("# Hello\n\nSome **bold** [link](https://x.example) and `code`.\n\n- a\n- b\n\n```\nlet x = 1;\n```"),
            "Hello Some bold link and code. a b let x = 1;"
        );
    }
}
