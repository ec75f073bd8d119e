//! SNS topics: created with their attributes (the emulator fans a topic out to its SQS
//! subscriptions, filter policies applied; it mails nothing).

use tracing::info;

use super::{Props, Result};
use crate::aws::AwsClients;
use crate::error::StackError;
use crate::intrinsics::{Context, ResourceAttrs};
use crate::names;
use crate::template::Resource;

/// Topic properties that are SNS attributes of the same name.
const TOPIC_ATTRIBUTES: &[&str] = &["KmsMasterKeyId", "DisplayName"];

/// `CreateTopic` is idempotent for the same name and attributes, so a restart keeps the topic.
pub(super) async fn topic(
    id: &str,
    res: &Resource,
    ctx: &Context,
    aws: &AwsClients,
) -> Result<ResourceAttrs> {
    let mut keys = vec!["TopicName"];
    keys.extend_from_slice(TOPIC_ATTRIBUTES);
    let props = Props::resolve(ctx, id, res, &keys)?;
    let explicit = props.text("TopicName");
    // SNS names take the characters of SQS names (up to 256 of them).
    let name = names::queue_name(
        &names::base_name(&ctx.stack_name, id, explicit.as_deref()),
        false,
    );
    let mut create = aws.sns.create_topic().name(&name);
    for key in TOPIC_ATTRIBUTES {
        if let Some(value) = props.text(key) {
            create = create.attributes(*key, value);
        }
    }
    let out = create.send().await.map_err(|e| {
        StackError::resource(
            id,
            format!(
                "CreateTopic {name}: {}",
                aws_sdk_sns::error::DisplayErrorContext(&e)
            ),
        )
    })?;
    let arn = out
        .topic_arn
        .ok_or_else(|| StackError::resource(id, format!("CreateTopic {name}: no TopicArn")))?;
    info!(name, logical_id = id, "created topic");
    Ok(ResourceAttrs::new(&res.kind, &arn)
        .attr("TopicArn", &arn)
        .attr("TopicName", &name))
}
