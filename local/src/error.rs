//! The one error type of the local stack: every start-up problem names what to fix.

use std::net::SocketAddr;

use crate::template::TemplateError;

#[derive(Debug, thiserror::Error)]
pub enum StackError {
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error(
        "function {function}: binary {binary:?} is not in the function registry; template.yaml \
         is the source of truth, so register the binary in local-stack's registry"
    )]
    UnknownBinary { function: String, binary: String },
    #[error("function {function}: Policies: {reason}")]
    Policy { function: String, reason: String },
    #[error("function {function}: environment variable {variable}: {reason}")]
    Environment {
        function: String,
        variable: String,
        reason: String,
    },
    #[error("function {function}: event {event}: {reason}")]
    Event {
        function: String,
        event: String,
        reason: String,
    },
    #[error("resource {resource}: {reason}")]
    Resource { resource: String, reason: String },
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("env file {path}: {reason}")]
    EnvFile { path: String, reason: String },
    #[error("routes: {0}")]
    Routes(String),
    #[error("function {function}: cold start failed: {reason}")]
    ColdStart { function: String, reason: String },
    #[error("function {function}: {reason}")]
    Invocation { function: String, reason: String },
    #[error("function {0} is not a scheduled function of this stack")]
    NotScheduled(String),
}

impl StackError {
    pub(crate) fn resource(resource: &str, reason: impl std::fmt::Display) -> Self {
        Self::Resource {
            resource: resource.to_string(),
            reason: reason.to_string(),
        }
    }

    pub(crate) fn event(function: &str, event: &str, reason: impl std::fmt::Display) -> Self {
        Self::Event {
            function: function.to_string(),
            event: event.to_string(),
            reason: reason.to_string(),
        }
    }
}
