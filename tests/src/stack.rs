//! A whole local stack (every function of `template.yaml`) started in-process on a random
//! port against the emulator, with its own tables, and the requests tests send it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::path::PathBuf;

use aws_sdk_dynamodb::types::AttributeValue;
use local_stack::{RunningStack, StackOptions};
use platform::keys::{self, GeneratedKeyPair};
use platform::Env;
use reqwest::{Client, RequestBuilder, Response};
use serde_json::Value;

use crate::{emulator, repo_root};

pub const SERVICE_CLIENT: &str = "local-service";
pub const SERVICE_SECRET: &str = "local-service-secret";
pub const INTERNAL_TOKEN: &str = "local-internal-token";
/// The administrator every test stack provisions as it starts (the bootstrap custom resource).
pub const ADMIN_USERNAME: &str = "admin";
pub const ADMIN_PASSWORD: &str = "admin-password-1";
/// The incident platform's ingest key in every test stack (`X-Api-Key`).
pub const INGEST_KEY: &str = "local-ingest-key";
/// The incident platform's metrics credentials in every test stack (HTTP Basic auth).
pub const METRICS_USERNAME: &str = "metrics";
pub const METRICS_PASSWORD: &str = "local-metrics";
/// The browser origin every test stack names in `AssistantStreamOrigins`, as an operator names
/// the platform's own domains: the only page origin the assistant's function URL answers
/// (its `Cors`), and what makes the web page stream from that URL. A test stack's own page is
/// on the same origin as its function URL (`/lambda-url/assistant/`), so needs no CORS.
pub const STREAM_ORIGIN: &str = "https://news.example";

/// The functions every [`TestStack::start_only`] runs: sign-in, and the administrator's
/// bootstrap.
pub const IDENTITY_FUNCTIONS: &[&str] = &["IdentityFunction", "IdentityBootstrapFunction"];

/// A product, for a stack of its functions only ([`TestStack::for_product`]).
#[derive(Clone, Copy, Debug)]
pub enum Product {
    News,
    Community,
    Recipes,
    Incidents,
}

impl Product {
    /// The product's functions, as `template.yaml` names them.
    pub fn functions(self) -> &'static [&'static str] {
        match self {
            Self::News => &[
                "NewsFunction",
                "NewsIntakeFunction",
                "NewsFeedSchedulerFunction",
                "NewsFeedWorkerFunction",
                "NewsPageReaderFunction",
                "NewsSourceSweeperFunction",
                "AssistantFunction",
            ],
            Self::Community => &[
                "CommunityFunction",
                "CommunityUploadsFunction",
                "CommunityViewsFunction",
                "CommunityIndexerFunction",
                "CommunityIndexSchedulerFunction",
                "CommunitySweeperFunction",
                "CommunitySummarizerFunction",
                "CommunityDigestsFunction",
                "CommunityDigestWorkerFunction",
                "CommunityDigestSchedulerFunction",
                "WebFunction",
            ],
            // The recipe function names the assistant's published version (its AI calls).
            Self::Recipes => &[
                "RecipesFunction",
                "RecipesSweeperFunction",
                "AssistantFunction",
            ],
            Self::Incidents => &[
                "IncidentsFunction",
                "IncidentsIngestFunction",
                "IncidentsProcessorFunction",
                "IncidentsNotifierFunction",
                "IncidentsSweeperFunction",
                "IncidentsMetricsFunction",
                "IncidentsIntelligenceFunction",
                "IncidentsIntelligenceSweeperFunction",
            ],
        }
    }
}

/// `functions` and the identity service's: every test signs in.
fn with_identity(functions: &[&str]) -> BTreeSet<String> {
    IDENTITY_FUNCTIONS
        .iter()
        .chain(functions)
        .map(|f| f.to_string())
        .collect()
}

