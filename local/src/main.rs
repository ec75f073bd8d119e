//! `local-stack`: serves the whole stack on one port until Ctrl-C or SIGTERM.

use std::io::Write;
use std::process::ExitCode;

use local_stack::cli::{self, CliArgs, Command};
use local_stack::dev_key::{self, DevKey};
use local_stack::template::Template;
use local_stack::{registry, start, RunningStack, StackOptions};
use tracing::warn;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ExitCode {
    init_tracing();
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("local-stack: {e}");
            ExitCode::FAILURE
        }
    }
}

/// RUST_LOG wins; else LOG_LEVEL (the functions' own setting); else info.
fn init_tracing() {
    let filter = EnvFilter::try_from_env("RUST_LOG")
        .ok()
        .or_else(|| {
            std::env::var("LOG_LEVEL")
                .ok()
                .and_then(|level| EnvFilter::try_new(level.to_ascii_lowercase()).ok())
        })
        .unwrap_or_else(|| EnvFilter::new("info"));
    tracing_subscriber::fmt().with_env_filter(filter).init();
}

async fn run() -> Result<(), String> {
    let args = match cli::parse(std::env::args().skip(1), |k| std::env::var(k).ok())? {
        Command::Help => {
            say(cli::USAGE);
            return Ok(());
        }
        Command::Run(args) => *args,
    };
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

    let env_file = args.env_file.clone().or_else(|| {
        Some(cli::beside_template(&args.template, "local/env.json")).filter(|p| p.exists())
    });

    let opts = StackOptions {
        template: args.template.clone(),
        stack_name: args.stack_name.clone(),
        bind: args.bind,
        aws_endpoint: args.endpoint.clone(),
        region: args.region.clone(),
        env_file,
        parameters,
        process_env_overrides: true,
        run_schedules: args.schedules,
        run_queue_pollers: true,
        functions: None,
    };
    let stack = start(opts, registry()).await.map_err(|e| e.to_string())?;

    say(banner(&args, &stack));

    wait_for_stop().await;
    say("local-stack: stopping");
    stack.shutdown().await;
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
