//! EventBridge: event buses, and the rules with an `EventPattern` and an SQS target (the only
//! rules the emulator can act on; schedules are fired by the local stack itself).

use aws_sdk_eventbridge::error::DisplayErrorContext;
use aws_sdk_eventbridge::types::{RuleState, SqsParameters, Target};
use serde_json::Value as Json;
use tracing::{debug, info, warn};

use super::{field, Creation, Props, Result};
use crate::aws::AwsClients;
use crate::error::StackError;
use crate::intrinsics::{Context, ResourceAttrs, ACCOUNT_ID};
use crate::names;
use crate::template::Resource;

pub(super) async fn event_bus(
    id: &str,
    res: &Resource,
    ctx: &Context,
    aws: &AwsClients,
) -> Result<ResourceAttrs> {
    let props = Props::resolve(ctx, id, res, &["Name"])?;
    let explicit = props.text("Name");
    let name = names::events_name(&names::base_name(&ctx.stack_name, id, explicit.as_deref()));
    let creation = Creation {
        id,
        kind: "event bus",
        operation: "CreateEventBus",
        name: &name,
    };
    creation.settle(
        aws.events.create_event_bus().name(&name).send().await,
        |e| e.is_resource_already_exists_exception(),
    )?;
    let arn = format!(
        "arn:aws:events:{}:{ACCOUNT_ID}:event-bus/{name}",
        ctx.region
    );
    Ok(ResourceAttrs::new(&res.kind, &name)
        .attr("Arn", arn)
        .attr("Name", &name))
}

/// Only rules with an `EventPattern` and at least one SQS target are created.
pub(super) async fn rule(
    id: &str,
    res: &Resource,
    ctx: &Context,
    aws: &AwsClients,
) -> Result<ResourceAttrs> {
    let props = Props::resolve(
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
    let explicit = props.text("Name");
    let name = names::events_name(&names::base_name(&ctx.stack_name, id, explicit.as_deref()));
    // The bus may be given by name or ARN; the API takes either.
    let bus = props
        .text("EventBusName")
        .unwrap_or_else(|| "default".to_string());
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

    if props.contains("ScheduleExpression") {
        debug!(rule = id, "schedule rule not created in the emulator");
        return Ok(attrs);
    }
    let Some(pattern) = props.get("EventPattern") else {
        return Ok(attrs);
    };
    let sqs_targets: Vec<&Json> = props
        .list("Targets")
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
    let state = if props
        .text("State")
        .is_some_and(|s| s.eq_ignore_ascii_case("DISABLED"))
    {
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
