//! Each function's IAM policy from `template.yaml`, enforced on every AWS call its code makes
//! (DESIGN.md, principle 11), so a missing permission fails locally as it fails in AWS.
//!
//! The emulator cannot do it: moto's IAM mode is process-wide and checks DynamoDB calls against
//! the resource `*`, so it cannot tell tables or indexes apart. Instead the stack gives each
//! function's AWS clients an HTTP client ([`client`]) that reads every signed request
//! ([`request`]), asks the function's policy ([`sam`], [`policy`]) about each action and resource,
//! and answers a refusal itself, as AWS would, without sending it. The functions find that HTTP
//! client through `platform::aws`'s transport hook, keyed by [`FUNCTION_KEY`] in their environment.
//! The stack's own clients (provisioning, queue polling) and the tests' are not enforced.

mod client;
pub mod policy;
pub mod request;
pub mod sam;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, RwLock};

use platform::aws::SharedTransport;
use platform::Env;
use tracing::{error, warn};

pub use policy::{Decision, Policy};
pub use sam::{function_permissions, FunctionPermissions};

use request::{Outgoing, Protocol};

/// The variable in a function's environment that names its policy among the running stacks'.
pub const FUNCTION_KEY: &str = "LOCAL_STACK_IAM_FUNCTION";

/// How many refusals a stack remembers for [`crate::RunningStack::access_denials`].
const DENIALS_KEPT: usize = 1000;

/// One refused AWS call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessDenial {
    /// The function's logical id.
    pub function: String,
    /// The SDK operation, e.g. `BatchGetItem`.
    pub operation: String,
    /// The IAM action that was refused, e.g. `dynamodb:BatchGetItem`.
    pub action: String,
    pub resource: String,
    /// A Deny statement refused it (else nothing allowed it).
    pub explicit: bool,
}

/// The refusals of one stack, oldest first.
#[derive(Clone, Debug, Default)]
pub struct DenialLog(Arc<Mutex<VecDeque<AccessDenial>>>);

impl DenialLog {
    fn push(&self, denial: AccessDenial) {
        let mut log = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if log.len() == DENIALS_KEPT {
            log.pop_front();
        }
        log.push_back(denial);
    }

    pub fn snapshot(&self) -> Vec<AccessDenial> {
        let log = self.0.lock().unwrap_or_else(|e| e.into_inner());
        log.iter().cloned().collect()
    }
}

/// One function's policy, as its AWS clients enforce it.
#[derive(Debug)]
pub struct Guard {
    function: String,
    policy: Policy,
    /// The account of the ARNs of tables and buses (the emulator's).
    account: String,
    denials: DenialLog,
}

/// Why a call is not sent, and how to say so.
#[derive(Clone, Debug)]
pub(crate) struct Refusal {
    pub protocol: Protocol,
    pub message: String,
}

impl Guard {
    pub fn new(function: &str, policy: Policy, account: &str, denials: DenialLog) -> Self {
        Self {
            function: function.to_string(),
            policy,
            account: account.to_string(),
            denials,
        }
    }

    /// Every action and resource of the call must be allowed.
    pub(crate) fn check(&self, req: &Outgoing<'_>) -> Result<(), Refusal> {
        let call = match request::classify(req, &self.account) {
            Ok(Some(call)) => call,
            Ok(None) => return Ok(()),
            Err(reason) => {
                warn!(function = %self.function, %reason,
                    "AWS call refused: the local stack cannot tell what it does");
                self.denials.push(AccessDenial {
                    function: self.function.clone(),
                    operation: String::new(),
                    action: String::new(),
                    resource: reason.clone(),
                    explicit: false,
                });
                return Err(Refusal {
                    protocol: if req.target.is_some() {
                        Protocol::Json
                    } else {
                        Protocol::RestXml
                    },
                    message: format!("the local stack refuses a call it cannot read: {reason}"),
                });
            }
        };
        for check in &call.checks {
            let decision = self.policy.decide(&check.action, &check.resource);
            let explicit = match decision {
                Decision::Allowed => continue,
                Decision::ImplicitDeny => false,
                Decision::ExplicitDeny(_) => true,
            };
            warn!(function = %self.function, action = %check.action, resource = %check.resource,
                operation = %call.operation, ?decision,
                "AWS call refused by the function's IAM policy in template.yaml");
            self.denials.push(AccessDenial {
                function: self.function.clone(),
                operation: call.operation.clone(),
                action: check.action.clone(),
                resource: check.resource.clone(),
                explicit,
            });
            let why = if explicit {
                "with an explicit deny in an identity-based policy"
            } else {
                "because no identity-based policy allows the action"
            };
            return Err(Refusal {
                protocol: call.protocol,
                message: format!(
                    "User: arn:aws:sts::{}:assumed-role/{f}Role/{f} is not authorized to perform: \
                     {} on resource: {} {why}",
                    self.account,
                    check.action,
                    check.resource,
                    f = self.function,
                ),
            });
        }
        Ok(())
    }
}

static GUARDS: LazyLock<RwLock<HashMap<String, Arc<Guard>>>> = LazyLock::new(Default::default);
static NEXT_STACK: AtomicU64 = AtomicU64::new(1);

