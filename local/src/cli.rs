//! Command-line arguments of the `local-stack` binary (plain parsing: no CLI crate needed for a
//! handful of flags), and the local parameters file.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crate::intrinsics::json_text;

pub const USAGE: &str = "\
local-stack: run every function of template.yaml in one process against an AWS emulator

USAGE:
    local-stack [OPTIONS]                 serve the stack until Ctrl-C
    local-stack provision [OPTIONS]       create the template's resources in the emulator,
                                          write SAM's env file, and exit
    local-stack cold-start --envs <FILE>  cold-start functions from given environments

OPTIONS:
    --template <FILE>          SAM template [default: template.yaml]
    --bind <ADDR>              where the local API listens [default: 127.0.0.1:8080]
    --endpoint <URL>           AWS emulator endpoint [default: $AWS_ENDPOINT_URL or
                               http://127.0.0.1:4566]
    --region <REGION>          [default: $AWS_REGION, $AWS_DEFAULT_REGION or us-east-1]
    --stack-name <NAME>        prefix of every table, bucket and queue name [default: local]
    --env-file <FILE>          overrides in SAM's --env-vars format [default: none;
                               local/env.json is `sam local`'s, for containers]
    --parameters-file <FILE>   JSON object of template parameter values
                               [default: local/parameters.json if present]
    --parameter <KEY=VALUE>    one parameter value (repeatable; wins over the file)
    --no-schedules             do not fire schedules on their timers
    -h, --help                 print this help

PROVISION OPTIONS (with the options above but --bind and --no-schedules):
    --env-json <FILE>          write `sam local`'s --env-vars file there
    --manifest <FILE>          write what was provisioned (logical id -> Ref, attributes)
                               and each function's variables there, as JSON
    --container-host <HOST>    this machine as a function's container reaches it:
                               loopback URLs in the variables point there
                               [default: host.docker.internal; 127.0.0.1 leaves them]
    --container-endpoint <URL> the emulator as a function's container reaches it
                               [default: --endpoint with a loopback host replaced
                               by --container-host]
    --api-url <URL>            where `sam local start-api` serves the API
                               [default: http://127.0.0.1:3000]

COLD-START: <FILE> holds {\"<FunctionLogicalId>\": {\"binary\": ..., \"env\": {...}}}; prints, as
JSON, whether each started and which variables it cannot start without.

Variables a function declares in the template can be overridden by exporting them.
Logging: LOG_LEVEL or RUST_LOG (default info).";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliArgs {
    pub template: PathBuf,
    pub bind: SocketAddr,
    pub endpoint: String,
    pub region: String,
    pub stack_name: String,
    /// Given explicitly (then it must exist); else the default is used when present.
    pub env_file: Option<PathBuf>,
    pub parameters_file: Option<PathBuf>,
    pub parameters: BTreeMap<String, String>,
    pub schedules: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Help,
    Run(Box<CliArgs>),
    Provision(Box<ProvisionArgs>),
    ColdStart { envs: PathBuf },
}

/// `local-stack provision`: the stack's options, and what to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvisionArgs {
    pub stack: CliArgs,
    pub env_json: Option<PathBuf>,
    pub manifest: Option<PathBuf>,
    pub container_host: String,
    /// `None`: the endpoint with its loopback host replaced by `container_host`.
    pub container_endpoint: Option<String>,
    pub api_url: String,
}

/// Parses `args` (without the program name), a subcommand first if any; `var` reads the
/// environment.
pub fn parse_command(
    args: impl IntoIterator<Item = String>,
    var: impl Fn(&str) -> Option<String>,
) -> Result<Command, String> {
    let mut args: Vec<String> = args.into_iter().collect();
    match args.first().map(String::as_str) {
        Some("cold-start") => {
            let mut envs = None;
            let mut rest = args.into_iter().skip(1);
            while let Some(arg) = rest.next() {
                match arg.as_str() {
                    "--envs" => envs = rest.next(),
                    "-h" | "--help" => return Ok(Command::Help),
                    other => return Err(format!("cold-start: unknown argument {other}")),
                }
            }
            let envs = envs.ok_or("cold-start needs --envs FILE")?;
            Ok(Command::ColdStart {
                envs: PathBuf::from(envs),
            })
        }
        Some("provision") => {
            args.remove(0);
            let mut env_json = None;
            let mut manifest = None;
            let mut container_host = crate::sam_local::DEFAULT_CONTAINER_HOST.to_string();
            let mut api_url = crate::sam_local::DEFAULT_SAM_API_URL.to_string();
            let mut container_endpoint = None;
            let mut stack_args = Vec::new();
            let mut rest = args.into_iter();
            while let Some(arg) = rest.next() {
                let (flag, inline) = match arg.split_once('=') {
                    Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                    _ => (arg.clone(), None),
                };
                let mut value = || {
                    inline
                        .clone()
                        .or_else(|| rest.next())
                        .ok_or_else(|| format!("{flag} needs a value"))
                };
                match flag.as_str() {
                    "--env-json" => env_json = Some(PathBuf::from(value()?)),
                    "--manifest" => manifest = Some(PathBuf::from(value()?)),
                    "--container-host" => container_host = value()?,
                    "--api-url" => api_url = value()?,
                    "--container-endpoint" => container_endpoint = Some(value()?),
                    "--bind" | "--no-schedules" => {
                        return Err(format!("provision serves nothing: {flag} does not apply"))
                    }
                    _ => stack_args.push(arg),
                }
            }
            match parse(stack_args, var)? {
                Command::Run(stack) => Ok(Command::Provision(Box::new(ProvisionArgs {
                    stack: *stack,
                    env_json,
                    manifest,
                    container_host,
                    container_endpoint,
                    api_url,
                }))),
                other => Ok(other),
            }
        }
        _ => parse(args, var),
    }
}

/// Parses `args` (without the program name); `var` reads the environment.
pub fn parse(
    args: impl IntoIterator<Item = String>,
    var: impl Fn(&str) -> Option<String>,
) -> Result<Command, String> {
    let var = |k: &str| var(k).filter(|v| !v.is_empty());
    let mut out = CliArgs {
        template: PathBuf::from("template.yaml"),
        bind: SocketAddr::from(([127, 0, 0, 1], 8080)),
        endpoint: var("AWS_ENDPOINT_URL").unwrap_or_else(|| "http://127.0.0.1:4566".into()),
        region: var("AWS_REGION")
            .or_else(|| var("AWS_DEFAULT_REGION"))
            .unwrap_or_else(|| "us-east-1".into()),
        stack_name: "local".into(),
        env_file: None,
        parameters_file: None,
        parameters: BTreeMap::new(),
        schedules: true,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--template" => out.template = PathBuf::from(value()?),
            "--bind" => {
                let v = value()?;
                out.bind = v
                    .parse()
                    .map_err(|_| format!("--bind {v} is not an address like 127.0.0.1:8080"))?;
            }
            "--endpoint" => out.endpoint = value()?,
            "--region" => out.region = value()?,
            "--stack-name" => out.stack_name = value()?,
            "--env-file" => out.env_file = Some(PathBuf::from(value()?)),
            "--parameters-file" => out.parameters_file = Some(PathBuf::from(value()?)),
            "--parameter" => {
                let v = value()?;
                let (k, val) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--parameter {v} is not KEY=VALUE"))?;
                out.parameters.insert(k.to_string(), val.to_string());
            }
            "--no-schedules" => out.schedules = false,
            other => return Err(format!("unknown argument {other}; see --help")),
        }
    }
    if out.stack_name.is_empty() {
        return Err("--stack-name must not be empty".into());
    }
    Ok(Command::Run(Box::new(out)))
}

