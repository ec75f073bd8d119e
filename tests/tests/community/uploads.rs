//! The community's image upload through the stack against the emulator: each image type stored
//! under its sniffed type and served back from the answered URL, the refusals (not an image
//! whatever it claims, no or two `file` parts, empty, a broken form, not a form, no token),
//! the 5 MiB bound on both sides, and the per-user limit; and the presigned upload straight to
//! storage: its request's validation, a 9 MiB PNG sent to the signed URL and published on
//! confirm, a non-image refused at confirm, another user's upload not found.
//!
//! The emulator does not check signatures, so that S3 refuses a PUT of another type or size
//! than signed is asserted on the URL (the headers it signs), not by sending one.

use platform::aws::{AwsClients, AwsError};
use reqwest::Response;
use serde_json::{json, Value};
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

/// Asserts a 400 naming `file` in the Reason body; its message.
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
    let t = TestStack::in_process(stack_tests::Product::Community).await;
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
    let t = TestStack::in_process(stack_tests::Product::Community).await;
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
    let t = TestStack::in_process(stack_tests::Product::Community).await;
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
    let t = TestStack::in_process(stack_tests::Product::Community).await;
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

/// `POST /api/v1/uploads/images/presigned`.
const PRESIGNED: &str = "/api/v1/uploads/images/presigned";

/// `POST /api/v1/uploads/images/{id}/confirm`.
fn confirm_path(id: &str) -> String {
    format!("{UPLOAD_IMAGES}/{id}/confirm")
}

/// Asks for a presigned upload as `token`, which must answer 201; the answer.
async fn presign_ok(t: &TestStack, token: &str, content_type: &str, size: usize) -> Value {
    let request = json!({"contentType": content_type, "size": size});
    let response = t.post_json_auth(PRESIGNED, token, &request).await;
    let status = response.status().as_u16();
    let body: Value = response.json().await.expect("json");
    assert_eq!(status, 201, "presign: {body}");
    body
}

/// Sends `bytes` to the presigned upload as a browser does: its method and URL, its headers
/// (`Content-Length` is the body's own); the storage's status.
async fn send_to_storage(t: &TestStack, upload: &Value, bytes: Vec<u8>) -> u16 {
    assert_eq!(upload["method"], "PUT");
    let url = upload["uploadUrl"].as_str().expect("uploadUrl");
    let content_type = upload["headers"]["Content-Type"].as_str().expect("type");
    assert_eq!(
        upload["headers"]["Content-Length"],
        bytes.len().to_string(),
        "{upload}"
    );
    let response = t
        .http
        .put(url)
        .header("content-type", content_type)
        .body(bytes)
        .call()
        .await;
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    assert!(status == 200, "PUT {url}: {status} {text}");
    status
}

/// `POST .../{id}/confirm` as `token`.
async fn confirm(t: &TestStack, token: Option<&str>, id: &str) -> Response {
    let mut request = t.http.post(t.url(&confirm_path(id)));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.call().await
}

/// Whether `key` is in the uploads bucket, asked with the stack's credentials (not a
/// function's: nothing is checked against a policy).
async fn stored(t: &TestStack, key: &str) -> bool {
    let env = t.env("CommunityUploadsFunction");
    let bucket = t.stack.physical_name("UploadsBucket").expect("the bucket");
    let s3 = AwsClients::from_env_with(&env, |transport| transport).s3();
    match s3
        .client()
        .head_object()
        .bucket(bucket)
        .key(key)
        .send()
        .await
    {
        Ok(_) => true,
        Err(e) => {
            let error = AwsError::from(e);
            assert_eq!(error.status(), Some(404), "HEAD {key}: {error}");
            false
        }
    }
}

