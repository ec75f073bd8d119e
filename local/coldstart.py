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
   `POST .../response` (or `/error`);
4. peak RSS is the process's `VmHWM` read just before it is killed, CPU time (user + system,
   init and first answer together) comes from `wait4`;
5. each bootstrap is also started against a TLS endpoint in front of the emulator (a throwaway
   CA and certificate, trusted through `AWS_CA_BUNDLE`, as an endpoint behind a private CA
   is): "1st answer TLS" is the first answer of a function whose first AWS call opens an
   HTTPS connection, as every one in AWS does.

Runs alternate between the functions (one round runs every function once, in a rotated
order), after one untimed warm-up round, so that the machine's drifting load spreads evenly.
A function that fails to build, start or answer is reported in the table, never a crash.

Standard library only, plus what local/.venv already holds for the local stack: PyYAML (the
template), boto3 (the emulator's tables and queues), cryptography (the throwaway JWT keys).
"""

from __future__ import annotations

import argparse
import datetime
import http.server
import json
import os
import re
import select
import shutil
import shlex
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import yaml  # from local/.venv, as are boto3 and cryptography below

ROOT = Path(__file__).resolve().parent.parent
HELLO = "coldstart-hello"
TRIPLES = {"x86_64": "x86_64-unknown-linux-gnu", "arm64": "aarch64-unknown-linux-gnu"}
REGION = "us-east-1"
ACCOUNT = "123456789012"
STACK = "bench"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# The template


class _CfnLoader(yaml.SafeLoader):
    pass


def _tag(tag: str):
    def construct(loader, node):
        if isinstance(node, yaml.ScalarNode):
            value = loader.construct_scalar(node)
            if tag == "GetAtt" and isinstance(value, str):
                value = value.split(".", 1)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)
        return {("Ref" if tag == "Ref" else "Fn::" + tag): value}

    return construct


for _t in ("Ref", "GetAtt", "Sub", "Join", "If", "Select", "Split", "Equals", "Not",
           "And", "Or", "FindInMap", "ImportValue", "Base64", "GetAZs", "Condition"):
    _CfnLoader.add_constructor("!" + _t, _tag(_t))


@dataclass
class Function:
    logical_id: str
    binary: str
    memory: int = 128
    env: dict = field(default_factory=dict)  # raw template values (intrinsics unresolved)


def load_template(path: Path):
    with open(path) as f:
        template = yaml.load(f, Loader=_CfnLoader)
    glob = (template.get("Globals") or {}).get("Function") or {}
    glob_env = ((glob.get("Environment") or {}).get("Variables")) or {}
    functions = []
    for lid, res in (template.get("Resources") or {}).items():
        if res.get("Type") != "AWS::Serverless::Function":
            continue
        props = res.get("Properties") or {}
        binary = (((res.get("Metadata") or {}).get("BuildProperties")) or {}).get("Binary")
        if not binary:
            log(f"warning: {lid} has no Metadata.BuildProperties.Binary; skipped")
            continue
        env = dict(glob_env)
        env.update(((props.get("Environment") or {}).get("Variables")) or {})
        memory = props.get("MemorySize", glob.get("MemorySize", 128))
        functions.append(Function(lid, binary, int(memory) if str(memory).isdigit() else 128, env))
    return template, functions


class Resolver:
    """Intrinsic functions of the template with the benchmark's local values."""

    def __init__(self, template, params: dict, physical: dict):
        self.template = template
        self.params = params
        self.physical = physical  # logical id -> Ref value (table name, queue URL)

    def ref(self, name):
        if name in self.params:
            return self.params[name]
        if name in self.physical:
            return self.physical[name]
        pseudo = {"AWS::Region": REGION, "AWS::AccountId": ACCOUNT, "AWS::StackName": STACK,
                  "AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com",
                  "AWS::NoValue": ""}
        if name in pseudo:
            return pseudo[name]
        return f"{STACK}-{name}"

    def getatt(self, lid, attr):
        res = (self.template.get("Resources") or {}).get(lid) or {}
        kind = res.get("Type", "")
        name = self.physical.get(lid, f"{STACK}-{lid}")
        if attr == "Arn":
            if kind == "AWS::DynamoDB::Table":
                return f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}"
            if kind == "AWS::SQS::Queue":
                return f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name.rsplit('/', 1)[-1]}"
            return f"arn:aws:{kind.split('::')[1].lower() if '::' in kind else 'x'}:{REGION}:{ACCOUNT}:{lid}"
        if attr == "QueueName":
            return name.rsplit("/", 1)[-1]
        if attr.endswith("Url") or attr.endswith("Endpoint"):
            return "http://127.0.0.1:9"
        return f"{STACK}-{lid}-{attr}"

    def resolve(self, value):
        if isinstance(value, dict) and len(value) == 1:
            (k, v), = value.items()
            if k == "Ref":
                return str(self.ref(v))
            if k == "Fn::GetAtt":
                lid, attr = (v if isinstance(v, list) else str(v).split(".", 1))
                return self.getatt(lid, attr)
            if k == "Fn::Sub":
                text, extra = (v[0], v[1]) if isinstance(v, list) else (v, {})
                def sub(m):
                    key = m.group(1)
                    if key in extra:
                        return self.resolve(extra[key])
                    if "." in key:
                        return self.getatt(*key.split(".", 1))
                    return str(self.ref(key))
                return re.sub(r"\$\{([^}!]+)\}", sub, text)
            if k == "Fn::Join":
                sep, items = v
                return sep.join(self.resolve(i) for i in items)
            if k == "Fn::If":
                return self.resolve(v[2])  # conditions: take the "else" branch
            return json.dumps(value)
        if isinstance(value, bool):
            return "true" if value else "false"
        return "" if value is None else str(value)


