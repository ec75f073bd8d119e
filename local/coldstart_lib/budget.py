"""The recorded cold-start figures (tests/coldstart/budget.json) and the dependency
fingerprints that say when they must be measured again.

A function's fingerprint is the set of external crates its bootstrap links: every non-workspace
package reachable from its package in
`cargo tree -e normal --target aarch64-unknown-linux-gnu --prefix depth -f '{p}|{f}'`, each as
`name version features`. The tree is taken over the workspace's default members at once, as
the deploy build (Makefile) and `local/bench-coldstart` build every bootstrap in one cargo
command: features are unified across them, so a feature another function turns on is in this
one's bootstrap too. Workspace members are left out (their code changes every commit).

The file keeps, per template binary: its package, the last measured sizes (x86_64 and arm64 MB)
and init/hello ratio, their dates, the fingerprint (a hash) and the crates themselves, as the
crates every recorded function links (`common`) plus each one's own (`crates`), so that a
changed fingerprint can be told as crates added, removed, or with other versions or features.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
import subprocess
from pathlib import Path

from .common import ROOT, TRIPLES

BUDGET_FILE = ROOT / "tests" / "coldstart" / "budget.json"
TREE_COMMAND = ["cargo", "tree", "-e", "normal", "--target", TRIPLES["arm64"], "--prefix", "depth",
                "-f", "{p}|{f}"]
ABOUT = ("Last measured cold-start figures per function (local/bench-coldstart --record) and the "
         "external crates they were measured with; local/coldstart-budget measures a function "
         "again when its crates change. docs/benchmarks.md, Cold-start benchmark.")


def cargo_metadata() -> dict:
    return json.loads(subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1"],
                                     cwd=ROOT, check=True, capture_output=True, text=True).stdout)


def cargo_tree() -> str:
    return subprocess.run(TREE_COMMAND, cwd=ROOT, check=True, capture_output=True, text=True).stdout


def bin_packages(metadata: dict) -> dict[str, str]:
    """Binary target name -> its package's name."""
    return {t["name"]: p["name"] for p in metadata["packages"] for t in p["targets"] if "bin" in t["kind"]}


_LINE = re.compile(r"^(\d+)(\S+) v(\S+)((?: \([^)]*\))*)\|(.*)$")


def parse_tree(text: str, member_dirs: set[str]):
    """The tree as a graph: node -> children, each node (name, version, features, member), and
    the roots in order. A node printed again (`(*)`) had its children listed the first time."""
    graph: dict[tuple, set] = {}
    roots: list[tuple] = []
    stack: list[tuple] = []
    for line in text.splitlines():
        m = _LINE.match(line.strip())
        if not m:
            continue
        depth, name, version, sources, features = int(m[1]), m[2], m[3], m[4], m[5]
        features = features.removesuffix("(*)").strip()
        source = ""
        for s in re.findall(r"\(([^)]*)\)", sources):
            if s != "proc-macro":
                source = s
        member = source in member_dirs
        if source and not member:
            # Outside the workspace: a git or registry source, or a path named from the root.
            source = str(Path(source).relative_to(ROOT)) if source.startswith(str(ROOT)) else source
            version = f"{version}@{source}"
        node = (name, version, features, member)
        graph.setdefault(node, set())
        del stack[depth:]
        if depth == 0:
            roots.append(node)
        elif stack:
            graph[stack[-1]].add(node)
        stack.append(node)
    return graph, roots


def entry(node) -> str:
    name, version, features, _ = node
    return f"{name} {version}" + (f" {features}" if features else "")


def external_crates(metadata: dict, tree_text: str, packages: dict[str, str]) -> dict[str, list[str]]:
    """Binary -> the sorted external crates its package reaches (`packages`: binary -> package).
    A binary whose package is not a root of the tree is left out."""
    member_dirs = {str(Path(p["manifest_path"]).parent) for p in metadata["packages"]}
    graph, roots = parse_tree(tree_text, member_dirs)
    by_name = {}
    for r in roots:
        by_name.setdefault(r[0], r)
    out = {}
    for binary, package in packages.items():
        root = by_name.get(package)
        if root is None:
            continue
        seen, todo = set(), [root]
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(graph.get(node, ()))
        out[binary] = sorted({entry(n) for n in seen if not n[3]})
    return out


