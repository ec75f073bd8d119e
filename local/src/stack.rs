//! Starting and stopping the whole stack: template → emulator resources → function
//! environments → cold starts → HTTP routes, queue pollers and schedule timers.
//!
//! Everything that can be wrong with the template (an unknown binary, an unresolvable
//! variable, a bad route or event source) is found before the stack serves anything, and the
//! error names the function and the variable or event.

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use platform::{Env, Function};
use serde_json::Value as Json;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tracing::{info, warn};

use crate::aws::{AwsClients, ProcessCredentials};
use crate::env::{lambda_variables, EnvFile, Layers};
use crate::error::StackError;
use crate::http::{self, Dispatcher};
use crate::iam::{self, AccessDenial, DenialLog, Guard};
use crate::intrinsics::{json_text, Context, ResourceAttrs, ACCOUNT_ID};
use crate::invoke;
use crate::provision::{self, SQS_QUEUE};
use crate::registry::Registry;
use crate::routes::{Route, RouteTable};
use crate::schedule::{ScheduleSource, ScheduleTarget};
use crate::shutdown;
use crate::sqs::{self, Poller, SqsSource};
use crate::template::{FunctionDecl, Template};

/// How long a function's factory may take (Lambda's init phase is 10 s; local code may also
/// create AWS clients against a cold emulator).
const COLD_START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `shutdown` waits for an in-flight batch or request before abandoning it.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// `AWS::Serverless::HttpApi` resources, and the one SAM creates implicitly.
const HTTP_API: &str = "AWS::Serverless::HttpApi";
const IMPLICIT_HTTP_API: &str = "ServerlessHttpApi";

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
        }
    }
}

/// A started stack. Dropping it stops pollers and timers too; `shutdown` also waits for them.
pub struct RunningStack {
    base_url: String,
    local_addr: SocketAddr,
    physical: BTreeMap<String, String>,
    envs: BTreeMap<String, Env>,
    routes: Vec<(String, String)>,
    /// Function logical id → its local function URL.
    function_urls: BTreeMap<String, String>,
    schedules: BTreeMap<String, ScheduleTarget>,
    stop: shutdown::Sender,
    server: JoinHandle<()>,
    tasks: Vec<JoinHandle<()>>,
    denials: DenialLog,
    /// Keeps the functions' policies enforced while the stack runs.
    _policies: iam::Registration,
}

impl RunningStack {
    /// The public base URL, e.g. `http://127.0.0.1:8080`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Table, bucket, event bus or rule name, or queue URL, of a provisioned resource.
    pub fn physical_name(&self, logical_id: &str) -> Option<String> {
        self.physical.get(logical_id).cloned()
    }

    /// The environment a function was started with.
    pub fn function_env(&self, logical_id: &str) -> Option<&Env> {
        self.envs.get(logical_id)
    }

    /// `(route key, function)` of every HTTP route, e.g. `("ANY /api/users/{proxy+}", ...)`.
    pub fn routes(&self) -> &[(String, String)] {
        &self.routes
    }

    /// The local URL of a function's `FunctionUrlConfig` (`{base}/lambda-url/{binary}`, no
    /// trailing slash), where it answers its own, unprefixed paths.
    pub fn function_url(&self, logical_id: &str) -> Option<&str> {
        self.function_urls.get(logical_id).map(String::as_str)
    }

    /// Every function URL: logical id → URL.
    pub fn function_urls(&self) -> &BTreeMap<String, String> {
        &self.function_urls
    }

    /// The AWS calls of functions that their IAM policies refused, oldest first.
    pub fn access_denials(&self) -> Vec<AccessDenial> {
        self.denials.snapshot()
    }

    /// Invokes a scheduled function now, once per schedule event it has (disabled ones
    /// included: firing by hand is explicit), or once with `{}` if it has none.
    pub async fn fire_schedule(&self, function_logical_id: &str) -> Result<(), StackError> {
        let target = self
            .schedules
            .get(function_logical_id)
            .ok_or_else(|| StackError::NotScheduled(function_logical_id.to_string()))?;
        let fail = |e: invoke::InvokeError| StackError::Invocation {
            function: function_logical_id.to_string(),
            reason: e.to_string(),
        };
        if target.sources.is_empty() {
            return target.fire(None).await.map_err(fail);
        }
        for source in &target.sources {
            target.fire(Some(source)).await.map_err(fail)?;
        }
        Ok(())
    }

