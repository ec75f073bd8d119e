//! Document A's GenAI assistant: summaries, explanations, sentiment and bias, and question
//! answering on one news article, with the model behind `platform::llm`.
//!
//! - [`model`]: the request (`articleId` or `text`, and each operation's options) validated
//!   into a [`Job`], and the four responses.
//! - [`article`]: the article's headline and paragraphs from the content service.
//! - [`prompt`]: what the model is asked, per operation and option.
//! - [`sentiment`]: reading the model's JSON sentiment answer.
//! - [`cache`]: answers shared by everyone asking the same thing of the same text (DynamoDB,
//!   with TTL; its access patterns are documented there).
//! - [`service`]: [`Assistant`] ties them together for one request.
//!
//! The function crate (`functions/genai`) only maps HTTP to [`Assistant::answer`].

pub mod article;
pub mod cache;
pub mod model;
pub mod prompt;
pub mod sentiment;
pub mod service;

pub use model::{Answer, GenAiRequest, Job, Operation};
pub use service::{Answered, Assistant};
