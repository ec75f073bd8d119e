"""Paths, names and the log every part of the cold-start benchmark shares."""

from __future__ import annotations

import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent.parent
HELLO = "coldstart-hello"
TRIPLES = {"x86_64": "x86_64-unknown-linux-gnu", "arm64": "aarch64-unknown-linux-gnu"}
REGION = "us-east-1"
ACCOUNT = "123456789012"
STACK = "bench"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
