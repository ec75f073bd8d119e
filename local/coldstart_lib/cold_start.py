"""Running one cold start: a fresh bootstrap process, its init, first answer, peak RSS and CPU."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .runtime_api import Invocation, RuntimeApi


@dataclass
class Run:
    ok: bool
    init_ms: float | None = None
    answer_ms: float | None = None
    total_ms: float | None = None
    rss_kb: int | None = None
    cpu_ms: float | None = None
    outcome: str = ""


def describe_answer(kind: str, body: bytes) -> tuple[bool, str]:
    try:
        doc = json.loads(body or b"null")
    except ValueError:
        return kind == "response", f"{kind}: {body[:60]!r}"
    if kind != "response":
        # The message says what went wrong; a Rust function's errorType is only the error's type.
        what = doc.get("errorMessage") or doc.get("errorType") if isinstance(doc, dict) else doc
        return False, f"{kind}: {str(what)[:70]}"
    if isinstance(doc, dict) and "statusCode" in doc:
        return True, f"HTTP {doc['statusCode']}"
    if isinstance(doc, dict) and "batchItemFailures" in doc:
        return True, f"{len(doc['batchItemFailures'])} batch item failure(s)"
    if doc is None:
        return True, "ok (null)"
    return True, "ok " + json.dumps(doc)[:40]


def vm_hwm_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def child_pids(pid: int) -> list[int]:
    kids = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                kids += [int(k) for k in f.read().split()]
    except OSError:
        pass
    return kids


def cold_start(bootstrap: Path, env: dict, event: bytes, arn: str,
               logfile: Path, init_timeout: float, answer_timeout: float,
               wrap: list[str] | None = None) -> Run:
    inv = Invocation(event, arn)
    api = RuntimeApi(inv)
    env = dict(env, AWS_LAMBDA_RUNTIME_API=api.address)
    log_fd = os.open(logfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    workdir = str(bootstrap.parent)
    started = time.perf_counter_ns()
    try:
        proc = subprocess.Popen((wrap or []) + [str(bootstrap)], env=env, cwd=workdir,
                                stdin=subprocess.DEVNULL, stdout=log_fd, stderr=log_fd,
                                close_fds=True, start_new_session=bool(wrap))
    except OSError as e:
        os.close(log_fd)
        return Run(False, outcome=f"cannot start: {e}")
    os.close(log_fd)
    run = Run(False)
    rusage = None
    try:
        deadline = time.monotonic() + init_timeout
        while not inv.got_next.wait(0.005):
            if inv.answered.is_set() or proc.poll() is not None or time.monotonic() > deadline:
                break
        if inv.next_at is None:
            if inv.answer_kind == "init-error":
                run.outcome = "init error: " + describe_answer("error", inv.answer)[1]
            elif proc.poll() is not None:
                run.outcome = f"exited with {proc.returncode} before asking for an event"
            else:
                run.outcome = f"no GET /next within {init_timeout:.0f} s"
            return run
        run.init_ms = (inv.next_at - started) / 1e6
        deadline = time.monotonic() + answer_timeout
        while not inv.answered.wait(0.005):
            if proc.poll() is not None or time.monotonic() > deadline:
                break
        if inv.answered_at is None:
            run.outcome = (f"exited with {proc.returncode} before answering" if proc.poll() is not None
                           else f"no answer within {answer_timeout:.0f} s")
            return run
        run.rss_kb = vm_hwm_kb(proc.pid)
        run.answer_ms = (inv.answered_at - (inv.delivered_at or inv.next_at)) / 1e6
        run.total_ms = (inv.answered_at - started) / 1e6
        run.ok, run.outcome = describe_answer(inv.answer_kind, inv.answer)
        return run
    finally:
        if proc.returncode is None and wrap:
            # Stop the profiled bootstrap gently, so that the tool can write its output: SIGTERM
            # to the wrapper's children (strace, perf stat), or to the wrapper itself when it
            # runs the program in its own process (valgrind); then the whole group for good.
            try:
                kids = child_pids(proc.pid)
                for pid in kids or [proc.pid]:
                    os.kill(pid, signal.SIGTERM)
                proc.wait(120)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
        if proc.returncode is None:
            try:
                proc.send_signal(signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                _, status, rusage = os.wait4(proc.pid, 0)
                proc.returncode = -signal.SIGKILL if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            except ChildProcessError:
                proc.wait()
        inv.finished.set()
        api.current = None
        api.close()
        if rusage is not None:
            run.cpu_ms = (rusage.ru_utime + rusage.ru_stime) * 1000
            if run.rss_kb is None and run.init_ms is not None:
                run.rss_kb = rusage.ru_maxrss
