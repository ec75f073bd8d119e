//! The fetcher against a tiny hand-written HTTP/1.1 server on 127.0.0.1.

// All test code (helpers too): a failed unwrap, expect or index is a failed test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use news::{FeedFetcher, FetchConfig, FetchError, FetchOutcome, Validators};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const RSS: &str = include_str!("fixtures/rss2.xml");

/// What the test server does with one request.
enum Reply {
    /// Write these bytes, then close the connection.
    Send(Vec<u8>),
    /// Write these bytes (possibly nothing), then hold the connection open without a word.
    SendThenStall(Vec<u8>),
}

struct TestServer {
    addr: SocketAddr,
    /// Raw request heads, lowercased, in arrival order.
    requests: Arc<Mutex<Vec<String>>>,
}

impl TestServer {
    async fn start<F>(handler: F) -> Self
    where
        F: Fn(&str, &str) -> Reply + Send + Sync + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        let handler = Arc::new(handler);
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let seen = seen.clone();
                let handler = handler.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 4096];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match socket.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                        if head.len() > 64 * 1024 {
                            return;
                        }
                    }
                    let head = String::from_utf8_lossy(&head).to_string();
                    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let lower = head.to_ascii_lowercase();
                    seen.lock().unwrap().push(lower.clone());
                    match handler(&path, &lower) {
                        Reply::Send(bytes) => {
                            let _ = socket.write_all(&bytes).await;
                            let _ = socket.shutdown().await;
                        }
                        Reply::SendThenStall(bytes) => {
                            let _ = socket.write_all(&bytes).await;
                            let _ = socket.flush().await;
                            tokio::time::sleep(Duration::from_secs(30)).await;
                        }
                    }
                });
            }
        });
        Self { addr, requests }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

fn response(status: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fn fetcher(allow_private_networks: bool) -> FeedFetcher {
    FeedFetcher::new(FetchConfig {
        timeout: Duration::from_secs(5),
        max_bytes: 64 * 1024,
        allow_private_networks,
        ..FetchConfig::default()
    })
    .unwrap()
}

#[tokio::test]
async fn fetches_then_revalidates_with_etag_and_last_modified() {
    let server = TestServer::start(|_, head| {
        if head.contains("if-none-match: \"v1\"") {
            Reply::Send(response("304 Not Modified", &[("ETag", "\"v1\"")], b""))
        } else {
            Reply::Send(response(
                "200 OK",
                &[
                    ("Content-Type", "application/rss+xml; charset=utf-8"),
                    ("ETag", "\"v1\""),
                    ("Last-Modified", "Tue, 04 Mar 2025 18:00:00 GMT"),
                ],
                RSS.as_bytes(),
            ))
        }
    })
    .await;
    let fetcher = fetcher(true);
    let url = server.url("/feed.xml");

    let first = fetcher.fetch(&url, &Validators::default()).await.unwrap();
    let FetchOutcome::Fetched {
        body,
        etag,
        last_modified,
        final_url,
        ..
    } = first
    else {
        panic!("expected a body, got {first:?}");
    };
    assert_eq!(&body[..], RSS.as_bytes());
    assert_eq!(etag.as_deref(), Some("\"v1\""));
    assert_eq!(
        last_modified.as_deref(),
        Some("Tue, 04 Mar 2025 18:00:00 GMT")
    );
    assert_eq!(final_url, url);
    let feed = news::parse_feed(&body, &final_url).unwrap();
    assert_eq!(feed.title, "The Daily Circuit & Co.");

    let validators = Validators {
        etag,
        last_modified,
    };
    let second = fetcher.fetch(&url, &validators).await.unwrap();
    assert_eq!(second, FetchOutcome::NotModified);

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(!requests[0].contains("if-none-match"));
    assert!(requests[0].contains("accept: application/rss+xml"));
    assert!(requests[0].contains("user-agent: newsreader/"));
    assert!(requests[1].contains("if-none-match: \"v1\""));
    assert!(requests[1].contains("if-modified-since: tue, 04 mar 2025 18:00:00 gmt"));
}

#[tokio::test]
async fn a_stalled_server_times_out_within_the_configured_time() {
    let server = TestServer::start(|path, _| {
        if path == "/half" {
            // Headers and part of the body, then silence.
            let mut bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".to_vec();
            bytes.extend_from_slice(&[b'<'; 10]);
            Reply::SendThenStall(bytes)
        } else {
            Reply::SendThenStall(Vec::new())
        }
    })
    .await;
    let fetcher = FeedFetcher::new(FetchConfig {
        timeout: Duration::from_millis(300),
        allow_private_networks: true,
        ..FetchConfig::default()
    })
    .unwrap();

    for path in ["/silent", "/half"] {
        let started = Instant::now();
        let result = fetcher
            .fetch(&server.url(path), &Validators::default())
            .await;
        let elapsed = started.elapsed();
        assert_eq!(result, Err(FetchError::Timeout), "{path}");
        assert!(elapsed >= Duration::from_millis(250), "{path}: {elapsed:?}");
        assert!(elapsed < Duration::from_secs(2), "{path}: {elapsed:?}");
    }
}

#[tokio::test]
async fn bodies_over_the_cap_are_refused() {
    let server = TestServer::start(|path, _| match path {
        "/declared" => Reply::Send(response("200 OK", &[], &[b'x'; 4096])),
        "/exact" => Reply::Send(response("200 OK", &[], &[b'x'; 1024])),
        // No Content-Length: the body runs until the connection closes, so only counting
        // while streaming can catch it.
        _ => {
            let mut bytes = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".to_vec();
            bytes.extend_from_slice(&[b'x'; 100_000]);
            Reply::Send(bytes)
        }
    })
    .await;
    let fetcher = FeedFetcher::new(FetchConfig {
        max_bytes: 1024,
        allow_private_networks: true,
        ..FetchConfig::default()
    })
    .unwrap();
    let none = Validators::default();

    assert_eq!(
        fetcher.fetch(&server.url("/declared"), &none).await,
        Err(FetchError::TooLarge)
    );
    assert_eq!(
        fetcher.fetch(&server.url("/streamed"), &none).await,
        Err(FetchError::TooLarge)
    );
    match fetcher.fetch(&server.url("/exact"), &none).await {
        Ok(FetchOutcome::Fetched { body, .. }) => assert_eq!(body.len(), 1024),
        other => panic!("a body of exactly the cap is fine, got {other:?}"),
    }
}

#[tokio::test]
async fn redirects_are_followed_up_to_five_hops() {
    let server = TestServer::start(|path, _| {
        let Some(n) = path.strip_prefix("/hop/") else {
            return match path {
                "/no-location" => Reply::Send(response("302 Found", &[], b"")),
                "/to-file" => Reply::Send(response(
                    "301 Moved Permanently",
                    &[("Location", "file:///etc/passwd")],
                    b"",
                )),
                _ => Reply::Send(response("404 Not Found", &[], b"")),
            };
        };
        let n: u32 = n.parse().unwrap();
        if n == 0 {
            return Reply::Send(response("200 OK", &[("ETag", "\"end\"")], b"<rss/>"));
        }
        // Mix the redirect statuses and relative/absolute forms.
        let status = [
            "301 Moved Permanently",
            "302 Found",
            "303 See Other",
            "307 Temporary Redirect",
            "308 Permanent Redirect",
        ][(n as usize) % 5];
        let location = format!("/hop/{}#frag", n - 1);
        Reply::Send(response(status, &[("Location", &location)], b""))
    })
    .await;
    let fetcher = fetcher(true);
    let none = Validators::default();

    match fetcher.fetch(&server.url("/hop/5"), &none).await {
        Ok(FetchOutcome::Fetched {
            body,
            etag,
            final_url,
            ..
        }) => {
            assert_eq!(&body[..], b"<rss/>");
            assert_eq!(etag.as_deref(), Some("\"end\""));
            assert_eq!(final_url, server.url("/hop/0"));
        }
        other => panic!("five redirects are allowed, got {other:?}"),
    }
    assert_eq!(server.requests().len(), 6);

    let err = fetcher
        .fetch(&server.url("/hop/6"), &none)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, FetchError::Network(m) if m.contains("too many redirects")),
        "{err:?}"
    );
    // The sixth redirect is not followed.
    assert_eq!(server.requests().len(), 6 + 6);

    assert_eq!(
        fetcher.fetch(&server.url("/no-location"), &none).await,
        Err(FetchError::Status(302))
    );
    let err = fetcher
        .fetch(&server.url("/to-file"), &none)
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::InvalidUrl(_)), "{err:?}");
}

