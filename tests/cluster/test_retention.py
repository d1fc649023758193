"""Retention, DeleteRecords and garbage collection in cluster mode
(docs/cluster.md "retention and garbage collection", shared/janitor.h,
cluster/retention.h): the log start moves in PostgreSQL by metadata only,
whole batches at a time, as Kafka's UnifiedLog.deleteOldSegments removes
whole segments (storage/src/main/java/org/apache/kafka/storage/internals/log/
UnifiedLog.java: deleteRetentionMsBreachedSegments deletes from the oldest
while now - largestTimestamp > retention.ms; deleteRetentionSizeBreachedSegments
while size - retention.bytes - segment.size >= 0). Every broker answers the
new start (ListOffsets earliest, a fetch below it resets); the records above
it are intact. An object no index row references any more is deleted from
the bucket only after --cluster-gc-grace-ms, never while referenced."""

import os
import subprocess
import time

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from conftest import clients
from test_shared_produce import FLUSH, consume_all

GRACE_MS = 4000
JANITOR = ["--retention-check-ms", "200", "--cluster-gc-grace-ms", str(GRACE_MS)]


def test_retention_and_gc_by_metadata(postgres, s3, aws_env):
    path = os.environ.get("KETCH_RETENTION_CHECK")
    if not path or not os.path.exists(path):
        pytest.fail("KETCH_RETENTION_CHECK must name the retention_check binary (ctest sets it)")
    r = subprocess.run([path, postgres.url(), s3.url()], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def create(broker, name, **configs):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(name, 1, 1, config={k.replace("_", "."): str(v) for k, v in configs.items()})])[
        name].result(timeout=20)


def produce_rounds(broker, topic, rounds, per_round, timestamp_ms=None, size=100):
    """`rounds` flushes of `per_round` records each (a batch or more per
    round); the acknowledged {offset: value}."""
    acked = {}
    p = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 5})

    def on_delivery(err, msg):
        assert err is None, err
        acked[msg.offset()] = msg.value()

    for r in range(rounds):
        for i in range(per_round):
            value = (b"%s-%d-%d-" % (topic.encode(), r, i)).ljust(size, b".")
            kw = {"timestamp": timestamp_ms} if timestamp_ms is not None else {}
            p.produce(topic, value=value, partition=0, on_delivery=on_delivery, **kw)
        assert p.flush(60) == 0
    return acked


def earliest(broker, topic):
    """ListOffsets earliest through `broker` (None when the client failed to
    ask: librdkafka sometimes drops a connection the test does not control)."""
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "wm-%d" % time.monotonic_ns()})
    try:
        return c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False)[0]
    except KafkaException:
        return None
    finally:
        c.close()


def first_fetched_from_zero(broker, topic):
    """A consumer that asks for offset 0: OFFSET_OUT_OF_RANGE below the log
    start, reset to the earliest; the offset of the first record it gets."""
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "z-%d" % time.monotonic_ns(),
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, 0)])
    try:
        m = clients.wait_for(lambda: (lambda m: m if m is not None and not m.error() else None)(c.poll(0.5)),
                             timeout=30, what="a record")
        return m.offset()
    finally:
        c.close()


def topic_id(postgres, name):
    return postgres.psql("SELECT topic_id FROM ketch_topics WHERE name = '%s'" % name)[0]


def index_rows(postgres, name):
    rows = postgres.psql("SELECT base_offset || ',' || last_offset || ',' || byte_length FROM ketch_batches "
                         "WHERE topic_id = '%s' ORDER BY base_offset" % topic_id(postgres, name))
    return [tuple(int(x) for x in r.split(",")) for r in rows]


def test_retention_by_time_moves_the_log_start_on_every_broker(start_broker, postgres):
    b1 = start_broker(1, *FLUSH, *JANITOR)
    b2 = start_broker(2, *FLUSH, *JANITOR)
    create(b1, "by-time", retention_ms=3600000)
    old = produce_rounds(b1, "by-time", 5, 20, timestamp_ms=int(time.time() * 1000) - 2 * 3600000)
    new = produce_rounds(b2, "by-time", 5, 20)
    assert sorted(old) == list(range(100)) and sorted(new) == list(range(100, 200))
    # The batches whose newest record is older than retention.ms go; the first young one stays.
    clients.wait_for(lambda: earliest(b2, "by-time") == 100, timeout=30, what="earliest offset 100 on broker 2")
    clients.wait_for(lambda: earliest(b1, "by-time") == 100, timeout=20, what="broker 1 answers 100")
    assert index_rows(postgres, "by-time")[0][0] == 100  # the index rows below are gone
    assert first_fetched_from_zero(b2, "by-time") == 100
    got = consume_all(b1, "by-time", 1, len(new))
    assert got == {(0, o): v for o, v in new.items()}


def test_retention_by_size_keeps_at_least_retention_bytes(start_broker, postgres):
    b1 = start_broker(1, *FLUSH, *JANITOR)
    b2 = start_broker(2, *FLUSH, *JANITOR)
    create(b1, "by-size", retention_bytes=20000)
    acked = produce_rounds(b1, "by-size", 20, 20, size=200)

    def settled():
        # UnifiedLog.deleteRetentionSizeBreachedSegments per batch: what is left
        # is at least retention.bytes, and would not be without its oldest batch.
        rows = index_rows(postgres, "by-size")
        total = sum(r[2] for r in rows)
        return rows[0][0] if rows[0][0] > 0 and total >= 20000 and total - rows[0][2] < 20000 else None

    start = clients.wait_for(settled, timeout=30, what="size retention down to retention.bytes")
    clients.wait_for(lambda: earliest(b2, "by-size") == start, timeout=20, what="broker 2 answers the new start")
    clients.wait_for(lambda: earliest(b1, "by-size") == start, timeout=20, what="broker 1 answers the new start")
    got = consume_all(b2, "by-size", 1, len(acked) - start)
    assert got == {(0, o): v for o, v in acked.items() if o >= start}


