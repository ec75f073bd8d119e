//! What the template says about each function, resolved before anything is served: the
//! resources that exist, each function's policy, environment, routes, queue sources and
//! schedules, and what `!Ref`/`!GetAtt` of APIs and functions give locally.

use std::collections::{BTreeMap, BTreeSet};

use platform::Env;
use serde_json::Value as Json;
use tracing::{info, warn};

use super::StackOptions;
use crate::aws::ProcessCredentials;
use crate::cors::UrlCors;
use crate::env::{lambda_variables, EnvFile, Layers};
use crate::error::StackError;
use crate::iam::{self, DenialLog, Guard};
use crate::intrinsics::{json_text, referenced_names, Context, ResourceAttrs, ACCOUNT_ID};
use crate::registry::Registry;
use crate::routes::Route;
use crate::schedule::ScheduleSource;
use crate::sqs::SqsSource;
use crate::template::{FunctionDecl, Resource, Template, SERVERLESS_FUNCTION};

/// `AWS::Serverless::HttpApi` resources, and the one SAM creates implicitly.
const HTTP_API: &str = "AWS::Serverless::HttpApi";
const IMPLICIT_HTTP_API: &str = "ServerlessHttpApi";

/// The event types each kind of handler serves; the local stack runs no others.
pub(super) const HTTP_EVENTS: &[&str] = &["HttpApi"];
pub(super) const SQS_EVENTS: &[&str] = &["SQS"];
pub(super) const SCHEDULE_EVENTS: &[&str] = &["Schedule", "ScheduleV2"];

/// What the template says about one function, resolved.
pub(super) struct FunctionPlan {
    pub decl: FunctionDecl,
    pub env: Env,
    pub routes: Vec<Route>,
    pub sqs: Vec<SqsSource>,
    pub schedules: Vec<ScheduleSource>,
    /// Its function URL's `Cors`, resolved with the stack's parameters (`None`: no CORS).
    pub url_cors: Option<UrlCors>,
}

impl FunctionPlan {
    /// The first event the local stack runs but a handler serving `served` cannot take.
    pub fn foreign_event(&self, served: &[&str]) -> Option<&str> {
        let runnable = |kind: &str| {
            [HTTP_EVENTS, SQS_EVENTS, SCHEDULE_EVENTS]
                .iter()
                .any(|kinds| kinds.contains(&kind))
        };
        self.decl
            .events
            .iter()
            .find(|e| runnable(&e.kind) && !served.contains(&e.kind.as_str()))
            .map(|e| e.name.as_str())
    }
}

/// The template's resources whose `Condition` holds.
pub(super) fn active_resources(
    template: &Template,
    ctx: &Context,
) -> Result<Vec<(String, Resource)>, StackError> {
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
    Ok(active)
}

/// What `functions` need of `active`: those functions, every resource their definitions refer
/// to (and those resources' references in turn), the custom resources they serve (the
/// bootstrap administrator), and what connects only needed resources (an event rule, a queue
/// policy). The rest of the template is neither provisioned nor started.
pub(super) fn needed_by(
    active: Vec<(String, Resource)>,
    functions: &BTreeSet<String>,
) -> Result<Vec<(String, Resource)>, StackError> {
    let by_id: BTreeMap<&str, &Resource> =
        active.iter().map(|(id, res)| (id.as_str(), res)).collect();
    // Each resource's references, read once: the closure and the fixpoint below ask often.
    let refs: BTreeMap<&str, BTreeSet<String>> = active
        .iter()
        .map(|(id, res)| (id.as_str(), referenced_names(&res.properties)))
        .collect();
    let refs_of = |id: &str| refs.get(id).into_iter().flatten();
    if let Some(unknown) = functions.iter().find(|f| {
        by_id
            .get(f.as_str())
            .is_none_or(|res| res.kind != SERVERLESS_FUNCTION)
    }) {
        return Err(StackError::resource(
            unknown,
            "is not a function of the template (or its condition is false)",
        ));
    }
    let mut needed = functions.clone();
    for (id, res) in &active {
        let custom =
            res.kind.starts_with("Custom::") || res.kind == "AWS::CloudFormation::CustomResource";
        if custom && refs_of(id).any(|name| functions.contains(name)) {
            needed.insert(id.clone());
        }
    }
    let mut todo: Vec<String> = needed.iter().cloned().collect();
    while let Some(id) = todo.pop() {
        for name in refs_of(&id).cloned() {
            // A function URL (`FooFunctionUrl`) is SAM's: it comes with its function.
            let resource = match name.strip_suffix("Url") {
                Some(function) if !by_id.contains_key(name.as_str()) => function.to_string(),
                _ => name,
            };
            if by_id.contains_key(resource.as_str()) && needed.insert(resource.clone()) {
                todo.push(resource);
            }
        }
    }
    // What wires needed resources together (a rule from the bus to a needed queue, a queue's
    // policy) comes along once everything it refers to is needed.
    loop {
        let joining: Vec<String> = active
            .iter()
            .filter(|(id, res)| !needed.contains(id) && res.kind != SERVERLESS_FUNCTION)
            .filter(|(id, _)| {
                let mut resources = refs_of(id)
                    .filter(|name| by_id.contains_key(name.as_str()))
                    .peekable();
                resources.peek().is_some() && resources.all(|name| needed.contains(name))
            })
            .map(|(id, _)| id.clone())
            .collect();
        if joining.is_empty() {
            break;
        }
        needed.extend(joining);
    }
    Ok(active
        .into_iter()
        .filter(|(id, _)| needed.contains(id))
        .collect())
}

