//! Markdown posts: `contentHtml` on a single post's answers (the server's safe rendering),
//! plain-text excerpts, the preview route, and a corpus of XSS attempts rendered inert.

use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, message, post_path, POSTS};
use stack_tests::TestStack;

const PREVIEW: &str = "/api/v1/posts/preview";

const MARKDOWN: &str = "## Setting up\n\nInstall it with **cargo**, then read [the book](https://doc.rust-lang.org/book/).\n\n- one\n- two\n\n```rust\nfn main() {\n    println!(\"<hi> & 'bye'\");\n}\n```\n";

#[tokio::test]
async fn a_markdown_post_answers_its_safe_html_and_a_plain_excerpt() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let created = t
        .create_post(
            &token,
            &json!({"title": "Markdown post", "content": MARKDOWN}),
        )
        .await;
    let html = created["contentHtml"].as_str().unwrap().to_string();
    assert!(html.starts_with("<h3>Setting up</h3>\n"), "{html}");
    assert!(html.contains("<strong>cargo</strong>"), "{html}");
    assert!(
        html.contains("<a href=\"https://doc.rust-lang.org/book/\" rel=\"nofollow ugc noopener\">the book</a>"),
        "{html}"
    );
    assert!(
        html.contains("<ul>\n<li>one</li>\n<li>two</li>\n</ul>"),
        "{html}"
    );
    // The code keeps its text exactly, escaped once.
    assert!(
        html.contains("<pre><code class=\"language-rust\">fn main() {\n    println!(&quot;&lt;hi&gt; &amp; &#39;bye&#39;&quot;);\n}\n</code></pre>"),
        "{html}"
    );
    assert_eq!(created["content"], MARKDOWN, "the text is kept as written");
    assert_eq!(
        created["excerpt"],
        "Setting up Install it with cargo, then read the book. one two fn main() { println!(\"<hi> & 'bye'\"); }"
    );
    let id = created["id"].as_str().unwrap();
    let read = t.get_ok(&post_path(id), None).await;
    assert_eq!(read["contentHtml"], html.as_str());
    // A list leaves the HTML out (its size) and shows the excerpt.
    let list = t.get_ok(POSTS, None).await;
    let listed = &list["content"][0];
    assert_eq!(listed["id"], id);
    assert!(listed.get("contentHtml").is_none(), "{listed}");
    // A patch answers the new rendering.
    let patched = t
        .patch_json_auth(
            &post_path(id),
            &token,
            &json!({"content": "plain line\nnext line"}),
        )
        .await;
    assert_eq!(patched.status(), 200);
    let patched: Value = patched.json().await.unwrap();
    assert_eq!(patched["contentHtml"], "<p>plain line<br>\nnext line</p>\n");
}

#[tokio::test]
async fn preview_renders_what_the_post_would_show() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("alice").await;
    let response = t
        .post_json_auth(PREVIEW, &token, &json!({"content": MARKDOWN}))
        .await;
    assert_eq!(response.status(), 200);
    let preview: Value = response.json().await.unwrap();
    let post = t
        .create_post(&token, &json!({"title": "Same text", "content": MARKDOWN}))
        .await;
    assert_eq!(preview["html"], post["contentHtml"]);
    assert_eq!(preview.as_object().unwrap().len(), 1);
}

#[tokio::test]
async fn preview_needs_a_member_and_bounded_content() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let body = json!({"content": "hello"});
    assert_reason_error(t.post_json(PREVIEW, &body).await, 401).await;
    assert_reason_error(t.post_json_auth(PREVIEW, "not-a-token", &body).await, 401).await;
    let service = t.service_token().await;
    assert_reason_error(t.post_json_auth(PREVIEW, &service, &body).await, 403).await;
    let (_, token) = t.member("alice").await;
    for bad in [
        json!({}),
        json!({"content": "   "}),
        json!({"content": "a".repeat(50_001)}),
        json!({"content": "bell\u{7}"}),
    ] {
        let error = assert_reason_error(t.post_json_auth(PREVIEW, &token, &bad).await, 400).await;
        assert!(message(&error).contains("content"), "{error}");
    }
    let unknown = json!({"content": "x", "title": "y"});
    assert_reason_error(t.post_json_auth(PREVIEW, &token, &unknown).await, 400).await;
    let longest = json!({"content": "😀".repeat(50_000)});
    assert_eq!(
        t.post_json_auth(PREVIEW, &token, &longest).await.status(),
        200
    );
}

