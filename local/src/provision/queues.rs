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

    // A new stack's queues are created in one call each: CreateQueue answers an existing
    // queue's URL when the attributes match, and QueueAlreadyExists when they differ.
    let created = aws
        .sqs
        .create_queue()
        .queue_name(&name)
        .set_attributes(Some(attributes.clone()))
        .send()
        .await;
    let url = match created {
        Ok(out) => {
            info!(queue = %name, logical_id = id, "created queue (or found it as the template has it)");
            out.queue_url
                .ok_or_else(|| fail("CreateQueue", "no QueueUrl returned".into()))?
        }
        Err(create_error) => {
            // The queue exists with other attributes (QueueAlreadyExists), or creating it
            // failed: a queue found by name is brought in line, else the create's error stands.
            let Some(url) = aws
                .sqs
                .get_queue_url()
                .queue_name(&name)
                .send()
                .await
                .ok()
                .and_then(|out| out.queue_url)
            else {
                return Err(fail(
                    "CreateQueue",
                    DisplayErrorContext(&create_error).to_string(),
                ));
            };
            debug!(queue = %name, "queue exists with other attributes");
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
    };
    let arn = queue_arn(&url, &ctx.region, &name);

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

/// A queue's ARN from its URL (`{endpoint}/{account}/{name}`), as SQS and the emulator both
/// shape them: one GetQueueAttributes a queue less.
fn queue_arn(url: &str, region: &str, name: &str) -> String {
    let account = url
        .rsplit('/')
        .nth(1)
        .filter(|a| !a.is_empty() && a.chars().all(|c| c.is_ascii_digit()))
        .unwrap_or(ACCOUNT_ID);
    format!("arn:aws:sqs:{region}:{account}:{name}")
}

#[cfg(test)]
mod tests {
    use super::queue_arn;

    #[test]
    fn a_queue_arn_comes_from_its_url() {
        assert_eq!(
            queue_arn(
                "http://127.0.0.1:4566/000000000000/s-Jobs",
                "eu-west-1",
                "s-Jobs"
            ),
            "arn:aws:sqs:eu-west-1:000000000000:s-Jobs"
        );
        assert_eq!(
            queue_arn(
                "https://sqs.us-east-1.amazonaws.com/123456789012/q",
                "us-east-1",
                "q"
            ),
            "arn:aws:sqs:us-east-1:123456789012:q"
        );
        assert!(queue_arn("not a url", "us-east-1", "q").starts_with("arn:aws:sqs:us-east-1:"));
    }
}