/// The functions among `active`, each with a binary the registry can build.
pub(super) fn active_functions(
    template: &Template,
    active: &[(String, Resource)],
    registry: &Registry,
) -> Result<Vec<FunctionDecl>, StackError> {
    let active_ids: BTreeSet<&str> = active.iter().map(|(id, _)| id.as_str()).collect();
    let functions: Vec<FunctionDecl> = template
        .functions()?
        .into_iter()
        .filter(|f| active_ids.contains(f.logical_id.as_str()))
        .collect();
    match functions.iter().find(|f| !registry.contains(&f.binary)) {
        Some(f) => Err(StackError::UnknownBinary {
            function: f.logical_id.clone(),
            binary: f.binary.clone(),
        }),
        None => Ok(functions),
    }
}

/// Each function's policy from the template, as its AWS clients will enforce it.
pub(super) fn function_guards(
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

/// Every function's plan: its environment (with its policy key) and its events.
pub(super) fn plan_functions(
    functions: Vec<FunctionDecl>,
    ctx: &Context,
    opts: &StackOptions,
    credentials: &ProcessCredentials,
    policy_keys: &BTreeMap<String, String>,
    published_version: &str,
) -> Result<Vec<FunctionPlan>, StackError> {
    let env_file = opts.env_file.as_deref().map(EnvFile::load).transpose()?;
    let process_env: Option<BTreeMap<String, String>> = opts
        .process_env_overrides
        .then(|| std::env::vars().collect());
    functions
        .into_iter()
        .map(|decl| {
            let mut env = function_env(
                &decl,
                ctx,
                opts,
                credentials,
                env_file.as_ref(),
                process_env.as_ref(),
                published_version,
            )?;
            if let Some(key) = policy_keys.get(&decl.logical_id) {
                env.set(iam::FUNCTION_KEY, key.clone());
            }
            plan_events(decl, env, ctx)
        })
        .collect()
}

/// What `!Ref`/`!GetAtt` of HTTP APIs and functions return locally.
pub(super) fn register_apis_and_functions(
    ctx: &mut Context,
    active: &[(String, Resource)],
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
        } else if res.kind == SERVERLESS_FUNCTION {
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

/// The version every function with `AutoPublishAlias` runs as in this start of the stack:
/// `local-{startMillis}`, so a restart is a new deployment (state kept per deployment, like
/// GenAI's provider override, starts afresh). Other functions run as `$LATEST`, as in Lambda.
pub(super) fn published_version(started: std::time::SystemTime) -> String {
    let millis = started
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!("local-{millis}")
}

/// What `!Ref X.Version` and `!Ref X.Alias` give for each function with `AutoPublishAlias`:
/// the ARNs of its version `version` and of its alias (SAM's generated resources).
pub(super) fn register_published_versions(
    ctx: &mut Context,
    functions: &[FunctionDecl],
    version: &str,
) {
    for decl in functions {
        let Some(alias) = &decl.auto_publish_alias else {
            continue;
        };
        let id = &decl.logical_id;
        let arn = format!("arn:aws:lambda:{}:{ACCOUNT_ID}:function:{id}", ctx.region);
        ctx.resources.insert(
            format!("{id}.Version"),
            ResourceAttrs::new("AWS::Lambda::Version", format!("{arn}:{version}"))
                .attr("Version", version),
        );
        ctx.resources.insert(
            format!("{id}.Alias"),
            ResourceAttrs::new("AWS::Lambda::Alias", format!("{arn}:{alias}")),
        );
    }
}

/// Where the local stack serves a function URL (see [`crate::http::FUNCTION_URL_PREFIX`]).
pub(super) fn function_url_for(base_url: &str, binary: &str) -> String {
    format!("{base_url}{}{binary}", crate::http::FUNCTION_URL_PREFIX)
}

/// The function's declared variables resolved (those resolving to `AWS::NoValue` left out):
/// the template layer of its environment.
pub(super) fn template_variables(
    decl: &FunctionDecl,
    ctx: &Context,
) -> Result<BTreeMap<String, String>, StackError> {
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
                if let Some(at) = text.find("{{resolve:") {
                    let reference = text.get(at..).unwrap_or_default();
                    return Err(fail(
                        name,
                        format!(
                            "{reference} is a dynamic reference, which CloudFormation resolves \
                             at deploy time and the local stack does not: leave the parameter \
                             that names it (a ...From parameter) empty locally"
                        ),
                    ));
                }
                template_vars.insert(name.clone(), text);
            }
            Err(e) => return Err(fail(name, e.0)),
        }
    }
    Ok(template_vars)
}

