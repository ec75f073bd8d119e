"""AWS faults on demand, for the emulator (local/emulator.py): what AWS does every day and moto
never does.

Off until asked. A run asks with EMULATOR_FAULTS (a JSON list of rules) at start, or at any time
with `PUT /_emulator/faults` (body: the rules, replacing those there, counters cleared);
`GET /_emulator/faults` answers `{"rules": [...], "injected": [{service, operation, fault,
resource, count}]}`, `DELETE` removes every rule (the counts stay until the next PUT). With
`?resource=NAME` each of the three acts on NAME's rules and counts only, and a PUT's rules all
take NAME as their resource: tests sharing an emulator each name their own stack.

A rule:
    {"service": "dynamodb", "operation": "TransactWriteItems", "fault": "throttle",
     "rate": 0.1, "times": 3, "resource": "t1a2b3c4d5"}
- service: dynamodb, sqs, s3, events or sns;
- operation: the API's name (UpdateItem, DeleteMessage, PutObject, PutEvents, Publish) or "*";
- fault (what AWS does):
    throttle    DynamoDB answers 400 ProvisionedThroughputExceededException; a transaction
                is cancelled with the reason ThrottlingError for each item
    error       500 InternalServerError (InternalFailure for SQS and EventBridge), nothing applied
    lost-reply  the call is applied, then answered 500 as if the reply were lost on the way:
                the SDK retries a write that already happened
    slowdown    S3 answers 503 SlowDown, nothing applied
    lost-delete SQS answers DeleteMessage(Batch) with success and deletes nothing, so the
                message is delivered again once its visibility timeout ends
    duplicate   SQS enqueues a sent message twice (SendMessage, SendMessageBatch)
    delay       SQS enqueues a sent message (or each of a batch's) to be delivered `seconds`
                later (default 5, at most 900), as a late delivery: DelaySeconds raised to it
    failed-entries  EventBridge answers PutEvents 200 with every entry failed (InternalFailure)
- rate: the share of matching calls that get the fault (default 1);
- times: at most this many injections, then the rule is spent (default: no limit);
- resource: only calls whose table, queue, bucket, event bus or topic name contains this text
  (a test names its own stack, so tests on the same emulator are not touched);
- match: only calls whose request body contains this text (a user's id: that user's writes);
- seconds: how late a `delay` fault delivers.
Draws come from one random generator seeded by EMULATOR_FAULTS_SEED (default 1).
"""

import collections
import io
import json
import os
import random
import threading
import urllib.parse

PATH = "/_emulator/faults"
SERVICES = ("dynamodb", "sqs", "s3", "events", "sns")
FAULTS = {
    "dynamodb": {"throttle", "error", "lost-reply"},
    "sqs": {"error", "lost-reply", "lost-delete", "duplicate", "delay"},
    "s3": {"slowdown", "error", "lost-reply"},
    "events": {"error", "lost-reply", "failed-entries"},
    "sns": {"error", "lost-reply"},
}

_lock = threading.Lock()
_rules = []
_injected = collections.Counter()
_random = random.Random(int(os.environ.get("EMULATOR_FAULTS_SEED", "1")))


class RuleError(ValueError):
    pass


def _parse_rules(value):
    if not isinstance(value, list):
        raise RuleError("the rules are a JSON list")
    rules = []
    for i, rule in enumerate(value):
        if not isinstance(rule, dict):
            raise RuleError(f"rule {i} is not an object")
        service = rule.get("service")
        if service not in SERVICES:
            raise RuleError(f"rule {i}: service is one of {', '.join(SERVICES)}")
        fault = rule.get("fault")
        if fault not in FAULTS[service]:
            raise RuleError(f"rule {i}: fault for {service} is one of {', '.join(sorted(FAULTS[service]))}")
        rate = rule.get("rate", 1)
        if not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise RuleError(f"rule {i}: rate is a number from 0 to 1")
        times = rule.get("times")
        if times is not None and (not isinstance(times, int) or times < 0):
            raise RuleError(f"rule {i}: times is a whole number")
        seconds = rule.get("seconds", 5)
        if not isinstance(seconds, int) or isinstance(seconds, bool) or not 0 <= seconds <= 900:
            raise RuleError(f"rule {i}: seconds is a whole number from 0 to 900")
        rules.append({
            "service": service,
            "operation": str(rule.get("operation", "*")),
            "fault": fault,
            "rate": float(rate),
            "times": times,
            "resource": str(rule.get("resource", "")),
            "match": str(rule.get("match", "")),
            "seconds": seconds,
        })
    return rules


def _set(rules, scope=None):
    """Replaces the rules (of `scope` only, when given) and clears their counts."""
    with _lock:
        if scope is None:
            _rules[:] = rules
            _injected.clear()
            return
        for rule in rules:
            rule["resource"] = scope
        _rules[:] = [r for r in _rules if r["resource"] != scope] + rules
        for key in [k for k in _injected if scope in k[3]]:
            del _injected[key]


