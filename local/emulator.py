"""moto's server with DynamoDB writes made atomic.

moto serves requests on several threads and applies a TransactWriteItems (or an UpdateItem's
read-modify-write) without a lock, so two concurrent transactions on one item can both pass
their conditions, or lose an ADD: DynamoDB itself never does that. moto also applies a transaction's writes one by one and
undoes them when one fails, so a concurrent read could see half a transaction. This wrapper
serialises DynamoDB's item writes, transactions and reads other than Scan (a read sees a
transaction whole or not at all, as in DynamoDB); everything else (SQS long polls included)
stays concurrent.

moto also backs a transaction up by deep-copying every table it touches, so each transaction
costs time in the size of its tables (100-item transactions took over 12 s on a search index
of a few hundred posts). Here a transaction backs up only the items it names and puts them
back when it is cancelled: the same outcome, in time of the transaction's size.

moto ignores TransactWriteItems' ClientRequestToken; DynamoDB answers a repeated token (within
10 minutes) with success without writing again, which makes a retry after a timeout safe. Here
too: a token whose transaction succeeded is remembered for 10 minutes.

moto's Query on a table (not an index) reads and sorts every item of the table to pick the
partition's, so each Query costs time in the table's size (about 10 s at 700,000 items).
Here it reads only the partition, as DynamoDB does.

SQS takes a message's `AWSTraceHeader` system attribute from the sender's `X-Amzn-Trace-Id`
header, as AWS does (the SDK sends it inside a traced Lambda invocation); moto only from an
explicit MessageSystemAttributes.

With EMULATOR_COUNT_REQUESTS=1 it also counts the requests it answers, by client, service,
operation, (for SQS) queue and outcome, for benchmarks that measure calls rather than assert
them (local/bench-ingest): `GET /_emulator/requests` answers the counts as a JSON list of
`{client, service, operation, queue, failed, count, entries}` (`failed`: answered 4xx or 5xx;
`entries`: the messages of SQS batch calls), `DELETE /_emulator/requests` clears them. The
client is `functions` for the functions' calls (their User-Agent names the app
`platform-function`) and `sdk` for the other SDK clients (the local stack's queue pollers and
provisioning, tests and benches).

Key heat: `PUT /_emulator/keyheat?prefix=P` starts accounting, for tables whose names start
with P, the capacity units DynamoDB would charge each partition (base table and every global
index), as DynamoDB meters them: a read ceil(bytes / 4 KB) read units per GetItem item, per
Query page (the items read before any filter, projected for an index), halved unless
strongly consistent; a write ceil(bytes / 1 KB) write units of the larger of the item before
and after (a failed condition still pays), doubled inside TransactWriteItems, where a
ConditionCheck pays as a write; an index pays for the projected item it stores, and for the
projected item it drops when the item leaves the index or moves to another index key.
`GET /_emulator/keyheat?prefix=P` answers `[{table, index, key, readUnits, writeUnits, reads,
writes}]` (index "" is the table; key is the partition key's value), `DELETE` clears them and
stops. local/bench-keyheat reads them.

Faults on demand (throttling, 500s, lost replies, SQS messages delivered twice, S3 SlowDown,
failed EventBridge entries), off until asked: see local/emulator_faults.py.

Usage: python local/emulator.py -H 127.0.0.1 -p PORT   (the same arguments as moto_server)
"""

import collections
import copy
import functools
import inspect
import io
import json
import logging
import os
import selectors
import sys
import threading
import time

import moto.core.responses as moto_responses
import moto.dynamodb.models as dynamodb_models
from moto.sqs.models import SQSBackend
from moto.sqs.responses import SQSResponse
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.table import Table
from moto.dynamodb.responses import DynamoHandler
from moto.moto_server.werkzeug_app import DomainDispatcherApplication
from moto.server import main
from werkzeug import serving as werkzeug_serving

import emulator_faults  # beside this file

_WRITES = threading.RLock()


def _serialised(method):
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with _WRITES:
            return method(*args, **kwargs)

    return wrapper


class _NoTableCopies:
    """moto's `copy` module, except that a table is not copied (transactions back up items)."""

    def __getattr__(self, name):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value, memo=None):
        return value if isinstance(value, Table) else copy.deepcopy(value, memo)


dynamodb_models.copy = _NoTableCopies()
_transact_write_items = DynamoDBBackend.transact_write_items