def template_parameters(template, keys) -> dict:
    params = {}
    for name, spec in (template.get("Parameters") or {}).items():
        if "Default" in spec:
            params[name] = str(spec["Default"])
    local = ROOT / "local" / "parameters.json"
    if local.exists():
        params.update({k: str(v) for k, v in json.loads(local.read_text()).items()})
    # The key pair, which the template leaves empty (or without a default): throwaway values.
    for name, key in (("JwtPrivateKey", keys[0]), ("JwtPublicKey", keys[1])):
        if not params.get(name):
            params[name] = key
    return params


def ed25519_pair():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, public


# ---------------------------------------------------------------------------------------------
# The emulator


def free_port() -> int:
    while True:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        if port != 4566:
            return port


class Emulator:
    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        state = ROOT / "local" / ".state"
        state.mkdir(parents=True, exist_ok=True)
        self.logfile = state / f"moto-{self.port}.log"
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "local" / "emulator.py"), "-H", "127.0.0.1", "-p", str(self.port)],
            stdin=subprocess.DEVNULL, stdout=open(self.logfile, "w"), stderr=subprocess.STDOUT,
            start_new_session=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the emulator exited (log: {self.logfile})")
            try:
                urllib.request.urlopen(self.url + "/moto-api/", timeout=1).read()
                return
            except Exception:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the emulator did not answer within 30 s (log: {self.logfile})")

    def provision(self, template) -> dict:
        """Creates the template's tables and queues; returns logical id -> Ref value."""
        import boto3

        kw = dict(endpoint_url=self.url, region_name=REGION, aws_access_key_id="test",
                  aws_secret_access_key="test")
        ddb, sqs = boto3.client("dynamodb", **kw), boto3.client("sqs", **kw)
        physical = {}
        resources = template.get("Resources") or {}
        for lid, res in resources.items():
            props = res.get("Properties") or {}
            if res.get("Type") == "AWS::DynamoDB::Table":
                name = f"{STACK}-{lid}"
                args = dict(TableName=name, AttributeDefinitions=props["AttributeDefinitions"],
                            KeySchema=props["KeySchema"], BillingMode="PAY_PER_REQUEST")
                if props.get("GlobalSecondaryIndexes"):
                    args["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
                ddb.create_table(**args)
                physical[lid] = name
        for lid, res in resources.items():
            if res.get("Type") == "AWS::SQS::Queue":
                physical[lid] = sqs.create_queue(QueueName=f"{STACK}-{lid}")["QueueUrl"]
        return physical

    def stop(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(5)
            except Exception:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait()


class TlsFront:
    """An HTTPS endpoint in front of the emulator: TLS terminated here with a certificate of a
    throwaway CA (ECDSA P-256, for 127.0.0.1), bytes relayed both ways. The bootstraps trust the
    CA through `AWS_CA_BUNDLE`, so their first AWS call pays a real handshake."""

    def __init__(self, upstream_port: int, workdir: Path):
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
        import ipaddress

        now = datetime.datetime.now(datetime.timezone.utc)
        ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "bench-coldstart CA")])
        ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
              .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(now - datetime.timedelta(minutes=5))
              .not_valid_after(now + datetime.timedelta(days=1))
              .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
              .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                           content_commitment=False, key_encipherment=False,
                                           data_encipherment=False, key_agreement=False,
                                           encipher_only=False, decipher_only=False), critical=True)
              .sign(ca_key, hashes.SHA256()))
        leaf = (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
                .issuer_name(ca_name).public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(minutes=5))
                .not_valid_after(now + datetime.timedelta(days=1))
                .add_extension(x509.SubjectAlternativeName([
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]),
                    critical=False)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                .sign(ca_key, hashes.SHA256()))
        workdir.mkdir(parents=True, exist_ok=True)
        self.ca_file = workdir / "ca.pem"
        self.ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
        chain, key_file = workdir / "leaf.pem", workdir / "leaf.key"
        chain.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
        key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                               serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(chain, key_file)
        self.upstream = upstream_port
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"https://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(conn,), daemon=True).start()

    def _relay(self, conn):
        try:
            tls = self.context.wrap_socket(conn, server_side=True)
            up = socket.create_connection(("127.0.0.1", self.upstream))
        except (OSError, ssl.SSLError):
            conn.close()
            return
        try:
            while True:
                # Bytes already decrypted sit in the TLS object, invisible to select.
                ready = [tls] if tls.pending() else select.select([tls, up], [], [], 60)[0]
                if not ready:
                    return
                for side in ready:
                    data = side.recv(65536)
                    if not data:
                        return
                    (up if side is tls else tls).sendall(data)
        except (OSError, ssl.SSLError):
            return
        finally:
            for side in (tls, up):
                try:
                    side.close()
                except OSError:
                    pass

    def stop(self):
        self.sock.close()


