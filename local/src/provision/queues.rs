//! SQS queues: created or brought in line with the template, then given their redrive
//! policies once every dead-letter queue exists.

use std::collections::HashMap;

use aws_sdk_sqs::error::DisplayErrorContext;
use aws_sdk_sqs::types::QueueAttributeName;
use serde_json::Value as Json;
use tracing::{debug, info};

use super::{Props, Result};
use crate::aws::AwsClients;
use crate::error::StackError;
use crate::intrinsics::{json_text, Context, ResourceAttrs, ACCOUNT_ID};
use crate::names;
use crate::template::Resource;

/// Queue properties that are SQS attributes of the same name.
const QUEUE_ATTRIBUTES: &[&str] = &[
    "DelaySeconds",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "ReceiveMessageWaitTimeSeconds",
    "VisibilityTimeout",
    "FifoQueue",
    "ContentBasedDeduplication",
    "DeduplicationScope",
    "FifoThroughputLimit",
];

pub(super) async fn queue(
    id: &str,
    res: &Resource,
    ctx: &Context,
    aws: &AwsClients,
) -> Result<ResourceAttrs> {
    let mut keys = vec!["QueueName"];
    keys.extend_from_slice(QUEUE_ATTRIBUTES);
    let props = Props::resolve(ctx, id, res, &keys)?;
    let fifo = props.flag("FifoQueue");
    let explicit = props.text("QueueName");
    let name = names::queue_name(
        &names::base_name(&ctx.stack_name, id, explicit.as_deref()),
        fifo,
    );
    let attributes: HashMap<QueueAttributeName, String> = QUEUE_ATTRIBUTES
        .iter()
        .filter_map(|key| {
            let value = props.text(key)?;
            let value = if value == "True" || value == "False" {
                value.to_ascii_lowercase()
            } else {
                value
            };
            Some((QueueAttributeName::from(*key), value))
        })
        .collect();
    let fail = |what: &str, e: String| StackError::resource(id, format!("{what} {name}: {e}"));

    let existing = aws
        .sqs
        .get_queue_url()
        .queue_name(&name)
        .send()
        .await
        .ok()
        .and_then(|out| out.queue_url);
    let url = match existing {
        Some(url) => {
            debug!(queue = %name, "queue exists");
            // FifoQueue cannot change after creation; the rest follows the template.
            let mutable: HashMap<_, _> = attributes
                .into_iter()
                .filter(|(k, _)| *k != QueueAttributeName::FifoQueue)
                .collect();
            if !mutable.is_empty() {
                aws.sqs
                    .set_queue_attributes()
                    .queue_url(&url)
                    .set_attributes(Some(mutable))
                    .send()
                    .await
                    .map_err(|e| fail("SetQueueAttributes", DisplayErrorContext(&e).to_string()))?;
            }
            url
        }
        None => {
            let out = aws
                .sqs
                .create_queue()
                .queue_name(&name)
                .set_attributes(Some(attributes))
                .send()
                .await
                .map_err(|e| fail("CreateQueue", DisplayErrorContext(&e).to_string()))?;
            info!(queue = %name, logical_id = id, "created queue");
            out.queue_url
                .ok_or_else(|| fail("CreateQueue", "no QueueUrl returned".into()))?
        }
    };

    let arn = aws
        .sqs
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(QueueAttributeName::QueueArn)
        .send()
        .await
        .ok()
        .and_then(|out| out.attributes)
        .and_then(|mut a| a.remove(&QueueAttributeName::QueueArn))
        .unwrap_or_else(|| format!("arn:aws:sqs:{}:{ACCOUNT_ID}:{name}", ctx.region));

    Ok(ResourceAttrs::new(&res.kind, &url)
        .attr("Arn", arn)
        .attr("QueueName", &name)
        .attr("QueueUrl", &url))
}

/// Applies `RedrivePolicy` once every queue (and so every dead-letter ARN) exists.
pub(super) async fn redrive(
    id: &str,
    res: &Resource,
    ctx: &Context,
    aws: &AwsClients,
) -> Result<()> {
    let Some(policy) = res.property("RedrivePolicy") else {
        return Ok(());
    };
    let fail = |e: String| StackError::resource(id, format!("RedrivePolicy: {e}"));
    let policy = ctx.resolve(policy).map_err(|e| fail(e.to_string()))?;
    let policy = match policy {
        Some(Json::Object(mut map)) => {
            // SQS wants a number; templates often write it as a string.
            if let Some(count) = map.get("maxReceiveCount").and_then(|v| json_text(v).ok()) {
                let count: u64 = count
                    .trim()
                    .parse()
                    .map_err(|_| fail(format!("maxReceiveCount {count} is not a number")))?;
                map.insert("maxReceiveCount".into(), Json::from(count));
            }
            Json::Object(map).to_string()
        }
        Some(Json::String(s)) => s,
        None => return Ok(()),
        Some(other) => return Err(fail(format!("{other} is not a policy"))),
    };
    let url = ctx
        .resources
        .get(id)
        .and_then(|r| r.reference.clone())
        .ok_or_else(|| fail("queue was not created".into()))?;
    aws.sqs
        .set_queue_attributes()
        .queue_url(&url)
        .attributes(QueueAttributeName::RedrivePolicy, policy)
        .send()
        .await
        .map_err(|e| fail(DisplayErrorContext(&e).to_string()))?;
    Ok(())
}
