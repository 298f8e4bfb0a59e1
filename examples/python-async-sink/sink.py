#!/usr/bin/env python3
"""An asynchronous bulk writer into the document store, in Python (standard library only), after
Flink's AsyncSinkWriter as the Elasticsearch connector uses it, speaking eosim's sink protocol with
its asynchronous calls (docs/sink-protocol.md, "Asynchronous calls").

- records go into a buffer; once BATCH entries are buffered, a batch (up to MAX_BATCH_SIZE entries:
  a backlog after a restore goes out in large requests) goes out as one bulk request with an
  asynchronous call ({"type": "call", "async": true, ...}, answered at once with its handle) while
  fewer than MAX_IN_FLIGHT requests are in flight; its outcome comes later as a "call_done" message;
- a failed request (unavailable, write errors, timeout) or a failed item of a bulk answer
  ("rejected": a partial failure) puts its entries back at the FRONT of the buffer, to be sent again;
- at the barrier, eosim asks "prepare_pre_commit" (Flink's flush(true)): everything buffered goes
  out, and the sink is ready only when nothing is buffered or in flight (eosim waits, delivering
  call_done messages, and asks again after each); pre_commit refuses when anything is left, so a completed
  checkpoint covers every record before its barrier. Nothing is kept in the checkpoint: after a
  restore the job replays from it;
- each record indexes document "k<key>" with external versioning (version = the record's value: a
  key's values grow with the job's output), so a replayed, a zombie's or a late-landing write never
  puts an older value back ("conflict": a newer one is stored: written already). Output: a keyed table;
- a closed (cancelled) instance sends nothing new; its late answers still come and are only accounted.

--no-wait (the buggy twin, examples/python-async-sink-no-wait): prepare_pre_commit sends what fits
and says ready at once, and pre_commit does not look (flush(false) where flush(true) belongs): a
checkpoint completes over requests still in flight, and a crash then loses them.
"""
import collections
import json
import sys

INDEX = "pyasync"
BATCH = 3
MAX_BATCH_SIZE = 100
MAX_IN_FLIGHT = 2
NO_WAIT = "--no-wait" in sys.argv


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)  # eosim closed our stdin: the end
    return json.loads(line)


def call(op, asynchronous=False, **arguments):
    """A call to the document store: its result, or (asynchronous) {"type": "result", "ok": true, "handle": N}."""
    message = dict(type="call", system="documents", op=op, **arguments)
    if asynchronous:
        message["async"] = True
    send(message)
    return receive()


def item(entry):
    key, value = entry
    return {"op": "index", "id": "k%d" % key, "fields": {"key": key, "value": value}, "version": value}


def failed_entries(entries, result):
    """The entries of a bulk request that must be sent again."""
    if not result["ok"]:
        return list(entries)  # the whole request failed (a "timeout" may have applied: a retry conflicts harmlessly)
    return [e for e, i in zip(entries, result["items"]) if not i["ok"] and i["error"] != "conflict"]


class AsyncSink:
    def __init__(self):
        self.buffer = collections.deque()  # (key, value) not yet sent, in order
        self.in_flight = {}  # call handle -> the entries of its request
        self.closed = False

    def send_batches(self, flushing):
        """Sends batches while requests may be added: once BATCH entries are buffered, or (flushing) whatever is buffered."""
        while (not self.closed and self.buffer and len(self.in_flight) < MAX_IN_FLIGHT
               and (flushing or len(self.buffer) >= BATCH)):
            entries = [self.buffer.popleft() for _ in range(min(MAX_BATCH_SIZE, len(self.buffer)))]
            issued = call("bulk", asynchronous=True, index=INDEX, items=[item(e) for e in entries])
            self.in_flight[issued["handle"]] = entries

    def complete(self, handle, result):
        entries = self.in_flight.pop(handle)
        self.buffer.extendleft(reversed(failed_entries(entries, result)))  # at the front, in order
        self.send_batches(False)

    def flushed(self):
        return not self.buffer and not self.in_flight

    def handle(self, message):
        kind = message["type"]
        if kind == "open":
            self.__init__()  # a process may serve a new instance ("reuse"): handles start again
            call("create_index", index=INDEX)
        elif kind == "write":
            self.buffer.extend((r["key"], r["value"]) for r in message["records"])
            self.send_batches(False)
        elif kind == "call_done":
            self.complete(message["handle"], message["result"])
        elif kind == "prepare_pre_commit":
            self.send_batches(True)
            return {"type": "done", "ready": NO_WAIT or self.flushed()}
        elif kind == "pre_commit":
            if not NO_WAIT and not self.flushed():
                return {"type": "fail", "reason": "%d entries buffered, %d requests in flight" % (len(self.buffer), len(self.in_flight))}
            return {"type": "done", "state": ""}
        elif kind == "close":
            self.closed = True
        return {"type": "done"}  # checkpoint_complete, timer: nothing to do


def main():
    send({"type": "hello", "protocol": 1, "systems": ["documents"], "async": True, "reuse": True,
          "output": {"system": "documents", "index": INDEX, "shape": "keyed_table"}})
    sink = AsyncSink()
    while True:
        message = receive()
        answer = sink.handle(message)
        answer["re"] = message["seq"]
        send(answer)


if __name__ == "__main__":
    main()
