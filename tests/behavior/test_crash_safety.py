"""Crash safety (issue 3): what ketch acknowledged survives its process dying.

Several producer threads (confluent-kafka, idempotence off) write numbered records to a
few partitions without pause while the test stops the broker again and again at random
moments and restarts it on the same port. Every record whose delivery report succeeded
is remembered with its partition and offset. Afterwards the whole log is read back:

- every acknowledged record is at exactly its acknowledged offset, byte for byte;
- no two different records were acknowledged at the same offset (a lost write whose
  offset was handed out again);
- each partition's offsets are dense from 0 to its high watermark (an unacknowledged
  record may or may not be there, but there is never a hole, so never a hole before an
  acknowledged record), and every record there is one the producers sent, intact;
- the log still takes writes after the last restart, at the next offset.

Durability contract (docs: ARCHITECTURE.md "Durability is explicit"): acks=all is
acknowledged after fsync, acks=1 after the write. A process crash keeps the page cache,
so with SIGKILL both hold; recovery must cut a torn tail and rebuild the indexes from
what is on disk.

Behaviour reference, Apache Kafka 4.3.1: recovery after an unclean shutdown re-reads
every segment past the recovery point, truncates at the first invalid batch and rebuilds
the offset and time indexes:
storage/src/main/java/org/apache/kafka/storage/internals/log/LogLoader.java (recoverLog)
and LogSegment.java (recover); offsets are assigned densely per partition in append
order: storage/src/main/java/org/apache/kafka/storage/internals/log/LogValidator.java.
"""

import os
import random
import signal
import threading
import time

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

PARTITIONS = 4
PRODUCERS = 3
MAX_QUEUED = 400           # records a producer thread keeps in flight at most
PROGRESS_TIMEOUT_S = 60    # a restarted broker must acknowledge something within this
FLUSH_TIMEOUT_S = 90
# 1 MiB segments (Kafka's minimum segment.bytes) so the run rolls segments and
# recovery meets more than one segment per partition.
TOPIC_CONFIG = {"segment.bytes": str(1024 * 1024)}


def payload(key):
    """The value of the record with this key: derived from the key, so any record read
    back can be checked without remembering every record sent. 0-3000 bytes."""
    rnd = random.Random(key)
    return key + b"|" + rnd.randbytes(rnd.randrange(0, 3000))


def producer_config(bootstrap, acks):
    return {
        "bootstrap.servers": bootstrap,
        "acks": acks,
        "enable.idempotence": False,
        "linger.ms": 2,
        # reconnect quickly after each restart (the default backoff grows to 10 s)
        "reconnect.backoff.ms": 10,
        "reconnect.backoff.max.ms": 200,
        "retry.backoff.ms": 10,
        "retry.backoff.max.ms": 200,
        "message.timeout.ms": 120_000,
        "socket.connection.setup.timeout.ms": 5_000,
        "log_level": 2,  # the refused connects while ketch is down are expected
    }


class Ledger:
    """Acknowledged records by (partition, offset), filled by delivery reports."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked = {}          # (partition, offset) -> key
        self.conflicts = []      # ((partition, offset), first key, second key)
        self.failed = {}         # error name -> count
        self.count = 0

    def on_delivery(self, err, msg):
        with self.lock:
            if err is not None:
                self.failed[err.name()] = self.failed.get(err.name(), 0) + 1
                return
            where = (msg.partition(), msg.offset())
            if where in self.acked and self.acked[where] != msg.key():
                self.conflicts.append((where, self.acked[where], msg.key()))
            self.acked.setdefault(where, msg.key())
            self.count += 1


def produce_forever(bootstrap, topic, acks, ident, ledger, stop, sent):
    p = Producer(producer_config(bootstrap, acks))
    seq = 0
    while not stop.is_set():
        if len(p) >= MAX_QUEUED:
            p.poll(0.005)
            continue
        key = b"p%d-%08d" % (ident, seq)
        try:
            p.produce(topic, key=key, value=payload(key), partition=seq % PARTITIONS, on_delivery=ledger.on_delivery)
        except BufferError:
            p.poll(0.005)
            continue
        seq += 1
        p.poll(0)
    left = p.flush(FLUSH_TIMEOUT_S)
    sent[ident] = (seq, left)


def create_topic(bootstrap, topic):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(topic, PARTITIONS, 1, config=TOPIC_CONFIG)], operation_timeout=30)
    futures[topic].result(30)


def read_partition(bootstrap, topic, partition):
    """[(offset, key, value)] from offset 0 up to the high watermark, and the high watermark."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "crash-check", "enable.auto.commit": False,
                  "check.crcs": True, "enable.partition.eof": True, "fetch.max.bytes": 8 * 1024 * 1024})
    try:
        low, high = c.get_watermark_offsets(TopicPartition(topic, partition), timeout=30)
        assert low == 0, "log start offset moved to %d on partition %d" % (low, partition)
        c.assign([TopicPartition(topic, partition, 0)])
        out = []
        deadline = time.monotonic() + 120
        while (not out or out[-1][0] < high - 1) and high > 0:
            assert time.monotonic() < deadline, "partition %d: read %d records of %d" % (partition, len(out), high)
            for m in c.consume(1000, timeout=1.0):
                if m.error():
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        continue
                    raise AssertionError("partition %d: %s" % (partition, m.error()))
                out.append((m.offset(), m.key(), m.value()))
        return out, high
    finally:
        c.close()


