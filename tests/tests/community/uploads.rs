//! Document B's image upload through the stack against the emulator: each image type stored
//! under its sniffed type and served back from the answered URL, the refusals (not an image
//! whatever it claims, no or two `file` parts, empty, a broken form, not a form, no token),
//! the 5 MiB bound on both sides, and the per-user limit.

use reqwest::Response;
use serde_json::Value;
use stack_tests::community::{
    assert_reason_error, form, form_content_type, message, FormPart, GIF, JPEG, PNG, UPLOAD_IMAGES,
    WEBP,
};
use stack_tests::{header, Call, TestStack};

const MIB: usize = 1024 * 1024;

/// GETs `url` (the bucket's own, path-style on the emulator) as anyone would: its status,
/// `Content-Type`, `Cache-Control` and bytes.
async fn fetch(t: &TestStack, url: &str) -> (u16, String, String, Vec<u8>) {
    let response = t.http.get(url).call().await;
    let status = response.status().as_u16();
    let content_type = header(response.headers(), "content-type").to_string();
    let cache = header(response.headers(), "cache-control").to_string();
    let bytes = response.bytes().await.expect("body").to_vec();
    (status, content_type, cache, bytes)
}

/// Asserts a 400 naming `file` in Document B's body; its message.
async fn assert_file_refused(response: Response, status: u16) -> String {
    let body = assert_reason_error(response, status).await;
    let text = message(&body).to_string();
    assert!(text.contains("file"), "{body}");
    text
}

/// Every accepted type is stored under `images/{uuid}.{ext}` with the type its bytes say, and
/// served back from the answered URL unchanged, publicly (no credentials) and cacheable for
/// good; what the client declared (type, file name) plays no part.
#[tokio::test]
async fn png_jpeg_gif_and_webp_are_stored_under_their_sniffed_type_and_served_back() {
    let t = TestStack::start().await;
    let (_, token) = t.member("painter").await;
    let bucket = t.stack.physical_name("UploadsBucket").expect("the bucket");
    let endpoint = stack_tests::emulator();
    let cases: [(&[u8], &str, &str, &str, &str); 4] = [
        (PNG, "pixel.png", "image/png", "image/png", "png"),
        // Declared as something else each time: the bytes decide.
        (JPEG, "photo.png", "image/png", "image/jpeg", "jpg"),
        (GIF, "anim", "application/octet-stream", "image/gif", "gif"),
        (WEBP, "x.jpg", "image/jpeg", "image/webp", "webp"),
    ];
    let mut urls = Vec::new();
    for (bytes, filename, declared, sniffed, ext) in cases {
        let url = t
            .upload_ok(&token, FormPart::file(filename, declared, bytes))
            .await;
        let prefix = format!("{}/{bucket}/images/", endpoint.trim_end_matches('/'));
        let name = url.strip_prefix(&prefix).unwrap_or_else(|| panic!("{url}"));
        let (id, extension) = name.rsplit_once('.').expect("an extension");
        assert!(uuid::Uuid::parse_str(id).is_ok(), "{url}");
        assert_eq!(extension, ext, "{url}");
        let (status, content_type, cache, served) = fetch(&t, &url).await;
        assert_eq!(status, 200, "{url}");
        assert_eq!(content_type, sniffed, "{url}");
        assert_eq!(cache, "public, max-age=31536000, immutable");
        assert_eq!(served, bytes, "{url}");
        urls.push(url);
    }
    // A new key every time, even for the same bytes.
    let again = t
        .upload_ok(&token, FormPart::file("pixel.png", "image/png", PNG))
        .await;
    assert!(!urls.contains(&again));
    assert!(
        t.stack.access_denials().is_empty(),
        "{:?}",
        t.stack.access_denials()
    );
}

/// A text file calling itself a PNG, an empty file, a file that only starts like an image
/// type's neighbour: 400 naming `file`, nothing stored.
#[tokio::test]
async fn what_is_not_one_of_the_four_images_is_refused_naming_file() {
    let t = TestStack::start().await;
    let (_, token) = t.member("prankster").await;
    let text = b"just some text, named and typed as a PNG\n";
    let refused = t
        .upload(
            Some(&token),
            form(&[FormPart::file("notes.png", "image/png", text)]),
        )
        .await;
    let reason = assert_file_refused(refused, 400).await;
    assert!(
        reason.contains("must be a PNG, JPEG, GIF or WebP image"),
        "{reason}"
    );
    for bytes in [
        &b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>"[..],
        b"GIF88a\x01\0\x01\0",
        b"RIFF\x1a\0\0\0WAVEfmt ",
        b"\x89PNG\r\n",
    ] {
        let response = t
            .upload(
                Some(&token),
                form(&[FormPart::file("x.png", "image/png", bytes)]),
            )
            .await;
        assert_file_refused(response, 400).await;
    }
    let empty = t
        .upload(
            Some(&token),
            form(&[FormPart::file("empty.png", "image/png", b"")]),
        )
        .await;
    let reason = assert_file_refused(empty, 400).await;
    assert!(reason.contains("must not be empty"), "{reason}");
}

