//! `local-stack`: serves the whole stack on one port until Ctrl-C or SIGTERM.

use std::process::ExitCode;

use local_stack::cli::{self, Command};
use local_stack::dev_key::{self, DevKey};
use local_stack::template::Template;
use local_stack::{registry, start, StackOptions};
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
            println!("{}", cli::USAGE);
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
            Some(DevKey::Created(path)) => println!(
                "local-stack: created a DEVELOPMENT-ONLY signing key in {} (never use it elsewhere)",
                path.display()
            ),
            Some(DevKey::Loaded(path)) => println!(
                "local-stack: signing tokens with the DEVELOPMENT-ONLY key in {}",
                path.display()
            ),
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
    };
    let stack = start(opts, registry()).await.map_err(|e| e.to_string())?;

    println!(
        "local-stack: stack {:?} serving on {} (AWS emulator {})",
        args.stack_name,
        stack.base_url(),
        args.endpoint
    );
    for (route, function) in stack.routes() {
        println!("  {route:<40} -> {function}");
    }
    for (function, url) in stack.function_urls() {
        println!("  function URL {url}/ -> {function}");
    }
    if !args.schedules {
        println!("  schedules are not fired (--no-schedules)");
    }
    println!("Press Ctrl-C to stop.");

    wait_for_stop().await;
    println!("local-stack: stopping");
    stack.shutdown().await;
    Ok(())
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
