"""Idempotent producing through connection drops (issue 5): a confluent-kafka
(librdkafka) idempotent producer writes 100,000 numbered records to 2 partitions
through a TCP proxy that cuts each connection after it has carried ten answers back,
while the client has more requests in flight (answers lost on the way out; the client
resends). The cuts follow the traffic, not the clock, so a fast machine is cut as often
as a slow one and every connection makes progress first. The partitions must then
hold each record exactly once, in the order it was produced (checked by content).
The Java KafkaProducer (enable.idempotence, 5 requests in flight) does the same with
100,000 records to one partition (the Java driver's produce-generated).

The broker advertises the proxy's address, so every connection of the client goes
through it. Lost answers make the client resend batches the broker already wrote:
those must be recognised as duplicates and answered with their original offsets.

Behaviour reference, Apache Kafka 4.3.1: UnifiedLog.analyzeAndValidateProducerState and
ProducerStateEntry.findDuplicateBatch (storage/internals/log) answer a retried batch
with its original offsets; ProducerAppendInfo.checkSequence refuses gaps.
"""

import os
import socket
import threading
import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from conftest import BrokerProcess, Driver, _ketch_binary, _missing

RECORDS = 100_000
PARTITIONS = 2


class FrameCounter:
    """Counts the Kafka frames (4-byte size + body) in a byte stream fed in pieces."""

    def __init__(self):
        self.header = b""
        self.left = None  # bytes left of the current frame's body; None: reading a size
        self.frames = 0

    def feed(self, data):
        i = 0
        while i < len(data):
            if self.left is None:
                need = 4 - len(self.header)
                self.header += data[i:i + need]
                i += need
                if len(self.header) == 4:
                    self.left = int.from_bytes(self.header, "big")
                    self.header = b""
            else:
                take = min(self.left, len(data) - i)
                i += take
                self.left -= take
            if self.left == 0:
                self.frames += 1
                self.left = None
        return self.frames


class CuttingProxy:
    """Forwards 127.0.0.1:port to the broker and cuts each connection right after it
    has carried CUT_AFTER_RESPONSES responses back to the client: the cut comes while the
    client has more requests in flight, whatever the machine's speed, and every
    connection delivers some answers first (more than the five requests an idempotent
    producer may resend), so the run always makes progress. cut() closes them all."""

    CUT_AFTER_RESPONSES = 10

    def __init__(self):
        self.cutting = True  # False: only forward (the checks after the produce phase)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.upstream = None
        self.lock = threading.Lock()
        self.pairs = set()
        self.stopped = threading.Event()
        self.cuts = 0
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.stopped.is_set():
            try:
                client, _ = self.listener.accept()
            except socket.timeout:
                continue
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            pair = (client, server)
            with self.lock:
                self.pairs.add(pair)
            threading.Thread(target=self._pump, args=(client, server, pair, None), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, pair, FrameCounter()), daemon=True).start()

    def _pump(self, src, dst, pair, responses):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
                if responses is not None and responses.feed(data) >= self.CUT_AFTER_RESPONSES and self.cutting:
                    with self.lock:
                        self.cuts += 1
                    break
        except OSError:
            pass
        self._close(pair)

    def _close(self, pair):
        with self.lock:
            self.pairs.discard(pair)
        for s in pair:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def cut(self):
        with self.lock:
            pairs = list(self.pairs)
        for p in pairs:
            self._close(p)

    def close(self):
        self.stopped.set()
        self.thread.join()
        self.listener.close()
        self.cut()


@pytest.fixture
def proxied_broker(tmp_path):
    if os.environ.get("KETCH_TEST_BOOTSTRAP"):
        pytest.skip("needs a broker the test starts (it must advertise the proxy)")
    proxy = CuttingProxy()
    (tmp_path / "data").mkdir()
    b = BrokerProcess(_ketch_binary(), tmp_path / "data", tmp_path,
                      ["--advertised-listener", "127.0.0.1:%d" % proxy.port])
    b.start()
    proxy.upstream = (b.host, b.port)
    yield b, proxy
    proxy.close()
    b.stop()


def value(i):
    return b"record-%08d" % i


