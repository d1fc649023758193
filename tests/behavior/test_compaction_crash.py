"""Compaction is crash-safe (issue 6): SIGKILL while the cleaner rewrites segments
loses nothing.

A compacted topic with 1 MiB segments gets rounds of keyed records (confluent-kafka,
acks=all); the cleaner runs every 10 ms, its I/O limited to 8 MB/s
(log.cleaner.io.max.bytes.per.second) so that a pass takes long enough to be hit. Each round, the test watches the partition
directory and kills the broker with SIGKILL the moment a replacement segment
(`.log.cleaned` / `.log.swap`, docs/design/compaction.md) appears, then restarts it.
After every restart the whole log is read back:

- every record read is one that was acknowledged, at its acknowledged offset;
- for every key, the last record read is the last one acknowledged (compaction may
  drop superseded records, never the latest);
- the log still takes writes.

Behaviour reference, Apache Kafka 4.3.1: Cleaner.cleanSegments and
UnifiedLog.replaceSegments (the .cleaned -> .swap -> replace protocol) and
LogLoader (swap files completed at startup), storage/src/main/java/org/apache/kafka/
storage/internals/log/.
"""

import os
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
import pytest

KEYS = 400
PER_ROUND = 5000
ROUNDS = 6
TOPIC = "compacted-crash"
CONFIG = {"cleanup.policy": "compact", "segment.bytes": str(1024 * 1024), "min.cleanable.dirty.ratio": "0.01"}


def value(key, rnd, seq):
    return ("%s|%d|%d|" % (key, rnd, seq)).encode().ljust(200, b"x")


def produce_round(bootstrap, rnd, acked):
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": False, "linger.ms": 5,
                  "message.timeout.ms": 60_000})
    failed = []

    def report(err, msg):
        if err is not None:
            failed.append(err)
        else:
            acked[msg.offset()] = (msg.key(), msg.value())
    for seq in range(PER_ROUND):
        key = b"k%d" % ((seq * 7 + rnd) % KEYS)
        while True:
            try:
                p.produce(TOPIC, key=key, value=value(key.decode(), rnd, seq), partition=0, on_delivery=report)
                break
            except BufferError:
                p.poll(0.01)
    assert p.flush(60) == 0
    assert not failed, failed[:3]


def read_all(bootstrap):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "compaction-crash", "enable.auto.commit": False,
                  "check.crcs": True, "enable.partition.eof": True})
    try:
        _, high = c.get_watermark_offsets(TopicPartition(TOPIC, 0), timeout=30)
        c.assign([TopicPartition(TOPIC, 0, 0)])
        out, eof = [], False
        deadline = time.monotonic() + 60
        while not eof:
            assert time.monotonic() < deadline, "read %d records, high watermark %d" % (len(out), high)
            for m in c.consume(1000, timeout=1.0):
                if m.error():
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        eof = m.offset() >= high
                        continue
                    raise AssertionError(str(m.error()))
                out.append((m.offset(), m.key(), m.value()))
        return out, high
    finally:
        c.close()


def swap_in_progress(part_dir):
    try:
        return any(n.endswith(".log.cleaned") or n.endswith(".log.swap") for n in os.listdir(part_dir))
    except FileNotFoundError:
        return False


def check(bootstrap, acked):
    records, high = read_all(bootstrap)
    assert high == max(acked) + 1
    offsets = [o for o, _, _ in records]
    assert offsets == sorted(set(offsets))
    for off, k, v in records:
        assert acked.get(off) == (k, v), "offset %d holds %r, acknowledged %r" % (off, (k, v), acked.get(off))
    latest = {}
    for off in sorted(acked):
        latest[acked[off][0]] = off
    last_read = {}
    for off, k, _ in records:
        last_read[k] = off
    assert last_read == latest
    return len(records)


@pytest.mark.ketch_args("--log-cleaner-backoff-ms", "10", "--log-cleaner-io-max-bytes-per-second", "8000000")
def test_sigkill_while_cleaning_loses_nothing(broker):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(TOPIC, 1, 1, config=CONFIG)])[TOPIC].result(30)
    part_dir = broker.data_dir / "logs" / (TOPIC + "-0")
    acked = {}
    hits = 0
    for rnd in range(ROUNDS):
        produce_round(broker.bootstrap, rnd, acked)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and not swap_in_progress(part_dir):
            time.sleep(0.001)
        hits += swap_in_progress(part_dir)
        port = broker.port
        broker.kill()
        broker.start(port=port)
        kept = check(broker.bootstrap, acked)
        print("round %d: %d acknowledged, %d readable after the restart" % (rnd, len(acked), kept))
    assert hits >= 1, "no kill landed while a replacement segment existed"
    produce_round(broker.bootstrap, ROUNDS, acked)  # still takes writes, at the next offsets
    check(broker.bootstrap, acked)
