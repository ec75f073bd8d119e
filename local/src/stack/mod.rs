//! Starting and stopping the whole stack: template → emulator resources → function
//! environments → cold starts → HTTP routes, queue pollers and schedule timers.
//!
//! Everything that can be wrong with the template (an unknown binary, an unresolvable
//! variable, a bad route or event source) is found before the stack serves anything, and the
//! error names the function and the variable or event.
//!
//! [`plan`] resolves what the template says about each function, [`instances`] cold-starts
//! and wires them, [`running`] is the started stack.

mod custom_resources;
mod instances;
mod plan;
mod running;

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use tokio::net::TcpListener;
use tracing::{info, warn};

use crate::aws::{AwsClients, ProcessCredentials};
use crate::error::StackError;
use crate::http::{self, Dispatcher};
use crate::iam::{self, DenialLog};
use crate::intrinsics::{Context, ResourceAttrs};
use crate::provision;
use crate::registry::Registry;
use crate::routes::RouteTable;
use crate::shutdown;
use crate::template::{Resource, Template};

pub use running::RunningStack;

/// A template parameter that, left empty, is set to the local base URL.
pub const PUBLIC_API_URL_PARAMETER: &str = "PublicApiUrl";

/// How to run the stack.
#[derive(Clone, Debug)]
pub struct StackOptions {
    pub template: PathBuf,
    /// Prefix of every physical name, so stacks sharing an emulator stay apart.
    pub stack_name: String,
    /// Where the local API Gateway listens (port 0 picks a free port).
    pub bind: SocketAddr,
    /// The emulator's endpoint URL.
    pub aws_endpoint: String,
    pub region: String,
    /// SAM `--env-vars` file: `{"Parameters": {...}, "<FunctionLogicalId>": {...}}`.
    pub env_file: Option<PathBuf>,
    /// Template parameter values (over the template's Defaults).
    pub parameters: BTreeMap<String, String>,
    /// Let declared variables present in this process's environment override the template.
    pub process_env_overrides: bool,
    /// Fire schedules on their timers (off in tests: use `fire_schedule`).
    pub run_schedules: bool,
    pub run_queue_pollers: bool,
    /// Only these functions (logical ids) and what they need of the template (see
    /// `plan::needed_by`); `None` runs the whole template.
    pub functions: Option<BTreeSet<String>>,
}

impl Default for StackOptions {
    fn default() -> Self {
        Self {
            template: PathBuf::from("template.yaml"),
            stack_name: "local".to_string(),
            bind: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 8080),
            aws_endpoint: "http://127.0.0.1:4566".to_string(),
            region: "us-east-1".to_string(),
            env_file: None,
            parameters: BTreeMap::new(),
            process_env_overrides: false,
            run_schedules: true,
            run_queue_pollers: true,
            functions: None,
        }
    }
}

/// Provisions the template's resources, starts every function, and serves.
pub async fn start(opts: StackOptions, registry: Registry) -> Result<RunningStack, StackError> {
    let (template, mut ctx, active) = prepare(&opts)?;
    let functions = plan::active_functions(&template, &active, &registry)?;

    // Bound first: functions may need the public base URL at cold start.
    let bind_error = |source| StackError::Bind {
        addr: opts.bind,
        source,
    };
    let listener = TcpListener::bind(opts.bind).await.map_err(bind_error)?;
    let local_addr = listener.local_addr().map_err(bind_error)?;
    let base_url = base_url_for(local_addr);

    let credentials = ProcessCredentials::from_process();
    let (aws, physical) =
        provision_active(&opts, &mut ctx, &active, &base_url, &credentials).await?;
    let published_version = plan::published_version(std::time::SystemTime::now());
    plan::register_published_versions(&mut ctx, &functions, &published_version);
    let denials = DenialLog::default();
    let (policies, policy_keys) = iam::register(
        &opts.stack_name,
        plan::function_guards(&functions, &template, &ctx, &denials)?,
    );
    let plans = plan::plan_functions(
        functions,
        &ctx,
        &opts,
        &credentials,
        &policy_keys,
        &published_version,
    )?;
    let routes = RouteTable::new(plans.iter().flat_map(|p| p.routes.clone()).collect())
        .map_err(StackError::Routes)?;
    let instances = instances::start_all(plans, &registry, &ctx, &aws).await?;
    custom_resources::create_all(&active, &ctx, &instances.custom_resources).await?;

    let route_list: Vec<(String, String)> = routes
        .iter()
        .map(|r| (r.to_string(), r.function.clone()))
        .collect();
    let function_urls: BTreeMap<String, String> = instances
        .url_binaries
        .iter()
        .map(|(binary, id)| (id.clone(), plan::function_url_for(&base_url, binary)))
        .collect();
    let dispatcher = Arc::new(Dispatcher {
        routes,
        functions: instances.routers,
        function_urls: instances.url_binaries,
        function_url_cors: instances.url_cors,
    });
    let (stop, stop_rx) = shutdown::channel();
    let app = http::app(dispatcher);
    let server = http::serve(listener, app.clone(), stop_rx.clone());

    let mut tasks = Vec::new();
    if opts.run_queue_pollers {
        for poller in instances.pollers {
            info!(function = %poller.source.function, event = %poller.source.event,
                queue = %poller.queue_url, "polling queue");
            tasks.push(poller.spawn(stop_rx.clone()));
        }
    }
    if opts.run_schedules {
        for target in instances.schedules.values() {
            tasks.extend(target.spawn_timers(&stop_rx));
        }
    }
    info!(base_url = %base_url, stack = %opts.stack_name, functions = instances.envs.len(), "local stack started");

    Ok(RunningStack {
        base_url,
        local_addr,
        physical,
        envs: instances.envs,
        routes: route_list,
        app,
        function_urls,
        schedules: instances.schedules,
        stop,
        server,
        tasks,
        denials,
        _policies: policies,
    })
}