def fingerprint(crates: list[str]) -> str:
    return "sha256:" + hashlib.sha256("\n".join(sorted(crates)).encode()).hexdigest()[:16]


def current(binaries: list[str], metadata: dict | None = None, tree_text: str | None = None):
    """Binary -> (package, crates) for the template's binaries, from cargo (no build)."""
    metadata = metadata if metadata is not None else cargo_metadata()
    tree_text = tree_text if tree_text is not None else cargo_tree()
    packages = bin_packages(metadata)
    wanted = {b: packages[b] for b in binaries if b in packages}
    crates = external_crates(metadata, tree_text, wanted)
    return {b: (wanted[b], crates[b]) for b in binaries if b in crates}


# ---- the file ----

def load(path: Path = BUDGET_FILE) -> dict:
    """Binary -> record, each record's `crates` the full list (common ones included)."""
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    common = doc.get("common") or []
    out = {}
    for binary, rec in (doc.get("functions") or {}).items():
        rec = dict(rec)
        rec["crates"] = sorted(set(common) | set(rec.get("crates") or []))
        out[binary] = rec
    return out


FIELDS = ("package", "x86_64_mb", "arm64_mb", "init_ratio", "measured", "arm64_measured", "fingerprint")


def dump(records: dict) -> str:
    """The file's text: the crates every function links once, then each function's own."""
    sets = [set(r.get("crates") or []) for r in records.values()]
    common = sorted(set.intersection(*sets)) if sets else []
    functions = {}
    for binary in sorted(records):
        rec = records[binary]
        out = {k: rec.get(k) for k in FIELDS}
        out["crates"] = sorted(set(rec.get("crates") or []) - set(common))
        functions[binary] = out
    return json.dumps({"about": ABOUT, "target": TRIPLES["arm64"], "common": common,
                       "functions": functions}, indent=1) + "\n"


def save(records: dict, path: Path = BUDGET_FILE):
    path.write_text(dump(records))


def record(records: dict, binary: str, package: str, crates: list[str], x86_64_mb, init_ratio,
           arm64_mb=None, today: str | None = None):
    """Updates `records` with one measurement; an arm64 size not measured now keeps the
    earlier one and its date."""
    today = today or datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    rec = dict(records.get(binary) or {})
    rec.update(package=package, crates=list(crates), fingerprint=fingerprint(crates),
               x86_64_mb=_round(x86_64_mb), init_ratio=_round(init_ratio), measured=today)
    if arm64_mb is not None:
        rec.update(arm64_mb=_round(arm64_mb), arm64_measured=today)
    else:
        rec.setdefault("arm64_mb", None)
        rec.setdefault("arm64_measured", None)
    records[binary] = rec


def _round(v):
    return None if v is None else round(v, 2)


# ---- what changed ----

def changes(old: list[str], new: list[str]) -> list[str]:
    """What differs between two crate lists: added, removed, other versions, other features."""
    def by_name(entries):
        out = {}
        for e in entries:
            name, version, *features = e.split(" ", 2)
            out.setdefault(name, {}).setdefault(version, set()).add(features[0] if features else "")
        return out

    before, after = by_name(old), by_name(new)
    out = []
    for name in sorted(set(before) | set(after)):
        b, a = before.get(name), after.get(name)
        if b == a:
            continue
        if b is None:
            out.append("added " + "; ".join(f"{name} {v}" + _feats(f) for v, fs in sorted(a.items()) for f in sorted(fs)))
        elif a is None:
            out.append("removed " + ", ".join(f"{name} {v}" for v in sorted(b)))
        elif set(b) != set(a):
            out.append(f"{name} {', '.join(sorted(b))} -> {', '.join(sorted(a))}")
        else:
            for v in sorted(a):
                if b[v] == a[v]:
                    continue
                if len(b[v]) == len(a[v]) == 1:
                    was, now = (set(filter(None, next(iter(s)).split(","))) for s in (b[v], a[v]))
                    delta = [f"+{f}" for f in sorted(now - was)] + [f"-{f}" for f in sorted(was - now)]
                    out.append(f"{name} {v} features {' '.join(delta)}")
                else:
                    out.append(f"{name} {v} features {sorted(b[v])} -> {sorted(a[v])}")
    return out


def _feats(f: str) -> str:
    return f" ({f})" if f else ""
