//! AWS clients pointed at the emulator, built once for provisioning and polling.
//!
//! Region and credentials are set explicitly: without them the default chain falls through to
//! instance metadata (slow, then failing) and request signing fails.

use std::time::Duration;

use aws_config::stalled_stream_protection::StalledStreamProtectionConfig;
use aws_config::timeout::TimeoutConfig;
use aws_config::{BehaviorVersion, Region};

/// Credentials the emulator accepts when the process has none.
pub const DEFAULT_ACCESS_KEY: &str = "test";
pub const DEFAULT_SECRET_KEY: &str = "test";

#[derive(Clone, Debug)]
pub struct AwsClients {
    pub dynamodb: aws_sdk_dynamodb::Client,
    pub s3: aws_sdk_s3::Client,
    pub sqs: aws_sdk_sqs::Client,
    pub events: aws_sdk_eventbridge::Client,
    pub sns: aws_sdk_sns::Client,
}

/// The credentials the stack and its functions use: the process's, else the emulator's dummies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessCredentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

impl ProcessCredentials {
    pub fn from_process() -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Self {
            access_key_id: var("AWS_ACCESS_KEY_ID").unwrap_or_else(|| DEFAULT_ACCESS_KEY.into()),
            secret_access_key: var("AWS_SECRET_ACCESS_KEY")
                .unwrap_or_else(|| DEFAULT_SECRET_KEY.into()),
            session_token: var("AWS_SESSION_TOKEN"),
        }
    }
}

impl AwsClients {
    pub async fn new(endpoint: &str, region: &str, credentials: &ProcessCredentials) -> Self {
        let creds = aws_sdk_sqs::config::Credentials::new(
            credentials.access_key_id.clone(),
            credentials.secret_access_key.clone(),
            credentials.session_token.clone(),
            None,
            "local-stack",
        );
        // Long polls wait up to 10 s; anything much slower means the emulator is stuck.
        let timeouts = TimeoutConfig::builder()
            .connect_timeout(Duration::from_secs(3))
            .operation_attempt_timeout(Duration::from_secs(20))
            .build();
        let mut loader = aws_config::defaults(BehaviorVersion::latest())
            .endpoint_url(endpoint)
            .region(Region::new(region.to_string()))
            .credentials_provider(creds)
            .timeout_config(timeouts);
        match platform::aws::AwsHttpClient::new(None) {
            Ok(client) => loader = loader.http_client(client),
            Err(e) => tracing::error!(error = %e, "the AWS HTTP client could not be built"),
        }
        let config = loader.load().await;
        let s3_config = aws_sdk_s3::config::Builder::from(&config)
            .force_path_style(true)
            .build();
        Self {
            dynamodb: aws_sdk_dynamodb::Client::new(&config),
            s3: aws_sdk_s3::Client::from_conf(s3_config),
            // A long poll sends no byte until a message comes: the SDK's stalled-stream guard
            // would cut it after 5 s (and the message it then takes stays hidden from the
            // poller until its visibility timeout ends).
            sqs: aws_sdk_sqs::Client::from_conf(
                aws_sdk_sqs::config::Builder::from(&config)
                    .stalled_stream_protection(StalledStreamProtectionConfig::disabled())
                    .build(),
            ),
            events: aws_sdk_eventbridge::Client::new(&config),
            sns: aws_sdk_sns::Client::new(&config),
        }
    }
}
