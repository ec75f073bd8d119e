"""Cold-start budget guard (run it through local/coldstart-budget): measures again only the
functions whose external crates changed since their figures were recorded.

For every function of template.yaml, the external crates its bootstrap links (cargo tree, no
build; see coldstart_lib/budget.py) are compared with tests/coldstart/budget.json. Nothing
changed: a one-line summary, exit 0 (notes for functions not yet measured or recorded over
budget). Otherwise the changes are printed (crates added, removed, other versions or
features), `local/bench-coldstart --functions <those> --runs N` builds (x86_64, release) and
measures only those, and the check fails unless each is within budget: init at most 1.5x the
hello-world's, and at most 6 MB on arm64, estimated from the x86_64 size through the function's
recorded arm64/x86_64 ratio (arm64 cannot run or be built cheaply here). It ends with the
command that records the new figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from coldstart_lib import budget
from coldstart_lib.building import bootstrap_path, size_mb
from coldstart_lib.common import HELLO, ROOT
from coldstart_lib.reporting import INIT_BUDGET_RATIO, SIZE_BUDGET_MB
from coldstart_lib.template import load_template


@dataclass
class Measured:
    ok: bool
    x86_64_mb: float | None
    init_ratio: float | None
    outcome: str


def bench(binaries: list[str], runs: int) -> dict[str, Measured] | str:
    """Builds and measures `binaries` with local/bench-coldstart; what failed, as a string."""
    with tempfile.TemporaryDirectory(prefix="coldstart-budget-") as tmp:
        out = Path(tmp) / "runs.json"
        cmd = [sys.executable, str(ROOT / "local" / "coldstart.py"), "--functions", ",".join(binaries),
               "--runs", str(runs), "--json", str(out)]
        print("coldstart-budget: " + " ".join(["local/bench-coldstart", *cmd[2:-2]]), flush=True)
        rc = subprocess.run(cmd, cwd=ROOT).returncode
        if rc == 4:
            return "the x86_64 build failed"
        if not out.exists():
            return f"local/bench-coldstart failed (exit {rc})"
        results = json.loads(out.read_text())
    hello = (results.get(HELLO) or {}).get("init_median")
    measured = {}
    for b in binaries:
        s = results.get(b) or {}
        init = s.get("init_median")
        measured[b] = Measured(ok=bool(s.get("runs")) and s.get("ok") == s.get("runs"),
                               x86_64_mb=size_mb(bootstrap_path("x86_64", b)),
                               init_ratio=init / hello if init and hello else None,
                               outcome=f"{s.get('ok', 0)}/{s.get('runs', 0)} {s.get('outcome') or 'not run'}")
    return measured


def arm64_factor(binary: str, records: dict) -> tuple[float, str]:
    """arm64/x86_64 size ratio for `binary`: its recorded one, else the median recorded one."""
    def ratio(rec):
        x86, arm = rec.get("x86_64_mb"), rec.get("arm64_mb")
        return arm / x86 if x86 and arm else None

    own = ratio(records.get(binary) or {})
    if own:
        return own, "its recorded arm64/x86_64 ratio"
    known = [r for r in (ratio(rec) for rec in records.values()) if r]
    if known:
        return statistics.median(known), "the median recorded arm64/x86_64 ratio (none of its own)"
    return 1.0, "no recorded arm64 size at all: x86_64's taken as arm64's"


def over(rec: dict) -> list[str]:
    what = []
    if rec.get("arm64_mb") is not None and rec["arm64_mb"] > SIZE_BUDGET_MB:
        what.append(f"{rec['arm64_mb']:.2f} MB arm64")
    if rec.get("init_ratio") is not None and rec["init_ratio"] > INIT_BUDGET_RATIO:
        what.append(f"init {rec['init_ratio']:.2f}x")
    return what


def check(records: dict, now: dict, binaries: list[str], run_bench, runs: int = 5, out=print) -> int:
    """`now`: binary -> (package, crates); `run_bench(binaries, runs)` as `bench`. 0 when every
    function is as recorded or, measured again, within budget."""
    missing = [b for b in binaries if b not in now]
    if missing:
        out(f"coldstart-budget: no package or dependency tree for {', '.join(missing)} "
            "(not a bin target of a default workspace member?)")
        return 1
    changed = [b for b in binaries if b not in records or records[b].get("crates") != now[b][1]]
    unmeasured = [b for b in binaries if b not in changed
                  and None in (records[b].get("x86_64_mb"), records[b].get("arm64_mb"), records[b].get("init_ratio"))]
    recorded_over = [f"{b} ({', '.join(over(records[b]))})" for b in binaries
                     if b not in changed and over(records[b])]
    stale = sorted(set(records) - set(binaries))
    notes = []
    if unmeasured:
        notes.append(f"{len(unmeasured)} with figures not yet recorded")
    if recorded_over:
        notes.append("recorded over budget: " + ", ".join(recorded_over))
    if stale:
        notes.append("in the file but not the template: " + ", ".join(stale))
    if not changed:
        out(f"coldstart-budget: ok, all {len(binaries)} functions link the crates recorded in "
            f"{budget.BUDGET_FILE.relative_to(ROOT)}" + (f"; {'; '.join(notes)}" if notes else ""))
        return 0

    # The same change usually reaches many functions: told once for all of them.
    told: dict[tuple, list[str]] = {}
    for b in changed:
        rec = records.get(b)
        lines = (("not in the file",) if rec is None
                 else tuple(budget.changes(rec.get("crates") or [], now[b][1])) or ("crates reordered",))
        told.setdefault(lines, []).append(b)
    out(f"coldstart-budget: the external crates of {len(changed)} of {len(binaries)} functions "
        "differ from the record:")
    for lines, names in told.items():
        since = {(records.get(b) or {}).get("measured") for b in names} - {None}
        out(f"  {', '.join(names)}" + (f" (recorded {', '.join(sorted(since))})" if since else "") + ":")
        for line in lines[:40]:
            out(f"    {line}")
        if len(lines) > 40:
            out(f"    ... and {len(lines) - 40} more")

    measured = run_bench(changed, runs)
    failed = []
    if isinstance(measured, str):
        out(f"coldstart-budget: FAILED: {measured}")
        failed = changed
    else:
        out(f"coldstart-budget: budget {SIZE_BUDGET_MB:g} MB on arm64 (estimated from the x86_64 "
            f"build through the arm64/x86_64 ratio), init at most {INIT_BUDGET_RATIO:g}x hello's:")
        for b in changed:
            m = measured.get(b)
            if m is None or not m.ok:
                out(f"  {b}: FAILED, it did not answer every run ({m.outcome if m else 'not measured'})")
                failed.append(b)
                continue
            if m.x86_64_mb is None or m.init_ratio is None:
                out(f"  {b}: FAILED, no {'size' if m.x86_64_mb is None else 'init ratio (no baseline)'}")
                failed.append(b)
                continue
            factor, why = arm64_factor(b, records)
            arm = m.x86_64_mb * factor
            problems = (["size"] if arm > SIZE_BUDGET_MB else []) + (["init"] if m.init_ratio > INIT_BUDGET_RATIO else [])
            out(f"  {b}: x86_64 {m.x86_64_mb:.2f} MB -> arm64 ~{arm:.2f} MB (x{factor:.3f}, {why}); "
                f"init {m.init_ratio:.2f}x hello: " + ("OVER " + "+".join(problems) if problems else "within budget"))
            if problems:
                failed.append(b)
    which = "" if set(changed) == set(binaries) else f"--functions {','.join(changed)} "
    out(f"coldstart-budget: record the figures with `local/bench-coldstart {which}--arm64 --record` "
        f"and commit {budget.BUDGET_FILE.relative_to(ROOT)}")
    if failed:
        out(f"coldstart-budget: FAILED for {', '.join(failed)}")
        return 1
    if notes:
        out(f"coldstart-budget: note: {'; '.join(notes)}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="local/coldstart-budget", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="cold starts per changed function (default 5)")
    ap.add_argument("--no-bench", action="store_true",
                    help="report what changed and fail, without building or measuring")
    ap.add_argument("--self-test", action="store_true", help="first run the checker's own tests")
    args = ap.parse_args(argv)
    if args.self_test:
        import io
        import unittest

        from coldstart_lib import test_budget

        report = io.StringIO()
        result = unittest.TextTestRunner(stream=report, verbosity=2).run(
            unittest.defaultTestLoader.loadTestsFromModule(test_budget))
        if not result.wasSuccessful():
            print(report.getvalue() + "coldstart-budget: the self-test failed")
            return 2
    _, functions = load_template(ROOT / "template.yaml")
    binaries = [f.binary for f in functions]
    now = budget.current(binaries)

    def no_bench(changed, runs):
        return "not measured (--no-bench)"

    return check(budget.load(), now, binaries, no_bench if args.no_bench else bench, args.runs)


if __name__ == "__main__":
    sys.exit(main())
