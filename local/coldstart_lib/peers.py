"""What a function's first answer needs besides AWS: loopback doubles of the peers it calls,
the state reset before each cold start (so that every one does the first run's full work), and
the check that its answer did that work.

- community-digest-scheduler pages through identity's user directory at `INTERNAL_API_URL`
  (`GET /api/users/internal/users?limit=&cursor=`, `X-Internal-Service-Token`), then creates a
  job per user in the digests table and queues it. The double answers as identity does (ids in
  id order, `nextCursor` the last id while more follow) for the token identity's own template
  entry resolves to, 401 with identity's challenge otherwise.
- identity-bootstrap (a CloudFormation custom resource) PUTs its answer to the event's
  `ResponseURL`: the event is rewritten to a loopback recorder's URL, and only a recorded
  `"Status": "SUCCESS"` counts.

A fixture's `before()` runs before the process is spawned and its `judge()` after the answer,
both outside the timed span; the first answer (event to `POST .../response`) includes the
peer call or the PUT, which the function awaits before it answers.
"""

from __future__ import annotations

import datetime
import http.server
import json
import threading
import urllib.parse
import uuid

from .common import REGION, LoopbackHandler

INTERNAL_TOKEN_HEADER = "X-Internal-Service-Token"


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, handler):
        super().__init__(("127.0.0.1", 0), handler)
        self.requests = []  # what the function sent, in order
        self.lock = threading.Lock()
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()

    def handle_error(self, request, client_address):
        pass  # the function was killed mid-request

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def taken(self) -> list:
        with self.lock:
            out, self.requests = self.requests, []
        return out

    def stop(self):
        self.shutdown()
        self.server_close()


_Handler = LoopbackHandler


def _identity_error(status: int, message: str, path: str, details=()) -> bytes:
    # platform::ApiError in identity's ErrorStyle::Detailed (path without /api/users).
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return json.dumps({"timestamp": now, "code": status, "message": message,
                       "details": list(details), "path": path.removeprefix("/api/users")}).encode()


class _DirectoryHandler(_Handler):
    """functions/identity/api/src/directory.rs `internal_users`, over a fixed set of users."""

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        token = self.headers.get(INTERNAL_TOKEN_HEADER)
        status = self._answer(url.path, query, token)
        with self.server.lock:
            self.server.requests.append({"path": url.path, "query": query, "status": status,
                                         "token_ok": token == self.server.token})

    def _answer(self, path: str, query: dict, token: str | None) -> int:
        if path != "/api/users/internal/users":
            self._reply(404, _identity_error(404, "Not found", path), {"Content-Type": "application/json"})
            return 404
        if not self.server.token or token != self.server.token:
            self._reply(401, _identity_error(401, "A valid X-Internal-Service-Token is required", path),
                        {"Content-Type": "application/json", "WWW-Authenticate": INTERNAL_TOKEN_HEADER})
            return 401
        raw_limit = (query.get("limit") or [None])[0]
        limit = 100
        if raw_limit is not None:
            try:
                limit = int(raw_limit.strip())
            except ValueError:
                limit = 0
            if not 1 <= limit <= 100:
                self._reply(400, _identity_error(400, "Validation failed", path,
                                                 ["limit: must be from 1 to 100"]),
                            {"Content-Type": "application/json"})
                return 400
        cursor = (query.get("cursor") or [""])[0]
        after = [u for u in self.server.users if u > cursor] if cursor else list(self.server.users)
        page = after[:limit]
        more = len(after) > limit
        body = json.dumps({"ids": page, "nextCursor": page[-1] if more and page else None}).encode()
        self._reply(200, body, {"Content-Type": "application/json"})
        return 200


class _RecorderHandler(_Handler):
    """A presigned S3 URL's PUT: the body kept, 200 with no body (as S3 answers)."""

    def do_PUT(self):
        body = self._body()
        with self.server.lock:
            self.server.requests.append({"method": "PUT", "path": self.path, "body": body})
        self._reply(200)

    def do_POST(self):
        with self.server.lock:
            self.server.requests.append({"method": "POST", "path": self.path, "body": self._body()})
        self._reply(405)


_CLIENTS = {}


def _aws(endpoint: str, service: str):
    import boto3

    key = (endpoint, service)
    if key not in _CLIENTS:  # a client costs ~0.1 s to build
        _CLIENTS[key] = boto3.client(service, endpoint_url=endpoint, region_name=REGION,
                                     aws_access_key_id="test", aws_secret_access_key="test")
    return _CLIENTS[key]


def _delete_where(ddb, table: str, prefixes: tuple[str, ...]) -> int:
    """Deletes the items of `table` whose `pk` starts with one of `prefixes` (all: empty)."""
    deleted = 0
    kwargs = {"TableName": table}
    while True:
        page = ddb.scan(**kwargs)
        for item in page.get("Items", []):
            pk = item["pk"]["S"]
            if prefixes and not pk.startswith(prefixes):
                continue
            ddb.delete_item(TableName=table, Key={"pk": item["pk"], "sk": item["sk"]})
            deleted += 1
        if "LastEvaluatedKey" not in page:
            return deleted
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


