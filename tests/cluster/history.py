"""A history checker for a Kafka-compatible broker under faults: record every
produce acknowledgement and every record read, then check the invariants
mechanically. It knows nothing of ketch: point it at any broker.

What is recorded (History):
- sent(producer, key, value): a produce was attempted (acknowledged or not);
- acked(producer, topic, partition, offset, key, value): the broker
  acknowledged it at that offset;
- read_back(topic, partition, records): the partition read from the start
  after the run, [(offset, key, value)] in delivery order;
- delivered(consumer, topic, partition, offset, key, value): what a consumer
  of a group got during the run (optional);
- committed(consumer, topic, partition, offset): a consumer of the group had
  this offset commit acknowledged (optional; in order with the deliveries);
- assigned(consumer, topic, partition, offset): a consumer was given the
  partition and the group's committed offset read then (OffsetFetch; -1
  none) (optional).

check() returns the violations (empty: the history holds):
1. the read-back of each partition is in offset order, each offset once,
   contiguous from its first offset (no gap, no repeat, no reordering);
2. every acknowledged record is in the read-back exactly once, at the offset
   it was acknowledged at, with its key and value (zero lost);
3. no two acknowledgements claim one offset, and no record (value) was
   acknowledged twice (zero duplicated by retries);
4. every record in the read-back was sent (nothing invented, nothing
   corrupted); records sent but never acknowledged may or may not be there;
   each record is there at most once (an unacknowledged retry did not
   duplicate it);
5. each producer's acknowledged records of a partition have increasing
   offsets in the order it sent them (produce order kept);
6. every record a group consumer got is the read-back's record at that
   offset; once all of them were read, every acknowledged record was
   delivered to the group at least once (at-least-once, no committed gap);
7. every acknowledged offset commit of a partition covers only records the
   group had been delivered before it (no committed gap), and no record
   below a partition's committed offset is delivered again after that
   commit (no duplicate beyond at-least-once redelivery), and the committed
   offset a consumer reads when given a partition is not below one already
   acknowledged (a stale offset fetch).

Values must be unique across the run (they identify records).

    python history.py HISTORY.jsonl   checks a history written by History.dump
"""

import json
import sys
from collections import defaultdict


