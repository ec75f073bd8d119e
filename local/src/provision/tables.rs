//! DynamoDB tables (`AWS::DynamoDB::Table` and SAM's `SimpleTable`), with their indexes,
//! streams and time to live.

use std::time::Duration;

use aws_sdk_dynamodb::error::DisplayErrorContext;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection, ProjectionType, ScalarAttributeType, StreamSpecification,
    StreamViewType, TableDescription, TableStatus, TimeToLiveSpecification,
};
use serde_json::Value as Json;
use tracing::debug;

use super::{field, Creation, Props, Result, SIMPLE_TABLE};
use crate::aws::AwsClients;
use crate::error::StackError;
use crate::intrinsics::{json_text, Context, ResourceAttrs, ACCOUNT_ID};
use crate::names;
use crate::template::Resource;

/// How long a table may stay `CREATING` (LocalStack takes a moment; moto is instant).
const TABLE_ACTIVE_TIMEOUT: Duration = Duration::from_secs(30);

pub(super) async fn table(
    id: &str,
    res: &Resource,
    ctx: &Context,
    aws: &AwsClients,
) -> Result<ResourceAttrs> {
    let fail = |e: String| StackError::resource(id, e);
    let props = Props::resolve(
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
    let explicit = props.text("TableName");
    let name = names::table_name(&names::base_name(&ctx.stack_name, id, explicit.as_deref()));

    let (keys, definitions) = if res.kind == SIMPLE_TABLE {
        simple_table_key(props.get("PrimaryKey")).map_err(fail)?
    } else {
        (
            key_schema(props.get("KeySchema")).map_err(fail)?,
            props
                .list("AttributeDefinitions")
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
    for gsi in props.list("GlobalSecondaryIndexes") {
        let index = GlobalSecondaryIndex::builder()
            .set_index_name(field(gsi, "IndexName"))
            .set_key_schema(Some(key_schema(gsi.get("KeySchema")).map_err(fail)?))
            .projection(projection(gsi.get("Projection")))
            .build()
            .map_err(|e| fail(e.to_string()))?;
        request = request.global_secondary_indexes(index);
    }
    for lsi in props.list("LocalSecondaryIndexes") {
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

    let creation = Creation {
        id,
        kind: "table",
        operation: "CreateTable",
        name: &name,
    };
    let created = creation
        .settle(request.send().await, |e| e.is_resource_in_use_exception())?
        .and_then(|out| out.table_description)
        .filter(|table| table.table_status() != Some(&TableStatus::Creating));
    // The emulator creates a table ACTIVE: its answer describes it, no DescribeTable needed.
    let description = match created {
        Some(table) => table,
        None => wait_active(aws, &name).await.map_err(fail)?,
    };

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
