#!/usr/bin/env python3
"""An upsert sink into a key-value store, in Python (standard library only), speaking eosim's sink
protocol (docs/sink-protocol.md) on stdin/stdout.

Each record (key, value) sets the row "py:row:<key>" to its value, guarded: only when the stored
value is smaller (a compare-and-set on the value read), as a versioned upsert does. The job's values
per key grow with its output, so a replayed record, a retry after a timeout, or a late write of a
cancelled ("zombie") instance never moves a row back. Records are buffered and sent at once; what
fails stays buffered for the next write, and a pre-commit that cannot send everything fails the
checkpoint (never drops a record). Output: a keyed table (docs/sink-protocol.md, "output").

--unguarded (the buggy twin, examples/python-kv-sink-buggy): a plain SET of each record. A replay
after a restore, or a zombie's late write, sets an older value over a newer one: a row goes back
(the bug class of upserts without a version guard, e.g. JDBC upserts and Elasticsearch index
requests without external versioning when writers overlap).
"""
import json
import sys

PREFIX = "py:row:"
UNGUARDED = "--unguarded" in sys.argv


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)  # eosim closed our stdin: the end
    return json.loads(line)


def call(op, **arguments):
    """One call to the key-value store: {"ok": true, "value": ..., "applied": ...} or {"ok": false, "error": ...}."""
    send(dict(type="call", system="key_values", op=op, **arguments))
    return receive()


def upsert(key, value):
    """Sets the row to `value` unless it holds as much already. Returns the error, or None."""
    if UNGUARDED:
        answer = call("set", key=key, value=value)
        return None if answer["ok"] else answer["error"]
    while True:
        current = call("get", key=key)
        if not current["ok"]:
            return current["error"]
        if current["value"] is not None and current["value"] >= value:
            return None  # written already (a retry whose answer was lost, a replay)
        answer = call("compare_and_set", key=key, expected=current["value"], value=value)
        if not answer["ok"]:
            return answer["error"]  # "timeout" may have applied: the next try reads it
        if answer["applied"]:
            return None
        # another writer changed the row in between: read it again


class UpsertSink:
    def __init__(self):
        self.pending = []  # records not yet known to be written, in order

    def flush(self):
        """Sends what is pending; stops at the first failure (kept for later). Returns the error or None."""
        while self.pending:
            record = self.pending[0]
            error = upsert(PREFIX + str(record["key"]), record["value"])
            if error is not None:
                return error
            self.pending.pop(0)
        return None

    def handle(self, message):
        kind = message["type"]
        if kind == "open":
            self.pending = []
        elif kind == "write":
            self.pending.extend(message["records"])
            self.flush()
        elif kind == "pre_commit":
            error = self.flush()
            if error is not None:
                return {"type": "fail", "reason": "%d record(s) not written (%s)" % (len(self.pending), error)}
            return {"type": "done", "state": ""}
        return {"type": "done"}  # checkpoint_complete, timer, close: nothing to do


def main():
    send({"type": "hello", "protocol": 1, "systems": ["key_values"], "reuse": True,
          "output": {"system": "key_values", "prefix": PREFIX, "shape": "keyed_table"}})
    sink = UpsertSink()
    while True:
        message = receive()
        answer = sink.handle(message)
        answer["re"] = message["seq"]
        send(answer)


if __name__ == "__main__":
    main()
