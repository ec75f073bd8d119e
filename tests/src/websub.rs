//! A WebSub hub for tests, on loopback: it records each subscription request (form POST),
//! answers 202, then verifies the subscriber's intent as a hub does (a GET of the callback with
//! `hub.mode`, `hub.topic`, `hub.challenge` and, subscribing, `hub.lease_seconds`), recording
//! whether the challenge came back; the test then has it deliver (signed) content.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Form, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::server::{self, FakeServer};

/// One request a subscriber made of the hub.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HubRequest {
    pub mode: String,
    pub topic: String,
    pub callback: String,
    pub secret: Option<String>,
    pub lease_seconds: Option<String>,
}

/// One verification of intent the hub made, and what the callback answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HubVerification {
    pub mode: String,
    pub callback: String,
    pub status: u16,
    /// The callback answered 2xx with the challenge as its body.
    pub confirmed: bool,
}

#[derive(Default)]
struct Inner {
    requests: Vec<HubRequest>,
    verifications: Vec<HubVerification>,
    /// The lease the hub grants in its verifications.
    lease_seconds: u64,
    challenges: u64,
}

/// A WebSub hub on `127.0.0.1` and a random port; stops when dropped.
pub struct FakeHub {
    server: FakeServer<Inner>,
}

impl FakeHub {
    /// A hub granting leases of `lease_seconds`.
    pub async fn start(lease_seconds: u64) -> Self {
        let inner = Inner {
            lease_seconds,
            ..Inner::default()
        };
        Self {
            server: FakeServer::start(inner, hub).await,
        }
    }

    /// The hub's URL (what feeds name in `<link rel="hub">`).
    pub fn url(&self) -> String {
        self.server.url("/hub")
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<HubRequest> {
        self.server.lock().requests.clone()
    }

    /// Every verification made, in order.
    pub fn verifications(&self) -> Vec<HubVerification> {
        self.server.lock().verifications.clone()
    }

    /// Waits (up to 30 s: an unsubscription comes from the sweeper's queue) until `count` verifications of `mode` were made; they, in order.
    pub async fn wait_for_verifications(&self, mode: &str, count: usize) -> Vec<HubVerification> {
        for _ in 0..600 {
            let done: Vec<HubVerification> = self
                .verifications()
                .into_iter()
                .filter(|v| v.mode == mode)
                .collect();
            if done.len() >= count {
                return done;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "{count} {mode} verifications not made: requests {:?}, verifications {:?}",
            self.requests(),
            self.verifications()
        );
    }

    /// Delivers `body` (Atom) to the subscriber of `request`, with `signature` as its
    /// `X-Hub-Signature` (none: unsigned); the callback's status.
    pub async fn deliver(
        &self,
        request: &HubRequest,
        body: &str,
        signature: Option<String>,
    ) -> reqwest::Response {
        let mut post = client()
            .post(&request.callback)
            .header("content-type", "application/atom+xml")
            .body(body.to_string());
        if let Some(signature) = signature {
            post = post.header("x-hub-signature", signature);
        }
        post.send().await.expect("delivery")
    }
}

async fn hub(
    State(inner): State<Arc<Mutex<Inner>>>,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let field = |name: &str| form.get(name).cloned();
    let (Some(mode), Some(topic), Some(callback)) =
        (field("hub.mode"), field("hub.topic"), field("hub.callback"))
    else {
        return (
            StatusCode::BAD_REQUEST,
            "hub.mode, hub.topic and hub.callback",
        )
            .into_response();
    };
    let request = HubRequest {
        mode: mode.clone(),
        topic: topic.clone(),
        callback: callback.clone(),
        secret: field("hub.secret"),
        lease_seconds: field("hub.lease_seconds"),
    };
    let (lease, challenge) = {
        let mut guard = server::lock(&inner);
        guard.requests.push(request);
        guard.challenges += 1;
        (
            guard.lease_seconds,
            format!("challenge-{}-{}", guard.challenges, std::process::id()),
        )
    };
    // Verified after the answer, as a hub that verifies asynchronously does.
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let mut query = vec![
            ("hub.mode", mode.clone()),
            ("hub.topic", topic),
            ("hub.challenge", challenge.clone()),
        ];
        if mode == "subscribe" {
            query.push(("hub.lease_seconds", lease.to_string()));
        }
        let mut url = reqwest::Url::parse(&callback).expect("callback URL");
        url.query_pairs_mut()
            .extend_pairs(query.iter().map(|(k, v)| (*k, v.as_str())));
        let answer = client().get(url).send().await;
        let (status, confirmed) = match answer {
            Ok(response) => {
                let status = response.status().as_u16();
                let body = response.text().await.unwrap_or_default();
                (status, (200..300).contains(&status) && body == challenge)
            }
            Err(_) => (0, false),
        };
        server::lock(&inner).verifications.push(HubVerification {
            mode,
            callback,
            status,
            confirmed,
        });
    });
    StatusCode::ACCEPTED.into_response()
}

/// An Atom feed at `self_url` naming `hub`, with entries `(id, title)`.
pub fn atom_with_hub(self_url: &str, hub: &str, entries: &[(&str, &str)]) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n\
         <title>Pushed news</title>\n<id>{self_url}</id>\n<updated>2026-11-30T12:00:00Z</updated>\n\
         <link rel=\"self\" href=\"{self_url}\"/>\n<link rel=\"hub\" href=\"{hub}\"/>\n\
         <link rel=\"alternate\" href=\"https://pushed.example.com/\"/>\n"
    );
    for (id, title) in entries {
        // Later ids are newer posts.
        let hour = 10 + id.parse::<u32>().unwrap_or(0) % 10;
        out.push_str(&format!(
            "<entry><id>tag:pushed.example.com,2026:{id}</id><title>{title}</title>\
             <link href=\"https://pushed.example.com/posts/{id}\"/>\
             <updated>2026-11-30T{hour:02}:00:00Z</updated>\
             <summary>The text of {title}.</summary></entry>\n"
        ));
    }
    out.push_str("</feed>\n");
    out
}

/// An HTTP client as the platform builds them (its TLS provider installed).
fn client() -> reqwest::Client {
    platform::tls::http_client().build().expect("client")
}
