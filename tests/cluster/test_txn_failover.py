"""Transactions across broker failure (docs/design/cluster.md,
"transactions"): consume-transform-produce with confluent-kafka (librdkafka)
— read a batch with read_committed, produce its transform and send the
consumer's offsets in one transaction, commit — while the broker
coordinating the transactional id is SIGKILLed. The survivor takes the id
over from PostgreSQL (its lease, its state); the application aborts and
rewinds to its committed offsets when the client says the transaction must
be aborted, as confluent-kafka's exactly-once example does. At the end the
read_committed output holds every input exactly once, and never a record of
an aborted transaction.

Kafka's own test of the pattern: core/src/test/scala/integration/kafka/api/
TransactionsTest.scala (testSendOffsetsWithGroupMetadata) and
TransactionsBounceTest.scala (brokers bounced during consume-transform-produce)."""

import signal
import time

import pytest

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from conftest import clients
from test_shared_produce import FLUSH, TIMING, create_topic, produce, wait_for_topic

PARTITIONS = 4
TOTAL = 300
TXN_ID = "ctp-txn"


def rewind(consumer):
    """Back to the group's committed offsets (after an abort). A partition
    answered with an error (UNSTABLE_OFFSET_COMMIT while a transaction's
    offsets are pending, KIP-447) is asked again, never taken as "none"."""
    assignment = consumer.assignment()
    if not assignment:
        return

    def stable():
        tps = consumer.committed(assignment, timeout=30)
        return tps if all(tp.error is None for tp in tps) else None

    for tp in clients.wait_for(stable, timeout=60, interval=0.2, what="stable committed offsets"):
        consumer.seek(TopicPartition(tp.topic, tp.partition, tp.offset if tp.offset >= 0 else 0))


def new_producer(bootstrap):
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": TXN_ID, "transaction.timeout.ms": 15000,
                  "linger.ms": 5})
    clients.eventually(lambda: p.init_transactions(30) or True, timeout=60, interval=0.5)
    return p


def transform_once(consumer, producer, msgs):
    """One transaction: the batch's transform and the consumer's offsets. False when it was aborted."""
    producer.begin_transaction()
    for m in msgs:
        producer.produce("ctp-out", key=m.key(), value=b"out-" + m.value(), partition=m.partition())
    producer.send_offsets_to_transaction(consumer.position(consumer.assignment()),
                                         consumer.consumer_group_metadata(), 30)
    producer.commit_transaction(30)
    return True


def process(consumer, producer, bootstrap, msgs):
    """Runs the batch's transaction; on an abortable error aborts and rewinds,
    on a fatal one starts a new producer (which fences the old). The producer to go on with."""
    try:
        transform_once(consumer, producer, msgs)
        return producer
    except KafkaException as e:
        err = e.args[0]
        print("transaction of %d records failed: %s" % (len(msgs), err))
        if err.fatal():
            producer = new_producer(bootstrap)
        else:
            try:
                producer.abort_transaction(30)
            except KafkaException:
                producer = new_producer(bootstrap)
        rewind(consumer)
        return producer


def txn_holder(postgres, txn_id=TXN_ID):
    rows = postgres.psql("SELECT node_id FROM ketch_txn_leases WHERE transactional_id = convert_to('%s', 'UTF8')"
                         % txn_id)
    return int(rows[0]) if rows else None


