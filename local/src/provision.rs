//! Creates the template's tables, buckets, queues, event buses and pattern rules in the
//! emulator, and records what `!Ref`/`!GetAtt` of each returns.
//!
//! Idempotent: what already exists is kept (restarting the stack keeps local data). Queues are
//! created first and get their `RedrivePolicy` afterwards, because a policy names its
//! dead-letter queue by ARN and the DLQ may come later in the template. Schedule rules are
//! never created: the emulator never fires them and a rule without a pattern breaks
//! `PutEvents` (see FIELD-NOTES); the local stack fires schedules itself.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use aws_sdk_dynamodb::error::DisplayErrorContext;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection, ProjectionType, ScalarAttributeType, StreamSpecification,
    StreamViewType, TableDescription, TableStatus, TimeToLiveSpecification,
};
use aws_sdk_sqs::types::QueueAttributeName;
use serde_json::Value as Json;
use tracing::{debug, info, warn};

use crate::aws::AwsClients;
use crate::error::StackError;
use crate::intrinsics::{json_text, Context, ResourceAttrs, ACCOUNT_ID};
use crate::names;
use crate::template::Resource;

pub const DYNAMODB_TABLE: &str = "AWS::DynamoDB::Table";
pub const SIMPLE_TABLE: &str = "AWS::Serverless::SimpleTable";
pub const S3_BUCKET: &str = "AWS::S3::Bucket";
pub const SQS_QUEUE: &str = "AWS::SQS::Queue";
pub const EVENT_BUS: &str = "AWS::Events::EventBus";
pub const EVENT_RULE: &str = "AWS::Events::Rule";

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

