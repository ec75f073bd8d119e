"""moto's server with DynamoDB writes made atomic.

moto serves requests on several threads and applies a TransactWriteItems (or an UpdateItem's
read-modify-write) without a lock, so two concurrent transactions on one item can both pass
their conditions, or lose an ADD: DynamoDB itself never does that. This wrapper serialises
DynamoDB's item writes and transactions; everything else (SQS long polls included) stays
concurrent.

Usage: python local/emulator.py -H 127.0.0.1 -p PORT   (the same arguments as moto_server)
"""

import functools
import sys
import threading

from moto.dynamodb.models import DynamoDBBackend
from moto.server import main

_WRITES = threading.RLock()


def _serialised(method):
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with _WRITES:
            return method(*args, **kwargs)

    return wrapper


for _name in ("put_item", "update_item", "delete_item", "transact_write_items"):
    setattr(DynamoDBBackend, _name, _serialised(getattr(DynamoDBBackend, _name)))

if __name__ == "__main__":
    sys.exit(main())
