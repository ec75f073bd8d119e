//! The wiring the three community digest functions share (the HTTP function, the worker and
//! the scheduler): the digest service, its ports over HTTP ([`ports`]) and its queue, built
//! once per cold start with [`DigestEdge::from_env`].

pub mod ports;

use std::sync::Arc;
use std::time::Duration;

use community_digests::{DigestQueue, Digests};
use llm::provider_override::{Deployment, StoredOverride};
use llm::{Llm, LlmConfig};
use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::otel::Otel;
use platform::{BoxError, Clock, Env};

use crate::ports::Services;

/// The digest service with its ports and queue, built once per cold start (the HTTP function,
/// the worker and the scheduler alike).
pub struct DigestEdge {
    pub digests: Digests,
    pub services: Services,
    pub queue: DigestQueue,
    /// `INTERNAL_API_URL`; the worker and the scheduler need it (they have no request).
    pub internal_api_url: Option<String>,
    /// The AWS clients the edge was built on (the HTTP function's token verifier reads the
    /// sessions table with them).
    pub aws: AwsClients,
}

impl DigestEdge {
    /// `DIGESTS_TABLE`, `DIGEST_QUEUE_URL`, `DIGEST_TIMEZONE`, `INTERNAL_API_URL`,
    /// `INTERNAL_SERVICE_TOKEN`, the LLM settings, and the GenAI admin's provider override when
    /// `GENAI_CACHE_TABLE` and `GENAI_FUNCTION_VERSION` (the assistant function's published
    /// version ARN) are set.
    pub async fn from_env(env: &Env) -> Result<Self, BoxError> {
        let aws = AwsClients::from_env(env).await;
        let http = platform::tls::http_client()
            .connect_timeout(Duration::from_secs(5))
            .build()?;
        let mut llm = Llm::new(http, LlmConfig::from_env(env), Otel::default());
        let deployment = env
            .get("GENAI_FUNCTION_VERSION")
            .and_then(Deployment::from_version_arn);
        if let (Some(table), Some(deployment)) = (env.get("GENAI_CACHE_TABLE"), deployment) {
            llm = llm.with_override(Arc::new(StoredOverride::new(
                Table::new(aws.dynamodb.clone(), table),
                deployment,
                Clock::system(),
            )));
        }
        let digests = Digests::from_env(env, &aws, llm)?;
        let services = Services::new(
            env.get("INTERNAL_SERVICE_TOKEN").map(str::to_string),
            digests.timezone(),
        )?;
        Ok(Self {
            queue: DigestQueue::from_env(env, aws.sqs())?,
            digests,
            services,
            internal_api_url: env
                .get("INTERNAL_API_URL")
                .map(|u| u.trim().trim_end_matches('/').to_string())
                .filter(|u| !u.is_empty()),
            aws,
        })
    }

    /// Runs `f` with the ports at `base`.
    pub fn api(&self, base: Option<String>) -> ports::Api<'_> {
        self.services.at(base)
    }
}
