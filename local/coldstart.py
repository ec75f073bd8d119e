"""Cold-start benchmark of the functions in template.yaml (run it through local/bench-coldstart).

For every `AWS::Serverless::Function` of the template (its binary is
`Metadata.BuildProperties.Binary`) and for the hello-world baseline `coldstart-hello`
(tests/coldstart/hello), all built in one `cargo lambda build --release` with the workspace's
`[profile.release]`:

1. the bootstrap is started as a fresh process, as Lambda starts it, with the variables the
   Lambda runtime sets (`AWS_LAMBDA_RUNTIME_API` pointing at a mock Runtime API served by this
   script, `AWS_LAMBDA_FUNCTION_NAME`, `..._MEMORY_SIZE`, ...) plus the function's own
   `Environment.Variables` from the template with local-safe values: dummy credentials, a
   region, `AWS_ENDPOINT_URL` pointing at a private moto emulator holding the template's tables
   and queues, a freshly generated Ed25519 key pair for the JWT parameters, and the local
   stack's `local/parameters.json`;
2. init = from just before the process is spawned to its first
   `GET /2018-06-01/runtime/invocation/next` (Lambda's "Init Duration"; it includes fork/exec
   and the mock server's own latency, well under a millisecond, the same for every function);
3. the mock answers with a representative event from `events/<binary>/` (`health.json` where
   there is one: an API Gateway v2 event; the feed worker's SQS batch; the scheduler's
   EventBridge event); first answer = from that event's delivery to its
   `POST .../response` (or `/error`); a function whose first answer calls a peer other than
   AWS gets a loopback double of it, and its state is reset before each start
   (coldstart_lib/peers.py);
4. peak RSS is the process's `VmHWM` read just before it is killed, CPU time (user + system,
   init and first answer together) comes from `wait4`;
5. each bootstrap is also started against a TLS endpoint in front of the emulator (a throwaway
   CA and certificate, trusted through `AWS_CA_BUNDLE`, as an endpoint behind a private CA
   is): "1st answer TLS" is the first answer of a function whose first AWS call opens an
   HTTPS connection, as every one in AWS does.

Runs alternate between the functions (one round runs every function once, in a rotated
order), after one untimed warm-up round, so that the machine's drifting load spreads evenly.
A function that fails to build, start or answer is reported in the table, never a crash.
Exit status: 3 when a figure is over budget, 4 when a build failed (older bootstraps measured).

Standard library only, plus what local/.venv already holds for the local stack: PyYAML (the
template), boto3 (the emulator's tables and queues), cryptography (the throwaway JWT keys).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
from pathlib import Path

from coldstart_lib import budget as budget_file
from coldstart_lib.building import bootstrap_path, build, size_mb
from coldstart_lib.cold_start import cold_start
from coldstart_lib.common import ACCOUNT, HELLO, REGION, ROOT, STACK, log
from coldstart_lib.emulator import Emulator, TlsFront
from coldstart_lib.peers import fixture_for
from coldstart_lib.reporting import INIT_BUDGET_RATIO, SIZE_BUDGET_MB, budget, fmt, print_table, summarise
from coldstart_lib.template import Function, Resolver, ed25519_pair, load_template, template_parameters


def pick_event(binary: str, overrides: dict) -> Path | None:
    if binary in overrides:
        return Path(overrides[binary])
    folder = ROOT / "events" / ("web" if binary == HELLO else binary)
    if (folder / "health.json").exists():
        return folder / "health.json"
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    return files[0] if files else None


def lambda_env(fn_name: str, memory: int) -> dict:
    return {
        # What the Lambda service sets for a provided.al2023 function (AWS_LAMBDA_RUNTIME_API
        # is added per cold start).
        "AWS_LAMBDA_FUNCTION_NAME": fn_name,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(memory),
        "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "AWS_LAMBDA_LOG_STREAM_NAME": "2026/11/23/[$LATEST]0123456789abcdef",
        "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{fn_name}",
        "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
        "AWS_EXECUTION_ENV": "AWS_Lambda_provided.al2023",
        "_HANDLER": "bootstrap",
        "LAMBDA_TASK_ROOT": "/var/task",
        "LAMBDA_RUNTIME_DIR": "/var/runtime",
        "TZ": ":UTC",
        "LANG": "en_US.UTF-8",
        "PATH": "/usr/local/bin:/usr/bin/:/bin:/opt/bin",
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
        # Local-safe credentials (the service would give the role's session credentials).
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_SESSION_TOKEN": "test",
        "AWS_EC2_METADATA_DISABLED": "true",
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="local/bench-coldstart", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15, help="cold starts per function (default 15)")
    ap.add_argument("--arm64", action="store_true",
                    help="also build the arm64 bootstraps (cargo lambda build --release --arm64) and print their sizes")
    ap.add_argument("--no-build", action="store_true", help="use the bootstraps already built")
    ap.add_argument("--no-run", action="store_true", help="build and print sizes only")
    ap.add_argument("--functions", help="comma-separated binaries to measure (default: all in the template)")
    ap.add_argument("--event", action="append", default=[], metavar="BINARY=FILE",
                    help="event file for a binary instead of events/BINARY/health.json (or its first file)")
    ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    ap.add_argument("--json", metavar="FILE", help="write every run's figures to FILE")
    ap.add_argument("--bootstrap-dir", metavar="DIR",
                    help="take bootstraps from DIR/<binary>/bootstrap or DIR/<binary> instead of "
                         "local/.state/coldstart/x86_64 (experiments)")
    ap.add_argument("--wrap", metavar="COMMAND",
                    help="run each bootstrap under COMMAND, e.g. 'strace -f -tt -o /tmp/{binary}.st' or "
                         "'valgrind --tool=callgrind --callgrind-out-file=/tmp/{binary}.cg' ({binary} "
                         "is replaced; timings and RSS are then the tool's; the bootstrap gets SIGTERM "
                         "so that the tool writes its output)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="add or override a variable in every bootstrap's environment (experiments, "
                         "e.g. SSL_CERT_FILE=...); an empty VALUE removes the variable")
    ap.add_argument("--timeout", type=float, default=10, metavar="SECONDS",
                    help="a bootstrap that has not asked for an event after SECONDS (or not answered "
                         "after twice that) counts as failed (default 10; x30 under --wrap)")
    ap.add_argument("--template", default=str(ROOT / "template.yaml"))
    ap.add_argument("--record", action="store_true",
                    help="write the measured functions' sizes (arm64 too with --arm64), init/hello "
                         "ratio and external crates to tests/coldstart/budget.json, which "
                         "local/coldstart-budget checks against")
    args = ap.parse_args(argv)
    if args.record and (args.no_run or args.bootstrap_dir or args.wrap or args.set
                        or Path(args.template).resolve() != ROOT / "template.yaml"):
        log("error: --record takes the figures of a plain run of the template's own bootstraps "
            "(no --no-run, --bootstrap-dir, --wrap, --set or --template)")
        return 2

    template, functions = load_template(Path(args.template))
    every_function = functions
    if args.functions:
        wanted = [b.strip() for b in args.functions.split(",") if b.strip()]
        unknown = [b for b in wanted if b != HELLO and b not in {f.binary for f in functions}]
        if unknown:
            log(f"error: not a binary of the template: {', '.join(unknown)}")
            return 2
        functions = [f for f in functions if f.binary in wanted]
    subjects = [Function("HelloWorld", HELLO, 128, {})] + functions
    binaries = [f.binary for f in subjects]
    overrides = dict(e.split("=", 1) for e in args.event)

    # ---- build (x86_64) ----
    build_ok = {"x86_64": True, "arm64": None}
    build_time = {}
    if not args.no_build:
        build_ok["x86_64"], build_time["x86_64"] = build("x86_64", binaries)
        if not build_ok["x86_64"]:
            log("bench-coldstart: the x86_64 build failed; measuring whatever bootstraps exist")

    def bootstrap(binary: str) -> Path:
        if args.bootstrap_dir:
            d = Path(args.bootstrap_dir)
            return d / binary / "bootstrap" if (d / binary).is_dir() else d / binary
        return bootstrap_path("x86_64", binary)

    results = {}
    if not args.no_run:
        results = measure(args, template, subjects, bootstrap, overrides, every_function)

    # ---- report ----
    print()
    print(f"Cold starts on {os.uname().machine}, {os.cpu_count()} CPUs, load average at the end "
          f"{os.getloadavg()[0]:.2f}; {args.runs} runs per function, alternating; "
          f"release profile of Cargo.toml; sizes in MB (10^6 bytes).")
    hello_init = (results.get(HELLO) or {}).get("init_median")
    over_budget = []
    rows = []
    for f in subjects:
        s = results.get(f.binary) or {}
        t = results.get(f.binary + TLS) or {}
        size = size_mb(bootstrap(f.binary))
        ratio = (s["init_median"] / hello_init) if s.get("init_median") and hello_init else None
        rows.append([
            f.binary + (" (baseline)" if f.binary == HELLO else ""),
            fmt(size, ".2f", "missing"),
            fmt(s.get("init_median")), fmt(s.get("init_min")), fmt(s.get("init_max")),
            fmt(s.get("answer_median")), fmt(t.get("answer_median")), fmt(s.get("total_median")),
            fmt(s.get("rss_mb")), fmt(s.get("cpu_median"), ".0f"),
            fmt(ratio, ".2f") + ("x" if ratio else ""),
            # Size is budgeted on arm64, what deploys (the table below with --arm64).
            budget(f.binary, None, ratio, over_budget),
            (f"{s['ok']}/{s['runs']} " if s else "") + (s.get("outcome") or "not run")
            + (f"; TLS {t['ok']}/{t['runs']}" if t else ""),
        ])
    print_table(rows, ["function", "MB", "init med ms", "min", "max", "1st answer ms",
                       "1st answer TLS ms", "total ms", "RSS MB", "CPU ms", "init/hello", "budget",
                       "answer (ok runs)"], args.markdown)
    for f in subjects:
        for key in (f.binary, f.binary + TLS):
            for failure in (results.get(key) or {}).get("failures", []):
                print(f"  {key}: {failure}")

    if args.arm64:
        if not args.no_build:
            build_ok["arm64"], build_time["arm64"] = build("arm64", binaries)
        print()
        print("Bootstrap sizes, MB (arm64 cannot run on this machine: sizes only)")
        rows = []
        for f in subjects:
            x86, arm = size_mb(bootstrap_path("x86_64", f.binary)), size_mb(bootstrap_path("arm64", f.binary))
            rows.append([f.binary, fmt(x86, ".2f", "missing"), fmt(arm, ".2f", "missing"),
                         budget(f.binary + " arm64", arm, None, over_budget)])
        print_table(rows, ["function", "x86_64", "arm64", "budget"], args.markdown)
        if build_ok["arm64"] is False:
            print("  the arm64 build failed; sizes are of earlier builds, if any")
    for arch, secs in build_time.items():
        print(f"build {arch}: {secs:.0f} s{'' if build_ok[arch] else ' (FAILED)'}")

    print(f"budget: every arm64 bootstrap at most {SIZE_BUDGET_MB:g} MB"
          + ("" if args.arm64 else " (not checked: run with --arm64)")
          + f", every init at most {INIT_BUDGET_RATIO:g}x the hello-world's: "
          + ("met" if not over_budget else "OVER for " + ", ".join(over_budget)))

    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    if args.record and False in build_ok.values():
        log("bench-coldstart: nothing recorded, a build failed")
    elif args.record:
        record(functions, results, args.arm64)
    if over_budget:
        return 3
    # Figures of older bootstraps, if any: a caller must not take them for this tree's.
    return 4 if False in build_ok.values() else 0


def record(functions, results: dict, arm64: bool):
    """The measured functions' figures into tests/coldstart/budget.json (see coldstart_lib/budget.py)."""
    records = budget_file.load()
    now = budget_file.current([f.binary for f in functions])
    hello = (results.get(HELLO) or {}).get("init_median")
    done, skipped = [], []
    for f in functions:
        s = results.get(f.binary) or {}
        if f.binary not in now or not s.get("runs") or s.get("ok") != s.get("runs"):
            skipped.append(f.binary)
            continue
        package, crates = now[f.binary]
        budget_file.record(records, f.binary, package, crates, size_mb(bootstrap_path("x86_64", f.binary)),
                           s["init_median"] / hello if s.get("init_median") and hello else None,
                           size_mb(bootstrap_path("arm64", f.binary)) if arm64 else None)
        done.append(f.binary)
    budget_file.save(records)
    log(f"bench-coldstart: recorded {len(done)} function(s) in {budget_file.BUDGET_FILE.relative_to(ROOT)}"
        + (f"; not recorded (not every run answered): {', '.join(skipped)}" if skipped else ""))


