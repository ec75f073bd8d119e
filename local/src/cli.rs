//! Command-line arguments of the `local-stack` binary (plain parsing: no CLI crate needed for a
//! handful of flags), and the local parameters file.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crate::intrinsics::json_text;

pub const USAGE: &str = "\
local-stack: run every function of template.yaml in one process against an AWS emulator

USAGE:
    local-stack [OPTIONS]

OPTIONS:
    --template <FILE>          SAM template [default: template.yaml]
    --bind <ADDR>              where the local API listens [default: 127.0.0.1:8080]
    --endpoint <URL>           AWS emulator endpoint [default: $AWS_ENDPOINT_URL or
                               http://127.0.0.1:4566]
    --region <REGION>          [default: $AWS_REGION, $AWS_DEFAULT_REGION or us-east-1]
    --stack-name <NAME>        prefix of every table, bucket and queue name [default: local]
    --env-file <FILE>          SAM --env-vars file [default: local/env.json if present]
    --parameters-file <FILE>   JSON object of template parameter values
                               [default: local/parameters.json if present]
    --parameter <KEY=VALUE>    one parameter value (repeatable; wins over the file)
    --no-schedules             do not fire schedules on their timers
    -h, --help                 print this help

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
