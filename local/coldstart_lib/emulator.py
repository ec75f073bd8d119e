"""The private emulator holding the template's tables and queues, and the TLS front before it."""

from __future__ import annotations

import datetime
import os
import select
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from .common import REGION, ROOT, STACK


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
            # Without it, Nagle on the relay meets the client's delayed ACK: a 40 ms stall
            # whenever the emulator writes an answer in two pieces, which no AWS endpoint adds.
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            tls = self.context.wrap_socket(conn, server_side=True)
            up = socket.create_connection(("127.0.0.1", self.upstream))
            up.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
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
