"""Faults of the engines during produce (docs/design/cluster.md, failure
cases), checked by the history checker (history.py): every acknowledged
record read back exactly once at its offset, offsets contiguous, produce
order kept.

- The object store answers 503 SlowDown, loses answers of requests it
  carried out (a PUT stored, its answer a 503: the retry is refused 412 and
  counts as written) and throttles (429) — half of all requests — through
  a fault-injecting proxy in front of moto (faulty_s3.py), and is down for
  a while: the broker retries with backoff, answers a retriable
  KAFKA_STORAGE_ERROR when the retries run out, and the idempotent
  producer's retries go through — nothing acknowledged is lost.
- PostgreSQL restarts (pg_ctl stop, then start) during produce: the broker
  answers a retriable code meanwhile, reconnects by itself, and loses
  nothing acknowledged."""

import threading
import time

from confluent_kafka import Consumer, Producer, TopicPartition

from conftest import clients
from faulty_s3 import FaultyS3
from history import History
from test_shared_produce import FLUSH, create_topic

PARTITIONS = 3
TOTAL = 3000


class Run:
    """An idempotent acks=all producer writing TOTAL records in a thread, into a History."""

    def __init__(self, broker, topic):
        self.topic = topic
        self.h = History()
        self.lock = threading.Lock()
        self.errors = []
        self.acked = 0
        self.producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "acks": "all",
                                  "linger.ms": 5, "message.timeout.ms": 120000})
        self.thread = threading.Thread(target=self._produce)
        self.thread.start()

    def _on_delivery(self, err, msg):
        with self.lock:
            if err:
                self.errors.append(str(err))
            else:
                self.acked += 1
                self.h.acked("p", msg.topic(), msg.partition(), msg.offset(), msg.key(), msg.value())

    def _produce(self):
        p = self.producer
        for i in range(TOTAL):
            k, v = b"k%d" % i, b"v%06d" % i
            with self.lock:
                self.h.sent("p", k, v)
            while True:
                try:
                    p.produce(self.topic, key=k, value=v, partition=i % PARTITIONS, on_delivery=self._on_delivery)
                    break
                except BufferError:
                    p.poll(0.05)
            p.poll(0)
            if i % 20 == 0:
                p.poll(0.02)  # paced: the run lasts long enough for the faults
        left = p.flush(150)
        with self.lock:
            if left:
                self.errors.append("%d records not delivered" % left)

    def acked_at_least(self, n):
        with self.lock:
            return self.acked >= n

    def finish(self, broker):
        self.thread.join(200)
        assert not self.thread.is_alive(), "the producer did not finish"
        assert self.errors == []
        assert len(self.h.acks) == TOTAL
        c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "faults-check", "enable.auto.commit": False})
        for p in range(PARTITIONS):
            low, high = c.get_watermark_offsets(TopicPartition(self.topic, p), timeout=20)
            recs = []
            c.assign([TopicPartition(self.topic, p, low)])
            deadline = time.monotonic() + 60
            while (recs[-1][0] + 1 if recs else low) < high and time.monotonic() < deadline:
                m = c.poll(0.5)
                if m is not None and not m.error():
                    recs.append((m.offset(), m.key(), m.value()))
            self.h.read_back(self.topic, p, recs)
        c.close()
        problems = self.h.check()
        assert problems == [], problems


def failed_flushes(broker):
    return broker.log_text().count("cluster: flush of")


def test_object_store_errors_are_retried_and_nothing_acknowledged_is_lost(start_broker, postgres, s3):
    proxy = FaultyS3(s3.port)
    try:
        b = start_broker(1, *FLUSH, object_store=proxy.url(s3.bucket))  # the start-up probe passes
        create_topic(b, "s3-faults", PARTITIONS)
        proxy.mode = "flaky"
        run = Run(b, "s3-faults")
        # every kind of fault met before the outage (a quiet machine flushes few, large objects)
        flaky = ("503", "lost answer", "429")  # what "flaky" injects
        clients.wait_for(lambda: run.acked_at_least(500) and all(proxy.injected[k] for k in flaky), timeout=60,
                         what="500 records acknowledged through every kind of fault")
        proxy.mode = "down"  # beyond the retries: flushes fail, produce answers KAFKA_STORAGE_ERROR
        clients.wait_for(lambda: failed_flushes(b) >= 2, timeout=60, what="a flush failed while the store is down")
        proxy.mode = "flaky"
        clients.wait_for(lambda: run.acked_at_least(TOTAL), timeout=150, what="every record acknowledged")
        proxy.mode = "pass"
        run.finish(b)
        assert proxy.injected["503"] > 0 and proxy.injected["lost answer"] > 0 and proxy.injected["429"] > 0
    finally:
        proxy.close()


def test_postgres_restarted_during_produce_loses_nothing_acknowledged(start_broker, postgres, s3):
    b = start_broker(1, *FLUSH)
    create_topic(b, "pg-restart", PARTITIONS)
    run = Run(b, "pg-restart")
    clients.wait_for(lambda: run.acked_at_least(500), timeout=60, what="500 records acknowledged")
    postgres.stop()
    try:
        clients.wait_for(lambda: failed_flushes(b) >= 2, timeout=60, what="a flush failed while PostgreSQL is down")
    finally:
        postgres.start()
    clients.wait_for(lambda: run.acked_at_least(TOTAL), timeout=150, what="every record acknowledged")
    run.finish(b)
    # The broker recovered by itself: a new producer is served at once.
    p = Producer({"bootstrap.servers": b.bootstrap, "enable.idempotence": True, "acks": "all"})
    p.produce("pg-restart", key=b"after", value=b"after-restart", partition=0)
    assert p.flush(30) == 0
