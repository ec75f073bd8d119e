//! Custom resources: what CloudFormation asks a function to do as the stack deploys (the first
//! administrator, say). The local stack sends each active custom resource a Create request
//! once every function has started and before the gateway serves anything, so what it makes
//! exists before the first request, as after a deployment.

use std::collections::BTreeMap;
use std::sync::Arc;

use platform::custom_resource::{CustomResourceHandler, CustomResourceRequest};
use serde_json::json;
use tracing::info;

use crate::error::StackError;
use crate::intrinsics::Context;
use crate::template::Resource;

const CUSTOM_RESOURCE: &str = "AWS::CloudFormation::CustomResource";

fn is_custom(kind: &str) -> bool {
    kind == CUSTOM_RESOURCE || kind.starts_with("Custom::")
}

/// The function a `ServiceToken` names: the logical id at the end of a function ARN.
fn function_of(service_token: &str) -> Option<&str> {
    service_token.rsplit_once(":function:").map(|(_, id)| id)
}

/// Sends every active custom resource its Create request; a failure stops the stack, as it
/// rolls a deployment back.
pub(super) async fn create_all(
    active: &[(String, Resource)],
    ctx: &Context,
    handlers: &BTreeMap<String, Arc<dyn CustomResourceHandler>>,
) -> Result<(), StackError> {
    for (id, resource) in active.iter().filter(|(_, r)| is_custom(&r.kind)) {
        let properties = ctx
            .resolve(&resource.properties)
            .map_err(|e| StackError::resource(id, e))?
            .unwrap_or_else(|| json!({}));
        let token = properties
            .get("ServiceToken")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| StackError::resource(id, "ServiceToken is missing"))?;
        let function = function_of(token).ok_or_else(|| {
            StackError::resource(id, format!("ServiceToken {token} is not a function"))
        })?;
        let handler = handlers.get(function).ok_or_else(|| {
            StackError::resource(
                id,
                format!("{function} is not a custom resource function of this stack"),
            )
        })?;
        let request: CustomResourceRequest = serde_json::from_value(json!({
            "RequestType": "Create",
            "LogicalResourceId": id,
            "ResourceType": resource.kind,
            "ResourceProperties": properties,
        }))
        .map_err(|e| StackError::resource(id, e))?;
        let outcome = handler
            .handle(request)
            .await
            .map_err(|e| StackError::Invocation {
                function: function.to_string(),
                reason: format!("custom resource {id}: {e}"),
            })?;
        info!(resource = %id, function, physical_id = %outcome.physical_id, "custom resource created");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_service_token_names_its_function() {
        assert_eq!(
            function_of("arn:aws:lambda:us-east-1:123456789012:function:IdentityBootstrapFunction"),
            Some("IdentityBootstrapFunction")
        );
        assert_eq!(function_of("arn:aws:sns:us-east-1:1:topic"), None);
        assert!(is_custom("Custom::BootstrapAdmin"));
        assert!(is_custom(CUSTOM_RESOURCE));
        assert!(!is_custom("AWS::SQS::Queue"));
    }
}
