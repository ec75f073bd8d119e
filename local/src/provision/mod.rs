//! Creates the template's tables, buckets (and their policies), queues, SNS topics, event
//! buses and pattern rules in the emulator, and records what `!Ref`/`!GetAtt` of each returns.
//!
//! Idempotent: what already exists is kept (restarting the stack keeps local data). Queues are
//! created first and get their `RedrivePolicy` afterwards, because a policy names its
//! dead-letter queue by ARN and the DLQ may come later in the template. Schedule rules are
//! never created: the emulator never fires them and a rule without a pattern breaks
//! `PutEvents` (see FIELD-NOTES); the local stack fires schedules itself.

mod buckets;
mod events;
mod queues;
mod tables;
mod topics;

use std::collections::BTreeMap;

use aws_sdk_dynamodb::error::DisplayErrorContext;
use aws_smithy_runtime_api::client::orchestrator::HttpResponse;
use aws_smithy_runtime_api::client::result::SdkError;
use serde_json::Value as Json;
use tracing::{debug, info};

use crate::aws::AwsClients;
use crate::error::StackError;
use crate::intrinsics::{json_text, Context, ResourceAttrs};
use crate::template::Resource;

pub const DYNAMODB_TABLE: &str = "AWS::DynamoDB::Table";
pub const SIMPLE_TABLE: &str = "AWS::Serverless::SimpleTable";
pub const S3_BUCKET: &str = "AWS::S3::Bucket";
pub const S3_BUCKET_POLICY: &str = "AWS::S3::BucketPolicy";
pub const SQS_QUEUE: &str = "AWS::SQS::Queue";
pub const EVENT_BUS: &str = "AWS::Events::EventBus";
pub const SNS_TOPIC: &str = "AWS::SNS::Topic";
pub const EVENT_RULE: &str = "AWS::Events::Rule";

type Result<T> = std::result::Result<T, StackError>;

/// Provisions every supported resource among `active`, adding each one's `Ref`/`GetAtt` values
/// to `ctx`. Returns logical id → physical name (queue URL for queues).
pub async fn provision(
    active: &[(String, Resource)],
    ctx: &mut Context,
    aws: &AwsClients,
) -> Result<BTreeMap<String, String>> {
    let mut physical = BTreeMap::new();
    let of_kind = |kinds: &'static [&'static str]| {
        active
            .iter()
            .filter(move |(_, r)| kinds.contains(&r.kind.as_str()))
    };

    for (id, res) in of_kind(&[DYNAMODB_TABLE, SIMPLE_TABLE]) {
        let attrs = tables::table(id, res, ctx, aws).await?;
        record(id, attrs, ctx, &mut physical);
    }
    for (id, res) in of_kind(&[S3_BUCKET]) {
        let attrs = buckets::bucket(id, res, ctx, aws).await?;
        record(id, attrs, ctx, &mut physical);
    }
    for (id, res) in of_kind(&[S3_BUCKET_POLICY]) {
        buckets::policy(id, res, ctx, aws).await?;
    }
    for (id, res) in of_kind(&[SQS_QUEUE]) {
        let attrs = queues::queue(id, res, ctx, aws).await?;
        record(id, attrs, ctx, &mut physical);
    }
    for (id, res) in of_kind(&[SQS_QUEUE]) {
        queues::redrive(id, res, ctx, aws).await?;
    }
    for (id, res) in of_kind(&[SNS_TOPIC]) {
        let attrs = topics::topic(id, res, ctx, aws).await?;
        record(id, attrs, ctx, &mut physical);
    }
    for (id, res) in of_kind(&[EVENT_BUS]) {
        let attrs = events::event_bus(id, res, ctx, aws).await?;
        record(id, attrs, ctx, &mut physical);
    }
    for (id, res) in of_kind(&[EVENT_RULE]) {
        let attrs = events::rule(id, res, ctx, aws).await?;
        record(id, attrs, ctx, &mut physical);
    }
    Ok(physical)
}

fn record(
    id: &str,
    attrs: ResourceAttrs,
    ctx: &mut Context,
    physical: &mut BTreeMap<String, String>,
) {
    if let Some(reference) = &attrs.reference {
        physical.insert(id.to_string(), reference.clone());
    }
    ctx.resources.insert(id.to_string(), attrs);
}

/// A resource's properties, resolved; absent ones (and `AWS::NoValue`) are left out.
struct Props(serde_json::Map<String, Json>);

impl Props {
    /// Resolves the listed properties of `res`.
    fn resolve(ctx: &Context, id: &str, res: &Resource, keys: &[&str]) -> Result<Self> {
        let mut out = serde_json::Map::new();
        for key in keys {
            if let Some(value) = res.property(key) {
                let value = ctx
                    .resolve(value)
                    .map_err(|e| StackError::resource(id, format!("{key}: {e}")))?;
                if let Some(value) = value {
                    out.insert((*key).to_string(), value);
                }
            }
        }
        Ok(Self(out))
    }

    fn get(&self, key: &str) -> Option<&Json> {
        self.0.get(key)
    }

    fn contains(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    fn text(&self, key: &str) -> Option<String> {
        self.0
            .get(key)
            .filter(|v| !v.is_null())
            .and_then(|v| json_text(v).ok())
    }

    fn flag(&self, key: &str) -> bool {
        self.text(key)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }

    fn list(&self, key: &str) -> &[Json] {
        self.0
            .get(key)
            .and_then(Json::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
}

/// The text of a nested property, e.g. a key schema element's `AttributeName`.
fn field(value: &Json, key: &str) -> Option<String> {
    value.get(key).and_then(|v| json_text(v).ok())
}

/// What a create call is about, for its log line and its error.
struct Creation<'a> {
    /// The resource's logical id.
    id: &'a str,
    /// "table", "bucket", ...
    kind: &'a str,
    /// The API call, e.g. `CreateTable`.
    operation: &'a str,
    name: &'a str,
}

impl Creation<'_> {
    /// The outcome of the create call (its answer, `None` when it existed): an "already
    /// exists" answer keeps what is there, so a restarted stack keeps its data.
    fn settle<T, E>(
        &self,
        outcome: std::result::Result<T, SdkError<E, HttpResponse>>,
        already_exists: impl FnOnce(&E) -> bool,
    ) -> Result<Option<T>>
    where
        E: std::error::Error + 'static,
    {
        let Creation {
            id,
            kind,
            operation,
            name,
        } = self;
        match outcome {
            Ok(created) => {
                info!(name, logical_id = id, "created {kind}");
                return Ok(Some(created));
            }
            Err(e) if e.as_service_error().is_some_and(already_exists) => {
                debug!(name, "{kind} exists");
            }
            Err(e) => {
                return Err(StackError::resource(
                    id,
                    format!("{operation} {name}: {}", DisplayErrorContext(&e)),
                ))
            }
        }
        Ok(None)
    }
}