/// How long a table may stay `CREATING` (LocalStack takes a moment; moto is instant).
const TABLE_ACTIVE_TIMEOUT: Duration = Duration::from_secs(30);

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
        let attrs = table(id, res, ctx, aws).await?;
        record(id, attrs, ctx, &mut physical);
    }
    for (id, res) in of_kind(&[S3_BUCKET]) {
        let attrs = bucket(id, res, ctx, aws).await?;
        record(id, attrs, ctx, &mut physical);
    }
    for (id, res) in of_kind(&[SQS_QUEUE]) {
        let attrs = queue(id, res, ctx, aws).await?;
        record(id, attrs, ctx, &mut physical);
    }
    for (id, res) in of_kind(&[SQS_QUEUE]) {
        redrive(id, res, ctx, aws).await?;
    }
    for (id, res) in of_kind(&[EVENT_BUS]) {
        let attrs = event_bus(id, res, ctx, aws).await?;
        record(id, attrs, ctx, &mut physical);
    }
    for (id, res) in of_kind(&[EVENT_RULE]) {
        let attrs = rule(id, res, ctx, aws).await?;
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

/// The listed properties, resolved; absent ones are left out.
fn resolved(
    ctx: &Context,
    id: &str,
    res: &Resource,
    keys: &[&str],
) -> Result<serde_json::Map<String, Json>> {
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
    Ok(out)
}

fn text(props: &serde_json::Map<String, Json>, key: &str) -> Option<String> {
    props
        .get(key)
        .filter(|v| !v.is_null())
        .and_then(|v| json_text(v).ok())
}

fn flag(props: &serde_json::Map<String, Json>, key: &str) -> bool {
    text(props, key).is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

fn field(value: &Json, key: &str) -> Option<String> {
    value.get(key).and_then(|v| json_text(v).ok())
}

fn list<'a>(props: &'a serde_json::Map<String, Json>, key: &str) -> &'a [Json] {
    props
        .get(key)
        .and_then(Json::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

// ---------------------------------------------------------------------------------- DynamoDB

async fn table(id: &str, res: &Resource, ctx: &Context, aws: &AwsClients) -> Result<ResourceAttrs> {
    let fail = |e: String| StackError::resource(id, e);
    let props = resolved(
        ctx,
        id,
        res,
        &[
            "TableName",
            "KeySchema",
            "AttributeDefinitions",
            "GlobalSecondaryIndexes",
            "LocalSecondaryIndexes",
            "StreamSpecification",
            "TimeToLiveSpecification",
            "PrimaryKey",
        ],
    )?;
    let explicit = text(&props, "TableName");
    let name = names::table_name(&names::base_name(&ctx.stack_name, id, explicit.as_deref()));

    let (keys, definitions) = if res.kind == SIMPLE_TABLE {
        simple_table_key(props.get("PrimaryKey")).map_err(fail)?
    } else {
        (
            key_schema(props.get("KeySchema")).map_err(fail)?,
            list(&props, "AttributeDefinitions")
                .iter()
                .map(attribute_definition)
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(fail)?,
        )
    };

    let mut request = aws
        .dynamodb
        .create_table()
        .table_name(&name)
        .billing_mode(BillingMode::PayPerRequest)
        .set_key_schema(Some(keys))
        .set_attribute_definitions(Some(definitions));
    for gsi in list(&props, "GlobalSecondaryIndexes") {
        let index = GlobalSecondaryIndex::builder()
            .set_index_name(field(gsi, "IndexName"))
            .set_key_schema(Some(key_schema(gsi.get("KeySchema")).map_err(fail)?))
            .projection(projection(gsi.get("Projection")))
            .build()
            .map_err(|e| fail(e.to_string()))?;
        request = request.global_secondary_indexes(index);
    }
    for lsi in list(&props, "LocalSecondaryIndexes") {
        let index = LocalSecondaryIndex::builder()
            .set_index_name(field(lsi, "IndexName"))
            .set_key_schema(Some(key_schema(lsi.get("KeySchema")).map_err(fail)?))
            .projection(projection(lsi.get("Projection")))
            .build()
            .map_err(|e| fail(e.to_string()))?;
        request = request.local_secondary_indexes(index);
    }
    if let Some(view) = props
        .get("StreamSpecification")
        .and_then(|s| field(s, "StreamViewType"))
    {
        let spec = StreamSpecification::builder()
            .stream_enabled(true)
            .stream_view_type(StreamViewType::from(view.as_str()))
            .build()
            .map_err(|e| fail(e.to_string()))?;
        request = request.stream_specification(spec);
    }

    match request.send().await {
        Ok(_) => info!(table = %name, logical_id = id, "created table"),
        Err(e)
            if e.as_service_error()
                .is_some_and(|s| s.is_resource_in_use_exception()) =>
        {
            debug!(table = %name, "table exists")
        }
        Err(e) => {
            return Err(fail(format!(
                "CreateTable {name}: {}",
                DisplayErrorContext(&e)
            )))
        }
    }
    let description = wait_active(aws, &name).await.map_err(fail)?;

    if let Some(ttl) = props.get("TimeToLiveSpecification") {
        time_to_live(aws, &name, ttl).await;
    }

    let arn = description
        .table_arn()
        .map(str::to_string)
        .unwrap_or_else(|| format!("arn:aws:dynamodb:{}:{ACCOUNT_ID}:table/{name}", ctx.region));
    let mut attrs = ResourceAttrs::new(&res.kind, &name).attr("Arn", arn);
    if let Some(stream) = description.latest_stream_arn() {
        attrs = attrs.attr("StreamArn", stream);
    }
    Ok(attrs)
}

async fn wait_active(
    aws: &AwsClients,
    name: &str,
) -> std::result::Result<TableDescription, String> {
    let deadline = tokio::time::Instant::now() + TABLE_ACTIVE_TIMEOUT;
    loop {
        let out = aws
            .dynamodb
            .describe_table()
            .table_name(name)
            .send()
            .await
            .map_err(|e| format!("DescribeTable {name}: {}", DisplayErrorContext(&e)))?;
        let table = out
            .table
            .ok_or_else(|| format!("DescribeTable {name}: no description"))?;
        if table.table_status() != Some(&TableStatus::Creating) {
            return Ok(table);
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(format!("table {name} is still CREATING"));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Best effort: the emulator does not expire items anyway, so a failure changes nothing.
async fn time_to_live(aws: &AwsClients, name: &str, spec: &Json) {
    let enabled = field(spec, "Enabled").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let Some(attribute) = field(spec, "AttributeName").filter(|_| enabled) else {
        return;
    };
    let Ok(spec) = TimeToLiveSpecification::builder()
        .attribute_name(attribute)
        .enabled(true)
        .build()
    else {
        return;
    };
    if let Err(e) = aws
        .dynamodb
        .update_time_to_live()
        .table_name(name)
        .time_to_live_specification(spec)
        .send()
        .await
    {
        debug!(table = name, error = %DisplayErrorContext(&e), "UpdateTimeToLive ignored");
    }
}

fn key_schema(value: Option<&Json>) -> std::result::Result<Vec<KeySchemaElement>, String> {
    let items = value
        .and_then(Json::as_array)
        .ok_or("KeySchema must be a list")?;
    items
        .iter()
        .map(|k| {
            KeySchemaElement::builder()
                .set_attribute_name(field(k, "AttributeName"))
                .set_key_type(field(k, "KeyType").map(|t| KeyType::from(t.as_str())))
                .build()
                .map_err(|e| format!("KeySchema: {e}"))
        })
        .collect()
}

fn attribute_definition(value: &Json) -> std::result::Result<AttributeDefinition, String> {
    AttributeDefinition::builder()
        .set_attribute_name(field(value, "AttributeName"))
        .set_attribute_type(
            field(value, "AttributeType").map(|t| ScalarAttributeType::from(t.as_str())),
        )
        .build()
        .map_err(|e| format!("AttributeDefinitions: {e}"))
}

fn projection(value: Option<&Json>) -> Projection {
    let kind = value
        .and_then(|p| field(p, "ProjectionType"))
        .unwrap_or_else(|| "ALL".to_string());
    let non_key = value
        .and_then(|p| p.get("NonKeyAttributes"))
        .and_then(Json::as_array)
        .map(|a| a.iter().filter_map(|v| json_text(v).ok()).collect());
    Projection::builder()
        .projection_type(ProjectionType::from(kind.as_str()))
        .set_non_key_attributes(non_key)
        .build()
}

/// `SimpleTable`'s `PrimaryKey: {Name, Type: String|Number|Binary}`, default `id` String.
fn simple_table_key(
    value: Option<&Json>,
) -> std::result::Result<(Vec<KeySchemaElement>, Vec<AttributeDefinition>), String> {
    let name = value
        .and_then(|p| field(p, "Name"))
        .unwrap_or_else(|| "id".to_string());
    let kind = match value.and_then(|p| field(p, "Type")).as_deref() {
        None | Some("String") => "S",
        Some("Number") => "N",
        Some("Binary") => "B",
        Some(other) => {
            return Err(format!(
                "PrimaryKey.Type {other} is not String, Number or Binary"
            ))
        }
    };
    let key = KeySchemaElement::builder()
        .attribute_name(&name)
        .key_type(KeyType::Hash)
        .build()
        .map_err(|e| e.to_string())?;
    let definition = AttributeDefinition::builder()
        .attribute_name(&name)
        .attribute_type(ScalarAttributeType::from(kind))
        .build()
        .map_err(|e| e.to_string())?;
    Ok((vec![key], vec![definition]))
}

// ---------------------------------------------------------------------------------------- S3

async fn bucket(
    id: &str,
    res: &Resource,
    ctx: &Context,
    aws: &AwsClients,
) -> Result<ResourceAttrs> {
    use aws_sdk_s3::types::{BucketLocationConstraint, CreateBucketConfiguration};

    let props = resolved(ctx, id, res, &["BucketName"])?;
    let explicit = text(&props, "BucketName");
    let name = names::bucket_name(&names::base_name(&ctx.stack_name, id, explicit.as_deref()));
    let mut request = aws.s3.create_bucket().bucket(&name);
    if ctx.region != "us-east-1" {
        request = request.create_bucket_configuration(
            CreateBucketConfiguration::builder()
                .location_constraint(BucketLocationConstraint::from(ctx.region.as_str()))
                .build(),
        );
    }
    match request.send().await {
        Ok(_) => info!(bucket = %name, logical_id = id, "created bucket"),
        Err(e)
            if e.as_service_error().is_some_and(|s| {
                s.is_bucket_already_owned_by_you() || s.is_bucket_already_exists()
            }) =>
        {
            debug!(bucket = %name, "bucket exists")
        }
        Err(e) => {
            return Err(StackError::resource(
                id,
                format!("CreateBucket {name}: {}", DisplayErrorContext(&e)),
            ))
        }
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

// --------------------------------------------------------------------------------------- SQS

async fn queue(id: &str, res: &Resource, ctx: &Context, aws: &AwsClients) -> Result<ResourceAttrs> {
    let mut keys = vec!["QueueName"];
    keys.extend_from_slice(QUEUE_ATTRIBUTES);
    let props = resolved(ctx, id, res, &keys)?;
    let fifo = flag(&props, "FifoQueue");
    let explicit = text(&props, "QueueName");
    let name = names::queue_name(
        &names::base_name(&ctx.stack_name, id, explicit.as_deref()),
        fifo,
    );
    let attributes: HashMap<QueueAttributeName, String> = QUEUE_ATTRIBUTES
        .iter()
        .filter_map(|key| {
            let value = text(&props, key)?;
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
async fn redrive(id: &str, res: &Resource, ctx: &Context, aws: &AwsClients) -> Result<()> {
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

// ------------------------------------------------------------------------------- EventBridge

async fn event_bus(
    id: &str,
    res: &Resource,
    ctx: &Context,
    aws: &AwsClients,
) -> Result<ResourceAttrs> {
    let props = resolved(ctx, id, res, &["Name"])?;
    let explicit = text(&props, "Name");
    let name = names::events_name(&names::base_name(&ctx.stack_name, id, explicit.as_deref()));
    match aws.events.create_event_bus().name(&name).send().await {
        Ok(_) => info!(event_bus = %name, logical_id = id, "created event bus"),
        Err(e)
            if e.as_service_error()
                .is_some_and(|s| s.is_resource_already_exists_exception()) =>
        {
            debug!(event_bus = %name, "event bus exists")
        }
        Err(e) => {
            return Err(StackError::resource(
                id,
                format!("CreateEventBus {name}: {}", DisplayErrorContext(&e)),
            ))
        }
    }
    let arn = format!(
        "arn:aws:events:{}:{ACCOUNT_ID}:event-bus/{name}",
        ctx.region
    );
    Ok(ResourceAttrs::new(&res.kind, &name)
        .attr("Arn", arn)
        .attr("Name", &name))
}

/// Only rules with an `EventPattern` and at least one SQS target are created.
async fn rule(id: &str, res: &Resource, ctx: &Context, aws: &AwsClients) -> Result<ResourceAttrs> {
    use aws_sdk_eventbridge::types::{RuleState, SqsParameters, Target};

    let props = resolved(
        ctx,
        id,
        res,
        &[
            "Name",
            "EventBusName",
            "EventPattern",
            "ScheduleExpression",
            "State",
            "Targets",
        ],
    )?;
    let fail = |e: String| StackError::resource(id, e);
    let explicit = text(&props, "Name");
    let name = names::events_name(&names::base_name(&ctx.stack_name, id, explicit.as_deref()));
    // The bus may be given by name or ARN; the API takes either.
    let bus = text(&props, "EventBusName").unwrap_or_else(|| "default".to_string());
    let bus_name = bus.rsplit('/').next().unwrap_or(&bus).to_string();
    let arn = if bus_name == "default" {
        format!("arn:aws:events:{}:{ACCOUNT_ID}:rule/{name}", ctx.region)
    } else {
        format!(
            "arn:aws:events:{}:{ACCOUNT_ID}:rule/{bus_name}/{name}",
            ctx.region
        )
    };
    let attrs = ResourceAttrs::new(&res.kind, &name).attr("Arn", arn);

    if props.contains_key("ScheduleExpression") {
        debug!(rule = id, "schedule rule not created in the emulator");
        return Ok(attrs);
    }
    let Some(pattern) = props.get("EventPattern") else {
        return Ok(attrs);
    };
    let sqs_targets: Vec<&Json> = list(&props, "Targets")
        .iter()
        .filter(|t| field(t, "Arn").is_some_and(|a| a.starts_with("arn:aws:sqs:")))
        .collect();
    if sqs_targets.is_empty() {
        warn!(rule = id, "rule has no SQS target; not created locally");
        return Ok(attrs);
    }
    let pattern = match pattern {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    };
    let state = if text(&props, "State").is_some_and(|s| s.eq_ignore_ascii_case("DISABLED")) {
        RuleState::Disabled
    } else {
        RuleState::Enabled
    };
    aws.events
        .put_rule()
        .name(&name)
        .event_bus_name(&bus)
        .event_pattern(pattern)
        .state(state)
        .send()
        .await
        .map_err(|e| fail(format!("PutRule {name}: {}", DisplayErrorContext(&e))))?;

    let mut targets = Vec::new();
    for target in sqs_targets {
        let mut builder = Target::builder()
            .set_id(field(target, "Id"))
            .set_arn(field(target, "Arn"))
            .set_input(field(target, "Input"))
            .set_input_path(field(target, "InputPath"));
        if let Some(group) = target
            .get("SqsParameters")
            .and_then(|p| field(p, "MessageGroupId"))
        {
            builder =
                builder.sqs_parameters(SqsParameters::builder().message_group_id(group).build());
        }
        targets.push(builder.build().map_err(|e| fail(format!("Targets: {e}")))?);
    }
    aws.events
        .put_targets()
        .rule(&name)
        .event_bus_name(&bus)
        .set_targets(Some(targets))
        .send()
        .await
        .map_err(|e| fail(format!("PutTargets {name}: {}", DisplayErrorContext(&e))))?;
    info!(rule = %name, logical_id = id, "created event rule");
    Ok(attrs)
}
