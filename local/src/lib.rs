//! The local stack: every function of `template.yaml` in one process, against an AWS emulator.
//!
//! `template.yaml` is the single source of truth (DESIGN.md, principle 5): this crate creates
//! the tables, buckets and queues it declares in the emulator, gives each function the
//! environment the template gives it (intrinsics resolved to local names), routes HTTP
//! requests as API Gateway would, polls SQS event sources with real batches, and fires the
//! schedules the emulator never fires. A route or event source that is not in the template
//! does not exist locally either.
//!
//! ```no_run
//! # async fn run() -> Result<(), local_stack::StackError> {
//! let stack = local_stack::start(local_stack::StackOptions::default(), local_stack::registry()).await?;
//! println!("{}", stack.base_url());
//! stack.shutdown().await;
//! # Ok(()) }
//! ```

pub mod aws;
pub mod cli;
pub mod cors;
pub mod cron;
pub mod dev_key;
pub mod env;
mod error;
pub mod http;
pub mod iam;
pub mod intrinsics;
pub mod invoke;
pub mod names;
pub mod provision;
mod registry;
pub mod routes;
pub mod sam_local;
pub mod schedule;
mod shutdown;
pub mod sqs;
mod stack;
pub mod template;

pub use error::StackError;
pub use registry::{registry, Registry};
pub use stack::{
    provision_stack, start, Provisioned, ProvisionedFunction, RunningStack, StackOptions,
};
