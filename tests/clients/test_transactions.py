"""Transactional producers of the real clients against the transaction
coordinator (issue 5): commit and abort across three topics, markers on every
partition, fencing by a second producer with the same transactional.id.

Behaviour reference, Apache Kafka 4.3.1:
- core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala
  (handleInitProducerId: an Ongoing transaction is aborted and the old producer
  fenced; endTransactionWithTV1: PRODUCER_FENCED for a stale epoch);
- TransactionMarkerChannelManager: one COMMIT/ABORT control record per
  partition of the transaction, which consumers skip but which takes an offset;
- read_committed consumers see only committed records (the log side: LSO and
  aborted-transaction index) — checked once the broker serves DescribeProducers,
  which arrives with that log side;
- the LSO holds read_committed consumers back while a transaction is open
  (UnifiedLog.lastStableOffset; LocalLog.read up to it for
  FetchIsolation.TXN_COMMITTED), and the commit marker releases them at once
  (ReplicaManager completes the parked DelayedFetch when the marker moves the LSO).

The client subset is the one the issue names (Java KafkaProducer, confluent-kafka,
kafkajs); the other drivers answer "unsupported".
"""

import base64
import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))
from kafka_wire import api_versions  # noqa: E402

TXN_CLIENTS = ["java", "confluent", "kafkajs"]
DESCRIBE_PRODUCERS = 61


def b64(s):
    return base64.b64encode(s.encode()).decode()


def unb64(s):
    return base64.b64decode(s).decode()


@pytest.fixture(params=TXN_CLIENTS)
def txn_client(request, drivers):
    if request.param not in drivers:
        pytest.skip("%s driver not built or not selected" % request.param)
    return drivers[request.param]


def records(tag, topics):
    """Two records per partition (partitions 0 and 1) of every topic."""
    return [{"topic": t, "partition": p, "key": b64("%s-%s-%d" % (tag, t, p)), "value": b64("%s-%d-%d" % (tag, p, i))}
            for t in topics for p in (0, 1) for i in range(2)]


def read_values(helper, topic, isolation="read_uncommitted", expect=None):
    args = {"topic": topic, "from": "beginning", "timeout_ms": 8000, "isolation_level": isolation}
    if expect is not None:
        args["max_records"] = expect
    return sorted(unb64(r["value"]) for r in helper("consume", args)["records"])


def read_committed_served(broker):
    _, _, keys = api_versions(broker.host, broker.port)
    return DESCRIBE_PRODUCERS in keys


def test_commit_and_abort_across_three_topics(txn_client, helper, unique_topic, broker):
    topics = [unique_topic("t%d" % i) for i in range(3)]
    out = helper("create-topics", {"topics": [{"name": t, "partitions": 2, "replication_factor": 1} for t in topics]})
    assert [r["error"] for r in out["results"]] == [None] * 3
    txns = [{"commit": True, "records": records("c1", topics)},
            {"commit": False, "records": records("ab", topics)},
            {"commit": True, "records": records("c2", topics)}]
    res = txn_client("txn-produce", {"transactional_id": unique_topic("txn"), "transactions": txns})
    assert res["transactions"] == [{"error": None}] * 3, res

    for t in topics:
        # Every partition: 3 transactions x (2 records + 1 marker).
        ends = helper("list-offsets", {"topic": t, "partitions": [0, 1], "spec": "latest"})["offsets"]
        assert ends == {"0": 9, "1": 9}
        # read_uncommitted sees committed and aborted data; control records never.
        every = read_values(helper, t, expect=12)
        assert every == sorted("%s-%d-%d" % (tag, p, i) for tag in ("c1", "ab", "c2") for p in (0, 1) for i in (0, 1))
        if read_committed_served(broker):
            committed = read_values(helper, t, "read_committed", expect=8)
            assert committed == sorted("%s-%d-%d" % (tag, p, i) for tag in ("c1", "c2") for p in (0, 1)
                                       for i in (0, 1))


def test_second_producer_fences_the_first(txn_client, helper, unique_topic, broker):
    topic = unique_topic()
    out = helper("create-topics", {"topics": [{"name": topic, "partitions": 1, "replication_factor": 1}]})
    assert out["results"][0]["error"] is None
    res = txn_client("txn-fence", {"transactional_id": unique_topic("txn"), "topic": topic})
    # TV1 EndTxn v2+ answers PRODUCER_FENCED; clients on EndTxn v0-1 see INVALID_PRODUCER_EPOCH.
    assert res["first_error"] in ("PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH"), res
    assert res["second_error"] is None, res
    # The fenced producer's open transaction was aborted, the second one committed.
    assert read_values(helper, topic, expect=2) == ["fenced", "second"]
    if read_committed_served(broker):
        assert read_values(helper, topic, "read_committed", expect=1) == ["second"]
    ends = helper("list-offsets", {"topic": topic, "partitions": [0], "spec": "latest"})["offsets"]
    assert ends == {"0": 4}  # record, abort marker, record, commit marker


def test_lso_blocks_read_committed_consumers_while_a_transaction_is_open(broker, unique_topic):
    """confluent-kafka producer and consumers in-process: the transaction stays open
    while the consumers read (a driver command runs a whole transaction)."""
    from confluent_kafka import Consumer, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    topic = unique_topic()
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "transactional.id": unique_topic("txn"),
                         "linger.ms": 0})
    producer.init_transactions(30)
    producer.begin_transaction()
    for i in range(3):
        producer.produce(topic, value=b"open-%d" % i, partition=0)
    assert producer.flush(30) == 0  # written; the transaction stays open
    expected = [b"open-%d" % i for i in range(3)]

    def consumer(isolation):
        c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": unique_topic("g"),
                      "enable.auto.commit": False, "isolation.level": isolation, "fetch.wait.max.ms": 5000})
        c.assign([TopicPartition(topic, 0, 0)])
        return c

    def poll(c, want, seconds):
        got, until = [], time.monotonic() + seconds
        while len(got) < want and time.monotonic() < until:
            m = c.poll(0.2)
            if m is not None and m.error() is None:
                got.append(m.value())
        return got

    uncommitted, committed = consumer("read_uncommitted"), consumer("read_committed")
    try:
        assert poll(uncommitted, 3, 15) == expected
        # Nothing past the LSO (0): the records stay invisible while the transaction is open.
        assert poll(committed, 1, 2) == []
        committing_at = time.monotonic()
        producer.commit_transaction(30)
        assert poll(committed, 3, 15) == expected
        waited = time.monotonic() - committing_at
        # fetch.wait.max.ms is 5 s: the parked fetch was woken by the marker, not by its timeout.
        assert waited < 2.5, "read_committed consumer saw the commit after %.1f s" % waited
    finally:
        uncommitted.close()
        committed.close()