if os.environ.get("EMULATOR_FAULTS"):
    _set(_parse_rules(json.loads(os.environ["EMULATOR_FAULTS"])))


def _body(environ):
    """The request body, read once and handed back to moto as the same bytes."""
    size = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(size) if size else b""
    environ["wsgi.input"] = io.BytesIO(body)
    return body


def _json(body):
    try:
        value = json.loads(body or b"{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _dynamodb_resources(request):
    names = [request.get("TableName", "")]
    names += list((request.get("RequestItems") or {}).keys())
    for item in request.get("TransactItems") or []:
        if isinstance(item, dict):
            for op in item.values():
                if isinstance(op, dict):
                    names.append(op.get("TableName", ""))
    return [n for n in names if n]


def _call(environ):
    """(service, operation, resource names, body) of a request, or None for one no rule names."""
    target = environ.get("HTTP_X_AMZ_TARGET", "")
    prefix, _, operation = target.partition(".")
    if prefix.startswith("DynamoDB"):
        body = _body(environ)
        return "dynamodb", operation, _dynamodb_resources(_json(body)), body
    if prefix == "AmazonSQS":
        body = _body(environ)
        return "sqs", operation, [_json(body).get("QueueUrl", "")], body
    if prefix == "AWSEvents":
        body = _body(environ)
        request = _json(body)
        buses = [e.get("EventBusName", "default") for e in request.get("Entries") or []
                 if isinstance(e, dict)]
        return "events", operation, buses or [request.get("Name", "")], body
    auth = environ.get("HTTP_AUTHORIZATION", "")
    if "/sns/aws4_request" in auth:
        body = _body(environ)
        form = urllib.parse.parse_qs(body.decode("utf-8", "replace"))
        return "sns", (form.get("Action") or [""])[0], (form.get("TopicArn") or [""]), body
    if "/s3/aws4_request" in auth:
        method = environ.get("REQUEST_METHOD", "")
        parts = environ.get("PATH_INFO", "").lstrip("/").split("/", 1)
        has_key = len(parts) > 1 and parts[1] != ""
        operation = {
            ("PUT", True): "PutObject", ("GET", True): "GetObject", ("HEAD", True): "HeadObject",
            ("DELETE", True): "DeleteObject", ("GET", False): "ListObjectsV2",
            ("POST", False): "DeleteObjects",
        }.get((method, has_key), method)
        return "s3", operation, [parts[0]], None  # the body stays unread in the stream
    return None


def _pick(service, operation, resources, body):
    """The rule that fires for this call, counted, or None."""
    with _lock:
        for rule in _rules:
            if rule["service"] != service or rule["operation"] not in ("*", operation):
                continue
            if rule["resource"] and not any(rule["resource"] in r for r in resources):
                continue
            if rule["match"] and rule["match"].encode() not in (body or b""):
                continue
            if rule["times"] is not None and rule["times"] <= 0:
                continue
            if rule["rate"] < 1 and _random.random() >= rule["rate"]:
                continue
            if rule["times"] is not None:
                rule["times"] -= 1
            resource = next((r for r in resources if not rule["resource"] or rule["resource"] in r), "")
            _injected[(service, operation, rule["fault"], resource)] += 1
            return rule
    return None


def _answer(start_response, status, body, content_type):
    data = body.encode() if isinstance(body, str) else body
    start_response(status, [("Content-Type", content_type), ("Content-Length", str(len(data))),
                            ("x-amzn-RequestId", "fault-injected")])
    return [data]


def _json_error(start_response, status, code, message, extra=None):
    payload = {"__type": code, "message": message}
    payload.update(extra or {})
    return _answer(start_response, status, json.dumps(payload), "application/x-amz-json-1.0")


def _error(start_response, service):
    """A 500 in the service's own shape."""
    if service == "dynamodb":
        return _json_error(start_response, "500 Internal Server Error",
                           "com.amazonaws.dynamodb.v20120810#InternalServerError",
                           "Internal server error (injected)")
    if service in ("sqs", "events"):
        return _json_error(start_response, "500 Internal Server Error", "InternalFailure",
                           "We encountered an internal error. Please try again. (injected)")
    if service == "sns":  # the query protocol's error document
        return _answer(start_response, "500 Internal Server Error",
                       "<ErrorResponse><Error><Type>Receiver</Type><Code>InternalError</Code>"
                       "<Message>Internal error (injected)</Message></Error>"
                       "<RequestId>fault-injected</RequestId></ErrorResponse>", "text/xml")
    return _answer(start_response, "500 Internal Server Error",
                   "<Error><Code>InternalError</Code><Message>We encountered an internal error. "
                   "Please try again. (injected)</Message></Error>", "application/xml")


def _throttle(start_response, operation, body):
    if operation == "TransactWriteItems":
        items = _json(body).get("TransactItems") or []
        reasons = [{"Code": "ThrottlingError",
                    "Message": "Throughput exceeds the current capacity of your table or index."}
                   for _ in items]
        return _json_error(start_response, "400 Bad Request",
                           "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
                           "Transaction cancelled, please refer cancellation reasons for specific "
                           "reasons [" + ", ".join("ThrottlingError" for _ in items) + "]",
                           {"CancellationReasons": reasons})
    return _json_error(start_response, "400 Bad Request",
                       "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                       "The level of configured provisioned throughput for the table was exceeded. "
                       "Consider increasing your provisioning level with the UpdateTable API.")


def _applied(dispatch, environ, body):
    """Runs the call through moto and throws its answer away; returns its status."""
    if body is not None:
        environ["wsgi.input"] = io.BytesIO(body)
    seen = []

    def keep(status, headers, *rest):
        seen.append(status)
        return lambda data: None

    for _ in dispatch(environ, keep):
        pass
    return seen[0] if seen else "500"


def _delayed(environ, body, seconds):
    """The send's environ with every message's DelaySeconds raised to `seconds`."""
    request = _json(body)
    messages = [e for e in request.get("Entries") or [] if isinstance(e, dict)] or [request]
    for message in messages:
        message["DelaySeconds"] = max(int(message.get("DelaySeconds") or 0), seconds)
    data = json.dumps(request).encode()
    environ["wsgi.input"] = io.BytesIO(data)
    environ["CONTENT_LENGTH"] = str(len(data))
    return environ


def _admin(environ, start_response):
    method = environ.get("REQUEST_METHOD")
    query = urllib.parse.parse_qs(environ.get("QUERY_STRING", ""))
    scope = (query.get("resource") or [None])[0]
    if method == "PUT":
        try:
            _set(_parse_rules(json.loads(_body(environ) or b"null")), scope)
        except (ValueError, RuleError) as e:
            return _answer(start_response, "400 Bad Request", json.dumps({"message": str(e)}),
                           "application/json")
    elif method == "DELETE":
        with _lock:
            _rules[:] = [r for r in _rules if scope is not None and r["resource"] != scope]
    with _lock:
        answer = {
            "rules": [dict(r) for r in _rules if scope is None or r["resource"] == scope],
            "injected": [{"service": s, "operation": o, "fault": f, "resource": r, "count": n}
                         for (s, o, f, r), n in sorted(_injected.items())
                         if scope is None or scope in r],
        }
    return _answer(start_response, "200 OK", json.dumps(answer), "application/json")


def dispatch_with_faults(dispatch, environ, start_response):
    """`dispatch(environ, start_response)`, with the fault a rule asks for."""
    if environ.get("PATH_INFO") == PATH:
        return _admin(environ, start_response)
    if not _rules:
        return dispatch(environ, start_response)
    call = _call(environ)
    if call is None:
        return dispatch(environ, start_response)
    service, operation, resources, body = call
    rule = _pick(service, operation, resources, body)
    if rule is None:
        return dispatch(environ, start_response)
    fault = rule["fault"]
    if fault == "throttle":
        return _throttle(start_response, operation, body)
    if fault == "slowdown":
        return _answer(start_response, "503 Slow Down",
                       "<Error><Code>SlowDown</Code><Message>Please reduce your request rate."
                       "</Message></Error>", "application/xml")
    if fault == "lost-reply":
        _applied(dispatch, environ, body)
        return _error(start_response, service)
    if fault == "lost-delete" and operation in ("DeleteMessage", "DeleteMessageBatch"):
        if operation == "DeleteMessage":
            return _answer(start_response, "200 OK", "{}", "application/x-amz-json-1.0")
        entries = _json(body).get("Entries") or []
        successful = [{"Id": e.get("Id")} for e in entries if isinstance(e, dict)]
        return _answer(start_response, "200 OK", json.dumps({"Successful": successful}),
                       "application/x-amz-json-1.0")
    if fault == "duplicate" and operation in ("SendMessage", "SendMessageBatch"):
        _applied(dispatch, environ, body)
        environ["wsgi.input"] = io.BytesIO(body)
        return dispatch(environ, start_response)
    if fault == "delay" and operation in ("SendMessage", "SendMessageBatch"):
        return dispatch(_delayed(environ, body, rule["seconds"]), start_response)
    if fault == "failed-entries" and operation == "PutEvents":
        entries = _json(body).get("Entries") or []
        failed = [{"ErrorCode": "InternalFailure", "ErrorMessage": "injected"} for _ in entries]
        return _answer(start_response, "200 OK",
                       json.dumps({"FailedEntryCount": len(failed), "Entries": failed}),
                       "application/x-amz-json-1.1")
    if fault == "error":
        return _error(start_response, service)
    return dispatch(environ, start_response)  # a fault that does not apply to this call
