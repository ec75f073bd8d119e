//! CloudFormation custom resources: what the stack asks a function to do when it deploys
//! (create, update or delete a resource the template declares), and the answer CloudFormation
//! waits for at the request's `ResponseURL`.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::BoxError;

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

/// Time kept back from the invocation's deadline to PUT the answer to `ResponseURL`.
pub const ANSWER_MARGIN: Duration = Duration::from_secs(5);

/// How long a request's handler may run: until [`ANSWER_MARGIN`] before the invocation's
/// deadline (milliseconds since the epoch), so a FAILED answer still reaches CloudFormation.
pub fn answer_budget(deadline_epoch_ms: u64, now: SystemTime) -> Duration {
    let now_ms = now
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    Duration::from_millis(deadline_epoch_ms.saturating_sub(now_ms)).saturating_sub(ANSWER_MARGIN)
}

/// A handler for a function that could not start (its configuration is missing or wrong):
/// every request is answered FAILED with the reason, at once, instead of never.
pub fn failed_at_start(reason: impl std::fmt::Display) -> Arc<dyn CustomResourceHandler> {
    Arc::new(FailedAtStart(format!(
        "the function failed to start: {reason}"
    )))
}

struct FailedAtStart(String);

impl CustomResourceHandler for FailedAtStart {
    fn handle(
        &self,
        _request: CustomResourceRequest,
    ) -> BoxFuture<'static, Result<CustomResourceOutcome, BoxError>> {
        let reason = self.0.clone();
        Box::pin(async move { Err(reason.into()) })
    }
}

/// Runs `attempt` again while it fails with an error `denied` recognises (AccessDenied: a role
/// CloudFormation has just created can take seconds to reach every service), waiting
/// `first_wait` and doubling (to 8 s at most), for at most `budget`; any other outcome is
/// returned at once.
pub async fn retry_while_denied<T, E, F, Fut>(
    budget: Duration,
    first_wait: Duration,
    denied: impl Fn(&E) -> bool,
    mut attempt: F,
) -> Result<T, E>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let started = tokio::time::Instant::now();
    let mut wait = first_wait;
    loop {
        match attempt().await {
            Err(e) if denied(&e) && started.elapsed() + wait <= budget => {
                tracing::warn!(
                    wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                    "access denied; the role may still be propagating"
                );
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(8));
            }
            outcome => return outcome,
        }
    }
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
    fn the_answer_budget_keeps_a_margin_before_the_deadline() {
        let now = UNIX_EPOCH + Duration::from_secs(1_000);
        let deadline_ms = 1_000_000 + 30_000;
        assert_eq!(answer_budget(deadline_ms, now), Duration::from_secs(25));
        // Past the deadline, or within the margin: no time at all, never an underflow.
        assert_eq!(answer_budget(1_000_000 + 3_000, now), Duration::ZERO);
        assert_eq!(answer_budget(0, now), Duration::ZERO);
    }

    #[tokio::test]
    async fn access_denied_is_retried_until_the_role_propagates_and_nothing_else_is() {
        let calls = std::sync::atomic::AtomicU32::new(0);
        let denied = |e: &String| e.contains("AccessDenied");
        let outcome = retry_while_denied(
            Duration::from_secs(60),
            Duration::from_millis(1),
            denied,
            || {
                let n = calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                async move {
                    if n < 3 {
                        Err("AccessDeniedException: not authorized".to_string())
                    } else {
                        Ok(n)
                    }
                }
            },
        )
        .await;
        assert_eq!(outcome, Ok(3));

        calls.store(0, std::sync::atomic::Ordering::SeqCst);
        let other = retry_while_denied(
            Duration::from_secs(60),
            Duration::from_millis(1),
            denied,
            || {
                calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                async { Err::<(), _>("ResourceNotFoundException".to_string()) }
            },
        )
        .await;
        assert!(other.is_err());
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);

        // Denied for good: it gives up within the budget.
        let budget = Duration::from_millis(200);
        let started = tokio::time::Instant::now();
        let forever = retry_while_denied(budget, Duration::from_millis(10), denied, || async {
            Err::<(), _>("AccessDeniedException".to_string())
        })
        .await;
        assert!(forever.is_err());
        assert!(started.elapsed() <= budget);
    }

    #[tokio::test]
    async fn a_function_that_failed_to_start_answers_failed_with_the_reason() {
        let handler = failed_at_start("USERS_TABLE is not set");
        let request: CustomResourceRequest = serde_json::from_value(event()).expect("parse");
        let reason = handler.handle(request).await.expect_err("fails");
        assert_eq!(
            reason.to_string(),
            "the function failed to start: USERS_TABLE is not set"
        );
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