# ---------------------------------------------------------------------------------------------
# The mock Lambda Runtime API


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


class _RuntimeHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    PREFIX = "/2018-06-01/runtime/"

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
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

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


# ---------------------------------------------------------------------------------------------
# Running one cold start


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
        what = doc.get("errorType") or doc.get("errorMessage") if isinstance(doc, dict) else doc
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


# ---------------------------------------------------------------------------------------------
# Building


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


# ---------------------------------------------------------------------------------------------
# Reporting


def fmt(v, spec=".1f", none="-"):
    return none if v is None else format(v, spec)


def summarise(runs: list[Run]) -> dict:
    good_init = [r.init_ms for r in runs if r.init_ms is not None]
    good = [r for r in runs if r.ok]
    failures = [r.outcome for r in runs if not r.ok]
    med = statistics.median
    return {
        "runs": len(runs),
        "ok": len(good),
        "init_median": med(good_init) if good_init else None,
        "init_min": min(good_init) if good_init else None,
        "init_max": max(good_init) if good_init else None,
        "answer_median": med([r.answer_ms for r in good]) if good else None,
        "answer_min": min(r.answer_ms for r in good) if good else None,
        "answer_max": max(r.answer_ms for r in good) if good else None,
        "total_median": med([r.total_ms for r in good]) if good else None,
        "rss_mb": med([r.rss_kb for r in runs if r.rss_kb]) / 1024 if any(r.rss_kb for r in runs) else None,
        "cpu_median": med([r.cpu_ms for r in runs if r.cpu_ms is not None]) if any(r.cpu_ms is not None for r in runs) else None,
        "outcome": (good[-1].outcome if good else (failures[-1] if failures else "not run")),
        "failures": sorted(set(failures)),
    }


