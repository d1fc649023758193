"""Transactions in cluster mode (docs/design/cluster.md, "transactions"):
transactional batches staged and committed like others, end-transaction
markers written as control batches through the flush's commit, each
partition's open transactions (the LSO) and aborted ranges in PostgreSQL.

A confluent-kafka (librdkafka) transactional producer writes to partitions
led by two brokers, committing and aborting in turn; read_committed
consumers on either broker see every committed record once and never an
aborted one, and stop at the first offset of a transaction still open
(Kafka: UnifiedLog.fetchLastStableOffsetMetadata, LogOffsetMetadata of the
first unstable offset bounds a read_committed fetch)."""

import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from conftest import clients
from test_shared_produce import wait_for_topic

FLUSH = ["--cluster-flush-ms", "50"]
PARTITIONS = 6


def create_topic(brokers, name, partitions):
    admin = AdminClient({"bootstrap.servers": brokers[0].bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(timeout=20)
    return [wait_for_topic(b, name, partitions) for b in brokers][0]


def txn_producer(bootstrap, txn_id):
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id, "linger.ms": 5})
    p.init_transactions(30)
    return p


def watermark(consumer, topic, partition):
    """(low, high) as the consumer's isolation level sees them (high: the LSO
    for read_committed); None while its metadata does not know the topic yet."""
    try:
        return consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10, cached=False)
    except KafkaException as e:
        if e.args[0].code() == KafkaError._UNKNOWN_PARTITION:
            return None
        raise


def read(broker, topic, isolation, until_end=True, timeout_s=60):
    """Every record of every partition from offset 0 up to the end the
    consumer's isolation level sees: {(partition, offset): value}."""
    c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "check-%d" % time.monotonic_ns(),
                  "enable.auto.commit": False, "isolation.level": isolation, "enable.partition.eof": True})
    c.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])  # the topic's metadata is asked for
    ends = {p: clients.wait_for(lambda: watermark(c, topic, p), what="watermarks")[1] for p in range(PARTITIONS)}
    got, eof = {}, set()
    deadline = time.monotonic() + timeout_s
    try:
        while len(eof) < PARTITIONS and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                if m.error().code() == -191:  # _PARTITION_EOF
                    if m.offset() >= ends[m.partition()]:
                        eof.add(m.partition())
                    continue
                raise KafkaException(m.error())
            assert (m.partition(), m.offset()) not in got, "offset delivered twice"
            got[(m.partition(), m.offset())] = m.value()
    finally:
        c.close()
    assert len(eof) == PARTITIONS, "did not reach the end of every partition: %s" % ends
    return got, ends


def lso_at(read_result, want):
    got, ends = read_result
    assert ends == {i: want for i in range(PARTITIONS)}
    return got, ends


def test_commits_and_aborts_across_two_brokers(start_broker, postgres):
    b1 = start_broker(1, *FLUSH)
    b2 = start_broker(2, *FLUSH)
    topic = "txn-two"
    create_topic([b1, b2], topic, PARTITIONS)
    for b in (b1, b2):  # once each broker sees the other live, the leaders are both
        clients.wait_for(lambda: set(wait_for_topic(b, topic, PARTITIONS).values()) == {1, 2}, what="leaders")
    p = txn_producer(b1.bootstrap + "," + b2.bootstrap, "txn-two-producer")
    committed, aborted = set(), set()
    for t in range(12):
        p.begin_transaction()
        values = [b"t%d-r%d" % (t, i) for i in range(20)]
        for i, v in enumerate(values):
            p.produce(topic, value=v, partition=i % PARTITIONS)
        if t % 3 == 2:
            p.flush(30)  # sent, so the abort has records to abort (librdkafka drops unsent ones)
            p.abort_transaction(30)
            aborted.update(values)
        else:
            p.commit_transaction(30)
            committed.update(values)
    # The markers, the aborted ranges and no open transaction, in PostgreSQL
    # (EndTxn is answered once the end is prepared; the markers follow).
    clients.wait_for(lambda: postgres.psql("SELECT count(*) FROM ketch_txn_open") == ["0"], what="markers written")
    assert int(postgres.psql("SELECT count(*) FROM ketch_aborted_txns")[0]) == 4 * PARTITIONS
    for broker in (b1, b2):
        got, _ = read(broker, topic, "read_committed")
        assert sorted(got.values()) == sorted(committed), "read_committed on %s" % broker.bootstrap
        assert not (set(got.values()) & aborted)
        every, _ = read(broker, topic, "read_uncommitted")
        assert sorted(every.values()) == sorted(committed | aborted)
    p.flush(10)


def test_an_open_transaction_holds_the_lso(start_broker):
    b1 = start_broker(1, *FLUSH)
    b2 = start_broker(2, *FLUSH)
    topic = "txn-open"
    create_topic([b1, b2], topic, PARTITIONS)
    plain = Producer({"bootstrap.servers": b2.bootstrap, "enable.idempotence": True, "acks": "all"})
    for i in range(PARTITIONS):
        plain.produce(topic, value=b"before-%d" % i, partition=i)
    assert plain.flush(30) == 0
    p = txn_producer(b1.bootstrap, "txn-open-producer")
    p.begin_transaction()
    for i in range(PARTITIONS):
        p.produce(topic, value=b"open-%d" % i, partition=i)
    p.flush(30)
    # Records after the open transaction, from another producer: not readable
    # with read_committed until the transaction ends.
    for i in range(PARTITIONS):
        plain.produce(topic, value=b"after-%d" % i, partition=i)
    assert plain.flush(30) == 0
    for broker in (b1, b2):
        got, ends = read(broker, topic, "read_committed")
        assert ends == {i: 1 for i in range(PARTITIONS)}, "the LSO is the open transaction's first offset"
        assert sorted(got.values()) == sorted(b"before-%d" % i for i in range(PARTITIONS))
    p.abort_transaction(30)
    for broker in (b1, b2):  # the markers follow EndTxn's answer
        got, ends = clients.eventually(lambda: lso_at(read(broker, topic, "read_committed"), 4))
        assert ends == {i: 4 for i in range(PARTITIONS)}, "the LSO is the high watermark again"
        want = [b"before-%d" % i for i in range(PARTITIONS)] + [b"after-%d" % i for i in range(PARTITIONS)]
        assert sorted(got.values()) == sorted(want)