def _item_key(backend, op_type, op):
    """The (table, key) an operation of a transaction names, or None when moto will refuse it."""
    table = backend.tables.get(op.get("TableName"))
    if table is None:
        return None
    if op_type == "Put":
        attrs = op.get("Item") or {}
        key = {table.hash_key_attr: attrs.get(table.hash_key_attr)}
        if table.range_key_attr is not None:
            key[table.range_key_attr] = attrs.get(table.range_key_attr)
    else:
        key = op.get("Key")
    if not key or any(value is None for value in key.values()):
        return None
    return table, key


def _transact_with_item_backups(self, transact_items):
    backups = []
    for item in transact_items[:100]:
        op_type, op = next(iter(item.items()))
        named = _item_key(self, op_type, op) if isinstance(op, dict) else None
        if named is None:
            continue
        table, key = named
        try:
            hash_value, range_value = self.get_keys_value(table, key)
        except Exception:  # moto refuses the transaction itself, before any write
            continue
        current = table.get_item(hash_value, range_value)
        saved = copy.deepcopy(current.to_json()["Attributes"]) if current else None
        backups.append((table, hash_value, range_value, saved))
    try:
        _transact_write_items(self, transact_items)
    except Exception:
        for table, hash_value, range_value, saved in reversed(backups):
            if saved is not None:
                table.put_item(saved)  # replaces in place: the item is never missing
            elif table.get_item(hash_value, range_value) is not None:
                table.delete_item(hash_value, range_value)
        raise


DynamoDBBackend.transact_write_items = _transact_with_item_backups

for _name in ("put_item", "update_item", "delete_item", "transact_write_items"):
    setattr(DynamoDBBackend, _name, _serialised(getattr(DynamoDBBackend, _name)))

# Reads hold the same lock through their answer's serialisation: moto updates items in place.
# Not Scan: the tests' whole-table reads would hold every writer up; they read a quiet table.
for _name in ("get_item", "batch_get_item", "transact_get_items", "query"):
    setattr(DynamoHandler, _name, _serialised(getattr(DynamoHandler, _name)))

_TOKEN_SECONDS = 600
# ClientRequestToken -> (monotonic time, the answer), oldest first: expiry pops from the front.
_succeeded = collections.OrderedDict()
_handle_transaction = DynamoHandler.transact_write_items


def _idempotent_transaction(self):
    token = self.body.get("ClientRequestToken")
    if not token:
        return _handle_transaction(self)
    with _WRITES:
        now = time.monotonic()
        while _succeeded and now - next(iter(_succeeded.values()))[0] > _TOKEN_SECONDS:
            _succeeded.popitem(last=False)
        if token in _succeeded:
            return _succeeded[token][1]
        answer = _handle_transaction(self)
        _succeeded[token] = (now, answer)
        return answer


DynamoHandler.transact_write_items = _idempotent_transaction

# The partition a Query of this thread reads (table, hash key), while moto's query runs.
_PARTITION = threading.local()
_all_items = Table.all_items
_query = Table.query


def _partition_items(self):
    only = getattr(_PARTITION, "key", None)
    if only is not None and only[0] is self:
        bucket = self.items.get(only[1])
        if bucket is None:
            return []
        return list(bucket.values()) if self.range_key_attr else [bucket]
    return _all_items(self)


def _query_one_partition(self, hash_key, *args, **kwargs):
    # The eighth argument (or `index_name`) names an index; an index's Query stays moto's.
    index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
    if index_name or hash_key is None:
        return _query(self, hash_key, *args, **kwargs)
    _PARTITION.key = (self, hash_key)
    try:
        return _query(self, hash_key, *args, **kwargs)
    finally:
        _PARTITION.key = None


Table.all_items = _partition_items
Table.query = _query_one_partition


# ---- key heat (see the module's docstring) ---------------------------------------------------

_HEAT_PATH = "/_emulator/keyheat"
_heat_prefixes = set()
_heat = {}  # (table, index, key) -> [read units, write units, reads, writes]
_heat_lock = threading.Lock()
# The DynamoDB operation this thread answers and its body: reads are metered by operation.
_REQUEST = threading.local()


def _metered(table_name):
    return any(table_name.startswith(p) for p in _heat_prefixes)


def _charge(table_name, index, key, read=0.0, write=0.0):
    with _heat_lock:
        row = _heat.setdefault((table_name, index, str(key)), [0.0, 0.0, 0, 0])
        row[0] += read
        row[1] += write
        row[2] += 1 if read else 0
        row[3] += 1 if write else 0


