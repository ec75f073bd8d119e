"""Building the bootstraps, and where they and their sizes are."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from .common import ROOT, TRIPLES, log


def target_dir() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR") or Path.home() / ".cache/serverless-platform/target")


def build(arch: str, binaries: list[str]) -> tuple[bool, float]:
    # cargo-lambda moves each binary out of target/<triple>/release into
    # <lambda-dir>/<binary>/bootstrap: one lambda dir per architecture keeps both sets.
    cmd = ["cargo", "lambda", "build", "--release", "--arm64" if arch == "arm64" else "--x86-64",
           "--lambda-dir", str(lambda_dir(arch))]
    for b in binaries:
        cmd += ["--bin", b]
    if arch == "arm64" and shutil.which("rustup"):
        installed = subprocess.run(["rustup", "target", "list", "--installed"], capture_output=True,
                                   text=True).stdout.split()
        if TRIPLES[arch] not in installed:
            log(f"bench-coldstart: rustup target add {TRIPLES[arch]}")
            subprocess.run(["rustup", "target", "add", TRIPLES[arch]])
    log(f"bench-coldstart: {' '.join(cmd)}")
    t0 = time.monotonic()
    result = subprocess.run(cmd, cwd=ROOT)
    return result.returncode == 0, time.monotonic() - t0


def lambda_dir(arch: str) -> Path:
    # In this clone (git-ignored), not in the shared target directory: clones that share
    # CARGO_TARGET_DIR must not measure each other's bootstraps.
    return ROOT / "local" / ".state" / "coldstart" / arch


def bootstrap_path(arch: str, binary: str) -> Path:
    return lambda_dir(arch) / binary / "bootstrap"


def size_mb(path: Path) -> float | None:
    try:
        return path.stat().st_size / 1e6
    except OSError:
        return None
