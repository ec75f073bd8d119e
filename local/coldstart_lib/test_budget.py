"""Tests of the cold-start budget guard on a made-up workspace and cargo tree output (run by
`local/coldstart-budget --self-test`, or `python -m unittest coldstart_lib.test_budget` in local/)."""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

from coldstart_budget import Measured, check
from coldstart_lib import budget
from coldstart_lib.common import ROOT

METADATA = {"packages": [
    {"name": "fn-a", "manifest_path": f"{ROOT}/functions/a/Cargo.toml",
     "targets": [{"name": "a", "kind": ["bin"]}, {"name": "fn_a", "kind": ["lib"]}]},
    {"name": "fn-b", "manifest_path": f"{ROOT}/functions/b/Cargo.toml",
     "targets": [{"name": "b", "kind": ["bin"]}]},
    {"name": "platform", "manifest_path": f"{ROOT}/shared/platform/Cargo.toml",
     "targets": [{"name": "platform", "kind": ["lib"]}]},
]}

# `cargo tree -e normal --prefix depth -f '{p}|{f}'` over both functions: b's platform is
# printed once (`(*)`), under a.
TREE = f"""0fn-a v0.1.0 ({ROOT}/functions/a)|
1platform v0.1.0 ({ROOT}/shared/platform)|aws
2serde v1.0.1|default,std
3serde_derive v1.0.1 (proc-macro)|default
2tokio v1.2.0|rt
1serde v1.0.1|default,std (*)

0fn-b v0.1.0 ({ROOT}/functions/b)|
1platform v0.1.0 ({ROOT}/shared/platform)|aws (*)
1regex v1.0.0|std
"""


def now(tree: str = TREE):
    return budget.current(["a", "b"], METADATA, tree)


def recorded(tree: str = TREE, **figures):
    records = {}
    for binary, (package, crates) in now(tree).items():
        budget.record(records, binary, package, crates, figures.get("x86", 4.0), figures.get("ratio", 1.1),
                      figures.get("arm", 3.5), today="2026-12-03")
    return records


class Bench:
    """A stand-in for local/bench-coldstart: what it was asked, and fixed figures."""

    def __init__(self, x86=4.0, ratio=1.2):
        self.asked = []
        self.x86, self.ratio = x86, ratio

    def __call__(self, binaries, runs):
        self.asked.append(list(binaries))
        return {b: Measured(True, self.x86, self.ratio, "5/5 HTTP 200") for b in binaries}


def run(records, tree=TREE, bench=None):
    lines = []
    bench = bench or Bench()
    status = check(records, now(tree), ["a", "b"], bench, out=lines.append)
    return status, lines, bench


class Fingerprints(unittest.TestCase):
    def test_external_crates_follow_repeated_nodes_and_leave_out_members(self):
        crates = now()
        self.assertEqual(crates["a"], ("fn-a", ["serde 1.0.1 default,std", "serde_derive 1.0.1 default",
                                               "tokio 1.2.0 rt"]))
        self.assertEqual(crates["b"][1], ["regex 1.0.0 std", "serde 1.0.1 default,std",
                                          "serde_derive 1.0.1 default", "tokio 1.2.0 rt"])

    def test_the_file_keeps_common_crates_once_and_reads_back_whole(self):
        records = recorded()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "budget.json"
            budget.save(records, path)
            text = path.read_text()
            self.assertEqual(text.count('"tokio 1.2.0 rt"'), 1)
            self.assertNotIn(str(ROOT), text)
            back = budget.load(path)
        self.assertEqual(back["b"]["crates"], records["b"]["crates"])
        self.assertEqual(back["a"]["fingerprint"], budget.fingerprint(now()["a"][1]))


class Check(unittest.TestCase):
    def test_unchanged_passes_without_building(self):
        status, lines, bench = run(recorded())
        self.assertEqual(status, 0)
        self.assertEqual(bench.asked, [])
        self.assertEqual(len(lines), 1)
        self.assertIn("ok, all 2 functions", lines[0])

    def test_unmeasured_but_unchanged_passes_with_a_note(self):
        records = recorded()
        records["b"].update(x86_64_mb=None, arm64_mb=None, init_ratio=None)
        status, lines, bench = run(records)
        self.assertEqual((status, bench.asked), (0, []))
        self.assertIn("1 with figures not yet recorded", lines[0])

    def test_a_crate_added_is_named_and_measured_for_the_functions_linking_it(self):
        tree = TREE.replace("2tokio v1.2.0|rt\n", "2tokio v1.2.0|rt\n2bytes v1.5.0|std\n")
        status, lines, bench = run(recorded(), tree)
        self.assertEqual(status, 0, lines)
        self.assertEqual(bench.asked, [["a", "b"]])
        text = "\n".join(lines)
        self.assertIn("added bytes 1.5.0 (std)", text)
        self.assertIn("within budget", text)
        self.assertIn("`local/bench-coldstart --arm64 --record`", text)

    def test_a_feature_and_a_version_changed_are_told(self):
        tree = TREE.replace("tokio v1.2.0|rt", "tokio v1.2.0|macros,rt").replace("regex v1.0.0", "regex v1.1.0")
        status, lines, bench = run(recorded(), tree)
        text = "\n".join(lines)
        self.assertIn("tokio 1.2.0 features +macros", text)
        self.assertIn("regex 1.0.0 -> 1.1.0", text)
        self.assertEqual(bench.asked, [["a", "b"]])

    def test_over_budget_fails_with_the_arm64_size_estimated_through_the_recorded_ratio(self):
        tree = TREE.replace("1regex v1.0.0|std", "1regex v1.0.0|std\n1feed-rs v3.0.0|default")
        # Recorded arm64/x86_64 ratio 3.5/4.0: 7.0 MB x86_64 is ~6.1 MB arm64, over 6.
        status, lines, bench = run(recorded(), tree, Bench(x86=7.0, ratio=1.2))
        self.assertEqual(bench.asked, [["b"]])
        self.assertEqual(status, 1)
        text = "\n".join(lines)
        self.assertIn("added feed-rs 3.0.0 (default)", text)
        self.assertIn("arm64 ~6.12 MB", text)
        self.assertIn("OVER size", text)
        self.assertIn("`local/bench-coldstart --functions b --arm64 --record`", text)
        # 6.5 MB x86_64 is ~5.7 arm64: within.
        status, _, _ = run(recorded(), tree, Bench(x86=6.5, ratio=1.2))
        self.assertEqual(status, 0)

    def test_slow_init_fails(self):
        tree = TREE.replace("1regex v1.0.0|std", "1regex v1.0.0|perf,std")
        status, lines, _ = run(recorded(), tree, Bench(x86=4.0, ratio=1.7))
        self.assertEqual(status, 1)
        self.assertIn("OVER init", "\n".join(lines))

    def test_a_function_missing_from_the_file_is_measured(self):
        records = recorded()
        del records["a"]
        status, lines, bench = run(records)
        self.assertEqual((status, bench.asked), (0, [["a"]]))
        self.assertIn("not in the file", "\n".join(lines))

    def test_a_failed_build_fails(self):
        tree = TREE.replace("regex v1.0.0", "regex v1.1.0")
        status, lines, _ = run(recorded(), tree, lambda binaries, runs: "the x86_64 build failed")
        self.assertEqual(status, 1)
        self.assertIn("FAILED: the x86_64 build failed", "\n".join(lines))


if __name__ == "__main__":
    unittest.main()