TLS = "@tls"


def measure(args, template, subjects, bootstrap, overrides, every_function) -> dict:
    """Every subject's runs against the emulator over plain HTTP (`results[binary]`) and
    through the TLS front (`results[binary + TLS]`)."""
    keys = ed25519_pair()
    params = template_parameters(template, keys)
    emulator = None
    front = None
    physical = {}
    fixtures = []
    try:
        try:
            emulator = Emulator()
            physical = emulator.provision(template)
            front = TlsFront(emulator.port, Path(tempfile.mkdtemp(prefix="bench-coldstart-tls-")))
        except Exception as e:  # measured anyway; AWS calls will fail and be reported
            log(f"warning: no emulator ({e}); functions that call AWS will answer errors")
        resolver = Resolver(template, params, physical)
        every_env = {g.binary: {k: resolver.resolve(v) for k, v in g.env.items()} for g in every_function}
        logs = Path(tempfile.mkdtemp(prefix="bench-coldstart-"))
        plan = []
        for f in subjects:
            event_file = pick_event(f.binary, overrides)
            path = bootstrap(f.binary)
            problem = None
            if not path.exists():
                problem = f"no bootstrap at {path}"
            elif event_file is None or not event_file.exists():
                problem = f"no event file for {f.binary}"
            name = f"{STACK}-{f.logical_id}"
            env = lambda_env(name, f.memory)
            env.update({k: resolver.resolve(v) for k, v in f.env.items()})
            if emulator:
                env["AWS_ENDPOINT_URL"] = emulator.url
            # The peers a first answer calls (loopback doubles), and the state it starts from.
            fixture = None if problem else fixture_for(f.binary, env, every_env, emulator.url if emulator else None)
            if fixture:
                fixtures.append(fixture)
                env.update(fixture.env())
            for item in args.set:
                key, _, value = item.partition("=")
                if value:
                    env[key] = value
                else:
                    env.pop(key, None)
            arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"
            event = event_file.read_bytes() if not problem else b""
            if fixture:
                event = fixture.event(event)
            plan.append((f.binary, f, path, env, event, arn, problem, fixture))
            if front:
                # The peers stay plain HTTP: the functions' own HTTP client trusts only the
                # compiled-in public roots, never AWS_CA_BUNDLE.
                tls_env = dict(env, AWS_ENDPOINT_URL=front.url, AWS_CA_BUNDLE=str(front.ca_file))
                plan.append((f.binary + TLS, f, path, tls_env, event, arn, problem, fixture))
        runs = {key: [] for key, *_ in plan}
        problems = {p[0]: p[6] for p in plan if p[6]}
        live = [p for p in plan if not p[6]]
        log(f"bench-coldstart: {len(live)} bootstrap runs a round (plain HTTP and TLS), 1 warm-up "
            f"round + {args.runs} rounds; logs in {logs}")
        for round_no in range(args.runs + 1):
            order = live[round_no % len(live):] + live[:round_no % len(live)] if live else []
            for key, f, path, env, event, arn, _, fixture in order:
                wrap = shlex.split(args.wrap.replace("{binary}", f.binary)) if args.wrap else None
                slow = 30 if wrap else 1
                if fixture:
                    fixture.before()
                r = cold_start(path, env, event, arn, logs / f"{key}.log",
                               init_timeout=args.timeout * slow, answer_timeout=2 * args.timeout * slow, wrap=wrap)
                if fixture and r.ok:
                    # The answer counts only if the work it stands for was done.
                    r.ok, r.outcome = fixture.judge()
                elif fixture:
                    fixture.judge()  # clears what the failed run left with the peer
                if round_no > 0:
                    runs[key].append(r)
                elif not r.ok:
                    log(f"  warm-up: {key}: {r.outcome} (log: {logs / (key + '.log')})")
            if round_no:
                print(f"\r  round {round_no}/{args.runs}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        results = {}
        for key in runs:
            if key in problems:
                results[key] = {"runs": 0, "ok": 0, "outcome": problems[key], "failures": []}
            else:
                results[key] = summarise(runs[key])
                results[key]["raw"] = [r.__dict__ for r in runs[key]]
        return results
    finally:
        for fixture in fixtures:
            fixture.stop()
        if front:
            front.stop()
        if emulator:
            emulator.stop()


if __name__ == "__main__":
    sys.exit(main())
