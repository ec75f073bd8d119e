//! Black-box test support: a whole local stack (every function of `template.yaml`) started
//! in-process on a random port against the emulator, with its own tables.

pub mod apigen;
pub mod contract;
pub mod feeds;
pub mod llm;
pub mod otlp;

use std::collections::BTreeMap;
use std::path::PathBuf;

use local_stack::{RunningStack, StackOptions};
use platform::keys::{self, GeneratedKeyPair};
use reqwest::{Client, Response};
use serde_json::Value;

pub const SERVICE_CLIENT: &str = "local-service";
pub const SERVICE_SECRET: &str = "local-service-secret";
pub const INTERNAL_TOKEN: &str = "local-internal-token";

/// The repository root (this crate lives in `tests/`).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// The emulator the suite runs against; `local/test` starts one and exports its URL.
pub fn emulator() -> String {
    std::env::var("AWS_ENDPOINT_URL").unwrap_or_else(|_| {
        panic!("AWS_ENDPOINT_URL is not set: run the suite through local/test, which starts the emulator")
    })
}

/// The stack's warnings (an IAM refusal, a failed batch) in a failing test's output; RUST_LOG
/// chooses others.
pub fn show_stack_warnings() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_test_writer()
        .try_init();
}

pub struct TestStack {
    pub stack: RunningStack,
    pub http: Client,
    pub keys: GeneratedKeyPair,
    pub stack_name: String,
}

impl TestStack {
    pub async fn start() -> Self {
        Self::start_with(BTreeMap::new()).await
    }

    pub async fn start_with(extra_parameters: BTreeMap<String, String>) -> Self {
        Self::start_from(repo_root().join("template.yaml"), extra_parameters).await
    }

    /// The stack of another template (say, an edited copy of the repository's).
    pub async fn start_from(template: PathBuf, extra_parameters: BTreeMap<String, String>) -> Self {
        show_stack_warnings();
        let keys = keys::generate_ed25519().expect("generate key");
        let stack_name = format!("t{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);
        let mut parameters = BTreeMap::from([
            ("JwtPrivateKey".to_string(), keys.private_pem.clone()),
            ("JwtPublicKey".to_string(), keys.public_pem.clone()),
            ("AdminUsernames".to_string(), "admin".to_string()),
            (
                "ServiceClients".to_string(),
                format!("{SERVICE_CLIENT}:{SERVICE_SECRET}:source.write"),
            ),
            (
                "InternalServiceToken".to_string(),
                INTERNAL_TOKEN.to_string(),
            ),
            // The tests serve their feeds on loopback.
            ("FeedAllowPrivateNetworks".to_string(), "true".to_string()),
        ]);
        parameters.extend(extra_parameters);
        let options = StackOptions {
            template,
            stack_name: stack_name.clone(),
            bind: "127.0.0.1:0".parse().expect("addr"),
            aws_endpoint: emulator(),
            region: std::env::var("AWS_REGION").unwrap_or_else(|_| "us-east-1".into()),
            env_file: None,
            parameters,
            process_env_overrides: false,
            run_schedules: false,
            run_queue_pollers: true,
        };
        let stack = local_stack::start(options, local_stack::registry())
            .await
            .expect("start local stack");
        let http = Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        Self {
            stack,
            http,
            keys,
            stack_name,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.stack.base_url(), path)
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> Response {
        self.http
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .expect("request")
    }

    pub async fn get_auth(&self, path: &str, token: &str) -> Response {
        self.http
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .expect("request")
    }

    /// Registers `username` (password `password-{username}`) and returns its profile.
    pub async fn register(&self, username: &str) -> Value {
        let response = self
            .post_json(
                "/api/users/auth/register",
                &serde_json::json!({
                    "username": username,
                    "email": format!("{username}@example.com"),
                    "password": format!("password-{username}"),
                    "name": format!("{username} tester"),
                }),
            )
            .await;
        assert_eq!(response.status(), 201, "register {username}");
        response.json().await.expect("profile")
    }

    pub async fn login(&self, username: &str) -> String {
        let response = self
            .post_json(
                "/api/users/auth/login",
                &serde_json::json!({"username": username, "password": format!("password-{username}")}),
            )
            .await;
        assert_eq!(response.status(), 200, "login {username}");
        let body: Value = response.json().await.expect("token");
        body["token"].as_str().expect("token string").to_string()
    }

    /// Registers and logs in a new user; returns (profile, token).
    pub async fn user(&self, username: &str) -> (Value, String) {
        let profile = self.register(username).await;
        let token = self.login(username).await;
        (profile, token)
    }

    /// A client-credentials token for the local service client.
    pub async fn service_token(&self) -> String {
        let response = self
            .http
            .post(self.url("/api/users/oauth2/token"))
            .basic_auth(SERVICE_CLIENT, Some(SERVICE_SECRET))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), 200, "client credentials");
        let body: Value = response.json().await.expect("json");
        body["access_token"].as_str().expect("token").to_string()
    }
}

/// Asserts the Document A error body and returns it.
pub async fn assert_news_error(response: Response, status: u16, path: &str) -> Value {
    assert_eq!(response.status().as_u16(), status, "status");
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );
    let body: Value = response.json().await.expect("json body");
    assert_eq!(body["code"], status, "{body}");
    assert_eq!(body["path"], path, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    assert!(body["details"].is_array(), "{body}");
    let ts = body["timestamp"].as_str().expect("timestamp");
    assert!(chrono::DateTime::parse_from_rfc3339(ts).is_ok(), "{ts}");
    body
}

/// The `details` entries of an error body.
pub fn details(body: &Value) -> Vec<String> {
    body["details"]
        .as_array()
        .map(|d| {
            d.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
