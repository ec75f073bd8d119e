//! S3 buckets: what `!Ref` and `!GetAtt` of a bucket give, their CORS rules (a browser's PUT
//! to a presigned URL is checked against them, locally as deployed) and their bucket policies.

use aws_sdk_dynamodb::error::DisplayErrorContext;
use aws_sdk_s3::types::{
    BucketLocationConstraint, CorsConfiguration, CorsRule, CreateBucketConfiguration,
};
use serde_json::Value as Json;
use tracing::info;

use super::{field, Creation, Props, Result};
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
    let props = Props::resolve(ctx, id, res, &["BucketName", "CorsConfiguration"])?;
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
    if let Some(cors) = props.get("CorsConfiguration") {
        put_cors(id, &name, cors, aws).await?;
    }
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

/// The template's `CorsConfiguration` (`CorsRules` of `AllowedMethods`, `AllowedOrigins`,
/// `AllowedHeaders`, `ExposedHeaders`, `MaxAge`, `Id`), put on the bucket (replacing what a
/// restarted stack's bucket had).
async fn put_cors(id: &str, bucket: &str, cors: &Json, aws: &AwsClients) -> Result<()> {
    let texts = |rule: &Json, key: &str| -> Vec<String> {
        rule.get(key)
            .and_then(Json::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|v| crate::intrinsics::json_text(v).ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut rules = Vec::new();
    for rule in cors
        .get("CorsRules")
        .and_then(Json::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
    {
        let max_age = field(rule, "MaxAge")
            .map(|v| v.parse::<i32>())
            .transpose()
            .map_err(|e| StackError::resource(id, format!("CorsConfiguration MaxAge: {e}")))?;
        let built = CorsRule::builder()
            .set_id(field(rule, "Id"))
            .set_allowed_methods(Some(texts(rule, "AllowedMethods")))
            .set_allowed_origins(Some(texts(rule, "AllowedOrigins")))
            .set_allowed_headers(Some(texts(rule, "AllowedHeaders")).filter(|h| !h.is_empty()))
            .set_expose_headers(Some(texts(rule, "ExposedHeaders")).filter(|h| !h.is_empty()))
            .set_max_age_seconds(max_age)
            .build()
            .map_err(|e| StackError::resource(id, format!("CorsConfiguration: {e}")))?;
        rules.push(built);
    }
    let configuration = CorsConfiguration::builder()
        .set_cors_rules(Some(rules))
        .build()
        .map_err(|e| StackError::resource(id, format!("CorsConfiguration: {e}")))?;
    aws.s3
        .put_bucket_cors()
        .bucket(bucket)
        .cors_configuration(configuration)
        .send()
        .await
        .map_err(|e| {
            StackError::resource(
                id,
                format!("PutBucketCors {bucket}: {}", DisplayErrorContext(&e)),
            )
        })?;
    info!(bucket, logical_id = id, "put bucket CORS rules");
    Ok(())
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