/// The function's environment, all layers applied.
fn function_env(
    decl: &FunctionDecl,
    ctx: &Context,
    opts: &StackOptions,
    credentials: &ProcessCredentials,
    env_file: Option<&EnvFile>,
    process_env: Option<&BTreeMap<String, String>>,
    published_version: &str,
) -> Result<Env, StackError> {
    let template_vars = template_variables(decl, ctx)?;
    let declared: BTreeSet<String> = decl.variables.keys().cloned().collect();
    let mut lambda = lambda_variables(
        &decl.logical_id,
        &opts.region,
        &opts.aws_endpoint,
        credentials,
    );
    let version = match decl.auto_publish_alias {
        Some(_) => published_version,
        None => "$LATEST",
    };
    lambda.insert(
        "AWS_LAMBDA_FUNCTION_VERSION".to_string(),
        version.to_string(),
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

/// Routes, queue sources and schedules from the function's `Events`, and its URL's `Cors`.
fn plan_events(decl: FunctionDecl, env: Env, ctx: &Context) -> Result<FunctionPlan, StackError> {
    let id = decl.logical_id.clone();
    let url_cors = match (&decl.function_url, &decl.function_url_cors) {
        (true, Some(cors)) => UrlCors::resolve(cors, ctx)
            .map_err(|e| StackError::resource(&id, format!("FunctionUrlConfig.{e}")))?,
        _ => None,
    };
    let mut plan = FunctionPlan {
        decl,
        env,
        routes: Vec::new(),
        sqs: Vec::new(),
        schedules: Vec::new(),
        url_cors,
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
        let kind = event.kind.as_str();
        if HTTP_EVENTS.contains(&kind) {
            let props = props()?;
            let text = |k: &str| props.get(k).and_then(|v| json_text(v).ok());
            let route = Route::parse(text("Method").as_deref(), text("Path").as_deref(), &id)
                .map_err(fail)?;
            plan.routes.push(route);
        } else if SQS_EVENTS.contains(&kind) {
            let source = SqsSource::from_properties(&id, &event.name, &props()?).map_err(fail)?;
            plan.sqs.push(source);
        } else if SCHEDULE_EVENTS.contains(&kind) {
            let source = ScheduleSource::from_properties(
                &id,
                &event.name,
                kind,
                &props()?,
                &ctx.stack_name,
                &ctx.region,
            )
            .map_err(fail)?;
            plan.schedules.push(source);
        } else {
            warn!(function = %id, event = %event.name, kind, "event type is not run by the local stack");
        }
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The template's only function, and a context for it with every resource active.
    fn only_function(yaml: &str) -> (Context, FunctionDecl) {
        let template = Template::parse(yaml).expect("template");
        let mut ctx = Context::new(&template, "s", "us-east-1", &BTreeMap::new());
        let active: Vec<_> = template
            .resources
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        register_apis_and_functions(&mut ctx, &active, "http://127.0.0.1:1234");
        let functions = template.functions().expect("functions");
        register_published_versions(&mut ctx, &functions, "local-42");
        let decl = functions.into_iter().next().expect("a function");
        (ctx, decl)
    }

    fn env_of(decl: &FunctionDecl, ctx: &Context) -> Result<Env, StackError> {
        let credentials = ProcessCredentials {
            access_key_id: "a".into(),
            secret_access_key: "b".into(),
            session_token: None,
        };
        function_env(
            decl,
            ctx,
            &StackOptions::default(),
            &credentials,
            None,
            None,
            "local-42",
        )
    }

    #[test]
    fn plans_events_from_the_template() {
        let (ctx, decl) = only_function(
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
        );
        let env = env_of(&decl, &ctx).expect("env");
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
    fn auto_published_functions_run_as_this_starts_version() {
        let (ctx, decl) = only_function(
            r#"
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Metadata: {BuildProperties: {Binary: b}}
    Properties:
      AutoPublishAlias: live
      Environment:
        Variables:
          VERSION: !Ref Fn.Version
          ALIAS: !Ref Fn.Alias
"#,
        );
        let env = env_of(&decl, &ctx).expect("env");
        assert_eq!(env.get("AWS_LAMBDA_FUNCTION_VERSION"), Some("local-42"));
        assert_eq!(
            env.get("VERSION"),
            Some("arn:aws:lambda:us-east-1:123456789012:function:Fn:local-42")
        );
        assert_eq!(
            env.get("ALIAS"),
            Some("arn:aws:lambda:us-east-1:123456789012:function:Fn:live")
        );
        let (ctx, plain) = only_function(
            "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Metadata: {BuildProperties: {Binary: b}}\n",
        );
        let env = env_of(&plain, &ctx).expect("env");
        assert_eq!(env.get("AWS_LAMBDA_FUNCTION_VERSION"), Some("$LATEST"));
        assert!(ctx
            .resolve(&serde_yaml::from_str("!Ref Fn.Version").expect("yaml"))
            .is_err());
        let first =
            published_version(std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_700));
        assert_eq!(first, "local-1700");
    }

    /// The URL's `Cors` is resolved with the stack's parameters, as CloudFormation does.
    #[test]
    fn function_url_cors_is_resolved_with_the_parameters() {
        let yaml = |origins: &str| {
            format!(
                r#"
Parameters:
  Origins: {{Type: String, Default: "{origins}"}}
Conditions:
  OriginsGiven: !Not [!Equals [!Ref Origins, ""]]
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Metadata: {{BuildProperties: {{Binary: b}}}}
    Properties:
      FunctionUrlConfig:
        AuthType: NONE
        Cors: !If
          - OriginsGiven
          - AllowOrigins: !Split [",", !Ref Origins]
            AllowMethods: [POST]
          - !Ref AWS::NoValue
"#
            )
        };
        let (ctx, decl) = only_function(&yaml("https://web.example,https://edge.example"));
        let plan = plan_events(decl, Env::default(), &ctx).expect("plan");
        let cors = plan.url_cors.expect("a Cors");
        assert_eq!(
            cors.allow_origins,
            ["https://web.example", "https://edge.example"]
        );
        let (ctx, decl) = only_function(&yaml(""));
        let plan = plan_events(decl, Env::default(), &ctx).expect("plan");
        assert_eq!(plan.url_cors, None);

        let (ctx, decl) = only_function(
            "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Metadata: {BuildProperties: {Binary: b}}\n    Properties:\n      FunctionUrlConfig: {AuthType: NONE, Cors: {AllowOrigins: [!Ref Nope]}}\n",
        );
        let Err(err) = plan_events(decl, Env::default(), &ctx) else {
            panic!("an unresolvable Cors starts");
        };
        let message = err.to_string();
        assert!(
            message.contains("Fn") && message.contains("Cors") && message.contains("Nope"),
            "{message}"
        );
    }

    #[test]
    fn foreign_events_are_the_runnable_ones_a_handler_does_not_serve() {
        let (ctx, decl) = only_function(
            r#"
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Metadata: {BuildProperties: {Binary: b}}
    Properties:
      Events:
        Upload: {Type: S3, Properties: {Bucket: x}}
        Get: {Type: HttpApi}
        Jobs: {Type: SQS, Properties: {Queue: arn:aws:sqs:us-east-1:123456789012:q}}
"#,
        );
        let plan = plan_events(decl, Env::default(), &ctx).expect("plan");
        assert_eq!(plan.foreign_event(HTTP_EVENTS), Some("Jobs"));
        assert_eq!(plan.foreign_event(SQS_EVENTS), Some("Get"));
        assert_eq!(plan.foreign_event(SCHEDULE_EVENTS), Some("Get"));
    }

    #[test]
    fn unresolvable_variables_name_function_and_variable() {
        let (ctx, decl) = only_function(
            "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Metadata: {BuildProperties: {Binary: b}}\n    Properties:\n      Environment:\n        Variables:\n          TABLE: !Ref Missing\n",
        );
        let err = env_of(&decl, &ctx).expect_err("unresolvable");
        let message = err.to_string();
        assert!(
            message.contains("Fn") && message.contains("TABLE") && message.contains("Missing"),
            "{message}"
        );
    }
}
