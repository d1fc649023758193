"""The shared log on the request path (docs/cluster.md): brokers started with
--cluster keep partitions' batches in objects and their offsets in
PostgreSQL, so what one broker acknowledged every broker serves.

Real clients (confluent-kafka / librdkafka) produce idempotently with
acks=all and consume; the checks are on what the clients saw (every
acknowledged record exactly once, in produce order) and on the engines
(offsets contiguous in ketch_batches, objects under data/)."""

import signal
import sys
import time
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))
import kafka_wire  # noqa: E402

FLUSH = ["--cluster-flush-ms", "50"]


def create_topic(broker, name, partitions):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(timeout=20)


def produce(broker, topic, records, partitions, first=0, **conf):
    """Produces (key, value) records round-robin over partitions first .. first+partitions-1;
    the acks as {(partition, offset): value}."""
    acked, failed = {}, []

    def on_delivery(err, msg):
        if err:
            failed.append(err)
        else:
            acked[(msg.partition(), msg.offset())] = msg.value()

    p = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "acks": "all",
                  "linger.ms": 5, **conf})
    for i, (k, v) in enumerate(records):
        p.produce(topic, key=k, value=v, partition=first + i % partitions, on_delivery=on_delivery)
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



def test_a_flush_starts_when_the_size_bound_is_reached_not_only_at_the_interval(start_broker, postgres):
    # The interval is two minutes: after the first flush (at once: none came before), only
    # --cluster-flush-bytes can start one, so each 8 KiB record is answered only through the bound.
    b1 = start_broker(1, "--cluster-flush-ms", "120000", "--cluster-flush-bytes", "4096")
    create_topic(b1, "bounded", 1)
    p = Producer({"bootstrap.servers": b1.bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 0})
    offsets = []
    for i in range(5):
        p.produce("bounded", value=b"%d" % i + b"x" * 8192, partition=0,
                  on_delivery=lambda err, m: offsets.append(None if err else m.offset()))
        assert p.flush(30) == 0, "record %d not answered: no flush started at the size bound" % i
    assert offsets == [0, 1, 2, 3, 4]
    # One object per record: each flush took what one request staged.
    assert postgres.psql("SELECT count(DISTINCT b.object_key) FROM ketch_batches b JOIN ketch_topics t "
                         "ON t.topic_id = b.topic_id WHERE t.name = 'bounded'") == ["5"]