/// The request's fields are checked, each named when wrong; the route needs a user token.
#[tokio::test]
async fn presigned_uploads_need_an_image_type_a_size_within_20_mib_and_a_user() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, token) = t.member("planner").await;
    let refused = |body: Value| {
        let t = &t;
        let token = token.clone();
        async move {
            let response = t.post_json_auth(PRESIGNED, &token, &body).await;
            let body = assert_reason_error(response, 400).await;
            message(&body).to_string()
        }
    };
    for wrong in ["image/svg+xml", "IMAGE/PNG", "text/plain", "image/jpg", ""] {
        let reason = refused(json!({"contentType": wrong, "size": 100})).await;
        assert!(reason.contains("contentType"), "{wrong}: {reason}");
    }
    let reason = refused(json!({"contentType": 7, "size": 100})).await;
    assert!(reason.contains("contentType"), "{reason}");
    for size in [
        json!(0),
        json!(20 * MIB + 1),
        json!(-1),
        json!(1.5),
        json!("10"),
    ] {
        let reason = refused(json!({"contentType": "image/png", "size": size})).await;
        assert!(reason.contains("size"), "{size}: {reason}");
        assert!(!reason.contains("contentType"), "{size}: {reason}");
    }
    let reason = refused(json!({})).await;
    assert!(
        reason.contains("contentType") && reason.contains("size"),
        "{reason}"
    );
    let reason = refused(json!({"contentType": "image/png", "size": 1, "name": "x.png"})).await;
    assert!(reason.contains("name"), "{reason}");
    // The bounds themselves are accepted.
    presign_ok(&t, &token, "image/gif", 1).await;
    presign_ok(&t, &token, "image/webp", 20 * MIB).await;

    let request = json!({"contentType": "image/png", "size": 100});
    assert_reason_error(t.post_json(PRESIGNED, &request).await, 401).await;
    assert_reason_error(
        t.post_json_auth(PRESIGNED, "not-a-token", &request).await,
        401,
    )
    .await;
    let get = t.get_auth(PRESIGNED, &token).await;
    assert_reason_error(get, 405).await;
}

/// A 9 MiB PNG, which could never pass through API Gateway and Lambda: signed for its type
/// and size, sent by the client straight to the bucket's private `incoming/` prefix, then
/// confirmed: published under `images/{id}.png` with the sniffed type and the direct upload's
/// caching, served back whole, the incoming copy gone; a second confirm finds nothing.
#[tokio::test]
async fn a_9_mib_png_is_sent_to_its_presigned_url_and_published_on_confirm() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (user, token) = t.member("photographer").await;
    let bucket = t.stack.physical_name("UploadsBucket").expect("the bucket");
    let endpoint = stack_tests::emulator();
    let endpoint = endpoint.trim_end_matches('/');
    let mut image = PNG.to_vec();
    image.resize(9 * MIB, 0x5a);

    let before = chrono::Utc::now();
    let upload = presign_ok(&t, &token, "image/png", image.len()).await;
    let id = upload["id"].as_str().expect("id").to_string();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{upload}");
    let expires = chrono::DateTime::parse_from_rfc3339(upload["expiresAt"].as_str().expect("at"))
        .expect("RFC 3339");
    let lifetime = (expires.with_timezone(&chrono::Utc) - before).num_seconds();
    assert!((295..=305).contains(&lifetime), "{upload}");
    assert_eq!(
        upload["headers"],
        json!({"Content-Type": "image/png", "Content-Length": (9 * MIB).to_string()})
    );
    // Signed by the SDK for this key, this type and this size, for 5 minutes.
    let url = reqwest::Url::parse(upload["uploadUrl"].as_str().expect("url")).expect("a URL");
    let incoming = format!("incoming/{user}/{id}");
    assert_eq!(
        url.as_str().split('?').next(),
        Some(format!("{endpoint}/{bucket}/{incoming}").as_str())
    );
    let query: std::collections::BTreeMap<String, String> =
        url.query_pairs().into_owned().collect();
    let signed: Vec<&str> = query["X-Amz-SignedHeaders"].split(';').collect();
    assert!(
        signed.contains(&"content-length") && signed.contains(&"content-type"),
        "{signed:?}"
    );
    assert_eq!(query["X-Amz-Expires"], "300");
    assert!(query.contains_key("X-Amz-Signature"), "{query:?}");

    // The browser's preflight from the web client's origin is answered by the template's
    // CORS rule (which the local stack put on the bucket): PUT with Content-Type.
    let origin = t.stack.base_url().trim_end_matches('/').to_string();
    let preflight = t
        .http
        .request(reqwest::Method::OPTIONS, url.as_str())
        .header("origin", &origin)
        .header("access-control-request-method", "PUT")
        .header("access-control-request-headers", "content-type")
        .call()
        .await;
    assert_eq!(preflight.status().as_u16(), 200);
    let cors = preflight.headers();
    assert_eq!(header(cors, "access-control-allow-origin"), origin);
    assert_eq!(header(cors, "access-control-allow-methods"), "PUT");
    assert!(
        header(cors, "access-control-allow-headers").eq_ignore_ascii_case("content-type"),
        "{cors:?}"
    );

    send_to_storage(&t, &upload, image.clone()).await;
    assert!(stored(&t, &incoming).await);
    // Not public while it waits: the bucket policy serves images/ only.
    let waiting = t
        .http
        .get(format!("{endpoint}/{bucket}/{incoming}"))
        .call()
        .await;
    assert_eq!(waiting.status().as_u16(), 403);

    let response = confirm(&t, Some(&token), &id).await;
    let status = response.status().as_u16();
    let location = header(response.headers(), "location").to_string();
    let body: Value = response.json().await.expect("json");
    assert_eq!(status, 201, "confirm: {body}");
    let published = body["url"].as_str().expect("url").to_string();
    assert_eq!(location, published);
    assert_eq!(published, format!("{endpoint}/{bucket}/images/{id}.png"));
    let (status, content_type, cache, served) = fetch(&t, &published).await;
    assert_eq!((status, content_type.as_str()), (200, "image/png"));
    assert_eq!(cache, "public, max-age=31536000, immutable");
    assert_eq!(served.len(), image.len());
    assert!(served == image, "the published bytes differ");
    assert!(!stored(&t, &incoming).await, "the incoming copy is deleted");

    // Confirmed already: nothing waits under the id (the image stays published).
    let again = confirm(&t, Some(&token), &id).await;
    let body = assert_reason_error(again, 404).await;
    assert!(message(&body).contains(&id), "{body}");
    assert_eq!(fetch(&t, &published).await.0, 200);
    assert!(
        t.stack.access_denials().is_empty(),
        "{:?}",
        t.stack.access_denials()
    );
}