def print_table(rows: list[list[str]], headers: list[str], markdown: bool):
    if markdown:
        print("| " + " | ".join(headers) + " |")
        print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(headers, widths))))
    for r in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))


# ---------------------------------------------------------------------------------------------


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
    args = ap.parse_args(argv)

    template, functions = load_template(Path(args.template))
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
        results = measure(args, template, subjects, bootstrap, overrides)

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
    return 3 if over_budget else 0


SIZE_BUDGET_MB = 6.0
INIT_BUDGET_RATIO = 1.5


def budget(name: str, size: float | None, ratio: float | None, over: list) -> str:
    """`ok`, or what is over the issue's budget (noted in `over` as well)."""
    problems = []
    if size is not None and size > SIZE_BUDGET_MB:
        problems.append("size")
    if ratio is not None and ratio > INIT_BUDGET_RATIO:
        problems.append("init")
    if problems:
        over.append(f"{name} ({'+'.join(problems)})")
        return "OVER " + "+".join(problems)
    return "ok" if size is not None or ratio is not None else "-"


TLS = "@tls"


def measure(args, template, subjects, bootstrap, overrides) -> dict:
    """Every subject's runs against the emulator over plain HTTP (`results[binary]`) and
    through the TLS front (`results[binary + TLS]`)."""
    keys = ed25519_pair()
    params = template_parameters(template, keys)
    emulator = None
    front = None
    physical = {}
    try:
        try:
            emulator = Emulator()
            physical = emulator.provision(template)
            front = TlsFront(emulator.port, Path(tempfile.mkdtemp(prefix="bench-coldstart-tls-")))
        except Exception as e:  # measured anyway; AWS calls will fail and be reported
            log(f"warning: no emulator ({e}); functions that call AWS will answer errors")
        resolver = Resolver(template, params, physical)
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
            for item in args.set:
                key, _, value = item.partition("=")
                if value:
                    env[key] = value
                else:
                    env.pop(key, None)
            arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"
            event = event_file.read_bytes() if not problem else b""
            plan.append((f.binary, f, path, env, event, arn, problem))
            if front:
                tls_env = dict(env, AWS_ENDPOINT_URL=front.url, AWS_CA_BUNDLE=str(front.ca_file))
                plan.append((f.binary + TLS, f, path, tls_env, event, arn, problem))
        runs = {key: [] for key, *_ in plan}
        problems = {key: p for key, _, _, _, _, _, p in plan if p}
        live = [p for p in plan if not p[6]]
        log(f"bench-coldstart: {len(live)} bootstrap runs a round (plain HTTP and TLS), 1 warm-up "
            f"round + {args.runs} rounds; logs in {logs}")
        for round_no in range(args.runs + 1):
            order = live[round_no % len(live):] + live[:round_no % len(live)] if live else []
            for key, f, path, env, event, arn, _ in order:
                wrap = shlex.split(args.wrap.replace("{binary}", f.binary)) if args.wrap else None
                slow = 30 if wrap else 1
                r = cold_start(path, env, event, arn, logs / f"{key}.log",
                               init_timeout=args.timeout * slow, answer_timeout=2 * args.timeout * slow, wrap=wrap)
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
        if front:
            front.stop()
        if emulator:
            emulator.stop()


if __name__ == "__main__":
    sys.exit(main())