def test_consume_transform_produce_survives_its_coordinator_killed(start_broker, postgres):
    b1 = start_broker(1, *FLUSH, *TIMING)
    b2 = start_broker(2, *FLUSH, *TIMING)
    brokers = {1: b1, 2: b2}
    bootstrap = "%s,%s" % (b1.bootstrap, b2.bootstrap)
    for t in ("ctp-in", "ctp-out"):
        create_topic(b1, t, PARTITIONS)
        wait_for_topic(b2, t, PARTITIONS)
    inputs = {b"v%04d" % i for i in range(TOTAL)}
    assert len(produce(b1, "ctp-in", [(b"k%d" % i, b"v%04d" % i) for i in range(TOTAL)], PARTITIONS)) == TOTAL

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "ctp-group", "enable.auto.commit": False,
                         "auto.offset.reset": "earliest", "isolation.level": "read_committed",
                         "session.timeout.ms": 6000})
    consumer.subscribe(["ctp-in"])
    producer = new_producer(bootstrap)
    killed = None
    done = 0
    deadline = time.monotonic() + 150
    try:
        while done < TOTAL and time.monotonic() < deadline:
            msgs = [m for m in consumer.consume(20, 1.0) if not m.error()]
            if not msgs:
                done = committed_count(consumer)
                continue
            producer = process(consumer, producer, bootstrap, msgs)
            done = committed_count(consumer)
            print("batch %s..%s (%d), committed %d" % (msgs[0].value(), msgs[-1].value(), len(msgs), done))
            if killed is None and done >= TOTAL // 3:
                killed = txn_holder(postgres)
                assert killed in brokers, "a broker holds the transactional id's lease"
                brokers[killed].stop(signal.SIGKILL)
    finally:
        consumer.close()
    assert killed is not None
    assert done == TOTAL, "the group committed %d of %d inputs" % (done, TOTAL)
    assert txn_holder(postgres) == 3 - killed, "the survivor took the transactional id over"

    def exactly_once():
        out = read_committed(brokers[3 - killed], "ctp-out")
        assert sorted(out) == sorted(b"out-" + v for v in inputs), "every input exactly once in the output"

    clients.eventually(exactly_once, timeout=30, interval=1)  # the last markers follow EndTxn's answer


def committed_count(consumer, topic="ctp-in"):
    """How many inputs the group has committed (the sum of its offsets, each
    partition's offsets being its records: the input holds no transaction)."""
    assignment = [TopicPartition(topic, p) for p in range(PARTITIONS)]
    try:
        return sum(max(tp.offset, 0) for tp in consumer.committed(assignment, timeout=10))
    except KafkaException:
        return 0


def read_committed(broker, topic):
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "check-%d" % time.monotonic_ns(),
                  "enable.auto.commit": False, "isolation.level": "read_committed", "enable.partition.eof": True})
    c.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    out, eof = [], set()
    deadline = time.monotonic() + 60
    try:
        while len(eof) < PARTITIONS and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                if m.error().code() == -191:  # _PARTITION_EOF
                    eof.add(m.partition())
                continue
            eof.discard(m.partition())
            out.append(m.value())
    finally:
        c.close()
    return out


# ------------------------------------------------- transaction version 2: the Java client

HALF = TOTAL // 2


def input_leaders(broker, topic):
    """{partition: leader node id} as the broker's metadata says."""
    md = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(topic, timeout=10)
    return {p: m.leader for p, m in md.topics[topic].partitions.items()}


def group_holder(postgres, group):
    rows = postgres.psql("SELECT node_id FROM ketch_group_leases WHERE group_id = convert_to('%s', 'UTF8')" % group)
    return int(rows[0]) if rows else None


