"""What the Python-written drivers' group-consume shares (tests/clients/DRIVERS.md):
its arguments, when to stop, and the answer with its event log.

A driver builds a GroupRun from the command's args, calls its hooks as the client
reports assignments, records and commits, and returns run.result()."""

import os
import time

from driver_common import b64e

COMMIT_MODES = ("sync", "auto", "none")
PROTOCOLS = ("classic", "consumer")


def tp_key(topic, partition):
    return "%s:%d" % (topic, partition)


class GroupRun:
    """The arguments of one group-consume and the log of what happened, in order."""

    def __init__(self, args):
        self.topics = list(args["topics"]) if args.get("topics") else [args["topic"]]
        self.group = args["group"]
        self.max_records = int(args.get("max_records", 1 << 30))
        self.timeout_s = args.get("timeout_ms", 60000) / 1000.0
        self.idle_s = args.get("idle_ms", 3000) / 1000.0
        self.process_s = args.get("process_ms", 0) / 1000.0
        self.max_poll_records = int(args.get("max_poll_records", 500))
        self.commit = args.get("commit", "sync")
        self.start_from = args.get("from", "earliest")
        self.protocol = args.get("protocol", "classic")
        self.assignor = args.get("assignor")
        self.instance_id = args.get("instance_id")
        self.stop_file = args.get("stop_file")
        if self.commit not in COMMIT_MODES:
            raise ValueError("commit must be one of %s" % (COMMIT_MODES,))
        if self.start_from not in ("earliest", "latest"):
            raise ValueError("from must be earliest or latest")
        if self.protocol not in PROTOCOLS:
            raise ValueError("protocol must be one of %s" % (PROTOCOLS,))
        self.deadline = time.monotonic() + self.timeout_s
        self.active_at = None  # the idle clock: last assignment or record; None before any assignment
        self.records, self.assignments, self.events = [], [], []
        self.committed = {}
        self.owned = set()
        self.error = None
        self.closing = False  # callbacks while leaving the group are not logged

    # -- stopping

    def left(self):
        """Records still wanted."""
        return self.max_records - len(self.records)

    def should_stop(self, consumed=None):
        """consumed: records taken so far, when they are not (yet) in self.records."""
        now = time.monotonic()
        left = self.left() if consumed is None else self.max_records - consumed
        return (left <= 0 or now >= self.deadline
                or (self.active_at is not None and now - self.active_at >= self.idle_s)
                or (self.stop_file is not None and os.path.exists(self.stop_file)))

    def poll_timeout_s(self):
        return max(0.0, min(0.2, self.deadline - time.monotonic()))

    # -- hooks

    def assigned(self, partitions, incremental):
        """partitions: (topic, partition) pairs assigned; incremental adds them to what is
        owned, eager replaces it. Logs the full assignment."""
        self.owned = (self.owned | set(partitions)) if incremental else set(partitions)
        self._log_assignment()

    def revoked(self, partitions, incremental):
        """An incremental revocation changes the assignment (logged); an eager one is
        followed by the next assignment, which is logged then."""
        self.owned -= set(partitions)
        if incremental and partitions:
            self._log_assignment()

    def lost(self, partitions):
        self.owned -= set(partitions)
        if self.closing:
            return
        self.events.append(["lost", sorted([t, p] for t, p in partitions)])

    def _log_assignment(self):
        if self.closing:
            return
        now = sorted([t, p] for t, p in self.owned)
        self.assignments.append(now)
        self.events.append(["assign", [list(x) for x in now]])
        self.active_at = time.monotonic()

    def polled(self, batch):
        """batch: (topic, partition, offset, key bytes, value bytes) of one poll, all
        processed. Returns {(topic, partition): next offset} to commit."""
        nxt = {}
        for topic, partition, offset, key, value in batch:
            self.records.append({"topic": topic, "partition": partition, "offset": offset,
                                 "key": b64e(key), "value": b64e(value)})
            nxt[(topic, partition)] = offset + 1
        if batch:
            self.events.append(["poll", len(batch)])
            self.active_at = time.monotonic()
            if self.process_s > 0:
                time.sleep(self.process_s)
        return nxt

    def commit_result(self, offsets, error):
        """offsets: {(topic, partition): next offset} sent in one synchronous commit;
        error: Kafka's error name or None."""
        logged = {tp_key(t, p): o for (t, p), o in sorted(offsets.items())}
        if error is None:
            self.committed.update(logged)
        self.events.append(["commit", logged, error])

    def result(self):
        out = {"records": self.records, "assignments": self.assignments, "committed": self.committed,
               "events": self.events}
        if self.error is not None:
            out["error"] = self.error
        return out
