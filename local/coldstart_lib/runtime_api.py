"""The mock Lambda Runtime API a bootstrap polls for its event and answers."""

from __future__ import annotations

import http.server
import re
import threading
import time
import uuid

from .common import LoopbackHandler


class Invocation:
    """One cold start: its event out, its first GET /next and its answer in."""

    def __init__(self, event: bytes, function_arn: str):
        self.event = event
        self.arn = function_arn
        self.request_id = str(uuid.uuid4())
        self.next_at = None      # perf_counter_ns of the first GET .../next
        self.delivered_at = None  # perf_counter_ns when the event was written
        self.answered_at = None  # perf_counter_ns of POST .../response or /error
        self.answer_kind = None  # "response", "error", "init-error"
        self.answer = b""
        self.got_next = threading.Event()
        self.answered = threading.Event()
        self.finished = threading.Event()


class RuntimeApi(http.server.ThreadingHTTPServer):
    """The Runtime API of one cold start: a fresh server on a fresh port per process, so that
    a request still in flight from the previous (killed) process can never count for this one."""

    daemon_threads = True

    def __init__(self, inv: Invocation):
        super().__init__(("127.0.0.1", 0), _RuntimeHandler)
        self.current: Invocation | None = inv
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()

    def handle_error(self, request, client_address):
        pass  # the function was killed mid-request: expected

    def close(self):
        self.shutdown()
        self.server_close()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server_address[1]}"


class _RuntimeHandler(LoopbackHandler):
    PREFIX = "/2018-06-01/runtime/"

    def _reply(self, status: int, body: bytes = b"", headers: dict | None = None):
        super()._reply(status, body, {**(headers or {}), "Content-Type": "application/json"})

    def do_GET(self):
        now = time.perf_counter_ns()
        inv = self.server.current
        if self.path != self.PREFIX + "invocation/next" or inv is None:
            return self._reply(404, b'{"errorMessage":"not found"}')
        with self.server.lock:
            first = inv.next_at is None
            if first:
                inv.next_at = now
        if not first:
            # The function is idle again: Lambda would freeze it here. Hold the request until
            # the benchmark has read its memory and killed it.
            inv.finished.wait(60)
            self.close_connection = True
            return
        inv.got_next.set()
        deadline = int(time.time() * 1000) + 15_000
        self._reply(200, inv.event, {
            "Lambda-Runtime-Aws-Request-Id": inv.request_id,
            "Lambda-Runtime-Deadline-Ms": str(deadline),
            "Lambda-Runtime-Invoked-Function-Arn": inv.arn,
            "Lambda-Runtime-Trace-Id": "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0",
        })
        inv.delivered_at = time.perf_counter_ns()

    def do_POST(self):
        now = time.perf_counter_ns()
        body = self._body()
        inv = self.server.current
        path = self.path
        if inv is not None and path == self.PREFIX + "init/error":
            inv.answered_at, inv.answer_kind, inv.answer = now, "init-error", body
            inv.answered.set()
            return self._reply(202, b'{"status":"OK"}')
        m = re.fullmatch(re.escape(self.PREFIX) + r"invocation/([^/]+)/(response|error)", path)
        if not m or inv is None or m.group(1) != inv.request_id:
            return self._reply(400, b'{"errorMessage":"unknown invocation"}')
        if inv.answered_at is None:
            inv.answered_at, inv.answer_kind, inv.answer = now, m.group(2), body
            inv.answered.set()
        self._reply(202, b'{"status":"OK"}')
