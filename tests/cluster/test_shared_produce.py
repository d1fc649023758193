"""The shared log on the request path (docs/cluster.md): brokers started with
--cluster keep partitions' batches in objects and their offsets in
PostgreSQL, so what one broker acknowledged every broker serves.

Real clients (confluent-kafka / librdkafka) produce idempotently with
acks=all and consume; the checks are on what the clients saw (every
acknowledged record exactly once, in produce order) and on the engines
(offsets contiguous in ketch_batches, objects under data/)."""

import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

FLUSH = ["--cluster-flush-ms", "50"]


def create_topic(broker, name, partitions):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(timeout=20)


def produce(broker, topic, records, partitions, **conf):
    """Produces (key, value) records round-robin over partitions; the acks as
    {(partition, offset): value}."""
    acked, failed = {}, []

    def on_delivery(err, msg):
        if err:
            failed.append(err)
        else:
            acked[(msg.partition(), msg.offset())] = msg.value()

    p = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "acks": "all",
                  "linger.ms": 5, **conf})
    for i, (k, v) in enumerate(records):
        p.produce(topic, key=k, value=v, partition=i % partitions, on_delivery=on_delivery)
        p.poll(0)
    assert p.flush(60) == 0
    assert failed == []
    return acked


def consume_all(broker, topic, partitions, want, timeout_s=60):
    """Reads every partition from the start until `want` records arrived; {(partition, offset): value}."""
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "check-%s" % time.monotonic_ns(),
                  "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    got, order = {}, {p: [] for p in range(partitions)}
    deadline = time.monotonic() + timeout_s
    try:
        while len(got) < want and time.monotonic() < deadline:
            m = c.poll(1.0)
            if m is None or m.error():
                continue
            assert (m.partition(), m.offset()) not in got, "offset delivered twice"
            got[(m.partition(), m.offset())] = m.value()
            order[m.partition()].append(m.offset())
    finally:
        c.close()
    for p, offs in order.items():
        assert offs == sorted(offs), "partition %d out of order" % p
    return got


def test_one_broker_produces_and_consumes_through_the_engines(start_broker, postgres, s3):
    b1 = start_broker(1, *FLUSH)
    create_topic(b1, "shared-one", 2)
    records = [(b"k%d" % i, b"v%d" % i) for i in range(300)]
    acked = produce(b1, "shared-one", records, 2)
    assert sorted(acked.values()) == sorted(v for _, v in records)
    for p in range(2):  # offsets 0..n-1 on each partition, in produce order
        offs = sorted(o for (q, o) in acked if q == p)
        assert offs == list(range(len(offs)))
        assert [acked[(p, o)] for o in offs] == [v for i, (_, v) in enumerate(records) if i % 2 == p]
    got = consume_all(b1, "shared-one", 2, len(acked))
    assert got == acked
    # What the engines hold: the high watermarks, and objects under data/.
    hwms = postgres.psql("SELECT sum(high_watermark) FROM ketch_partitions")
    assert hwms == [str(len(records))]
    assert any(k.startswith("data/1-") for k in s3.keys("data/"))