/// What the client sent to the signed URL is judged at confirm by its first bytes, as the
/// direct upload judges a form's file: text calling itself a PNG is a 400 naming `file`,
/// deleted and never published; so is an empty file. A JPEG declared as a PNG is published
/// as the JPEG it is.
#[tokio::test]
async fn what_is_sent_to_a_presigned_url_is_published_only_if_its_bytes_are_an_image() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (user, token) = t.member("trickster").await;
    let text = b"just some text, sent as a PNG to a presigned URL
"
    .to_vec();
    let upload = presign_ok(&t, &token, "image/png", text.len()).await;
    let id = upload["id"].as_str().expect("id").to_string();
    send_to_storage(&t, &upload, text).await;
    let refused = confirm(&t, Some(&token), &id).await;
    let reason = assert_file_refused(refused, 400).await;
    assert!(
        reason.contains("must be a PNG, JPEG, GIF or WebP image"),
        "{reason}"
    );
    for ext in ["png", "jpg", "gif", "webp"] {
        assert!(!stored(&t, &format!("images/{id}.{ext}")).await, "{ext}");
    }
    assert!(!stored(&t, &format!("incoming/{user}/{id}")).await);
    assert_reason_error(confirm(&t, Some(&token), &id).await, 404).await;

    // The emulator takes a body of another size than signed (S3 would not): an empty file
    // is still refused at confirm.
    let upload = presign_ok(&t, &token, "image/png", 10).await;
    let id = upload["id"].as_str().expect("id").to_string();
    let url = upload["uploadUrl"].as_str().expect("url");
    let put = t
        .http
        .put(url)
        .header("content-type", "image/png")
        .body(Vec::new())
        .call()
        .await;
    assert_eq!(put.status().as_u16(), 200);
    let reason = assert_file_refused(confirm(&t, Some(&token), &id).await, 400).await;
    assert!(reason.contains("must not be empty"), "{reason}");

    let upload = presign_ok(&t, &token, "image/png", JPEG.len()).await;
    let id = upload["id"].as_str().expect("id").to_string();
    send_to_storage(&t, &upload, JPEG.to_vec()).await;
    let response = confirm(&t, Some(&token), &id).await;
    assert_eq!(response.status().as_u16(), 201);
    let body: Value = response.json().await.expect("json");
    let url = body["url"].as_str().expect("url");
    assert!(url.ends_with(&format!("/images/{id}.jpg")), "{url}");
    let (status, content_type, _, served) = fetch(&t, url).await;
    assert_eq!((status, content_type.as_str()), (200, "image/jpeg"));
    assert_eq!(served, JPEG);
}

