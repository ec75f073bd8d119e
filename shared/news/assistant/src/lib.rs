//! The news reader's GenAI assistant: summaries, explanations, sentiment and bias, and question
//! answering on one news article, with the model behind the `llm` crate.
//!
//! - [`model`]: the request (`articleId` or `text`, and each operation's options) validated
//!   into a [`Job`], and the four responses.
//! - [`article`]: the port through which an article is read ([`ArticleSource`]); the
//!   function crate implements it over the content service's HTTP API.
//! - [`prompt`]: what the model is asked, per operation and option.
//! - [`sentiment`]: reading the model's JSON sentiment answer.
//! - [`cache`]: answers shared by everyone asking the same thing of the same text (DynamoDB,
//!   with TTL; its access patterns are documented there).
//! - [`service`]: the facade, [`Assistant`], ties them together for one request.
//!
//! Failures are [`AssistantError`]s; the function crate (`functions/news/assistant`) maps them, and
//! HTTP, to [`Assistant::answer`].

pub mod article;
pub mod cache;
pub mod error;
pub mod model;
pub mod prompt;
pub mod sentiment;
pub mod service;
pub mod tokens;

pub use article::{Article, ArticleError, ArticleSource};
pub use error::AssistantError;
pub use model::{Answer, ArticleId, GenAiRequest, Job, Operation};
pub use service::{Answered, Assistant, LiveAnswer, Streamed};
pub use tokens::MaxTokens;