def test_idempotent_producer_through_connection_drops_writes_each_record_once_in_order(proxied_broker):
    broker, proxy = proxied_broker
    bootstrap = "127.0.0.1:%d" % proxy.port
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("idem", PARTITIONS, 1)])["idem"].result(30)


    errors = []
    acked = [0]

    def report(err, msg):
        if err is not None:
            errors.append(err.name())
        else:
            acked[0] += 1

    producer = Producer({
        "bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
        "linger.ms": 20, "batch.num.messages": 1000, "message.timeout.ms": 300_000,
        "reconnect.backoff.ms": 10, "reconnect.backoff.max.ms": 100,
        "retry.backoff.ms": 10, "retry.backoff.max.ms": 100, "log_level": 2,
    })
    started = time.monotonic()
    for i in range(RECORDS):
        while True:
            try:
                producer.produce("idem", key=b"%d" % i, value=value(i), partition=i % PARTITIONS,
                                 on_delivery=report)
                break
            except BufferError:
                producer.poll(0.05)
        if i % 1000 == 0:
            producer.poll(0)
    assert producer.flush(240) == 0, "records still in flight"
    proxy.cutting = False
    print("produced in %.1f s with %d cuts" % (time.monotonic() - started, proxy.cuts))
    assert errors == []
    assert acked[0] == RECORDS
    assert proxy.cuts >= 1, "the run was too short to cut any connection"

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "check", "enable.auto.commit": False,
                         "log_level": 2})
    consumer.assign([TopicPartition("idem", p, 0) for p in range(PARTITIONS)])
    seen = {p: [] for p in range(PARTITIONS)}
    deadline = time.monotonic() + 60
    total = 0
    while total < RECORDS and time.monotonic() < deadline:
        for m in consumer.consume(10_000, 1.0):
            assert m.error() is None, m.error()
            seen[m.partition()].append((m.offset(), m.value()))
            total += 1
    for p in range(PARTITIONS):
        _, high = consumer.get_watermark_offsets(TopicPartition("idem", p), timeout=10)
        expected = [value(i) for i in range(p, RECORDS, PARTITIONS)]
        got = [v for _, v in seen[p]]
        assert high == len(expected), "partition %d holds %d records, %d were produced" % (p, high, len(expected))
        assert got == expected, "partition %d: duplicated, lost or reordered records" % p
        assert [o for o, _ in seen[p]] == list(range(len(expected)))
    consumer.close()
    print("checked after %.1f s" % (time.monotonic() - started))


def test_java_idempotent_producer_through_connection_drops_writes_each_record_once_in_order(proxied_broker):
    why = _missing("java")
    if why:
        pytest.skip(why)
    broker, proxy = proxied_broker
    bootstrap = "127.0.0.1:%d" % proxy.port
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic("idem-java", 1, 1)])["idem-java"].result(30)
    java = Driver("java", type("proxied", (), {"bootstrap": bootstrap})())


    started = time.monotonic()
    res = java("produce-generated", {
        "topic": "idem-java", "partition": 0, "count": RECORDS, "key_count": RECORDS, "value_size": 0,
        "config": {"enable.idempotence": "true", "max.in.flight.requests.per.connection": "5",
                   "linger.ms": "20", "batch.size": "16384", "delivery.timeout.ms": "120000",
                   "request.timeout.ms": "10000", "reconnect.backoff.ms": "10",
                   "reconnect.backoff.max.ms": "100", "retry.backoff.ms": "10"}}, timeout=150)
    proxy.cutting = False
    print("java produced in %.1f s with %d cuts" % (time.monotonic() - started, proxy.cuts))
    assert res["errors"] == {} and res["count"] == RECORDS, res
    # Offsets as the producer saw them: one per record, dense (no duplicate took one).
    assert res["dense"] and res["first_offset"] == 0 and res["last_offset"] == RECORDS - 1, res
    assert proxy.cuts >= 1, "the run was too short to cut any connection"

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "check-java", "enable.auto.commit": False,
                         "log_level": 2})
    consumer.assign([TopicPartition("idem-java", 0, 0)])
    got = []
    deadline = time.monotonic() + 60
    while len(got) < RECORDS and time.monotonic() < deadline:
        for m in consumer.consume(10_000, 1.0):
            assert m.error() is None, m.error()
            got.append((m.offset(), m.value()))
    _, high = consumer.get_watermark_offsets(TopicPartition("idem-java", 0), timeout=10)
    consumer.close()
    assert high == RECORDS, "the partition holds %d records, %d were produced" % (high, RECORDS)
    assert [v for _, v in got] == [b"v%d" % i for i in range(RECORDS)], "duplicated, lost or reordered records"
    assert [o for o, _ in got] == list(range(RECORDS))
