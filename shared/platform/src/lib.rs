//! The platform's infrastructure: what every function needs once: configuration, AWS clients,
//! the error type and its two body shapes, token verification, HTTP glue, telemetry and the
//! Lambda runtime glue.

pub mod auth;
pub mod aws;
pub mod config;
pub mod dynamo;
pub mod error;
pub mod function;
pub mod http;
pub mod keys;
pub mod lambda;
pub mod telemetry;

pub use config::{ConfigError, Env};
pub use error::{ApiError, ErrorKind, ErrorStyle, FieldError, FieldErrors};
pub use function::{BoxError, Function, ScheduleHandler, SqsHandler};