/// One DynamoDB item as the SDK returns it.
pub type Item = HashMap<String, AttributeValue>;

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
    /// The provisioned administrator's token, signed in once per stack (logins per username
    /// are rate limited).
    pub(crate) admin: tokio::sync::OnceCell<String>,
    /// The helpers' requests go through the gateway's router (`oneshot`), not over HTTP.
    in_process: bool,
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
        Self::started(template, extra_parameters, None, false).await
    }

    /// Only `functions`, the identity service's (every test signs in) and what they need of
    /// the template: for tests of a product's handlers and workers that touch no other product,
    /// so they do not provision and start the whole template (a third to a half of it).
    pub async fn start_only(functions: &[&str]) -> Self {
        Self::started(
            repo_root().join("template.yaml"),
            BTreeMap::new(),
            Some(with_identity(functions)),
            false,
        )
        .await
    }

    /// [`Self::start_only`] with a product's functions: what a product's own tests start.
    pub async fn for_product(product: Product) -> Self {
        Self::start_only(product.functions()).await
    }

    /// The in-process tier: a product's functions (and the identity service's) with no queue
    /// poller and no schedule running, its tables, buckets and queues provisioned, and the
    /// helpers' requests answered by the gateway's axum router through `oneshot` (as axum's and
    /// crates.io's tests call `app()`): for the checks of handlers that need no worker.
    pub async fn in_process(product: Product) -> Self {
        Self::in_process_with(product, BTreeMap::new()).await
    }

    /// [`Self::in_process`] with template parameters of the test's own (a limit, say).
    pub async fn in_process_with(
        product: Product,
        extra_parameters: BTreeMap<String, String>,
    ) -> Self {
        Self::started(
            repo_root().join("template.yaml"),
            extra_parameters,
            Some(with_identity(product.functions())),
            true,
        )
        .await
    }

    async fn started(
        template: PathBuf,
        extra_parameters: BTreeMap<String, String>,
        functions: Option<BTreeSet<String>>,
        in_process: bool,
    ) -> Self {
        show_stack_warnings();
        let keys = keys::generate_ed25519().expect("generate key");
        let stack_name = format!("t{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);
        let mut parameters = BTreeMap::from([
            ("JwtPrivateKey".to_string(), keys.private_pem.clone()),
            ("JwtPublicKey".to_string(), keys.public_pem.clone()),
            (
                "BootstrapAdminUsername".to_string(),
                ADMIN_USERNAME.to_string(),
            ),
            (
                "BootstrapAdminPassword".to_string(),
                ADMIN_PASSWORD.to_string(),
            ),
            (
                "ServiceClients".to_string(),
                format!("{SERVICE_CLIENT}:{SERVICE_SECRET}:source.write"),
            ),
            (
                "InternalServiceToken".to_string(),
                INTERNAL_TOKEN.to_string(),
            ),
            ("IngestApiKeys".to_string(), INGEST_KEY.to_string()),
            ("MetricsUsername".to_string(), METRICS_USERNAME.to_string()),
            ("MetricsPassword".to_string(), METRICS_PASSWORD.to_string()),
            // The tests serve their feeds on loopback.
            ("FeedAllowPrivateNetworks".to_string(), "true".to_string()),
            (
                "AssistantStreamOrigins".to_string(),
                STREAM_ORIGIN.to_string(),
            ),
        ]);
        parameters.extend(
            crate::limits::OUT_OF_THE_WAY
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
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
            run_queue_pollers: !in_process,
            functions,
        };
        let stack = local_stack::start(options, local_stack::registry())
            .await
            .expect("start local stack");
        let http = platform::tls::http_client()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        Self {
            stack,
            http,
            keys,
            stack_name,
            admin: tokio::sync::OnceCell::new(),
            in_process,
        }
    }

    /// Sends a helper's request: over HTTP to the stack's server, or, in the in-process tier,
    /// through the gateway's router with `oneshot` (the same routes, functions and answers).
    pub async fn send(&self, request: RequestBuilder) -> Response {
        if !self.in_process {
            return request.call().await;
        }
        let request = request.build().expect("request");
        let url = request.url();
        let target = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_string(),
        };
        let mut built = http::Request::builder()
            .method(request.method().clone())
            .uri(target);
        if let Some(host) = url.host_str() {
            let host = url
                .port()
                .map_or(host.to_string(), |p| format!("{host}:{p}"));
            built = built.header(http::header::HOST, host);
        }
        for (name, value) in request.headers() {
            built = built.header(name, value);
        }
        let body = request.body().map_or(Vec::new(), |body| {
            body.as_bytes()
                .expect("an in-process request's body is in memory")
                .to_vec()
        });
        let mut built = built.body(axum::body::Body::from(body)).expect("request");
        built
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(std::net::SocketAddr::from((
                [127, 0, 0, 1],
                50_000,
            ))));
        let answer = crate::router::send(&self.stack.app(), built).await;
        let mut response = http::Response::builder().status(answer.status);
        for (name, value) in &answer.headers {
            response = response.header(name, value);
        }
        Response::from(response.body(answer.body).expect("response"))
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.stack.base_url(), path)
    }

    /// The environment the stack gives function `logical_id` (to build its handler with
    /// changes the stack was not started with).
    pub fn env(&self, logical_id: &str) -> Env {
        self.stack
            .function_env(logical_id)
            .unwrap_or_else(|| panic!("{logical_id} is not a function of the template"))
            .clone()
    }

    /// The base URL of function `logical_id`'s own URL (its `FunctionUrlConfig`).
    pub fn function_url(&self, logical_id: &str) -> String {
        self.stack
            .function_url(logical_id)
            .unwrap_or_else(|| panic!("{logical_id} has no function URL"))
            .to_string()
    }

    /// The physical name of table `logical_id` in this stack.
    pub fn table(&self, logical_id: &str) -> String {
        self.stack
            .physical_name(logical_id)
            .unwrap_or_else(|| panic!("{logical_id} is not a resource of the template"))
    }

    /// A DynamoDB client of the emulator, to look behind the API. A test's look is not held
    /// to a function's 12 s budget: a 1 MB Scan can take longer on a busy machine.
    pub async fn dynamodb(&self) -> aws_sdk_dynamodb::Client {
        let config = platform::aws::sdk_config(&Env::from_process());
        let patient = aws_sdk_dynamodb::config::Builder::from(&config).timeout_config(
            aws_sdk_dynamodb::config::timeout::TimeoutConfig::builder()
                .connect_timeout(std::time::Duration::from_secs(3))
                .operation_attempt_timeout(std::time::Duration::from_secs(60))
                .operation_timeout(std::time::Duration::from_secs(180))
                .build(),
        );
        aws_sdk_dynamodb::Client::from_conf(patient.build())
    }

    /// The functions' own AWS clients, built from the process's environment (so not under a
    /// function's IAM policy): stores built on them read and write as the functions do.
    pub async fn aws(&self) -> platform::aws::AwsClients {
        platform::aws::AwsClients::from_env(&Env::from_process()).await
    }

    /// Writes `items` into table `logical_id` as they are, 25 to a BatchWriteItem (to set
    /// up rows the API would take long to make, or that older code wrote).
    pub async fn put_items(&self, logical_id: &str, items: Vec<Item>) {
        use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
        let client = self.dynamodb().await;
        let table = self.table(logical_id);
        for chunk in items.chunks(25) {
            let writes = chunk
                .iter()
                .map(|item| {
                    let put = PutRequest::builder()
                        .set_item(Some(item.clone()))
                        .build()
                        .expect("a put");
                    WriteRequest::builder().put_request(put).build()
                })
                .collect();
            let out = client
                .batch_write_item()
                .request_items(&table, writes)
                .send()
                .await
                .expect("batch write");
            assert!(
                out.unprocessed_items.unwrap_or_default().is_empty(),
                "the emulator took every item"
            );
        }
    }

    /// The first page (1 MB) of table `logical_id`'s items: what a test's small table holds.
    pub async fn scan(&self, logical_id: &str) -> Vec<Item> {
        self.dynamodb()
            .await
            .scan()
            .table_name(self.table(logical_id))
            .send()
            .await
            .expect("scan")
            .items
            .unwrap_or_default()
    }

    pub async fn get(&self, path: &str) -> Response {
        self.send(self.http.get(self.url(path))).await
    }

    /// `GET path` anonymously, which must answer 200; its JSON body.
    pub async fn get_json(&self, path: &str) -> Value {
        let response = self.get(path).await;
        assert_eq!(response.status(), 200, "GET {path}");
        response.json().await.expect("json")
    }

    pub async fn get_auth(&self, path: &str, token: &str) -> Response {
        self.send(self.http.get(self.url(path)).bearer_auth(token))
            .await
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> Response {
        self.send(self.http.post(self.url(path)).json(body)).await
    }

    pub async fn post_json_auth(&self, path: &str, token: &str, body: &Value) -> Response {
        self.send(self.http.post(self.url(path)).bearer_auth(token).json(body))
            .await
    }

    pub async fn put_json_auth(&self, path: &str, token: &str, body: &Value) -> Response {
        self.send(self.http.put(self.url(path)).bearer_auth(token).json(body))
            .await
    }

    /// `POST path` with `body` as it is and this content type (for malformed, oversized or
    /// empty bodies, or other media types).
    pub async fn post_raw(
        &self,
        path: &str,
        content_type: &str,
        body: impl Into<String>,
    ) -> Response {
        self.send(
            self.http
                .post(self.url(path))
                .header("content-type", content_type)
                .body(body.into()),
        )
        .await
    }

    /// `POST path` with a token and no body.
    pub async fn post_auth(&self, path: &str, token: &str) -> Response {
        self.send(self.http.post(self.url(path)).bearer_auth(token))
            .await
    }

    pub async fn delete_auth(&self, path: &str, token: &str) -> Response {
        self.send(self.http.delete(self.url(path)).bearer_auth(token))
            .await
    }
}

/// Sends a request a test built itself; only a transport failure panics, any status returns.
pub trait Call {
    fn call(self) -> impl Future<Output = Response> + Send;
}

impl Call for RequestBuilder {
    async fn call(self) -> Response {
        self.send().await.expect("request")
    }
}
