//! The platform's infrastructure: what every function needs once.
//!
//! Always here, and all a domain crate may use: configuration ([`Env`]), the [`clock`],
//! input validation ([`FieldError`], [`Invalid`]), [`logging`], the error answer
//! ([`ApiError`]: a domain crate says how its errors answer with `impl From<E> for ApiError`)
//! and the queue message trait ([`queue::QueueMessage`]). Behind features:
//! - `aws`: the AWS clients, the DynamoDB toolkit ([`dynamo`]) and the queue type
//!   ([`queue::Queue`]);
//! - `tokens`: token verification ([`tokens`], [`keys`], [`jwt`], ring as the JWT backend);
//! - `http-client`: the reqwest client builder every function uses ([`tls`]);
//! - `topics`: the topic slug rule news and community share ([`topic`]);
//! - `ratelimit`: per-client limits in a DynamoDB table ([`ratelimit`]); its 429 and a
//!   function's brake (`ratelimit::Brake`) need `edge`;
//! - `otel`: metrics and traces exported as OTLP JSON ([`otel`]); its router layer needs
//!   `edge` too;
//! - `edge` (function crates only): the error statuses and body shapes, the router glue
//!   ([`http`]), the route guards ([`auth`]), the SQS batch helper ([`batch`]), OpenAPI
//!   pieces and the Lambda runtime.

#[cfg(feature = "aws")]
pub mod accounts;
#[cfg(all(feature = "edge", feature = "tokens", feature = "aws"))]
pub mod auth;
#[cfg(feature = "aws")]
pub mod aws;
#[cfg(feature = "edge")]
pub mod batch;
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
pub mod error;
#[cfg(feature = "fetch")]
pub mod fetch;
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
pub mod multipart;
#[cfg(feature = "edge")]
pub mod openapi;
#[cfg(feature = "otel")]
pub mod otel;
pub mod queue;
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
pub use error::ErrorStyle;
pub use error::{ApiError, ErrorKind};
#[cfg(feature = "edge")]
pub use function::{Function, ScheduleHandler, SqsHandler};

/// Any failure a function hands back to its runtime.
#[cfg(feature = "edge")]
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;
pub use validation::{FieldError, FieldErrors, Invalid};
