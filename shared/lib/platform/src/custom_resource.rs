//! CloudFormation custom resources: what the stack asks a function to do when it deploys
//! (create, update or delete a resource the template declares), and the answer CloudFormation
//! waits for at the request's `ResponseURL`.

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::function::BoxError;

/// What the stack is doing to the resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum CustomResourceAction {
    Create,
    Update,
    Delete,
}

/// One request of CloudFormation (the fields a handler needs; the rest stay with the runtime).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CustomResourceRequest {
    pub request_type: CustomResourceAction,
    pub logical_resource_id: String,
    /// Absent on Create.
    #[serde(default)]
    pub physical_resource_id: Option<String>,
    /// The resource's `Properties`, resolved (`ServiceToken` included).
    #[serde(default)]
    pub resource_properties: Value,
}

/// A request done: the resource's physical id and the attributes `!GetAtt` reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CustomResourceOutcome {
    pub physical_id: String,
    pub data: Map<String, Value>,
}

/// A function that serves custom resources.
pub trait CustomResourceHandler: Send + Sync + 'static {
    fn handle(
        &self,
        request: CustomResourceRequest,
    ) -> BoxFuture<'static, Result<CustomResourceOutcome, BoxError>>;
}

/// The answer CloudFormation reads at `ResponseURL`: SUCCESS with the outcome, or FAILED with
/// the reason (the stack then rolls back). `request` is the event as received.
pub fn response_body(request: &Value, outcome: &Result<CustomResourceOutcome, String>) -> Value {
    let field = |name: &str| request.get(name).cloned().unwrap_or(Value::Null);
    let mut body = Map::new();
    for name in ["StackId", "RequestId", "LogicalResourceId"] {
        body.insert(name.to_string(), field(name));
    }
    match outcome {
        Ok(outcome) => {
            body.insert("Status".into(), "SUCCESS".into());
            body.insert(
                "PhysicalResourceId".into(),
                outcome.physical_id.clone().into(),
            );
            body.insert("Data".into(), Value::Object(outcome.data.clone()));
        }
        Err(reason) => {
            body.insert("Status".into(), "FAILED".into());
            body.insert("Reason".into(), reason.clone().into());
            // A failed Create still needs an id; CloudFormation's own default is the log stream.
            let physical = request
                .get("PhysicalResourceId")
                .and_then(Value::as_str)
                .unwrap_or("failed-to-create")
                .to_string();
            body.insert("PhysicalResourceId".into(), physical.into());
        }
    }
    Value::Object(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event() -> Value {
        serde_json::json!({
            "RequestType": "Create",
            "ResponseURL": "https://example.com/r",
            "StackId": "arn:aws:cloudformation:us-east-1:1:stack/s/1",
            "RequestId": "req-1",
            "ResourceType": "Custom::BootstrapAdmin",
            "LogicalResourceId": "BootstrapAdmin",
            "ResourceProperties": {"ServiceToken": "arn", "Username": "admin"}
        })
    }

    #[test]
    fn a_request_parses_and_answers_in_cloudformations_shape() {
        let request: CustomResourceRequest = serde_json::from_value(event()).expect("parse");
        assert_eq!(request.request_type, CustomResourceAction::Create);
        assert_eq!(request.physical_resource_id, None);
        assert_eq!(request.resource_properties["Username"], "admin");

        let ok = response_body(
            &event(),
            &Ok(CustomResourceOutcome {
                physical_id: "admin".into(),
                data: Map::from_iter([("UserId".to_string(), Value::from("u1"))]),
            }),
        );
        assert_eq!(ok["Status"], "SUCCESS");
        assert_eq!(ok["RequestId"], "req-1");
        assert_eq!(ok["PhysicalResourceId"], "admin");
        assert_eq!(ok["Data"]["UserId"], "u1");

        let failed = response_body(&event(), &Err("no table".into()));
        assert_eq!(failed["Status"], "FAILED");
        assert_eq!(failed["Reason"], "no table");
        assert_eq!(failed["LogicalResourceId"], "BootstrapAdmin");
    }
}