    /// Stops the server, pollers and timers, waiting briefly for in-flight work.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let aborts: Vec<_> = std::iter::once(&self.server)
            .chain(self.tasks.iter())
            .map(JoinHandle::abort_handle)
            .collect();
        let all = async move {
            let _ = self.server.await;
            for task in self.tasks {
                let _ = task.await;
            }
        };
        if tokio::time::timeout(SHUTDOWN_GRACE, all).await.is_err() {
            warn!("in-flight work did not finish in time; abandoning it");
            for abort in aborts {
                abort.abort();
            }
        }
        info!("local stack stopped");
    }
}

/// What the template says about one function, resolved.
struct FunctionPlan {
    decl: FunctionDecl,
    env: Env,
    routes: Vec<Route>,
    sqs: Vec<SqsSource>,
    schedules: Vec<ScheduleSource>,
}

/// A template parameter that, left empty, is set to the local base URL.
pub const PUBLIC_API_URL_PARAMETER: &str = "PublicApiUrl";

/// Provisions the template's resources, starts every function, and serves.
pub async fn start(opts: StackOptions, registry: Registry) -> Result<RunningStack, StackError> {
    let template = Template::load(&opts.template)?;
    let mut ctx = Context::new(&template, &opts.stack_name, &opts.region, &opts.parameters);
    for name in opts.parameters.keys() {
        if !template.parameters.contains_key(name) {
            warn!(parameter = %name, "parameter is not declared in the template; ignored");
        }
    }

    let mut active = Vec::new();
    for (id, res) in &template.resources {
        let exists = match &res.condition {
            None => true,
            Some(c) => ctx.condition(c).map_err(|e| StackError::resource(id, e))?,
        };
        if exists {
            active.push((id.clone(), res.clone()));
        } else {
            info!(resource = %id, condition = ?res.condition, "condition is false; resource skipped");
        }
    }
    let active_ids: BTreeSet<&str> = active.iter().map(|(id, _)| id.as_str()).collect();
    let functions: Vec<FunctionDecl> = template
        .functions()?
        .into_iter()
        .filter(|f| active_ids.contains(f.logical_id.as_str()))
        .collect();
    for f in &functions {
        if !registry.contains(&f.binary) {
            return Err(StackError::UnknownBinary {
                function: f.logical_id.clone(),
                binary: f.binary.clone(),
            });
        }
    }

    // Bound first: functions may need the public base URL at cold start.
    let listener = TcpListener::bind(opts.bind)
        .await
        .map_err(|source| StackError::Bind {
            addr: opts.bind,
            source,
        })?;
    let local_addr = listener.local_addr().map_err(|source| StackError::Bind {
        addr: opts.bind,
        source,
    })?;
    let base_url = base_url_for(local_addr);
    // The deployed stack cannot name its own API in a function's environment (a dependency
    // cycle), so it takes the URL as a parameter; locally the stack knows it.
    if let Some(value) = ctx.parameters.get_mut(PUBLIC_API_URL_PARAMETER) {
        if value.as_deref().is_none_or(str::is_empty) {
            *value = Some(base_url.clone());
        }
    }

    let credentials = ProcessCredentials::from_process();
    let aws = AwsClients::new(&opts.aws_endpoint, &opts.region, &credentials).await;
    let physical = provision::provision(&active, &mut ctx, &aws).await?;
    register_apis_and_functions(&mut ctx, &active, &base_url);
    let denials = DenialLog::default();
    let (policies, policy_keys) = iam::register(
        &opts.stack_name,
        function_guards(&functions, &template, &ctx, &denials)?,
    );

    let env_file = opts.env_file.as_deref().map(EnvFile::load).transpose()?;
    let process_env: Option<BTreeMap<String, String>> = opts
        .process_env_overrides
        .then(|| std::env::vars().collect());
    let plans = functions
        .into_iter()
        .map(|decl| {
            let mut env = function_env(
                &decl,
                &ctx,
                &opts,
                &credentials,
                env_file.as_ref(),
                process_env.as_ref(),
            )?;
            if let Some(key) = policy_keys.get(&decl.logical_id) {
                env.set(iam::FUNCTION_KEY, key.clone());
            }
            plan_events(decl, env, &ctx)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let routes = RouteTable::new(plans.iter().flat_map(|p| p.routes.clone()).collect())
        .map_err(StackError::Routes)?;

    let built =
        futures::future::join_all(plans.iter().map(|plan| cold_start(plan, &registry))).await;

    let (stop, stop_rx) = shutdown::channel();
    let queue_urls: BTreeMap<String, String> = ctx
        .resources
        .values()
        .filter(|r| r.kind == SQS_QUEUE)
        .filter_map(|r| Some((r.attributes.get("Arn")?.clone(), r.reference.clone()?)))
        .collect();

    let mut routers = BTreeMap::new();
    let mut url_binaries = BTreeMap::new();
    let mut pollers = Vec::new();
    let mut schedules = BTreeMap::new();
    let mut envs = BTreeMap::new();
    for (plan, function) in plans.into_iter().zip(built) {
        let id = plan.decl.logical_id.clone();
        match function? {
            Function::Http(router) => {
                reject_events(
                    &plan,
                    "an HTTP router",
                    &[&plan.sqs_events(), &plan.schedule_events()],
                )?;
                if plan.routes.is_empty() {
                    warn!(function = %id, "HTTP function has no HttpApi events; it is not reachable");
                }
                if plan.decl.function_url {
                    url_binaries.insert(plan.decl.binary.clone(), id.clone());
                }
                routers.insert(id.clone(), router);
            }
            Function::Sqs(handler) => {
                reject_events(
                    &plan,
                    "an SQS handler",
                    &[&plan.http_events(), &plan.schedule_events()],
                )?;
                for source in &plan.sqs {
                    if !source.enabled {
                        info!(function = %id, event = %source.event, "event source disabled");
                        continue;
                    }
                    let queue_url = sqs::locate_queue(&aws.sqs, &source.queue_arn, &queue_urls)
                        .await
                        .map_err(|e| StackError::event(&id, &source.event, e))?;
                    pollers.push(Poller {
                        source: source.clone(),
                        queue_url,
                        handler: Arc::clone(&handler),
                        client: aws.sqs.clone(),
                        region: opts.region.clone(),
                        timeout: plan.decl.timeout,
                    });
                }
            }
            Function::Schedule(handler) => {
                reject_events(
                    &plan,
                    "a schedule handler",
                    &[&plan.http_events(), &plan.sqs_events()],
                )?;
                schedules.insert(
                    id.clone(),
                    ScheduleTarget {
                        function: id.clone(),
                        handler,
                        sources: plan.schedules.clone(),
                        region: opts.region.clone(),
                        timeout: plan.decl.timeout,
                    },
                );
            }
        }
        envs.insert(id, plan.env);
    }

    let route_list: Vec<(String, String)> = routes
        .iter()
        .map(|r| (r.to_string(), r.function.clone()))
        .collect();
    let function_urls: BTreeMap<String, String> = url_binaries
        .iter()
        .map(|(binary, id)| (id.clone(), function_url_for(&base_url, binary)))
        .collect();
    let dispatcher = Arc::new(Dispatcher {
        routes,
        functions: routers,
        function_urls: url_binaries,
    });
    let server = http::serve(listener, http::app(dispatcher), stop_rx.clone());

    let mut tasks = Vec::new();
    if opts.run_queue_pollers {
        for poller in pollers {
            info!(function = %poller.source.function, event = %poller.source.event,
                queue = %poller.queue_url, "polling queue");
            tasks.push(poller.spawn(stop_rx.clone()));
        }
    }
    if opts.run_schedules {
        for target in schedules.values() {
            tasks.extend(target.spawn_timers(&stop_rx));
        }
    }
    info!(base_url = %base_url, stack = %opts.stack_name, functions = envs.len(), "local stack started");

    Ok(RunningStack {
        base_url,
        local_addr,
        physical,
        envs,
        routes: route_list,
        function_urls,
        schedules,
        stop,
        server,
        tasks,
        denials,
        _policies: policies,
    })
}

/// Each function's policy from the template, as its AWS clients will enforce it.
fn function_guards(
    functions: &[FunctionDecl],
    template: &Template,
    ctx: &Context,
    denials: &DenialLog,
) -> Result<BTreeMap<String, Guard>, StackError> {
    let mut guards = BTreeMap::new();
    for decl in functions {
        let id = &decl.logical_id;
        let permissions =
            iam::function_permissions(id, template, ctx).map_err(|reason| StackError::Policy {
                function: id.clone(),
                reason,
            })?;
        for warning in &permissions.warnings {
            warn!(function = %id, "IAM policy: {warning}");
        }
        guards.insert(
            id.clone(),
            Guard::new(id, permissions.policy, ACCOUNT_ID, denials.clone()),
        );
    }
    Ok(guards)
}

impl FunctionPlan {
    fn http_events(&self) -> Vec<String> {
        self.event_names("HttpApi")
    }

    fn sqs_events(&self) -> Vec<String> {
        self.sqs.iter().map(|s| s.event.clone()).collect()
    }

    fn schedule_events(&self) -> Vec<String> {
        self.schedules.iter().map(|s| s.event.clone()).collect()
    }

    fn event_names(&self, kind: &str) -> Vec<String> {
        self.decl
            .events
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| e.name.clone())
            .collect()
    }
}

/// An event the built handler cannot serve is a start-up error, not a silent no-op.
fn reject_events(
    plan: &FunctionPlan,
    handler: &str,
    events: &[&Vec<String>],
) -> Result<(), StackError> {
    match events.iter().flat_map(|e| e.iter()).next() {
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

/// What `!Ref`/`!GetAtt` of HTTP APIs and functions return locally.
fn register_apis_and_functions(
    ctx: &mut Context,
    active: &[(String, crate::template::Resource)],
    base_url: &str,
) {
    let api = |kind: &str| {
        ResourceAttrs::new(kind, "local")
            .attr("ApiEndpoint", base_url)
            .attr("ApiId", "local")
    };
    ctx.resources
        .entry(IMPLICIT_HTTP_API.to_string())
        .or_insert_with(|| api(HTTP_API));
    for (id, res) in active {
        if res.kind == HTTP_API {
            ctx.resources.insert(id.clone(), api(HTTP_API));
        } else if res.kind == crate::template::SERVERLESS_FUNCTION {
            let arn = format!("arn:aws:lambda:{}:{ACCOUNT_ID}:function:{id}", ctx.region);
            ctx.resources.insert(
                id.clone(),
                ResourceAttrs::new(&res.kind, id).attr("Arn", arn.clone()),
            );
            // SAM's `{Function}Url` resource; the deployed URL ends with a slash too.
            let binary = res
                .metadata
                .get("BuildProperties")
                .and_then(|b| b.get("Binary"))
                .and_then(serde_yaml::Value::as_str);
            if let (Some(binary), Some(_)) = (binary, res.property("FunctionUrlConfig")) {
                let url = format!("{}/", function_url_for(base_url, binary));
                ctx.resources.insert(
                    format!("{id}Url"),
                    // `!Ref` of a function URL is its function's ARN.
                    ResourceAttrs::new("AWS::Lambda::Url", arn).attr("FunctionUrl", url),
                );
            }
        }
    }
}

/// Where the local stack serves a function URL (see [`crate::http::FUNCTION_URL_PREFIX`]).
fn function_url_for(base_url: &str, binary: &str) -> String {
    format!("{base_url}{}{binary}", crate::http::FUNCTION_URL_PREFIX)
}

/// The function's environment, all layers applied.
fn function_env(
    decl: &FunctionDecl,
    ctx: &Context,
    opts: &StackOptions,
    credentials: &ProcessCredentials,
    env_file: Option<&EnvFile>,
    process_env: Option<&BTreeMap<String, String>>,
) -> Result<Env, StackError> {
    let fail = |variable: &str, reason: String| StackError::Environment {
        function: decl.logical_id.clone(),
        variable: variable.to_string(),
        reason,
    };
    let mut template_vars = BTreeMap::new();
    for (name, value) in &decl.variables {
        match ctx.resolve(value) {
            Ok(None) => {}
            Ok(Some(v)) => {
                let text = json_text(&v).map_err(|e| fail(name, e.0))?;
                template_vars.insert(name.clone(), text);
            }
            Err(e) => return Err(fail(name, e.0)),
        }
    }
    let declared: BTreeSet<String> = decl.variables.keys().cloned().collect();
    let lambda = lambda_variables(
        &decl.logical_id,
        &opts.region,
        &opts.aws_endpoint,
        credentials,
    );
    Ok(Layers {
        function: &decl.logical_id,
        declared: &declared,
        template: &template_vars,
        lambda: &lambda,
        env_file,
        process: process_env,
    }
    .compose())
}

/// Routes, queue sources and schedules from the function's `Events`.
fn plan_events(decl: FunctionDecl, env: Env, ctx: &Context) -> Result<FunctionPlan, StackError> {
    let id = decl.logical_id.clone();
    let mut plan = FunctionPlan {
        decl,
        env,
        routes: Vec::new(),
        sqs: Vec::new(),
        schedules: Vec::new(),
    };
    for event in &plan.decl.events {
        let fail = |e: String| StackError::event(&id, &event.name, e);
        let props = || -> Result<Json, StackError> {
            match ctx.resolve(&event.properties) {
                Ok(Some(v)) => Ok(v),
                Ok(None) => Ok(Json::Null),
                Err(e) => Err(fail(e.0)),
            }
        };
        match event.kind.as_str() {
            "HttpApi" => {
                let props = props()?;
                let text = |k: &str| props.get(k).and_then(|v| json_text(v).ok());
                let route = Route::parse(text("Method").as_deref(), text("Path").as_deref(), &id)
                    .map_err(fail)?;
                plan.routes.push(route);
            }
            "SQS" => plan
                .sqs
                .push(SqsSource::from_properties(&id, &event.name, &props()?).map_err(fail)?),
            "Schedule" | "ScheduleV2" => plan.schedules.push(
                ScheduleSource::from_properties(
                    &id,
                    &event.name,
                    &event.kind,
                    &props()?,
                    &ctx.stack_name,
                    &ctx.region,
                )
                .map_err(fail)?,
            ),
            other => warn!(function = %id, event = %event.name, kind = other,
                "event type is not run by the local stack"),
        }
    }
    Ok(plan)
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

    #[test]
    fn plans_events_from_the_template() {
        let template = Template::parse(
            r#"
Resources:
  Api:
    Type: AWS::Serverless::HttpApi
  Fn:
    Type: AWS::Serverless::Function
    Metadata: {BuildProperties: {Binary: b}}
    Properties:
      FunctionUrlConfig: {AuthType: NONE}
      Environment:
        Variables:
          URL: !GetAtt Api.ApiEndpoint
          IMPLICIT: !Ref ServerlessHttpApi
          SELF: !GetAtt Fn.Arn
          OWN_URL: !GetAtt FnUrl.FunctionUrl
      Events:
        One:
          Type: HttpApi
          Properties:
            ApiId: !Ref Api
            Path: /a/{id}
            Method: get
        Two: {Type: HttpApi}
        Bucket: {Type: S3, Properties: {Bucket: !Ref Nothing}}
"#,
        )
        .expect("template");
        let mut ctx = Context::new(&template, "s", "us-east-1", &BTreeMap::new());
        let active: Vec<_> = template
            .resources
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        register_apis_and_functions(&mut ctx, &active, "http://127.0.0.1:1234");
        let decl = template.functions().expect("functions").remove(0);
        let opts = StackOptions::default();
        let creds = ProcessCredentials {
            access_key_id: "a".into(),
            secret_access_key: "b".into(),
            session_token: None,
        };
        let env = function_env(&decl, &ctx, &opts, &creds, None, None).expect("env");
        assert_eq!(env.get("URL"), Some("http://127.0.0.1:1234"));
        assert_eq!(env.get("IMPLICIT"), Some("local"));
        assert_eq!(
            env.get("SELF"),
            Some("arn:aws:lambda:us-east-1:123456789012:function:Fn")
        );
        assert_eq!(env.get("AWS_LAMBDA_FUNCTION_NAME"), Some("Fn"));
        assert_eq!(
            env.get("OWN_URL"),
            Some("http://127.0.0.1:1234/lambda-url/b/")
        );
        let plan = plan_events(decl, env, &ctx).expect("plan");
        let keys: Vec<String> = plan.routes.iter().map(|r| r.to_string()).collect();
        assert_eq!(keys, ["GET /a/{id}", "$default"]);
    }

    #[test]
    fn unresolvable_variables_name_function_and_variable() {
        let template = Template::parse(
            "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Metadata: {BuildProperties: {Binary: b}}\n    Properties:\n      Environment:\n        Variables:\n          TABLE: !Ref Missing\n",
        )
        .expect("template");
        let ctx = Context::new(&template, "s", "us-east-1", &BTreeMap::new());
        let decl = template.functions().expect("functions").remove(0);
        let creds = ProcessCredentials {
            access_key_id: "a".into(),
            secret_access_key: "b".into(),
            session_token: None,
        };
        let err = function_env(&decl, &ctx, &StackOptions::default(), &creds, None, None)
            .expect_err("unresolvable");
        let message = err.to_string();
        assert!(
            message.contains("Fn") && message.contains("TABLE") && message.contains("Missing"),
            "{message}"
        );
    }
}
