//! S3 buckets: what `!Ref` and `!GetAtt` of a bucket give, and their bucket policies.

use aws_sdk_dynamodb::error::DisplayErrorContext;
use aws_sdk_s3::types::{BucketLocationConstraint, CreateBucketConfiguration};
use tracing::info;

use super::{Creation, Props, Result};
use crate::aws::AwsClients;
use crate::error::StackError;
use crate::intrinsics::{Context, ResourceAttrs};
use crate::names;
use crate::template::Resource;

pub(super) async fn bucket(
    id: &str,
    res: &Resource,
    ctx: &Context,
    aws: &AwsClients,
) -> Result<ResourceAttrs> {
    let props = Props::resolve(ctx, id, res, &["BucketName"])?;
    let explicit = props.text("BucketName");
    let name = names::bucket_name(&names::base_name(&ctx.stack_name, id, explicit.as_deref()));
    let mut request = aws.s3.create_bucket().bucket(&name);
    if ctx.region != "us-east-1" {
        request = request.create_bucket_configuration(
            CreateBucketConfiguration::builder()
                .location_constraint(BucketLocationConstraint::from(ctx.region.as_str()))
                .build(),
        );
    }
    let creation = Creation {
        id,
        kind: "bucket",
        operation: "CreateBucket",
        name: &name,
    };
    creation.settle(request.send().await, |e| {
        e.is_bucket_already_owned_by_you() || e.is_bucket_already_exists()
    })?;
    let region = &ctx.region;
    Ok(ResourceAttrs::new(&res.kind, &name)
        .attr("Arn", format!("arn:aws:s3:::{name}"))
        .attr("DomainName", format!("{name}.s3.amazonaws.com"))
        .attr(
            "RegionalDomainName",
            format!("{name}.s3.{region}.amazonaws.com"),
        )
        .attr(
            "WebsiteURL",
            format!("http://{name}.s3-website-{region}.amazonaws.com"),
        ))
}

/// A bucket's policy, put as the template resolves it: the emulator evaluates it for requests
/// without credentials, so an object is publicly readable locally exactly where it is deployed
/// (and refused elsewhere).
pub(super) async fn policy(
    id: &str,
    res: &Resource,
    ctx: &Context,
    aws: &AwsClients,
) -> Result<()> {
    let props = Props::resolve(ctx, id, res, &["Bucket", "PolicyDocument"])?;
    let bucket = props
        .text("Bucket")
        .ok_or_else(|| StackError::resource(id, "Bucket is required"))?;
    let document = props
        .get("PolicyDocument")
        .ok_or_else(|| StackError::resource(id, "PolicyDocument is required"))?;
    let policy = serde_json::to_string(document)
        .map_err(|e| StackError::resource(id, format!("PolicyDocument: {e}")))?;
    aws.s3
        .put_bucket_policy()
        .bucket(&bucket)
        .policy(policy)
        .send()
        .await
        .map_err(|e| {
            StackError::resource(
                id,
                format!("PutBucketPolicy {bucket}: {}", DisplayErrorContext(&e)),
            )
        })?;
    info!(bucket, logical_id = id, "put bucket policy");
    Ok(())
}
