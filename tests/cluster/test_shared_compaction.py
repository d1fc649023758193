"""Compaction of the shared log (docs/cluster.md, docs/design/cluster.md
"compaction", shared/compactor.h): the janitor, on one broker at a time,
rewrites a compacted partition's batches into new objects and swaps them into
the index in one PostgreSQL transaction.

What Kafka's cleaner does (storage/src/main/java/org/apache/kafka/storage/
internals/log/Cleaner.java doClean/cleanInto, LogCleanerManager.java
cleanableOffsets, CleanedTransactionMetadata.java, clients' MemoryRecords.
filterTo) holds through every broker: a consumer from offset 0 reads the last
record of each key at its original offset (offsets increase, the rest are
holes it skips); a tombstone survives one cleaning with a delete horizon
(KIP-534) and is gone from a cleaning after delete.retention.ms; aborted
transactional data goes. A consumer reading while the swap happens reads the
old batches or the new ones, never a view that lost a key's latest record;
the replaced objects are collected after the grace period."""

import threading
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic

from conftest import clients
from test_shared_produce import FLUSH, wait_for_topic

GRACE_MS = 3000
DELETE_RETENTION_MS = 3000
# The janitor's upkeep and its compaction (log.cleaner.backoff.ms) every 200 ms.
JANITOR = ["--retention-check-ms", "200", "--log-cleaner-backoff-ms", "200", "--cluster-gc-grace-ms", str(GRACE_MS)]
COMPACT = {"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.01",
           "delete.retention.ms": str(DELETE_RETENTION_MS)}


def create(brokers, name, configs):
    admin = AdminClient({"bootstrap.servers": brokers[0].bootstrap})
    admin.create_topics([NewTopic(name, 1, 1, config=configs)])[name].result(timeout=20)
    for b in brokers:
        wait_for_topic(b, name, 1)


def produce(broker, topic, records):
    """(key, value) records (value None: a tombstone) through `broker`, idempotent;
    {offset: (key, value)} as acknowledged."""
    acked = {}
    p = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 5})

    def on_delivery(err, msg):
        assert err is None, err
        acked[msg.offset()] = (msg.key(), msg.value())

    for k, v in records:
        p.produce(topic, key=k, value=v, partition=0, on_delivery=on_delivery)
    assert p.flush(60) == 0
    return acked


def read_all(broker, topic, isolation="read_uncommitted"):
    """Every record from offset 0 to the end as one consumer sees it: [(offset, key, value)]."""
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "c-%d" % time.monotonic_ns(),
                  "enable.auto.commit": False, "isolation.level": isolation, "enable.partition.eof": True})
    c.assign([TopicPartition(topic, 0, 0)])
    out = []
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                if m.error().code() == -191:  # _PARTITION_EOF: the end as of this fetch
                    return out
                continue
            out.append((m.offset(), m.key(), m.value()))
        raise AssertionError("no end of partition after 30 s (%d records read)" % len(out))
    finally:
        c.close()


def last_per_key(acked):
    """The compacted view of `acked`: each key's last record, in offset order."""
    last = {}
    for off in sorted(acked):
        last[acked[off][0]] = off
    return sorted((off, acked[off][0], acked[off][1]) for off in last.values())


def topic_objects(postgres, name):
    tid = postgres.psql("SELECT topic_id FROM ketch_topics WHERE name = '%s'" % name)[0]
    return set(postgres.psql("SELECT DISTINCT object_key FROM ketch_batches WHERE topic_id = '%s'" % tid))


def rounds(keys, count, tombstone=lambda r, k: False):
    return [(b"k%d" % k, None if tombstone(r, k) else b"v-%d-%d" % (r, k)) for r in range(count) for k in range(keys)]