/// A running stack's functions in the process-wide table; dropping it takes them out.
#[derive(Debug)]
pub struct Registration {
    keys: Vec<String>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut guards = GUARDS.write().unwrap_or_else(|e| e.into_inner());
        for key in &self.keys {
            guards.remove(key);
        }
    }
}

/// Registers a stack's guards (function logical id → guard); returns each function's key.
pub fn register(
    stack_name: &str,
    guards: BTreeMap<String, Guard>,
) -> (Registration, BTreeMap<String, String>) {
    install();
    let serial = NEXT_STACK.fetch_add(1, Ordering::Relaxed);
    let mut table = GUARDS.write().unwrap_or_else(|e| e.into_inner());
    let mut keys = BTreeMap::new();
    for (function, guard) in guards {
        let key = format!("{stack_name}/{function}#{serial}");
        table.insert(key.clone(), Arc::new(guard));
        keys.insert(function, key);
    }
    let registration = Registration {
        keys: keys.values().cloned().collect(),
    };
    (registration, keys)
}

/// Makes every `platform::aws::AwsClients::from_env` consult [`FUNCTION_KEY`].
pub fn install() {
    // Only this hook is ever installed, so "already set" is success too.
    let _ = platform::aws::set_transport_hook(enforce_policy);
}

fn enforce_policy(env: &Env, transport: SharedTransport) -> SharedTransport {
    let Some(key) = env.get(FUNCTION_KEY) else {
        return transport;
    };
    let guard = GUARDS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(key)
        .cloned();
    let guard = guard.unwrap_or_else(|| {
        // Its stack has stopped: allow nothing rather than everything.
        error!(
            key,
            "AWS clients built for a function of a stopped stack; every call is refused"
        );
        Arc::new(Guard::new(
            key,
            Policy::default(),
            crate::intrinsics::ACCOUNT_ID,
            DenialLog::default(),
        ))
    });
    Arc::new(client::EnforcingClient::new(guard, transport))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn guard(policy: serde_json::Value) -> (Guard, DenialLog) {
        let log = DenialLog::default();
        let policy = Policy::from_document(&policy).expect("policy");
        (Guard::new("Fn", policy, "123456789012", log.clone()), log)
    }

    fn dynamodb<'a>(auth: &'a str, target: &'a str, body: &'a str) -> Outgoing<'a> {
        Outgoing {
            method: "POST",
            uri: "http://127.0.0.1:4566/",
            authorization: Some(auth),
            target: Some(target),
            copy_source: None,
            body: Some(body.as_bytes()),
        }
    }

    const AUTH: &str = "AWS4-HMAC-SHA256 Credential=k/20261123/us-east-1/dynamodb/aws4_request, \
                        SignedHeaders=host, Signature=s";

    #[test]
    fn a_batch_is_refused_when_one_of_its_tables_is_not_granted() {
        let (g, log) = guard(json!({"Statement": [{
            "Effect": "Allow", "Action": "dynamodb:BatchGetItem",
            "Resource": "arn:aws:dynamodb:us-east-1:123456789012:table/a"
        }]}));
        let one = r#"{"RequestItems": {"a": {"Keys": []}}}"#;
        assert!(g
            .check(&dynamodb(AUTH, "DynamoDB_20120810.BatchGetItem", one))
            .is_ok());
        let two = r#"{"RequestItems": {"a": {"Keys": []}, "b": {"Keys": []}}}"#;
        let refusal = g
            .check(&dynamodb(AUTH, "DynamoDB_20120810.BatchGetItem", two))
            .expect_err("b is not granted");
        assert_eq!(refusal.protocol, Protocol::Json);
        assert!(
            refusal.message.contains("dynamodb:BatchGetItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table/b"),
            "{}",
            refusal.message
        );
        assert_eq!(
            log.snapshot(),
            [AccessDenial {
                function: "Fn".into(),
                operation: "BatchGetItem".into(),
                action: "dynamodb:BatchGetItem".into(),
                resource: "arn:aws:dynamodb:us-east-1:123456789012:table/b".into(),
                explicit: false,
            }]
        );
    }

    #[test]
    fn explicit_denials_say_so_and_unsigned_calls_pass() {
        let (g, log) = guard(json!({"Statement": [
            {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"},
            {"Effect": "Deny", "Action": "dynamodb:DeleteItem", "Resource": "*"},
        ]}));
        let refusal = g
            .check(&dynamodb(
                AUTH,
                "DynamoDB_20120810.DeleteItem",
                r#"{"TableName": "t"}"#,
            ))
            .expect_err("denied");
        assert!(
            refusal.message.contains("explicit deny"),
            "{}",
            refusal.message
        );
        assert!(log.snapshot().iter().all(|d| d.explicit));
        let unsigned = Outgoing {
            method: "GET",
            uri: "http://169.254.169.254/latest/meta-data",
            ..Default::default()
        };
        assert!(g.check(&unsigned).is_ok());
    }

    #[test]
    fn registrations_are_removed_when_dropped() {
        let (g, _) = guard(json!({"Statement": []}));
        let (registration, keys) = register("stk", BTreeMap::from([("Fn".to_string(), g)]));
        let key = keys.get("Fn").expect("key").clone();
        assert!(key.starts_with("stk/Fn#"), "{key}");
        assert!(GUARDS.read().expect("lock").contains_key(&key));
        drop(registration);
        assert!(!GUARDS.read().expect("lock").contains_key(&key));
    }
}