class DigestSchedulerFixture:
    """Identity's user directory with three users; each cold start finds the day unscheduled."""

    USERS = 3

    def __init__(self, env: dict, identity_token: str | None, emulator_url: str | None):
        self.server = _Server(_DirectoryHandler)
        # As identity lists them: uuids in id order.
        self.server.users = sorted(str(uuid.uuid4()) for _ in range(self.USERS))
        self.server.token = identity_token
        self.emulator = emulator_url
        self.table = env.get("DIGESTS_TABLE")
        self.queue = env.get("DIGEST_QUEUE_URL")

    def env(self) -> dict:
        # The API's URL, which routes /api/users/* to identity; the token is the template's own.
        return {"INTERNAL_API_URL": self.server.url}

    def event(self, raw: bytes) -> bytes:
        return raw

    def before(self):
        self.server.taken()
        if self.emulator and self.table:
            # A day not yet scheduled: no run row, none of its jobs; the queue drained.
            _delete_where(_aws(self.emulator, "dynamodb"), self.table, ("SCHEDULE#", "JOB#"))
            self._drain()

    def _drain(self) -> list[dict]:
        sqs, bodies = _aws(self.emulator, "sqs"), []
        while True:
            got = sqs.receive_message(QueueUrl=self.queue, MaxNumberOfMessages=10, WaitTimeSeconds=0)
            messages = got.get("Messages", [])
            if not messages:
                return bodies
            for m in messages:
                bodies.append(json.loads(m["Body"]))
                sqs.delete_message(QueueUrl=self.queue, ReceiptHandle=m["ReceiptHandle"])

    def judge(self) -> tuple[bool, str]:
        calls = self.server.taken()
        if not calls:
            return False, "the user directory was not called"
        refused = [c for c in calls if c["status"] != 200]
        if refused:
            c = refused[0]
            why = "the internal token is not identity's" if not c["token_ok"] else f"{c['path']} {c['query']}"
            return False, f"identity answered {c['status']}: {why}"
        if not self.emulator:
            return False, "no emulator to check the jobs in"
        ddb = _aws(self.emulator, "dynamodb")
        jobs = []
        kwargs = {"TableName": self.table}
        while True:
            page = ddb.scan(**kwargs)
            jobs += [i for i in page.get("Items", []) if i["pk"]["S"].startswith("JOB#")]
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        users = sorted(j.get("targetUserId", {}).get("S", "") for j in jobs)
        pending = all(j.get("status", {}).get("S") == "PENDING" for j in jobs)
        queued = sorted(b.get("jobId", "") for b in self._drain())
        if users != self.server.users or not pending:
            return False, f"{len(jobs)} jobs for the directory's {len(self.server.users)} users"
        if queued != sorted(j["id"]["S"] for j in jobs):
            return False, f"{len(jobs)} jobs created, {len(queued)} queued"
        pages = len(calls)
        return True, f"{len(jobs)} jobs created and queued ({pages} directory page{'s' * (pages > 1)})"

    def stop(self):
        self.server.stop()


class CustomResourceFixture:
    """The event's `ResponseURL` on a loopback recorder; each cold start meets an empty users
    table (a first deployment's), so every one creates the administrator."""

    def __init__(self, env: dict, emulator_url: str | None):
        self.server = _Server(_RecorderHandler)
        self.emulator = emulator_url
        self.table = env.get("USERS_TABLE")
        self.path = "/cloudformation-response"
        self.last_user = None

    def env(self) -> dict:
        return {}

    def event(self, raw: bytes) -> bytes:
        doc = json.loads(raw)
        self.path = "/cloudformation-response/" + urllib.parse.quote(doc.get("RequestId", "request"))
        doc["ResponseURL"] = self.server.url + self.path
        return json.dumps(doc).encode()

    def before(self):
        self.server.taken()
        if self.emulator and self.table:
            _delete_where(_aws(self.emulator, "dynamodb"), self.table, ())

    def judge(self) -> tuple[bool, str]:
        puts = [r for r in self.server.taken() if r["method"] == "PUT" and r["path"] == self.path]
        if not puts:
            return False, "nothing was PUT to the ResponseURL"
        try:
            body = json.loads(puts[-1]["body"])
        except ValueError:
            return False, f"the PUT body is not JSON: {puts[-1]['body'][:60]!r}"
        if body.get("Status") != "SUCCESS":
            return False, f"{body.get('Status')}: {str(body.get('Reason'))[:90]}"
        user = (body.get("Data") or {}).get("UserId")
        if not user:
            return False, "SUCCESS without Data.UserId"
        if user == self.last_user:
            # The same account again: the reset failed and this was the cheap "already an
            # administrator" path, not a first deployment's.
            return False, "SUCCESS, but for the previous run's account"
        self.last_user = user
        return True, f"SUCCESS {body.get('PhysicalResourceId')}"

    def stop(self):
        self.server.stop()


def fixture_for(binary: str, env: dict, all_env: dict, emulator_url: str | None):
    """The fixture of `binary`, if it needs one; `all_env` maps every binary of the template to
    its resolved environment (identity's token is the one the double requires)."""
    if binary == "community-digest-scheduler":
        return DigestSchedulerFixture(env, (all_env.get("identity") or {}).get("INTERNAL_SERVICE_TOKEN"),
                                      emulator_url)
    if binary == "identity-bootstrap":
        return CustomResourceFixture(env, emulator_url)
    return None