def _units(size, per):
    return max(1, -(-size // per))


def _hash_value(item, attr):
    value = item.attrs.get(attr) if item is not None else None
    return None if value is None else value.value


def _index_image(index, item):
    """(partition value, sort value, projected size) of `item` in `index`, or None."""
    if item is None:
        return None
    names = [k["AttributeName"] for k in index.schema]
    values = [item.attrs.get(name) for name in names]
    if any(v is None for v in values):
        return None
    projected = index.project(item)
    return (values[0].value, tuple(str(v.value) for v in values[1:]), projected.size(),
            projected.to_json())


def _charge_write(table, before, after, transactional):
    """One item write of `table`, from image `before` to `after` (None: absent)."""
    factor = 2 if transactional else 1
    size = max(before.size() if before else 0, after.size() if after else 0)
    item = after if after is not None else before
    key = _hash_value(item, table.hash_key_attr) if item is not None else None
    _charge(table.name, "", key, write=factor * _units(size, 1024))
    for index in table.global_indexes:
        old = _index_image(index, before)
        new = _index_image(index, after)
        if old is not None and (new is None or old[:2] != new[:2]):
            _charge(table.name, index.name, old[0], write=factor * _units(old[2], 1024))
        if new is not None and (old is None or old[:2] != new[:2] or old[3] != new[3]):
            _charge(table.name, index.name, new[0], write=factor * _units(new[2], 1024))


def _current(backend, table_name, key):
    table = backend.tables.get(table_name)
    if table is None:
        return None, None
    try:
        hash_value, range_value = backend.get_keys_value(table, key)
    except Exception:
        return table, None
    item = table.get_item(hash_value, range_value)
    return table, (copy.deepcopy(item) if item is not None else None)


def _key_of(table, attrs):
    key = {table.hash_key_attr: attrs.get(table.hash_key_attr)}
    if table.range_key_attr is not None:
        key[table.range_key_attr] = attrs.get(table.range_key_attr)
    return key


def _metering_write(method, key_of):
    @functools.wraps(method)
    def wrapper(self, table_name, *args, **kwargs):
        if not _metered(table_name):
            return method(self, table_name, *args, **kwargs)
        table = self.tables.get(table_name)
        key = key_of(table, args[0] if args else None) if table is not None else None
        before = _current(self, table_name, key)[1] if key else None
        transactional = getattr(_REQUEST, "operation", "") == "TransactWriteItems"
        try:
            answer = method(self, table_name, *args, **kwargs)
        except Exception:
            if table is not None:
                # A refused write still pays for the item it read.
                _charge_write(table, before, before, transactional)
            raise
        after = _current(self, table_name, key)[1] if key else None
        _charge_write(table, before, after, transactional)
        return answer

    return wrapper


# Inside the writers' lock (re-entrant), so the images before and after are the write's own.
DynamoDBBackend.put_item = _serialised(_metering_write(
    DynamoDBBackend.put_item, lambda table, attrs: _key_of(table, attrs or {})))
DynamoDBBackend.update_item = _serialised(
    _metering_write(DynamoDBBackend.update_item, lambda _t, key: key))
DynamoDBBackend.delete_item = _serialised(
    _metering_write(DynamoDBBackend.delete_item, lambda _t, key: key))

_transact_unmetered = DynamoDBBackend.transact_write_items


def _transact_metered(self, transact_items):
    for entry in transact_items[:100]:
        op_type, op = next(iter(entry.items()))
        if op_type != "ConditionCheck" or not _metered(op.get("TableName", "")):
            continue
        table, item = _current(self, op["TableName"], op.get("Key") or {})
        if table is not None:
            key = _hash_value(item, table.hash_key_attr) if item else None
            if key is None:
                key = DynamoType_value(op.get("Key", {}).get(table.hash_key_attr))
            _charge(table.name, "", key, write=2 * _units(item.size() if item else 0, 1024))
    return _transact_unmetered(self, transact_items)


def DynamoType_value(attribute):
    """The value of a key attribute in the wire form (`{"S": "x"}`)."""
    if not attribute:
        return None
    return next(iter(attribute.values()))


DynamoDBBackend.transact_write_items = _serialised(_transact_metered)

_backend_get_item = DynamoDBBackend.get_item


def _metering_get_item(self, table_name, keys, *args, **kwargs):
    item = _backend_get_item(self, table_name, keys, *args, **kwargs)
    operation = getattr(_REQUEST, "operation", "")
    if operation in ("GetItem", "BatchGetItem", "TransactGetItems") and _metered(table_name):
        table = self.tables.get(table_name)
        body = getattr(_REQUEST, "body", {}) or {}
        if operation == "GetItem":
            consistent = bool(body.get("ConsistentRead"))
        elif operation == "BatchGetItem":
            consistent = bool(((body.get("RequestItems") or {}).get(table_name) or {})
                              .get("ConsistentRead"))
        else:
            consistent = True  # a transactional read pays double: two halves
        stored = _current(self, table_name, keys)[1]  # the whole item, whatever is projected
        size = stored.size() if stored else 0
        units = _units(size, 4096) * (1.0 if consistent else 0.5)
        if operation == "TransactGetItems":
            units *= 2
        _charge(table_name, "", DynamoType_value(keys.get(table.hash_key_attr)) if table else None,
                read=units)
    return item


DynamoDBBackend.get_item = _metering_get_item

_table_query = Table.query
_QUERY_SIGNATURE = inspect.signature(_query)  # moto's own: the partition read takes the same


def _metering_query(self, *args, **kwargs):
    if not _metered(self.name):
        return _table_query(self, *args, **kwargs)
    bound = _QUERY_SIGNATURE.bind(self, *args, **kwargs)
    arguments = bound.arguments
    extra = arguments.pop("filter_kwargs", {}) or {}
    filter_expression = arguments.get("filter_expression")
    projection = arguments.get("projection_expressions")
    arguments["filter_expression"] = None
    arguments["projection_expressions"] = None
    results, scanned, last = _table_query(**arguments, **extra)
    size = sum(r.size() for r in results)  # read before the filter, as DynamoDB bills
    index = arguments.get("index_name") or ""
    consistent = bool(arguments.get("consistent_read"))
    hash_key = arguments.get("hash_key")
    _charge(self.name, index, hash_key.value if hash_key is not None else None,
            read=_units(size, 4096) * (1.0 if consistent else 0.5))
    if filter_expression is not None:
        results = [item for item in results if filter_expression.expr(item)]
    if projection:
        results = [item.project(projection) for item in results]
    return results, scanned, last


Table.query = _metering_query


# The X-Amzn-Trace-Id of the SQS request this thread answers.
_TRACE = threading.local()
_sqs_call_action = SQSResponse.call_action
_sqs_send = SQSBackend.send_message
_sqs_send_batch = SQSBackend.send_message_batch


def _traced_call_action(self):
    _TRACE.header = (self.headers or {}).get("X-Amzn-Trace-Id")
    try:
        return _sqs_call_action(self)
    finally:
        _TRACE.header = None


def _trace(message):
    header = getattr(_TRACE, "header", None)
    if header and not (message.system_attributes or {}).get("AWSTraceHeader"):
        message.system_attributes = dict(message.system_attributes or {})
        message.system_attributes["AWSTraceHeader"] = {
            "DataType": "String",
            "StringValue": header,
        }
    return message


def _traced_send(self, *args, **kwargs):
    return _trace(_sqs_send(self, *args, **kwargs))


def _traced_send_batch(self, *args, **kwargs):
    messages, failed = _sqs_send_batch(self, *args, **kwargs)
    return [_trace(m) for m in messages], failed


SQSResponse.call_action = _traced_call_action
SQSBackend.send_message = _traced_send
SQSBackend.send_message_batch = _traced_send_batch


_COUNTS_PATH = "/_emulator/requests"
_counts = collections.Counter()
_entries = collections.Counter()
_counts_lock = threading.Lock()
_dispatch = DomainDispatcherApplication.__call__


def _request_key(environ):
    """(client, service, operation, queue) of one request and its SQS batch entries."""
    agent = environ.get("HTTP_USER_AGENT", "")
    if "app/platform-function" in agent:  # platform::aws::APP_NAME
        client = "functions"
    elif "aws-sdk" in agent:
        client = "sdk"
    else:
        client = agent.split("/")[0] or "unknown"
    target = environ.get("HTTP_X_AMZ_TARGET", "")
    queue, entries = "", 0
    if target:
        prefix, _, operation = target.partition(".")
        service = "sqs" if prefix == "AmazonSQS" else ("dynamodb" if prefix.startswith("DynamoDB") else prefix)
    else:
        first = (environ.get("PATH_INFO", "").split("/") + ["", ""])[1]
        operation = f"{environ.get('REQUEST_METHOD', '')} /{first}"
        service = "other"
    if service == "sqs":
        # The queue is in the JSON body: read it, and hand moto the same bytes again.
        size = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(size) if size else b""
        environ["wsgi.input"] = io.BytesIO(body)
        try:
            parsed = json.loads(body or b"{}")
            queue = parsed.get("QueueUrl", "").rsplit("/", 1)[-1]
            entries = len(parsed.get("Entries") or [])
        except (ValueError, AttributeError):
            pass
    return (client, service, operation, queue), entries


def _counting_dispatch(self, environ, start_response):
    if environ.get("PATH_INFO") == _COUNTS_PATH:
        with _counts_lock:
            if environ.get("REQUEST_METHOD") == "DELETE":
                _counts.clear()
                _entries.clear()
            rows = [
                {"client": c, "service": s, "operation": o, "queue": q, "failed": f,
                 "count": n, "entries": _entries[(c, s, o, q, f)]}
                for (c, s, o, q, f), n in sorted(_counts.items())
            ]
        body = json.dumps(rows).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]
    key, entries = _request_key(environ)

    def counted(status, headers, *rest):
        failed = not status.startswith(("2", "3"))
        with _counts_lock:
            _counts[key + (failed,)] += 1
            _entries[key + (failed,)] += entries
        return start_response(status, headers, *rest)

    return _dispatch(self, environ, counted)


if os.environ.get("EMULATOR_COUNT_REQUESTS") == "1":
    DomainDispatcherApplication.__call__ = _counting_dispatch

_dispatch_counted = DomainDispatcherApplication.__call__


def _answer_json(start_response, rows):
    body = json.dumps(rows).encode()
    start_response("200 OK", [("Content-Type", "application/json"),
                              ("Content-Length", str(len(body)))])
    return [body]


def _key_heat_dispatch(self, environ, start_response):
    """Answers /_emulator/keyheat; notes the DynamoDB operation (and body) a request makes."""
    if environ.get("PATH_INFO") == _HEAT_PATH:
        query = dict(p.split("=", 1) for p in environ.get("QUERY_STRING", "").split("&") if "=" in p)
        prefix = query.get("prefix", "")
        if not prefix:
            start_response("400 Bad Request", [("Content-Length", "0")])
            return [b""]
        method = environ.get("REQUEST_METHOD")
        with _heat_lock:
            if method == "PUT":
                _heat_prefixes.add(prefix)
            rows = [
                {"table": table, "index": index, "key": key, "readUnits": r, "writeUnits": w,
                 "reads": nr, "writes": nw}
                for (table, index, key), (r, w, nr, nw) in sorted(_heat.items())
                if table.startswith(prefix)
            ]
            if method == "DELETE":
                for row in [k for k in _heat if k[0].startswith(prefix)]:
                    del _heat[row]
                _heat_prefixes.discard(prefix)
        return _answer_json(start_response, rows if method == "GET" else [])
    target = environ.get("HTTP_X_AMZ_TARGET", "")
    operation = target.partition(".")[2] if target.startswith("DynamoDB") else ""
    _REQUEST.operation = operation
    _REQUEST.body = None
    if _heat_prefixes and operation in ("GetItem", "BatchGetItem"):
        size = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(size) if size else b""
        environ["wsgi.input"] = io.BytesIO(body)
        try:
            _REQUEST.body = json.loads(body or b"{}")
        except ValueError:
            pass
    try:
        return _dispatch_counted(self, environ, start_response)
    finally:
        _REQUEST.operation = ""


DomainDispatcherApplication.__call__ = _key_heat_dispatch


# ---- per-request overhead ----------------------------------------------------------------------
# moto finds a request's service by listing its package directories and matching every service's
# URL patterns, under one lock, on every request (a tenth of its time under the tests); the answer
# for a host never changes, so it is kept.
_backend_for_host = DomainDispatcherApplication.get_backend_for_host
_backends = {}


def _cached_backend_for_host(self, host):
    if host not in _backends:
        _backends[host] = _backend_for_host(self, host)
    return _backends[host]


DomainDispatcherApplication.get_backend_for_host = _cached_backend_for_host

# moto lists a handler class's methods (inspect.getmembers) on every request to find the
# action's, and converts the action's name each time: both depend on the class or the name
# alone, so they are worked out once.
moto_responses.method_names_from_class = functools.lru_cache(maxsize=None)(
    moto_responses.method_names_from_class)
moto_responses.camelcase_to_underscores = functools.lru_cache(maxsize=4096)(
    moto_responses.camelcase_to_underscores)


# ---- connections kept alive ------------------------------------------------------------------
# werkzeug answers every request with `Connection: close` (an unread request body would be taken
# for the next request line), so each SDK call paid a TCP connection, a new thread and its
# teardown: a third of the emulator's time under the tests. Here the body is read to its end
# after each request, and a connection is kept when that was possible.
class _CountingInput(io.RawIOBase):
    """The request body as the application reads it, counting what is left of Content-Length."""

    def __init__(self, raw, length):
        self._raw, self.left = raw, length

    def readable(self):
        return True

    def readinto(self, buffer):
        if self.left <= 0:
            return 0
        view = memoryview(buffer)[: self.left]
        n = self._raw.readinto(view)
        self.left -= n or 0
        return n

    def drain(self):
        while self.left > 0:
            chunk = self._raw.read(min(self.left, 65536))
            if not chunk:
                return False
            self.left -= len(chunk)
        return True


_make_environ = werkzeug_serving.WSGIRequestHandler.make_environ
_run_wsgi = werkzeug_serving.WSGIRequestHandler.run_wsgi
_send_header = werkzeug_serving.WSGIRequestHandler.send_header


def _make_environ_counted(self):
    environ = _make_environ(self)
    self._body = None
    length = environ.get("CONTENT_LENGTH") or ""
    if self.request_version == "HTTP/1.1" and not environ.get("wsgi.input_terminated"):
        if length.isdigit():
            self._body = _CountingInput(environ["wsgi.input"], int(length))
            environ["wsgi.input"] = io.BufferedReader(self._body)
        elif self.command in ("GET", "HEAD", "DELETE", "OPTIONS"):
            self._body = _CountingInput(environ["wsgi.input"], 0)
    return environ


def _keeps_alive(self):
    return getattr(self, "_body", None) is not None and \
        self.headers.get("Connection", "").lower() != "close"


def _send_header_kept(self, keyword, value):
    if keyword.lower() == "connection" and value.lower() == "close" and _keeps_alive(self):
        value = "keep-alive"
    _send_header(self, keyword, value)


class _Selectors:
    """werkzeug.serving's `selectors`, whose selector finds nothing to read on a kept connection:
    after each answer werkzeug reads whatever the socket holds, which on a kept connection is the
    next request (it would wait for 10 MB of it)."""

    EVENT_READ = selectors.EVENT_READ
    kept = threading.local()

    class DefaultSelector(selectors.DefaultSelector):
        def select(self, timeout=None):
            handler = getattr(_Selectors.kept, "handler", None)
            if handler is not None and not handler.close_connection:
                return []
            return super().select(timeout)


werkzeug_serving.selectors = _Selectors


def _run_wsgi_drained(self):
    _Selectors.kept.handler = self
    try:
        _run_wsgi(self)
    finally:
        _Selectors.kept.handler = None
    body = getattr(self, "_body", None)
    if body is not None and not self.close_connection:
        try:
            if not body.drain():
                self.close_connection = True
        except OSError:
            self.close_connection = True
    self._body = None


werkzeug_serving.WSGIRequestHandler.make_environ = _make_environ_counted
werkzeug_serving.WSGIRequestHandler.send_header = _send_header_kept
werkzeug_serving.WSGIRequestHandler.run_wsgi = _run_wsgi_drained
# Headers and body go out as two writes: without TCP_NODELAY the body of a kept connection waits
# for the client's delayed ACK (40 ms a call).
werkzeug_serving.WSGIRequestHandler.disable_nagle_algorithm = True
# An idle kept connection ends after this (the SDKs drop theirs sooner), freeing its thread.
werkzeug_serving.WSGIRequestHandler.timeout = 300


# ---- faults on demand (local/emulator_faults.py) ----------------------------------------------
_dispatch_faultless = DomainDispatcherApplication.__call__


def _faulty_dispatch(self, environ, start_response):
    return emulator_faults.dispatch_with_faults(
        functools.partial(_dispatch_faultless, self), environ, start_response)


DomainDispatcherApplication.__call__ = _faulty_dispatch
# One log line per request cost another 7% (and filled the log); errors are still logged.
logging.getLogger("werkzeug").setLevel(logging.WARNING)

if __name__ == "__main__":
    sys.exit(main())