#[tokio::test]
async fn loopback_is_refused_unless_private_networks_are_allowed() {
    let server =
        TestServer::start(|_, _| Reply::Send(response("200 OK", &[], RSS.as_bytes()))).await;
    let port = server.addr.port();
    let guarded = fetcher(false);
    let none = Validators::default();

    for url in [
        format!("http://127.0.0.1:{port}/feed.xml"),
        format!("http://localhost:{port}/feed.xml"),
        format!("http://[::1]:{port}/feed.xml"),
        format!("http://[::ffff:127.0.0.1]:{port}/feed.xml"),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://10.0.0.1/feed".to_string(),
    ] {
        let err = guarded.fetch(&url, &none).await.unwrap_err();
        assert!(matches!(err, FetchError::Blocked(_)), "{url}: {err:?}");
        assert!(err.to_string().contains("private or reserved network"));
    }
    assert!(server.requests().is_empty(), "nothing may reach the server");

    let open = fetcher(true);
    let outcome = open
        .fetch(&format!("http://localhost:{port}/feed.xml"), &none)
        .await
        .unwrap();
    assert!(matches!(outcome, FetchOutcome::Fetched { .. }));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn error_statuses_and_bad_urls() {
    let server = TestServer::start(|path, _| match path {
        "/missing" => Reply::Send(response("404 Not Found", &[], b"nope")),
        _ => Reply::Send(response("500 Internal Server Error", &[], b"")),
    })
    .await;
    let fetcher = fetcher(true);
    let none = Validators::default();

    assert_eq!(
        fetcher.fetch(&server.url("/missing"), &none).await,
        Err(FetchError::Status(404))
    );
    assert_eq!(
        fetcher.fetch(&server.url("/boom"), &none).await,
        Err(FetchError::Status(500))
    );

    for url in [
        "not a url",
        "ftp://example.com/feed",
        "http://user:secret@example.com/feed",
    ] {
        let err = fetcher.fetch(url, &none).await.unwrap_err();
        assert!(matches!(err, FetchError::InvalidUrl(_)), "{url}: {err:?}");
    }

    // Nothing listens on a port that was just released.
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        listener.local_addr().unwrap()
    };
    let err = fetcher
        .fetch(&format!("http://{closed}/feed"), &none)
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Network(_)), "{err:?}");
}
