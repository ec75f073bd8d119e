//! `local-stack`: serves the whole stack on one port until Ctrl-C or SIGTERM.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use local_stack::cli::{self, CliArgs, Command, ProvisionArgs};
use local_stack::dev_key::{self, DevKey};
use local_stack::template::Template;
use local_stack::{provision_stack, registry, sam_local, start, RunningStack, StackOptions};
use tracing::warn;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("local-stack: {e}");
            ExitCode::FAILURE
        }
    }
}

/// RUST_LOG wins; else LOG_LEVEL (the functions' own setting); else info. On stderr when
/// stdout carries a result (cold-start's JSON).
fn init_tracing(to_stderr: bool) {
    let filter = EnvFilter::try_from_env("RUST_LOG")
        .ok()
        .or_else(|| {
            std::env::var("LOG_LEVEL")
                .ok()
                .and_then(|level| EnvFilter::try_new(level.to_ascii_lowercase()).ok())
        })
        .unwrap_or_else(|| EnvFilter::new("info"));
    let logs = tracing_subscriber::fmt().with_env_filter(filter);
    if to_stderr {
        logs.with_writer(std::io::stderr).init();
    } else {
        logs.init();
    }
}

async fn run() -> Result<(), String> {
    let command = cli::parse_command(std::env::args().skip(1), |k| std::env::var(k).ok())?;
    init_tracing(matches!(command, Command::ColdStart { .. }));
    let args = match command {
        Command::Help => {
            say(cli::USAGE);
            return Ok(());
        }
        Command::Run(args) => *args,
        Command::Provision(args) => return provision(*args).await,
        Command::ColdStart { envs } => return cold_start(&envs).await,
    };
    let opts = StackOptions {
        parameters: stack_parameters(&args)?,
        // Only a file given explicitly: local/env.json is `sam local`'s, for containers.
        env_file: args.env_file.clone(),
        process_env_overrides: true,
        run_schedules: args.schedules,
        run_queue_pollers: true,
        ..stack_options(&args)
    };
    let stack = start(opts, registry()).await.map_err(|e| e.to_string())?;

    say(banner(&args, &stack));

    wait_for_stop().await;
    say("local-stack: stopping");
    stack.shutdown().await;
    Ok(())
}

fn stack_options(args: &CliArgs) -> StackOptions {
    StackOptions {
        template: args.template.clone(),
        stack_name: args.stack_name.clone(),
        bind: args.bind,
        aws_endpoint: args.endpoint.clone(),
        region: args.region.clone(),
        functions: None,
        ..StackOptions::default()
    }
}

/// The template's parameter values: local/parameters.json (or the given file), the
/// `--parameter`s over it, and the development signing key for JWT key parameters left unset.
fn stack_parameters(args: &CliArgs) -> Result<BTreeMap<String, String>, String> {
    let template = Template::load(&args.template).map_err(|e| e.to_string())?;
    let parameters_file = args.parameters_file.clone().or_else(|| {
        Some(cli::beside_template(
            &args.template,
            "local/parameters.json",
        ))
        .filter(|p| p.exists())
    });
    let mut parameters = match &parameters_file {
        Some(path) => cli::load_parameters(path)?,
        None => Default::default(),
    };
    parameters.extend(args.parameters.clone());

    if template
        .parameters
        .contains_key(dev_key::PRIVATE_KEY_PARAMETER)
        || template
            .parameters
            .contains_key(dev_key::PUBLIC_KEY_PARAMETER)
    {
        let key_file = cli::beside_template(&args.template, dev_key::DEV_KEY_PATH);
        match dev_key::fill_jwt_parameters(&mut parameters, &key_file)? {
            Some(DevKey::Created(path)) => say(format_args!(
                "local-stack: created a DEVELOPMENT-ONLY signing key in {} (never use it elsewhere)",
                path.display()
            )),
            Some(DevKey::Loaded(path)) => say(format_args!(
                "local-stack: signing tokens with the DEVELOPMENT-ONLY key in {}",
                path.display()
            )),
            None => {}
        }
    }
    Ok(parameters)
}