def run_crash_loop(broker, topic, acks, sig, restarts, seed):
    """Producers write while the broker is stopped with sig `restarts` times; returns
    the ledger and the per-restart ack counts."""
    rnd = random.Random(seed)
    ledger, stop, sent = Ledger(), threading.Event(), {}
    threads = [threading.Thread(target=produce_forever, args=(broker.bootstrap, topic, acks, i, ledger, stop, sent),
                                daemon=True) for i in range(PRODUCERS)]
    for t in threads:
        t.start()
    acks_between = []
    try:
        for _ in range(restarts):
            # Let the broker run for a random 50-400 ms, and at least until it has
            # acknowledged something since it (re)started, so every stop hits live traffic.
            before = ledger.count
            until = time.monotonic() + rnd.uniform(0.05, 0.4)
            deadline = time.monotonic() + PROGRESS_TIMEOUT_S
            while time.monotonic() < until or ledger.count == before:
                assert time.monotonic() < deadline, "no acknowledgement within %d s of a restart" % PROGRESS_TIMEOUT_S
                time.sleep(0.005)
            acks_between.append(ledger.count - before)
            port = broker.port
            code = broker.stop(sig)
            if sig == signal.SIGTERM:
                assert code == 0, "ketch exited with %s on SIGTERM" % code
            broker.start(port=port)
    finally:
        stop.set()
        for t in threads:
            t.join(FLUSH_TIMEOUT_S + 30)
    assert all(not t.is_alive() for t in threads), "a producer thread did not finish"
    return ledger, acks_between, sent


def check_log(broker, topic, ledger):
    """The invariants of the module docstring; returns per-partition (records, high watermark)."""
    assert not ledger.conflicts, "different records acknowledged at the same offset (lost writes): %s" % (
        ledger.conflicts[:10],)
    acked_by_partition = {p: {} for p in range(PARTITIONS)}
    for (p, o), key in ledger.acked.items():
        acked_by_partition[p][o] = key
    summary = {}
    for p in range(PARTITIONS):
        records, high = read_partition(broker.bootstrap, topic, p)
        offsets = [o for o, _, _ in records]
        assert offsets == list(range(high)), "partition %d: offsets not dense 0..%d (first gap near %s)" % (
            p, high, next((i for i, o in enumerate(offsets) if o != i), None))
        for o, key, value in records:
            assert key is not None and value == payload(key), "partition %d offset %d: a record nobody sent %r" % (
                p, o, (key, value[:40] if value else value))
        acked = acked_by_partition[p]
        if acked:
            assert max(acked) < high, "partition %d: acknowledged offset %d at or past the high watermark %d" % (
                p, max(acked), high)
        lost = [(o, k, records[o][1]) for o, k in sorted(acked.items()) if records[o][1] != k]
        assert not lost, "partition %d: %d acknowledged records lost or moved (offset, acked key, key there): %s" % (
            p, len(lost), lost[:10])
        summary[p] = (len(acked), high)
    return summary


def check_seeks(broker, topic, ledger, seed, per_partition=25):
    """A fetch from the middle of the log (through the offset indexes that recovery
    rebuilt) starts at exactly the acknowledged record asked for."""
    rnd = random.Random(seed)
    by_partition = {}
    for (p, o), key in ledger.acked.items():
        by_partition.setdefault(p, []).append((o, key))
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "crash-seek", "enable.auto.commit": False,
                  "check.crcs": True})
    try:
        for p, acked in sorted(by_partition.items()):
            for o, key in rnd.sample(sorted(acked), min(per_partition, len(acked))):
                c.assign([TopicPartition(topic, p, o)])
                msgs = []
                deadline = time.monotonic() + 30
                while not msgs:
                    assert time.monotonic() < deadline, "partition %d: nothing fetched from offset %d" % (p, o)
                    msgs = [m for m in c.consume(1, timeout=1.0) if m.error() is None]
                assert (msgs[0].partition(), msgs[0].offset(), msgs[0].key()) == (p, o, key)
    finally:
        c.close()


def check_accepts_writes(broker, topic, summary):
    """After the last restart one more acks=all record per partition lands at the end."""
    p = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all", "enable.idempotence": False})
    reports = []
    for part in range(PARTITIONS):
        key = b"final-%d" % part
        p.produce(topic, key=key, value=payload(key), partition=part,
                  on_delivery=lambda err, msg: reports.append((err, msg.partition(), msg.offset())))
    assert p.flush(30) == 0
    assert sorted(reports) == [(None, part, summary[part][1]) for part in range(PARTITIONS)]
    for part in range(PARTITIONS):
        records, high = read_partition(broker.bootstrap, topic, part)
        assert high == summary[part][1] + 1
        assert records[-1][1:] == (b"final-%d" % part, payload(b"final-%d" % part))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("acks,sig,restarts", [
    pytest.param("all", signal.SIGKILL, 24, id="acks_all-sigkill"),
    pytest.param("1", signal.SIGKILL, 12, id="acks_1-sigkill"),
    pytest.param("1", signal.SIGTERM, 12, id="acks_1-sigterm"),
])
def test_acknowledged_records_survive_restarts(broker, request, acks, sig, restarts):
    topic = "crash-" + request.node.callspec.id
    create_topic(broker.bootstrap, topic)
    seed = int(os.environ.get("KETCH_CRASH_SEED") or random.randrange(1 << 30))  # printed, to replay a run
    ledger, acks_between, sent = run_crash_loop(broker, topic, acks, sig, restarts, seed)
    print("seed %d, %d restarts by %s, acks between stops %s, sent %s, failed %s" % (
        seed, restarts, signal.Signals(sig).name, acks_between, sent, ledger.failed))
    assert len(acks_between) == restarts and min(acks_between) >= 1
    summary = check_log(broker, topic, ledger)
    print("per partition (acknowledged, high watermark): %s" % summary)
    assert sum(a for a, _ in summary.values()) == len(ledger.acked)
    check_seeks(broker, topic, ledger, seed)
    check_accepts_writes(broker, topic, summary)
