//! The platform's infrastructure: what every function needs once: configuration, AWS clients,
//! the error type and its two body shapes, token verification, HTTP glue, telemetry and the
//! Lambda runtime glue.

#[cfg(feature = "tokens")]
pub mod auth;
#[cfg(feature = "aws")]
pub mod aws;
pub mod config;
#[cfg(feature = "aws")]
pub mod dynamo;
pub mod error;
pub mod function;
pub mod http;
#[cfg(feature = "tokens")]
pub mod keys;
pub mod lambda;
#[cfg(feature = "llm")]
pub mod llm;
pub mod openapi;
#[cfg(feature = "otel")]
pub mod otel;
pub mod telemetry;

pub use config::{ConfigError, Env};
pub use error::{ApiError, ErrorKind, ErrorStyle, FieldError, FieldErrors};
pub use function::{BoxError, Function, ScheduleHandler, SqsHandler};