/// `relative` next to the template (the repository root), used when present.
pub fn beside_template(template: &Path, relative: &str) -> PathBuf {
    template
        .parent()
        .unwrap_or_else(|| Path::new(""))
        .join(relative)
}

/// A JSON object of parameter values; numbers and booleans become their text.
pub fn load_parameters(path: &Path) -> Result<BTreeMap<String, String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_parameters(&text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse_parameters(text: &str) -> Result<BTreeMap<String, String>, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let serde_json::Value::Object(map) = value else {
        return Err("parameters must be a JSON object of name: value".into());
    };
    map.into_iter()
        .map(|(k, v)| {
            json_text(&v)
                .map(|v| (k.clone(), v))
                .map_err(|_| format!("parameter {k} must be a string, number or boolean"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str], env: &[(&str, &str)]) -> Result<Command, String> {
        let env: BTreeMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        parse(args.iter().map(|s| s.to_string()), |k| env.get(k).cloned())
    }

    #[test]
    fn defaults_and_flags() {
        let Ok(Command::Run(d)) = run(&[], &[]) else {
            panic!("defaults");
        };
        assert_eq!(d.template, PathBuf::from("template.yaml"));
        assert_eq!(d.bind.to_string(), "127.0.0.1:8080");
        assert_eq!(d.endpoint, "http://127.0.0.1:4566");
        assert_eq!(d.region, "us-east-1");
        assert_eq!(d.stack_name, "local");
        assert!(d.schedules);

        let Ok(Command::Run(a)) = run(
            &[
                "--template",
                "t.yaml",
                "--bind=0.0.0.0:9",
                "--stack-name",
                "dev",
                "--no-schedules",
                "--env-file",
                "e.json",
                "--parameters-file",
                "p.json",
                "--parameter",
                "A=b=c",
            ],
            &[
                ("AWS_ENDPOINT_URL", "http://emu:1"),
                ("AWS_DEFAULT_REGION", "eu-west-1"),
            ],
        ) else {
            panic!("flags");
        };
        assert_eq!(a.template, PathBuf::from("t.yaml"));
        assert_eq!(a.bind.to_string(), "0.0.0.0:9");
        assert_eq!(a.endpoint, "http://emu:1");
        assert_eq!(a.region, "eu-west-1");
        assert_eq!(a.stack_name, "dev");
        assert!(!a.schedules);
        assert_eq!(a.env_file, Some(PathBuf::from("e.json")));
        assert_eq!(a.parameters_file, Some(PathBuf::from("p.json")));
        assert_eq!(a.parameters["A"], "b=c");

        assert_eq!(run(&["--help"], &[]), Ok(Command::Help));
        assert!(run(&["--bogus"], &[]).is_err());
        assert!(run(&["--bind", "nope"], &[]).is_err());
        assert!(run(&["--template"], &[]).is_err());
    }

    #[test]
    fn subcommands() {
        let parse = |args: &[&str]| parse_command(args.iter().map(|s| s.to_string()), |_| None);
        let Ok(Command::Provision(p)) = parse(&[
            "provision",
            "--endpoint",
            "http://emu:1",
            "--env-json=e.json",
            "--manifest",
            "m.json",
            "--container-host",
            "127.0.0.1",
        ]) else {
            panic!("provision");
        };
        assert_eq!(p.stack.endpoint, "http://emu:1");
        assert_eq!(p.env_json, Some(PathBuf::from("e.json")));
        assert_eq!(p.manifest, Some(PathBuf::from("m.json")));
        assert_eq!(p.container_host, "127.0.0.1");
        assert_eq!(p.api_url, "http://127.0.0.1:3000");
        assert_eq!(p.container_endpoint, None);
        assert!(parse(&["provision", "--bind", "127.0.0.1:1"]).is_err());
        assert_eq!(
            parse(&["cold-start", "--envs", "x.json"]),
            Ok(Command::ColdStart {
                envs: PathBuf::from("x.json")
            })
        );
        assert!(parse(&["cold-start"]).is_err());
        assert!(matches!(parse(&["--no-schedules"]), Ok(Command::Run(_))));
    }

    #[test]
    fn parameters_file_and_paths() {
        let p = parse_parameters(r#"{"A": "x", "Ttl": 60, "On": true}"#).expect("params");
        assert_eq!(p["A"], "x");
        assert_eq!(p["Ttl"], "60");
        assert_eq!(p["On"], "true");
        assert!(parse_parameters("[1]").is_err());
        assert!(parse_parameters(r#"{"A": {}}"#).is_err());
        assert_eq!(
            beside_template(Path::new("template.yaml"), "local/env.json"),
            PathBuf::from("local/env.json")
        );
        assert_eq!(
            beside_template(Path::new("/repo/template.yaml"), "local/env.json"),
            PathBuf::from("/repo/local/env.json")
        );
    }
}