def test_delete_records_is_seen_by_every_broker(start_broker, postgres):
    b1 = start_broker(1, *FLUSH)
    b2 = start_broker(2, *FLUSH)
    create(b1, "deleted-records")
    acked = produce_rounds(b1, "deleted-records", 4, 25)
    # b2 has the partition open, its log start known
    clients.wait_for(lambda: earliest(b2, "deleted-records") == 0, timeout=20, what="b2 answers 0")
    admin = AdminClient({"bootstrap.servers": b1.bootstrap})
    r = admin.delete_records([TopicPartition("deleted-records", 0, 60)])
    assert list(r.values())[0].result(timeout=20).low_watermark == 60
    clients.wait_for(lambda: earliest(b2, "deleted-records") == 60, timeout=20, what="b2 sees the new start")
    rows = index_rows(postgres, "deleted-records")
    assert rows[0][0] <= 60 <= rows[0][1]  # the batch holding 60 stays, those wholly below go
    got = consume_all(b2, "deleted-records", 1, 40)
    assert got == {(0, o): v for o, v in acked.items() if o >= 60}


def dead_and_young(postgres):
    return set(postgres.psql("SELECT object_key FROM ketch_objects WHERE dead_since IS NOT NULL "
                             "AND dead_since > now() - interval '%d milliseconds'" % GRACE_MS))


def test_gc_deletes_unreferenced_objects_after_the_grace_period(start_broker, postgres, s3):
    b1 = start_broker(1, *FLUSH, *JANITOR)
    b2 = start_broker(2, *FLUSH, *JANITOR)
    create(b1, "kept")
    create(b1, "dropped")
    create(b1, "expiring", retention_ms=3600000)
    kept = produce_rounds(b1, "kept", 3, 10)
    produce_rounds(b2, "dropped", 3, 10)
    produce_rounds(b1, "expiring", 3, 10, timestamp_ms=int(time.time() * 1000) - 2 * 3600000)
    admin = AdminClient({"bootstrap.servers": b1.bootstrap})
    admin.delete_topics(["dropped"])["dropped"].result(timeout=20)

    def referenced():
        return set(postgres.psql("SELECT DISTINCT object_key FROM ketch_batches"))

    seen_dead = set()

    def settled():
        listed = set(s3.keys("data/"))  # listed first: a young dead object was in the bucket then
        young = dead_and_young(postgres)
        assert young <= listed, "deleted within the grace period: %s" % (young - listed)
        seen_dead.update(young)
        assert referenced() <= set(s3.keys("data/")), "a referenced object was deleted"
        return listed == referenced() and seen_dead

    clients.wait_for(settled, timeout=60, interval=0.2, what="only referenced objects left")
    assert seen_dead and not (seen_dead & set(s3.keys("data/")))
    assert postgres.psql("SELECT count(*) FROM ketch_batches b WHERE NOT EXISTS "
                         "(SELECT 1 FROM ketch_topics t WHERE t.topic_id = b.topic_id)") == ["0"]
    assert postgres.psql("SELECT count(*) FROM ketch_objects WHERE dead_since IS NOT NULL") == ["0"]
    assert "garbage collection" in b1.log_text() + b2.log_text()
    assert consume_all(b2, "kept", 1, len(kept)) == {(0, o): v for o, v in kept.items()}


def test_small_objects_are_merged_and_read_back(start_broker, postgres, s3):
    merge = ["--cluster-merge-bytes", "100000"]
    b1 = start_broker(1, *FLUSH, *JANITOR, *merge)
    b2 = start_broker(2, *FLUSH, *JANITOR, *merge)
    create(b1, "merged")
    acked = {}
    for r in range(10):  # ten flushes at least: ten small objects, from both brokers
        acked.update(produce_rounds(b1 if r % 2 else b2, "merged", 1, 10))
    assert sorted(acked) == list(range(100))
    tid = topic_id(postgres, "merged")

    def objects():
        return postgres.psql("SELECT DISTINCT object_key FROM ketch_batches WHERE topic_id = '%s'" % tid)

    merged = clients.wait_for(lambda: (lambda o: o if len(o) == 1 else None)(objects()), timeout=60,
                              what="the partition's batches in one object")
    assert merged[0].startswith("data/merged-")
    rows = index_rows(postgres, "merged")
    assert [r[0] for r in rows] == sorted(r[0] for r in rows) and rows[0][0] == 0 and rows[-1][1] == 99
    assert consume_all(b2, "merged", 1, 100) == {(0, o): v for o, v in acked.items()}
    clients.wait_for(lambda: set(s3.keys("data/")) == set(postgres.psql("SELECT object_key FROM ketch_objects")),
                     timeout=60, what="the merged-away objects collected")
    assert consume_all(b1, "merged", 1, 100) == {(0, o): v for o, v in acked.items()}
