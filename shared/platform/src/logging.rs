//! Structured logs with `tracing`: JSON lines in Lambda, text elsewhere.

use tracing_subscriber::EnvFilter;

use crate::config::Env;

/// Installs the global subscriber once: JSON lines in Lambda (CloudWatch parses them), text
/// elsewhere; level from `LOG_LEVEL` (INFO). A second call is a no-op.
pub fn init(env: &Env) {
    let level = env.get_or("LOG_LEVEL", "INFO").to_ascii_lowercase();
    let filter = env.get("RUST_LOG").map(EnvFilter::new).unwrap_or_else(|| {
        EnvFilter::new(format!(
            "{level},aws_config=warn,aws_smithy=warn,hyper=warn"
        ))
    });
    let in_lambda = env.get("AWS_LAMBDA_RUNTIME_API").is_some();
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let _ = if in_lambda {
        builder
            .json()
            .with_ansi(false)
            .with_current_span(false)
            .without_time()
            .try_init()
    } else {
        builder.with_target(false).try_init()
    };
}