/// The resources whose condition holds, by logical id, in the template's order.
type Active = Vec<(String, Resource)>;

/// The template, its parameters and conditions, and the resources that exist (those of
/// `opts.functions` only, when given): what serving and provisioning alone both start from.
fn prepare(opts: &StackOptions) -> Result<(Template, Context, Active), StackError> {
    let template = Template::load(&opts.template)?;
    let ctx = Context::new(&template, &opts.stack_name, &opts.region, &opts.parameters);
    for name in opts.parameters.keys() {
        if !template.parameters.contains_key(name) {
            warn!(parameter = %name, "parameter is not declared in the template; ignored");
        }
    }
    let mut active = plan::active_resources(&template, &ctx)?;
    if let Some(only) = &opts.functions {
        active = plan::needed_by(active, only)?;
    }
    Ok((template, ctx, active))
}

/// Creates `active`'s tables, buckets, queues, topics, buses and rules in the emulator (what
/// exists is kept) and records what `!Ref`/`!GetAtt` of each, and of the APIs and functions
/// served at `base_url`, give. The one provisioning of `local/run` and `local/provision`.
async fn provision_active(
    opts: &StackOptions,
    ctx: &mut Context,
    active: &[(String, Resource)],
    base_url: &str,
    credentials: &ProcessCredentials,
) -> Result<(AwsClients, BTreeMap<String, String>), StackError> {
    // The deployed stack cannot name its own API in a function's environment (a dependency
    // cycle), so it takes the URL as a parameter; locally the stack knows it.
    if let Some(value) = ctx.parameters.get_mut(PUBLIC_API_URL_PARAMETER) {
        if value.as_deref().is_none_or(str::is_empty) {
            *value = Some(base_url.to_string());
        }
    }
    let aws = AwsClients::new(&opts.aws_endpoint, &opts.region, credentials).await;
    let physical = provision::provision(active, ctx, &aws).await?;
    plan::register_apis_and_functions(ctx, active, base_url);
    Ok((aws, physical))
}

/// What provisioning alone leaves: the resources as created, and each function's variables as
/// the template gives them with those resources' names (no Lambda or override layer).
#[derive(Clone, Debug)]
pub struct Provisioned {
    /// Logical id → what `!Ref`/`!GetAtt` of it give, for every resource created in the emulator.
    pub resources: BTreeMap<String, ResourceAttrs>,
    pub functions: Vec<ProvisionedFunction>,
}

#[derive(Clone, Debug)]
pub struct ProvisionedFunction {
    pub logical_id: String,
    pub binary: String,
    /// Every variable the template declares for it, even one that resolved to `AWS::NoValue`.
    pub declared: BTreeSet<String>,
    /// The declared variables' values, resolved.
    pub variables: BTreeMap<String, String>,
}

/// Creates the template's resources in the emulator as [`start`] does, then stops: nothing is
/// served, no function is started, no custom resource is run. `api_url` is where the HTTP API
/// will be served (what `!GetAtt HttpApi.ApiEndpoint` and an empty `PublicApiUrl` give).
pub async fn provision_stack(
    opts: &StackOptions,
    api_url: &str,
) -> Result<Provisioned, StackError> {
    let (template, mut ctx, active) = prepare(opts)?;
    let credentials = ProcessCredentials::from_process();
    let (_, physical) = provision_active(opts, &mut ctx, &active, api_url, &credentials).await?;
    let active_ids: BTreeSet<&str> = active.iter().map(|(id, _)| id.as_str()).collect();
    let decls: Vec<_> = template
        .functions()?
        .into_iter()
        .filter(|f| active_ids.contains(f.logical_id.as_str()))
        .collect();
    // `$LATEST` stands for the version SAM would publish: no deployment publishes one locally.
    plan::register_published_versions(&mut ctx, &decls, "$LATEST");
    let mut functions = Vec::new();
    for decl in decls {
        functions.push(ProvisionedFunction {
            variables: plan::template_variables(&decl, &ctx)?,
            declared: decl.variables.keys().cloned().collect(),
            logical_id: decl.logical_id,
            binary: decl.binary,
        });
    }
    let resources = ctx
        .resources
        .into_iter()
        .filter(|(id, _)| physical.contains_key(id))
        .collect();
    Ok(Provisioned {
        resources,
        functions,
    })
}

/// A wildcard bind address is reached through loopback.
fn base_url_for(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}", SocketAddr::new(ip, addr.port()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_use_loopback_for_wildcards() {
        let url = |s: &str| base_url_for(s.parse().expect("addr"));
        assert_eq!(url("127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert_eq!(url("0.0.0.0:9000"), "http://127.0.0.1:9000");
        assert_eq!(url("[::]:9000"), "http://[::1]:9000");
    }
}