class History:
    def __init__(self):
        self.sends = []       # (producer, key, value) in send order
        self.acks = []        # (producer, topic, partition, offset, key, value)
        self.reads = {}       # (topic, partition) -> [(offset, key, value)]
        self.deliveries = []  # (consumer, topic, partition, offset, key, value)
        self.events = []      # deliveries and commits in the order they happened

    def sent(self, producer, key, value):
        self.sends.append((producer, key, value))

    def acked(self, producer, topic, partition, offset, key, value):
        self.acks.append((producer, topic, partition, offset, key, value))

    def read_back(self, topic, partition, records):
        self.reads[(topic, partition)] = list(records)

    def delivered(self, consumer, topic, partition, offset, key, value):
        self.deliveries.append((consumer, topic, partition, offset, key, value))
        self.events.append(("delivered", consumer, topic, partition, offset, key, value))

    def committed(self, consumer, topic, partition, offset):
        self.events.append(("committed", consumer, topic, partition, offset, None, None))

    def assigned(self, consumer, topic, partition, offset):
        self.events.append(("assigned", consumer, topic, partition, offset, None, None))

    def dump(self, path):
        enc = lambda b: None if b is None else b.hex()  # noqa: E731
        with open(path, "w") as f:
            for p, k, v in self.sends:
                f.write(json.dumps({"t": "sent", "producer": p, "key": enc(k), "value": enc(v)}) + "\n")
            for p, t, q, o, k, v in self.acks:
                f.write(json.dumps({"t": "acked", "producer": p, "topic": t, "partition": q, "offset": o,
                                    "key": enc(k), "value": enc(v)}) + "\n")
            for (t, q), recs in self.reads.items():
                f.write(json.dumps({"t": "read", "topic": t, "partition": q,
                                    "records": [[o, enc(k), enc(v)] for o, k, v in recs]}) + "\n")
            for kind, c, t, q, o, k, v in self.events:
                if kind != "delivered":
                    f.write(json.dumps({"t": kind, "consumer": c, "topic": t, "partition": q,
                                        "offset": o}) + "\n")
                    continue
                f.write(json.dumps({"t": "delivered", "consumer": c, "topic": t, "partition": q, "offset": o,
                                    "key": enc(k), "value": enc(v)}) + "\n")

    @classmethod
    def load(cls, path):
        dec = lambda s: None if s is None else bytes.fromhex(s)  # noqa: E731
        h = cls()
        with open(path) as f:
            for line in f:
                e = json.loads(line)
                if e["t"] == "sent":
                    h.sent(e["producer"], dec(e["key"]), dec(e["value"]))
                elif e["t"] == "acked":
                    h.acked(e["producer"], e["topic"], e["partition"], e["offset"], dec(e["key"]), dec(e["value"]))
                elif e["t"] == "read":
                    h.read_back(e["topic"], e["partition"], [(o, dec(k), dec(v)) for o, k, v in e["records"]])
                elif e["t"] == "delivered":
                    h.delivered(e["consumer"], e["topic"], e["partition"], e["offset"], dec(e["key"]), dec(e["value"]))
                elif e["t"] in ("committed", "assigned"):
                    getattr(h, e["t"])(e["consumer"], e["topic"], e["partition"], e["offset"])
        return h

    def check(self, limit=20):
        """The violations found (at most `limit` of each kind), as text."""
        out = defaultdict(list)

        def bad(kind, msg):
            if len(out[kind]) < limit:
                out[kind].append(msg)

        # 1. read-back order and contiguity
        at = {}  # (topic, partition, offset) -> (key, value)
        where = defaultdict(list)  # value -> [(topic, partition, offset)]
        for (t, p), recs in sorted(self.reads.items()):
            offs = [o for o, _, _ in recs]
            if offs and offs != list(range(offs[0], offs[0] + len(offs))):
                bad("order", "%s-%d: offsets not contiguous and increasing (first %d, %d records, last %d)"
                    % (t, p, offs[0], len(offs), offs[-1]))
            for o, k, v in recs:
                at[(t, p, o)] = (k, v)
                where[v].append((t, p, o))
        # 2, 3. acknowledgements
        claimed = {}
        acked_values = {}
        for prod, t, p, o, k, v in self.acks:
            if (t, p, o) in claimed and claimed[(t, p, o)] != v:
                bad("duplicate", "%s-%d@%d acknowledged for two records" % (t, p, o))
            claimed[(t, p, o)] = v
            if v in acked_values and acked_values[v] != (t, p, o):
                bad("duplicate", "record %r acknowledged twice (%s and %s)" % (v, acked_values[v], (t, p, o)))
            acked_values[v] = (t, p, o)
            if (t, p) not in self.reads:
                bad("lost", "%s-%d was never read back" % (t, p))
            elif at.get((t, p, o)) != (k, v):
                bad("lost", "%s-%d@%d acknowledged %r, read back %r" % (t, p, o, v, at.get((t, p, o))))
        # 4. nothing read that was not sent; nothing twice
        sent_values = {v for _, _, v in self.sends}
        for v, places in where.items():
            if v not in sent_values:
                bad("invented", "read back %r at %s, never sent" % (v, places[0]))
            if len(places) > 1:
                bad("duplicate", "record %r read back %d times: %s" % (v, len(places), places[:3]))
        # 5. produce order per producer and partition
        send_index = {v: i for i, (_, _, v) in enumerate(self.sends)}
        per = defaultdict(list)
        for prod, t, p, o, k, v in self.acks:
            per[(prod, t, p)].append((send_index.get(v, -1), o, v))
        for (prod, t, p), items in per.items():
            items.sort()
            offs = [o for _, o, _ in items]
            if offs != sorted(offs):
                i = next(i for i in range(1, len(offs)) if offs[i] < offs[i - 1])
                bad("reordered", "%s: %s-%d: %r sent after %r but written before it (%d < %d)"
                    % (prod, t, p, items[i][2], items[i - 1][2], offs[i], offs[i - 1]))
        # 6. group deliveries
        if self.deliveries:
            got = set()
            for c, t, p, o, k, v in self.deliveries:
                if at.get((t, p, o)) != (k, v):
                    bad("invented", "%s got %r at %s-%d@%d, the log has %r" % (c, v, t, p, o, at.get((t, p, o))))
                got.add((t, p, o))
            for prod, t, p, o, k, v in self.acks:
                if (t, p, o) not in got:
                    bad("undelivered", "%s-%d@%d (%r) acknowledged, never delivered to the group" % (t, p, o, v))
        self._check_commits(bad)
        return [m for kind in ("order", "lost", "duplicate", "invented", "reordered", "undelivered",
                               "commit gap", "stale offset fetch", "redelivered")
                for m in ("%s: %s" % (kind, x) for x in out[kind])]

    def _check_commits(self, bad):
        # 7. commits against the deliveries before them
        first = {(t, p): recs[0][0] for (t, p), recs in self.reads.items() if recs}
        got = defaultdict(set)      # (topic, partition) -> offsets delivered so far
        committed = {}              # (topic, partition) -> highest committed offset so far
        for kind, c, t, p, o, _, _ in self.events:
            if kind == "delivered":
                if o < committed.get((t, p), -1):
                    bad("redelivered", "%s got %s-%d@%d after the group committed %d" % (c, t, p, o, committed[(t, p)]))
                got[(t, p)].add(o)
                continue
            if kind == "assigned":
                if (t, p) in committed and o < committed[(t, p)]:
                    bad("stale offset fetch", "%s was given %s-%d with committed offset %d after the group committed %d"
                        % (c, t, p, o, committed[(t, p)]))
                continue
            lo = max(first.get((t, p), 0), committed.get((t, p), first.get((t, p), 0)))
            missing = [x for x in range(lo, o) if x not in got[(t, p)]]
            if missing:
                bad("commit gap", "%s committed %s-%d@%d, the group never got %d of the offsets below (first %d)"
                    % (c, t, p, o, len(missing), missing[0]))
            committed[(t, p)] = max(o, committed.get((t, p), -1))

    def final_commits(self):
        """The highest offset committed per (topic, partition)."""
        out = {}
        for kind, c, t, p, o, _, _ in self.events:
            if kind == "committed":
                out[(t, p)] = max(o, out.get((t, p), -1))
        return out

    def summary(self):
        return ("%d sent, %d acknowledged, %d read back in %d partitions, %d delivered to the group, "
                "%d offset commits") % (len(self.sends), len(self.acks), sum(len(r) for r in self.reads.values()),
                                        len(self.reads), len(self.deliveries),
                                        sum(1 for e in self.events if e[0] == "committed"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: history.py HISTORY.jsonl")
    h = History.load(sys.argv[1])
    problems = h.check()
    print(h.summary())
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)