/// The form itself: no `file` part (other fields are ignored, so one named otherwise does not
/// count), two of them, a body without its closing delimiter, a body that is not a form.
#[tokio::test]
async fn a_form_without_exactly_one_file_or_not_a_form_is_refused() {
    let t = TestStack::start().await;
    let (_, token) = t.member("former").await;
    let other = FormPart {
        name: "image",
        filename: Some("pixel.png"),
        content_type: Some("image/png"),
        bytes: PNG,
    };
    let missing = t.upload(Some(&token), form(&[other])).await;
    let reason = assert_file_refused(missing, 400).await;
    assert!(reason.contains("is required"), "{reason}");
    let nothing = t.upload(Some(&token), form(&[])).await;
    assert_file_refused(nothing, 400).await;

    let twice = form(&[
        FormPart::file("a.png", "image/png", PNG),
        FormPart::file("b.png", "image/png", PNG),
    ]);
    let reason = assert_file_refused(t.upload(Some(&token), twice).await, 400).await;
    assert!(reason.contains("once"), "{reason}");

    // Other fields beside the file are ignored.
    let caption = FormPart {
        name: "caption",
        filename: None,
        content_type: None,
        bytes: b"a red pixel",
    };
    let with_caption = form(&[caption, FormPart::file("p.png", "image/png", PNG)]);
    assert_eq!(
        t.upload(Some(&token), with_caption).await.status().as_u16(),
        201
    );

    // No closing delimiter.
    let mut unclosed = form(&[FormPart::file("p.png", "image/png", PNG)]);
    let cut = unclosed.len() - format!("\r\n--{}--\r\n", stack_tests::community::BOUNDARY).len();
    unclosed.truncate(cut);
    let response = t.upload(Some(&token), unclosed).await;
    let body = assert_reason_error(response, 400).await;
    assert!(message(&body).contains("closing boundary"), "{body}");

    // Not multipart at all: 415; multipart without a boundary: 400.
    let json = t
        .http
        .post(t.url(UPLOAD_IMAGES))
        .bearer_auth(&token)
        .json(&serde_json::json!({"file": "aGVsbG8="}))
        .call()
        .await;
    assert_reason_error(json, 415).await;
    let no_boundary = t
        .http
        .post(t.url(UPLOAD_IMAGES))
        .bearer_auth(&token)
        .header("content-type", "multipart/form-data")
        .body(form(&[FormPart::file("p.png", "image/png", PNG)]))
        .call()
        .await;
    assert_reason_error(no_boundary, 400).await;
}

/// Exactly 5 MiB is stored and served back whole; one byte more is a 413 naming `file`; a
/// body past the form's allowance is the framework's 413, in the same body.
#[tokio::test]
async fn exactly_5_mib_is_stored_and_one_byte_more_is_413() {
    let t = TestStack::start().await;
    let (_, token) = t.member("hoarder").await;
    let mut image = PNG.to_vec();
    image.resize(5 * MIB, 0x5a);
    let url = t
        .upload_ok(&token, FormPart::file("big.png", "image/png", &image))
        .await;
    let (status, content_type, _, served) = fetch(&t, &url).await;
    assert_eq!((status, content_type.as_str()), (200, "image/png"));
    assert_eq!(served.len(), image.len());
    assert!(served == image, "the stored bytes differ");

    image.push(0x5a);
    let response = t
        .upload(
            Some(&token),
            form(&[FormPart::file("big.png", "image/png", &image)]),
        )
        .await;
    let reason = assert_file_refused(response, 413).await;
    assert!(reason.contains("5 MiB"), "{reason}");

    image.resize(5 * MIB + 100 * 1024, 0x5a);
    let response = t
        .upload(
            Some(&token),
            form(&[FormPart::file("big.png", "image/png", &image)]),
        )
        .await;
    assert_reason_error(response, 413).await;
}

/// No token, a bad token, a service token: refused before anything is read or stored; the
/// route takes POST only (405 in Document B's body), and the family's other paths are 404.
#[tokio::test]
async fn uploads_need_a_user_token_and_other_methods_and_paths_are_refused() {
    let t = TestStack::start().await;
    let png = || form(&[FormPart::file("p.png", "image/png", PNG)]);
    assert_reason_error(t.upload(None, png()).await, 401).await;
    assert_reason_error(t.upload(Some("not-a-token"), png()).await, 401).await;
    let (_, token) = t.member("visitor").await;
    let get = t.get_auth(UPLOAD_IMAGES, &token).await;
    assert_reason_error(get, 405).await;
    let elsewhere = t
        .http
        .post(t.url("/api/v1/uploads/videos"))
        .bearer_auth(&token)
        .header("content-type", form_content_type())
        .body(png())
        .call()
        .await;
    assert_reason_error(elsewhere, 404).await;
}

/// The per-user brake (`UploadRateLimitPerUser`): past the limit a 429 with `Retry-After` in
/// Document B's body, counted per user, so another user uploads on.
#[tokio::test]
async fn uploads_are_limited_per_user() {
    let parameters = [("UploadRateLimitPerUser".to_string(), "2/86400".to_string())];
    let t = TestStack::start_with(parameters.into_iter().collect()).await;
    let (_, alice) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    let png = || form(&[FormPart::file("p.png", "image/png", PNG)]);
    for _ in 0..2 {
        assert_eq!(t.upload(Some(&alice), png()).await.status().as_u16(), 201);
    }
    let refused = t.upload(Some(&alice), png()).await;
    let retry_after: u64 = header(refused.headers(), "retry-after")
        .parse()
        .expect("Retry-After seconds");
    assert!((1..=86_400).contains(&retry_after), "{retry_after}");
    let body: Value = assert_reason_error(refused, 429).await;
    assert!(message(&body).contains(&retry_after.to_string()), "{body}");
    assert_eq!(t.upload(Some(&bob), png()).await.status().as_u16(), 201);
}
