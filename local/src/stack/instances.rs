//! Function instances: each function cold-started from its plan, and wired to what invokes
//! it (an HTTP router to the gateway, an SQS handler to its queue pollers, a schedule handler
//! to its timers).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use platform::{Env, Function};
use tracing::{info, warn};

use super::plan::{FunctionPlan, HTTP_EVENTS, SCHEDULE_EVENTS, SQS_EVENTS};
use crate::aws::AwsClients;
use crate::error::StackError;
use crate::intrinsics::Context;
use crate::invoke;
use crate::provision::SQS_QUEUE;
use crate::registry::Registry;
use crate::schedule::ScheduleTarget;
use crate::sqs::{self, Poller};

/// How long a function's factory may take (Lambda's init phase is 10 s; local code may also
/// create AWS clients against a cold emulator).
const COLD_START_TIMEOUT: Duration = Duration::from_secs(30);

/// Every function, started and ready to be invoked.
#[derive(Default)]
pub(super) struct Instances {
    /// HTTP functions: logical id → router.
    pub routers: BTreeMap<String, axum::Router>,
    /// HTTP functions with a function URL: binary → logical id.
    pub url_binaries: BTreeMap<String, String>,
    /// Function URLs with a `Cors`: binary → its configuration.
    pub url_cors: BTreeMap<String, crate::cors::UrlCors>,
    /// One per enabled SQS event source.
    pub pollers: Vec<Poller>,
    /// Scheduled functions by logical id.
    pub schedules: BTreeMap<String, ScheduleTarget>,
    /// The environment each function was started with.
    pub envs: BTreeMap<String, Env>,
    /// Custom resource functions by logical id.
    pub custom_resources:
        BTreeMap<String, Arc<dyn platform::custom_resource::CustomResourceHandler>>,
}

/// Cold-starts every planned function (concurrently, as Lambda would) and wires it up.
pub(super) async fn start_all(
    plans: Vec<FunctionPlan>,
    registry: &Registry,
    ctx: &Context,
    aws: &AwsClients,
) -> Result<Instances, StackError> {
    let built =
        futures::future::join_all(plans.iter().map(|plan| cold_start(plan, registry))).await;
    // Event sources name their queue by ARN; the emulator is asked only for queues the
    // template does not declare.
    let queue_urls: BTreeMap<String, String> = ctx
        .resources
        .values()
        .filter(|r| r.kind == SQS_QUEUE)
        .filter_map(|r| Some((r.attributes.get("Arn")?.clone(), r.reference.clone()?)))
        .collect();

    let mut instances = Instances::default();
    for (plan, function) in plans.into_iter().zip(built) {
        let id = plan.decl.logical_id.clone();
        match function? {
            Function::Http(router) => {
                reject_foreign_events(&plan, "an HTTP router", HTTP_EVENTS)?;
                if plan.routes.is_empty() {
                    warn!(function = %id, "HTTP function has no HttpApi events; it is not reachable");
                }
                if plan.decl.function_url {
                    instances
                        .url_binaries
                        .insert(plan.decl.binary.clone(), id.clone());
                    if let Some(cors) = &plan.url_cors {
                        instances
                            .url_cors
                            .insert(plan.decl.binary.clone(), cors.clone());
                    }
                }
                instances.routers.insert(id.clone(), router);
            }
            Function::Sqs(handler) => {
                reject_foreign_events(&plan, "an SQS handler", SQS_EVENTS)?;
                for source in &plan.sqs {
                    if !source.enabled {
                        info!(function = %id, event = %source.event, "event source disabled");
                        continue;
                    }
                    let queue_url = sqs::locate_queue(&aws.sqs, &source.queue_arn, &queue_urls)
                        .await
                        .map_err(|e| StackError::event(&id, &source.event, e))?;
                    instances.pollers.push(Poller {
                        source: source.clone(),
                        queue_url,
                        handler: Arc::clone(&handler),
                        client: aws.sqs.clone(),
                        region: ctx.region.clone(),
                        timeout: plan.decl.timeout,
                    });
                }
            }
            Function::CustomResource(handler) => {
                reject_foreign_events(&plan, "a custom resource handler", &[])?;
                instances.custom_resources.insert(id.clone(), handler);
            }
            Function::Schedule(handler) => {
                reject_foreign_events(&plan, "a schedule handler", SCHEDULE_EVENTS)?;
                instances.schedules.insert(
                    id.clone(),
                    ScheduleTarget {
                        function: id.clone(),
                        handler,
                        sources: plan.schedules.clone(),
                        region: ctx.region.clone(),
                        timeout: plan.decl.timeout,
                    },
                );
            }
        }
        instances.envs.insert(id, plan.env);
    }
    Ok(instances)
}

/// An event the built handler cannot serve is a start-up error, not a silent no-op.
fn reject_foreign_events(
    plan: &FunctionPlan,
    handler: &str,
    served: &[&str],
) -> Result<(), StackError> {
    match plan.foreign_event(served) {
        None => Ok(()),
        Some(event) => Err(StackError::event(
            &plan.decl.logical_id,
            event,
            format!(
                "the binary {} builds {handler}, which cannot take this event",
                plan.decl.binary
            ),
        )),
    }
}

async fn cold_start(plan: &FunctionPlan, registry: &Registry) -> Result<Function, StackError> {
    let id = &plan.decl.logical_id;
    let factory = registry
        .factory(&plan.decl.binary)
        .ok_or_else(|| StackError::UnknownBinary {
            function: id.clone(),
            binary: plan.decl.binary.clone(),
        })?;
    invoke::guarded(factory(plan.env.clone()), COLD_START_TIMEOUT)
        .await
        .map_err(|e| StackError::ColdStart {
            function: id.clone(),
            reason: e.to_string(),
        })
}