/// An upload is confirmed by its own user only: another user's id, an id never signed, an
/// id that is not a UUID, no token.
#[tokio::test]
async fn another_users_upload_is_not_found_and_ids_must_be_uuids() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
    let (_, alice) = t.member("alice").await;
    let (_, mallory) = t.member("mallory").await;
    let upload = presign_ok(&t, &alice, "image/gif", GIF.len()).await;
    let id = upload["id"].as_str().expect("id").to_string();
    send_to_storage(&t, &upload, GIF.to_vec()).await;

    let body = assert_reason_error(confirm(&t, Some(&mallory), &id).await, 404).await;
    assert!(message(&body).contains(&id), "{body}");
    let never = uuid::Uuid::new_v4().to_string();
    assert_reason_error(confirm(&t, Some(&alice), &never).await, 404).await;
    for bad in [
        "not-a-uuid",
        "presigned",
        "0f8fad5bd9cb469fa16570867728950e",
    ] {
        let body = assert_reason_error(confirm(&t, Some(&alice), bad).await, 400).await;
        assert!(message(&body).contains("id"), "{bad}: {body}");
    }
    assert_reason_error(confirm(&t, None, &id).await, 401).await;
    let get = t.get_auth(&confirm_path(&id), &alice).await;
    assert_reason_error(get, 405).await;

    // Untouched by the others' attempts, and the id in upper case is the same upload.
    let response = confirm(&t, Some(&alice), &id.to_uppercase()).await;
    assert_eq!(response.status().as_u16(), 201);
    let body: Value = response.json().await.expect("json");
    assert!(body["url"]
        .as_str()
        .expect("url")
        .ends_with(&format!("/images/{id}.gif")));
}

/// No token, a bad token, a service token: refused before anything is read or stored; the
/// route takes POST only (405 in the Reason body), and the family's other paths are 404.
#[tokio::test]
async fn uploads_need_a_user_token_and_other_methods_and_paths_are_refused() {
    let t = TestStack::in_process(stack_tests::Product::Community).await;
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
    // A service's token is no user's: 403 on each upload route (USER).
    let service = t.service_token().await;
    assert_reason_error(t.upload(Some(&service), png()).await, 403).await;
    let presign = json!({"contentType": "image/png", "size": 100});
    assert_reason_error(t.post_json_auth(PRESIGNED, &service, &presign).await, 403).await;
    let unknown = "5b0f3c1e-0000-4000-8000-000000000001";
    assert_reason_error(confirm(&t, Some(&service), unknown).await, 403).await;
}

/// The per-user brake (`UploadRateLimitPerUser`): past the limit a 429 with `Retry-After` in
/// The Reason body, counted per user, so another user uploads on. A presigned upload counts
/// as a direct one, when it is signed.
#[tokio::test]
async fn uploads_are_limited_per_user() {
    let parameters = [("UploadRateLimitPerUser".to_string(), "2/86400".to_string())];
    let t = TestStack::start_with(parameters.into_iter().collect()).await;
    let (_, alice) = t.member("alice").await;
    let (_, bob) = t.member("bob").await;
    let png = || form(&[FormPart::file("p.png", "image/png", PNG)]);
    assert_eq!(t.upload(Some(&alice), png()).await.status().as_u16(), 201);
    let upload = presign_ok(&t, &alice, "image/png", PNG.len()).await;
    let presign = json!({"contentType": "image/png", "size": 100});
    let late = t.post_json_auth(PRESIGNED, &alice, &presign).await;
    assert_reason_error(late, 429).await;
    // The confirm of one signed in time is not counted again.
    send_to_storage(&t, &upload, PNG.to_vec()).await;
    let id = upload["id"].as_str().expect("id");
    assert_eq!(confirm(&t, Some(&alice), id).await.status().as_u16(), 201);
    let refused = t.upload(Some(&alice), png()).await;
    let retry_after: u64 = header(refused.headers(), "retry-after")
        .parse()
        .expect("Retry-After seconds");
    assert!((1..=86_400).contains(&retry_after), "{retry_after}");
    let body: Value = assert_reason_error(refused, 429).await;
    assert!(message(&body).contains(&retry_after.to_string()), "{body}");
    assert_eq!(t.upload(Some(&bob), png()).await.status().as_u16(), 201);
}