/// Every `<` of a rendering opens one of the renderer's own tags: an allowed element whose
/// attributes are `href` (http, https or mailto only), `rel`, `title`, `class`.
fn assert_inert(source: &str, html: &str) {
    const ELEMENTS: &[&str] = &[
        "p",
        "br",
        "a",
        "code",
        "pre",
        "strong",
        "em",
        "del",
        "ul",
        "ol",
        "li",
        "blockquote",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
    ];
    for tag in html.split('<').skip(1) {
        let tag = tag.split('>').next().unwrap();
        let (name, mut rest) = tag.split_once(' ').unwrap_or((tag, ""));
        assert!(
            ELEMENTS.contains(&name.trim_start_matches('/')),
            "{source:?} gave <{tag}>: {html}"
        );
        while !rest.trim().is_empty() {
            let (key, after) = rest.trim_start().split_once("=\"").unwrap();
            let (value, after) = after.split_once('"').unwrap();
            assert!(
                ["href", "rel", "title", "class", "start"].contains(&key),
                "{source:?}: {tag}"
            );
            if key == "href" {
                let lower = value.to_ascii_lowercase();
                assert!(
                    lower.starts_with("https://")
                        || lower.starts_with("http://")
                        || lower.starts_with("mailto:"),
                    "{source:?}: {tag}"
                );
            }
            rest = after;
        }
    }
}

#[tokio::test]
async fn an_xss_corpus_renders_inert() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("mallory").await;
    let corpus = [
        "<script>alert(1)</script>",
        "<SCRIPT SRC=//x.example/x.js></SCRIPT>",
        "<img src=x onerror=alert(1)>",
        "<IMG SRC=\"javascript:alert('XSS');\">",
        "<svg/onload=alert(1)>",
        "<body onload=alert(1)>",
        "<a href=\"javascript:alert(1)\">click</a>",
        "[click](javascript:alert(1))",
        "[click](JAVASCRIPT:alert(1))",
        "[click](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;:alert(1))",
        "[click](&#x6A;avascript:alert(1))",
        "[click](java\u{9}script:alert(1))",
        "[click](<javascript:alert(1)>)",
        "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[click](vbscript:msgbox(1))",
        "[ref]\n\n[ref]: javascript:alert(1)",
        "<javascript:alert(1)>",
        "![x](javascript:alert(1))",
        "![x\" onerror=\"alert(1)](https://x.example/a.png)",
        "![x](https://x.example/a.png \"t\\\" onerror=\\\"alert(1)\")",
        "[x](https://x.example/\" onmouseover=\"alert(1))",
        "[x](https://x.example/ \"a\\\"onmouseover=alert(1)//\")",
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "&#60;script&#62;alert(1)&#60;/script&#62;",
        "<iframe src=\"data:text/html,<script>alert(1)</script>\"></iframe>",
        "<style>body{display:none}</style>",
        "<form action=https://x.example><input name=p></form>",
        "<!-- <script>alert(1)</script> -->",
        "<div\nonclick=alert(1)>x</div>",
        "```\"><script>alert(1)</script>\nx\n```",
        "`<script>alert(1)</script>`",
        "| <b onclick=x>a</b> | b |\n|---|---|\n| <img src=x onerror=y> | [c](javascript:z) |",
        "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
        "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
        "<object data=\"data:text/html,x\"></object>",
    ];
    // Previews are limited to 30 a minute per member: a new member every 25.
    let mut previewer = token.clone();
    for (n, source) in corpus.iter().enumerate() {
        if n > 0 && n % 25 == 0 {
            previewer = t.member(&format!("mallory{n}")).await.1;
        }
        let response = t
            .post_json_auth(PREVIEW, &previewer, &json!({"content": source}))
            .await;
        assert_eq!(response.status(), 200, "{source:?}");
        let preview: Value = response.json().await.unwrap();
        let html = preview["html"].as_str().unwrap();
        assert_inert(source, html);
        assert!(!html.contains("<script"), "{html}");
    }
    // A stored post renders the same way.
    let post = t
        .create_post(
            &token,
            &json!({"title": "Inert post", "content": corpus.join("\n\n")}),
        )
        .await;
    assert_inert("the whole corpus", post["contentHtml"].as_str().unwrap());
}

/// Previews are counted per member (30 a minute by default), apart from post writes.
#[tokio::test]
async fn previews_are_limited_per_member() {
    // A day's window: a minute's could turn over between the allowed previews and the refused.
    let t = TestStack::in_process_with(
        stack_tests::Product::Community,
        [(
            "CommunityRateLimitPreviews".to_string(),
            "3/86400".to_string(),
        )]
        .into(),
    )
    .await;
    let (_, alice) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    let body = json!({"content": "*hi*"});
    for _ in 0..3 {
        assert_eq!(t.post_json_auth(PREVIEW, &alice, &body).await.status(), 200);
    }
    let refused = t.post_json_auth(PREVIEW, &alice, &body).await;
    assert!(refused.headers().contains_key("retry-after"));
    assert_reason_error(refused, 429).await;
    assert_eq!(t.post_json_auth(PREVIEW, &bob, &body).await.status(), 200);
    // Writing a post is its own limit.
    t.create_post(&alice, &json!({"title": "Still allowed", "content": "yes"}))
        .await;
}