def test_last_value_per_key_through_every_broker(start_broker, postgres, s3):
    brokers = [start_broker(n, *FLUSH, *JANITOR) for n in (1, 2, 3)]
    create(brokers, "compacted", COMPACT)
    acked = {}
    # Overwrites from two brokers; keys k0, k5, ... deleted in round 3 (then set again) and in the last round.
    for r in range(6):
        tomb = (lambda rr: (lambda _r, k: rr in (3, 5) and k % 5 == 0))(r)
        acked.update(produce(brokers[r % 2], "compacted", rounds(20, 1, tomb)))
    assert sorted(acked) == list(range(120))
    view = last_per_key(acked)
    assert sum(1 for r in view if r[2] is None) == 4

    # The first cleaning: the last record per key at its offset, tombstones kept (their horizon set).
    clients.wait_for(lambda: read_all(brokers[2], "compacted") == view, timeout=60,
                     what="the compacted view through broker 3")
    assert any(k.startswith("data/compacted-") for k in topic_objects(postgres, "compacted"))
    assert "cluster: compacted compacted-0" in "".join(b.log_text() for b in brokers)

    # After delete.retention.ms a later cleaning (new dirty data: one record more each try) drops them.
    extra = {}

    def tombstones_gone():
        extra.update(produce(brokers[0], "compacted", [(b"end", b"x" * 200)]))
        got = read_all(brokers[1], "compacted")
        live = [r for r in view if r[2] is not None]
        return [r for r in got if r[1] != b"end"] == live and got
    got = clients.wait_for(tombstones_gone, timeout=60, interval=0.5, what="the tombstones gone")
    offsets = [r[0] for r in got]
    assert offsets == sorted(set(offsets)) and got[-1] == (max(extra), b"end", b"x" * 200)

    # The replaced objects are collected after the grace period; what is left is what the index references.
    def only_referenced():
        referenced = set(postgres.psql("SELECT DISTINCT object_key FROM ketch_batches"))
        return set(s3.keys("data/")) == referenced
    clients.wait_for(only_referenced, timeout=60, interval=0.5, what="the replaced objects collected")
    assert [r for r in read_all(brokers[0], "compacted") if r[1] != b"end"] == [r for r in view if r[2] is not None]


def consistent(read, acked):
    """A read from 0 is a view compaction allows: every record is the one produced at
    its offset, offsets increase, and no key's latest record (within what it read) is
    missing — only records a later one of the same key supersedes may be holes."""
    offsets = [r[0] for r in read]
    assert offsets == sorted(set(offsets)), "offsets out of order or repeated"
    for off, k, v in read:
        assert acked[off] == (k, v), "offset %d is not what was produced there" % off
    end = offsets[-1] + 1 if offsets else 0
    seen = set(offsets)
    for off, k, v in last_per_key({o: kv for o, kv in acked.items() if o < end}):
        assert off in seen, "key %r lost its latest record (offset %d)" % (k, off)


def test_a_fetch_during_the_swap_sees_the_old_or_the_new_batches(start_broker, postgres):
    brokers = [start_broker(n, *FLUSH, *JANITOR) for n in (1, 2)]
    # Not compacted yet: what the reader sees first is every record.
    create(brokers, "swapped", {"cleanup.policy": "delete", "delete.retention.ms": "600000",
                                "min.cleanable.dirty.ratio": "0.01"})
    acked = {}
    for r in range(10):
        acked.update(produce(brokers[r % 2], "swapped", rounds(50, 1)))
    assert len(acked) == 500
    assert [r[0] for r in read_all(brokers[1], "swapped")] == list(range(500))

    reads, errors, stop = [], [], threading.Event()

    def reader():
        while not stop.is_set():
            try:
                got = read_all(brokers[1], "swapped")
                consistent(got, acked)
                reads.append(len(got))
            except AssertionError as e:
                errors.append(e)
                return

    t = threading.Thread(target=reader)
    t.start()
    try:
        admin = AdminClient({"bootstrap.servers": brokers[0].bootstrap})
        res = ConfigResource("topic", "swapped", incremental_configs=[
            ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.SET)])
        list(admin.incremental_alter_configs([res]).values())[0].result(timeout=20)
        clients.wait_for(lambda: errors or (reads and reads[-1] == 50), timeout=60, interval=0.2,
                         what="the reader sees the compacted view")
    finally:
        stop.set()
        t.join(60)
    assert not errors, errors[0]
    assert read_all(brokers[0], "swapped") == last_per_key(acked)


def test_aborted_data_goes_and_committed_stays(start_broker, postgres):
    """Cleaner.cleanInto with CleanedTransactionMetadata: an aborted transaction's
    records are removed; committed records compact like any others; read_committed
    and read_uncommitted consumers then agree."""
    brokers = [start_broker(n, *FLUSH, *JANITOR) for n in (1, 2)]
    create(brokers, "txn-compacted", COMPACT)
    p = Producer({"bootstrap.servers": brokers[0].bootstrap, "transactional.id": "compaction-txn", "linger.ms": 5})
    p.init_transactions(30)
    for n, commit in enumerate([True, False, True]):
        p.begin_transaction()
        for k in range(5):
            p.produce("txn-compacted", key=b"k%d" % k, value=b"t%d-%d" % (n, k), partition=0)
        (p.commit_transaction if commit else p.abort_transaction)(30)
    p.flush(10)
    want = [(b"k%d" % k, b"t2-%d" % k) for k in range(5)]

    def compacted():
        got = read_all(brokers[1], "txn-compacted")
        return [(k, v) for _, k, v in got] == want and got
    got = clients.wait_for(compacted, timeout=60, interval=0.3, what="only the last committed values")
    assert [(k, v) for _, k, v in read_all(brokers[0], "txn-compacted", "read_committed")] == want
    assert [o for o, _, _ in got] == sorted(o for o, _, _ in got)