/// `local-stack provision`: the resources created (or found) in the emulator, SAM's env file and
/// the manifest written; nothing served.
async fn provision(args: ProvisionArgs) -> Result<(), String> {
    let opts = StackOptions {
        parameters: stack_parameters(&args.stack)?,
        ..stack_options(&args.stack)
    };
    let mut provisioned = provision_stack(&opts, &args.api_url)
        .await
        .map_err(|e| e.to_string())?;
    // As local/run does: a variable a function declares, exported, wins (LLM_API_KEY=...).
    let process: BTreeMap<String, String> = std::env::vars().collect();
    for function in &mut provisioned.functions {
        for name in &function.declared {
            if let Some(value) = process.get(name) {
                function.variables.insert(name.clone(), value.clone());
            }
        }
    }
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for attrs in provisioned.resources.values() {
        *kinds.entry(attrs.kind.as_str()).or_default() += 1;
    }
    let counts: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    say(format_args!(
        "local-stack: stack {:?} provisioned in {}: {}",
        args.stack.stack_name,
        args.stack.endpoint,
        counts.join(", ")
    ));
    if let Some(path) = &args.env_json {
        let endpoint = args
            .container_endpoint
            .clone()
            .unwrap_or_else(|| sam_local::to_container(&args.stack.endpoint, &args.container_host));
        let file = sam_local::env_file(&provisioned, &args.container_host, &endpoint);
        write_private_json(path, &file)?;
        say(format_args!(
            "local-stack: wrote {} for `sam local` (functions reach the emulator at {endpoint})",
            path.display()
        ));
    }
    if let Some(path) = &args.manifest {
        let manifest = serde_json::json!({
            "endpoint": args.stack.endpoint,
            "stackName": args.stack.stack_name,
            "resources": provisioned.resources.iter().map(|(id, attrs)| (id.clone(), serde_json::json!({
                "type": attrs.kind,
                "ref": attrs.reference,
                "attributes": attrs.attributes,
            }))).collect::<serde_json::Map<_, _>>(),
            "functions": provisioned.functions.iter().map(|f| (f.logical_id.clone(), serde_json::json!({
                "binary": f.binary,
                "declared": f.declared,
                "variables": f.variables,
            }))).collect::<serde_json::Map<_, _>>(),
        });
        write_private_json(path, &manifest)?;
    }
    Ok(())
}

/// Written readable by its owner only: the env file holds the development signing key.
fn write_private_json(path: &Path, value: &serde_json::Value) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{}: {e}", path.display());
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())? + "\n";
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(fail)?;
    file.write_all(text.as_bytes()).map_err(fail)
}

/// `local-stack cold-start --envs FILE`: each function started from its environment.
async fn cold_start(envs: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(envs).map_err(|e| format!("{}: {e}", envs.display()))?;
    let requests: BTreeMap<String, sam_local::ColdStartRequest> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", envs.display()))?;
    let outcomes = sam_local::cold_starts(requests, &registry(), Duration::from_secs(30)).await;
    let text = serde_json::to_string_pretty(&outcomes).map_err(|e| e.to_string())?;
    say(text);
    Ok(())
}

/// Where the stack serves what: every route and function URL, for the developer to click.
fn banner(args: &CliArgs, stack: &RunningStack) -> String {
    let mut lines = vec![format!(
        "local-stack: stack {:?} serving on {} (AWS emulator {})",
        args.stack_name,
        stack.base_url(),
        args.endpoint
    )];
    lines.extend(
        stack
            .routes()
            .iter()
            .map(|(route, function)| format!("  {route:<40} -> {function}")),
    );
    lines.extend(
        stack
            .function_urls()
            .iter()
            .map(|(function, url)| format!("  function URL {url}/ -> {function}")),
    );
    if !args.schedules {
        lines.push("  schedules are not fired (--no-schedules)".to_string());
    }
    lines.push("Press Ctrl-C to stop.".to_string());
    lines.join("\n")
}

/// One message on stdout (usage, banner, dev-key notice): printing them is this binary's job.
/// A closed stdout must not stop the stack, so a failed write is only logged.
fn say(text: impl std::fmt::Display) {
    if let Err(e) = writeln!(std::io::stdout().lock(), "{text}") {
        warn!(error = %e, "could not write to stdout");
    }
}

async fn wait_for_stop() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