def franz(broker, command, args):
    """The franz-go driver of tests/clients/go (DRIVERS.md) against `broker`."""
    import json
    import subprocess
    from pathlib import Path

    driver = Path(__file__).resolve().parents[1] / "clients" / "go" / "driver"
    if not driver.exists():
        import pytest
        pytest.skip("franz-go driver not built (tests/clients/go; scripts/install-test-deps.sh)")
    r = subprocess.run([str(driver), "--bootstrap", broker.bootstrap, command, json.dumps(args)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def wait_for_topic(broker, name, partitions, timeout_s=20):
    """Metadata from `broker` itself names the topic with its partitions (another broker created
    it): asked on the wire, as a client library may send its Metadata to any broker it knows."""
    host, port = broker.bootstrap.rsplit(":", 1)
    deadline = time.monotonic() + timeout_s
    while True:
        error, leaders = kafka_wire.metadata(host, int(port), [name]).get(name, (None, {}))
        if error == 0 and len(leaders) == partitions:
            return leaders
        assert time.monotonic() < deadline, "broker %s does not list %s" % (broker.bootstrap, name)
        time.sleep(0.05)


TIMING = ["--cluster-heartbeat-ms", "250", "--cluster-session-timeout-ms", "3000"]


def test_a_topic_made_on_one_broker_is_produced_on_both_and_consumed_from_the_other(start_broker, postgres):
    import base64

    b1 = start_broker(1, *FLUSH, *TIMING)
    b2 = start_broker(2, *FLUSH, *TIMING)
    create_topic(b1, "shared-two", 6)
    leaders = wait_for_topic(b2, "shared-two", 6)
    # Leaders spread over the live brokers, the same answer from each broker.
    wait_for_topic(b1, "shared-two", 6)
    assert set(leaders.values()) <= {1, 2}
    # franz-go (idempotent by default, acks=all) through broker 1.
    records = [{"key": base64.b64encode(b"f%d" % i).decode(), "value": base64.b64encode(b"fv%d" % i).decode(),
                "partition": i % 6} for i in range(120)]
    out = franz(b1, "produce", {"topic": "shared-two", "acks": "all", "records": records})
    assert [r["error"] for r in out["records"]] == [None] * len(records)
    acked = {(r["partition"], r["offset"]): base64.b64decode(rec["value"]) for r, rec in zip(out["records"], records)}
    # confluent-kafka (idempotent, acks=all) through broker 2, on top.
    more = [(b"c%d" % i, b"cv%d" % i) for i in range(120)]
    acked2 = produce(b2, "shared-two", more, 6)
    assert not set(acked) & set(acked2), "an offset acknowledged twice"
    acked.update(acked2)
    for p in range(6):  # contiguous per partition
        offs = sorted(o for (q, o) in acked if q == p)
        assert offs == list(range(len(offs)))
    # Consumed from broker 2 by confluent-kafka, and from broker 1 by franz-go.
    assert consume_all(b2, "shared-two", 6, len(acked)) == acked
    got = franz(b1, "consume", {"topic": "shared-two", "partitions": list(range(6)), "from": "beginning",
                                "max_records": len(acked), "timeout_ms": 30000})
    seen = {(r["partition"], r["offset"]): base64.b64decode(r["value"]) for r in got["records"]}
    assert len(seen) == len(got["records"]) == len(acked)
    assert seen == acked


def test_a_broker_killed_mid_produce_loses_nothing_acknowledged(start_broker):
    """SIGKILL of one of two brokers (the leader of partition 0) while an idempotent acks=all producer
    (confluent-kafka, bootstrapped at both) and franz-go (bootstrapped at
    the other broker) write; the broker is restarted on
    its port. The producers need no restart; afterwards every acknowledged
    record is read back exactly once at its acknowledged offset, each record
    once in all (no duplicate from retries), offsets contiguous."""
    import base64
    import threading

    b1 = start_broker(1, *FLUSH, *TIMING)
    b2 = start_broker(2, *FLUSH, *TIMING)
    create_topic(b1, "shared-kill", 4)
    leaders = wait_for_topic(b2, "shared-kill", 4)
    victim = {1: b1, 2: b2}[leaders[0]]  # the leader of partition 0: it had work to lose
    acked, failed = {}, []
    lock = threading.Lock()

    def on_delivery(err, msg):
        with lock:
            if err:
                failed.append(err)
            else:
                acked[(msg.partition(), msg.offset())] = msg.value()

    p = Producer({"bootstrap.servers": "%s,%s" % (b1.bootstrap, b2.bootstrap), "enable.idempotence": True,
                  "acks": "all", "linger.ms": 5, "message.timeout.ms": 120000})
    total = 4000

    def produce_all():
        for i in range(total):
            while True:
                try:
                    p.produce("shared-kill", key=b"k%d" % i, value=b"v%06d" % i, on_delivery=on_delivery)
                    break
                except BufferError:
                    p.poll(0.05)
            if i % 50 == 0:
                p.poll(0.05)  # spread the run over some seconds: the kill falls in its middle
            p.poll(0)
        p.flush(150)

    t = threading.Thread(target=produce_all)
    t.start()
    # franz-go (idempotent, acks=all) at the same time, through the other broker first.
    other = b2 if victim is b1 else b1
    franz_records = [{"key": base64.b64encode(b"g%d" % i).decode(), "value": base64.b64encode(b"g%06d" % i).decode(),
                      "partition": i % 4} for i in range(1500)]
    franz_out = {}
    tf = threading.Thread(target=lambda: franz_out.update(
        franz(other, "produce", {"topic": "shared-kill", "acks": "all", "records": franz_records})))
    tf.start()
    deadline = time.monotonic() + 120
    while True:  # some acknowledged, many still to send
        with lock:
            before = len(acked)
        if before >= total // 4:
            break
        assert time.monotonic() < deadline and t.is_alive()
        time.sleep(0.01)
    victim.restart(signal.SIGKILL)  # on its port: the producer's bootstrap stays valid
    t.join(200)
    tf.join(200)
    assert not t.is_alive() and not tf.is_alive()
    assert failed == []
    assert [r["error"] for r in franz_out["records"]] == [None] * len(franz_records)
    franz_acked = {(r["partition"], r["offset"]): base64.b64decode(rec["value"])
                   for r, rec in zip(franz_out["records"], franz_records)}
    assert len(franz_acked) == len(franz_records) and not set(franz_acked) & set(acked)
    acked.update(franz_acked)
    total += len(franz_records)
    print("acked before the kill:", before, "of", total)
    assert len(acked) == total and before < total
    assert sorted(acked.values()) == sorted([b"v%06d" % i for i in range(4000)] +
                                            [b"g%06d" % i for i in range(1500)]), "each record acknowledged once"
    for q in range(4):
        offs = sorted(o for (pp, o) in acked if pp == q)
        assert offs == list(range(len(offs))), "partition %d: offsets not contiguous" % q
    assert consume_all(b1, "shared-kill", 4, total) == acked
    assert consume_all(b2, "shared-kill", 4, total) == acked