def test_java_v2_consume_transform_produce_survives_its_coordinator_killed(start_broker, postgres):
    """The same pattern with the Java KafkaProducer 4.3.1 at transaction
    version 2 (KIP-890: partitions added by the partitions' brokers at the
    coordinator, TxnOffsetCommit v5, EndTxn v5 bumping the epoch at every end)
    against three brokers. The inputs come in two halves: the application
    (the driver's txn-transform) transforms and commits the first half, then
    waits for more; the coordinators of its transactional id and of its group
    (the same broker or two) are SIGKILLed; then the second half is produced.
    The application is started again when it fails, with the same
    transactional id: its InitProducerId fences the previous producer and
    aborts what it left open, and the group's committed offsets say where to
    resume (as Kafka Streams restarts a task's producer under exactly-once
    v2). Kafka: TransactionsBounceTest.scala; the coordinator's side:
    TransactionCoordinator.scala (handleInitProducerId fencing an ongoing
    transaction, endTransaction's epoch bump).

    The leader of an input partition is killed too (added when the
    coordinators lead none): the consumer asks the partition's new leader
    where its epoch ends (OffsetForLeaderEpoch) and seeks back to an end
    below its position. A broker that had never served the partition
    answered 0, and the first half of those partitions was transformed
    twice (test_offset_for_leader_epoch.py)."""
    import threading
    import types

    if clients._missing("java"):
        pytest.skip("java driver not built")
    brokers = {n: start_broker(n, *FLUSH, *TIMING) for n in (1, 2, 3)}
    bootstrap = ",".join(b.bootstrap for b in brokers.values())
    for t in ("v2-in", "v2-out"):
        create_topic(brokers[1], t, PARTITIONS)
        for b in brokers.values():
            wait_for_topic(b, t, PARTITIONS)
    for b in brokers.values():  # every broker lists every broker: they agree on the coordinator
        clients.wait_for(lambda: len(AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=10).brokers)
                         == len(brokers) or None, what="every broker listed")
    records = [(b"k%d" % i, b"v%04d" % i) for i in range(TOTAL)]
    assert len(produce(brokers[1], "v2-in", records[:HALF], PARTITIONS)) == HALF
    java = clients.Driver("java", types.SimpleNamespace(bootstrap=bootstrap))
    watcher = Consumer({"bootstrap.servers": bootstrap, "group.id": "v2-group", "enable.auto.commit": False})
    runs = []
    deadline = time.monotonic() + 170

    def application():
        while committed_count(watcher, "v2-in") < TOTAL and time.monotonic() < deadline:
            try:
                runs.append(java.call("txn-transform", {
                    "input": "v2-in", "output": "v2-out", "group": "v2-group", "transactional_id": "v2-txn",
                    "batch": 5, "max_records": TOTAL, "timeout_ms": 120000, "idle_ms": 30000,
                    "config": {"client.id": "v2-ctp", "transaction.timeout.ms": 15000, "session.timeout.ms": 6000,
                               "request.timeout.ms": 5000, "delivery.timeout.ms": 20000, "max.block.ms": 20000,
                               "default.api.timeout.ms": 20000}}, timeout=150))
            except clients.DriverError as e:
                runs.append({"error": str(e)[:300]})
            print("application run:", runs[-1])

    app = threading.Thread(target=application)
    app.start()
    try:
        # The first half transformed and committed; the application waits for more.
        clients.wait_for(lambda: committed_count(watcher, "v2-in") == HALF or None, timeout=120, interval=0.2,
                         what="the first half committed")
        killed = {txn_holder(postgres, "v2-txn"), group_holder(postgres, "v2-group")}
        assert killed <= set(brokers), "brokers hold the transactional id's and the group's leases"
        # And the leader of an input partition the application read: its new
        # leader is asked where the partition ends (OffsetForLeaderEpoch).
        leaders = input_leaders(brokers[1], "v2-in")
        if not killed & set(leaders.values()):
            killed.add(leaders[0])
        for n in killed:
            brokers[n].stop(signal.SIGKILL)
        survivors = {n: b for n, b in brokers.items() if n not in killed}
        assert survivors
        print("brokers %s killed with %d of %d committed (input leaders %s)" % (sorted(killed), HALF, TOTAL, leaders))
        survivor = next(iter(survivors.values()))
        assert len(produce(survivor, "v2-in", records[HALF:], PARTITIONS)) == TOTAL - HALF
    finally:
        app.join()
    try:
        assert committed_count(watcher, "v2-in") == TOTAL, runs
    finally:
        watcher.close()
    holder = txn_holder(postgres, "v2-txn")
    assert holder in survivors, "a survivor took the transactional id over"
    row = postgres.psql("SELECT client_txn_version FROM ketch_txns WHERE transactional_id = convert_to('v2-txn', 'UTF8')")
    assert row == ["2"], "the producer ran transaction version 2"
    inputs = [v for _, v in records]

    def exactly_once():
        out = read_committed(survivor, "v2-out")
        dup = sorted(v for v in set(out) if out.count(v) > 1)
        assert sorted(out) == sorted(inputs), "every input exactly once in the output, nothing aborted " \
            "(%d read, %d twice: %s)" % (len(out), len(dup), dup[:20])

    clients.eventually(exactly_once, timeout=30, interval=1)  # the last markers follow EndTxn's answer
