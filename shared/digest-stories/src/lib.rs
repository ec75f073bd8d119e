//! Digest stories: the day's news articles grouped into events ("the same story reported by
//! several sources" becomes one [`Story`] with several [`sources`](Story::sources)), with no
//! I/O. The daily digest hands it the articles of a user's followed topics.
//!
//! METHOD_DOCS

mod article;
mod cluster;
pub mod eval;
pub mod text;

pub use article::{Article, ArticleId, SourceId, TopicId};
pub use cluster::{
    cluster, cluster_with, InvalidThreshold, Linkage, Options, Story, StorySource, Threshold,
    DEFAULT_THRESHOLD, EDGE_FLOOR, MAX_DF_FLOOR, MAX_DF_SHARE, MAX_NEIGHBOURS, MAX_TERMS,
    MAX_TEXT_TOKENS, NAME_WEIGHT, TITLE_WEIGHT,
};
