"""Paths, names and the log every part of the cold-start benchmark shares."""

from __future__ import annotations

import http.server
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


class LoopbackHandler(http.server.BaseHTTPRequestHandler):
    """A quiet HTTP/1.1 handler for the bench's loopback servers: the Runtime API and the
    peers' doubles."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _reply(self, status: int, body: bytes = b"", headers: dict | None = None):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
