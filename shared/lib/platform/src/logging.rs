//! Structured logs with `tracing`: JSON lines in Lambda, text elsewhere.

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::config::Env;

/// Installs the global subscriber once: JSON lines in Lambda (CloudWatch parses them), text
/// elsewhere; level from `LOG_LEVEL` (INFO). A second call is a no-op.
pub fn init(env: &Env) {
    let filter = filter(env);
    let in_lambda = env.get("AWS_LAMBDA_RUNTIME_API").is_some();
    let builder = tracing_subscriber::fmt();
    let _ = if in_lambda {
        builder
            .json()
            .with_ansi(false)
            .with_current_span(false)
            .without_time()
            .finish()
            .with(filter)
            .try_init()
    } else {
        builder.with_target(false).finish().with(filter).try_init()
    };
}

/// `RUST_LOG` when it is a list of `target=level` directives; else `LOG_LEVEL` for our code,
/// with the AWS SDK and hyper held at WARN.
fn filter(env: &Env) -> Targets {
    if let Some(directives) = env.get("RUST_LOG").and_then(|v| v.parse::<Targets>().ok()) {
        return directives;
    }
    let level = env
        .get_or("LOG_LEVEL", "INFO")
        .parse::<LevelFilter>()
        .unwrap_or(LevelFilter::INFO);
    let quiet = level.min(LevelFilter::WARN);
    Targets::new()
        .with_default(level)
        .with_target("aws_config", quiet)
        // Prefixes: `aws_smithy` covers aws_smithy_runtime, `hyper` covers hyper_util.
        .with_target("aws_smithy", quiet)
        .with_target("hyper", quiet)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing::Level;

    #[test]
    fn log_level_sets_our_level_and_keeps_the_sdk_at_warn() {
        let debug = filter(&Env::new().with("LOG_LEVEL", "DEBUG"));
        assert!(debug.would_enable("news::ingest", &Level::DEBUG));
        assert!(!debug.would_enable("aws_smithy_runtime::client", &Level::INFO));
        assert!(debug.would_enable("hyper_util::client", &Level::WARN));

        let default = filter(&Env::new());
        assert!(default.would_enable("users", &Level::INFO));
        assert!(!default.would_enable("users", &Level::DEBUG));

        let error = filter(&Env::new().with("LOG_LEVEL", "error"));
        assert!(!error.would_enable("hyper", &Level::WARN));
    }

    #[test]
    fn rust_log_directives_win() {
        let f = filter(&Env::new().with("RUST_LOG", "warn,news=trace"));
        assert!(f.would_enable("news::fetch", &Level::TRACE));
        assert!(!f.would_enable("users", &Level::INFO));
    }
}
