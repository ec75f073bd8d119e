//! The platform's infrastructure: what every function needs once.
//!
//! Always here, and all a domain crate may use: configuration ([`Env`]), the [`clock`],
//! input validation ([`FieldError`], [`Invalid`]) and [`logging`]. Behind features:
//! - `aws`: the AWS clients and the DynamoDB toolkit ([`dynamo`]);
//! - `tokens`: token verification ([`tokens`], [`keys`], [`jwt`], ring as the JWT backend);
//! - `http-client`: the reqwest client builder every function uses ([`tls`]);
//! - `topics`: the topic slug rule news and community share ([`topic`]);
//! - `ratelimit`: per-client limits in a DynamoDB table ([`ratelimit`]); its 429 needs `edge`;
//! - `otel`: metrics and traces exported as OTLP JSON ([`otel`]); its router layer needs
//!   `edge` too;
//! - `edge` (function crates only): the error type and its body shapes ([`ApiError`]), the
//!   router glue ([`http`]), the route guards ([`auth`]), OpenAPI pieces and the Lambda runtime.

#[cfg(feature = "aws")]
pub mod accounts;
#[cfg(all(feature = "edge", feature = "tokens", feature = "aws"))]
pub mod auth;
#[cfg(feature = "aws")]
pub mod aws;
// The header name too, which the internal routes' guard (`auth`, over `aws`) reads.
#[cfg(any(feature = "http-client", feature = "aws"))]
pub mod call;
pub mod clock;
pub mod config;
#[cfg(feature = "contract")]
pub mod contract;
pub mod cursor;
#[cfg(feature = "edge")]
pub mod custom_resource;
#[cfg(feature = "aws")]
pub mod dynamo;
#[cfg(feature = "edge")]
pub mod error;
#[cfg(feature = "edge")]
pub mod function;
#[cfg(feature = "edge")]
pub mod http;
#[cfg(feature = "tokens")]
pub mod jwt;
#[cfg(feature = "tokens")]
pub mod keys;
#[cfg(feature = "edge")]
pub mod lambda;
pub mod logging;
#[cfg(feature = "edge")]
pub mod openapi;
#[cfg(feature = "otel")]
pub mod otel;
#[cfg(feature = "ratelimit")]
pub mod ratelimit;
#[cfg(all(feature = "aws", feature = "tokens"))]
pub mod sessions;
#[cfg(feature = "http-client")]
pub mod tls;
#[cfg(feature = "tokens")]
pub mod tokens;
#[cfg(feature = "topics")]
pub mod topic;
pub mod validation;

pub use clock::Clock;
pub use config::{ConfigError, Env};
#[cfg(feature = "edge")]
pub use error::{ApiError, ErrorKind, ErrorStyle};
#[cfg(feature = "edge")]
pub use function::{BoxError, Function, ScheduleHandler, SqsHandler};
pub use validation::{FieldError, FieldErrors, Invalid};
