"""A transaction's end heard late by the group coordinator (docs/design/
cluster.md, "TxnOffsetCommit atomic with the commit"). The transaction
coordinator completes a producer's offsets in PostgreSQL and NOTIFYs
'txn-end:<producer id>:<0|1>'; the notification names the producer only
(transaction version 1 keeps its epoch between transactions) and may reach a
group coordinator after the producer's next TxnOffsetCommit. The group
coordinator then takes PostgreSQL as the truth: the next transaction's
pending offsets (still in ketch_txn_offsets) stay pending, and the committed
offsets are read back from ketch_group_offsets, never taken from memory.

The late notification is sent here by hand (psql), after the next
transaction's TxnOffsetCommit, for a commit whose offset of the partition
the group coordinator had not seen (written to ketch_group_offsets by
psql, as the earlier transaction's completion would have): it is what
OffsetFetch answers once the notification is applied, while the next
transaction's offset stays pending until that transaction commits."""

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

from conftest import clients
from test_shared_produce import FLUSH, create_topic, wait_for_topic

TOPIC = "late-end-in"
GROUP = "late-end-group"
TXN_ID = "late-end-txn"


def group_consumer(isolation):
    """A consumer of GROUP that never joins: its committed() is OffsetFetch,
    with require_stable under read_committed (librdkafka, KIP-447)."""
    return {"group.id": GROUP, "enable.auto.commit": False, "isolation.level": isolation}


def committed(consumer, partitions):
    """{partition: offset}, or None while a partition answers an error (UNSTABLE_OFFSET_COMMIT)."""
    try:
        tps = consumer.committed([TopicPartition(TOPIC, p) for p in partitions], timeout=10)
    except KafkaException:
        return None
    if any(tp.error is not None for tp in tps):
        return None
    return {tp.partition: tp.offset for tp in tps}


def send_offsets(producer, meta, offsets):
    producer.send_offsets_to_transaction([TopicPartition(TOPIC, p, o) for p, o in offsets.items()], meta, 30)


def test_a_late_end_keeps_the_next_transactions_offsets_pending(start_broker, postgres):
    b = start_broker(1, *FLUSH)
    create_topic(b, TOPIC, 2)
    wait_for_topic(b, TOPIC, 2)
    plain = Consumer({"bootstrap.servers": b.bootstrap, **group_consumer("read_uncommitted")})
    stable = Consumer({"bootstrap.servers": b.bootstrap, **group_consumer("read_committed")})
    meta = plain.consumer_group_metadata()
    producer = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": TXN_ID})
    producer.init_transactions(30)
    try:
        producer.begin_transaction()  # the earlier transaction, committed
        send_offsets(producer, meta, {0: 10, 1: 20})
        producer.commit_transaction(30)
        clients.wait_for(lambda: committed(stable, [0, 1]) == {0: 10, 1: 20}, what="the first commit's offsets")

        producer.begin_transaction()  # the next one: its offset of partition 0 pending
        send_offsets(producer, meta, {0: 30})
        pid = postgres.psql("SELECT DISTINCT producer_id FROM ketch_txn_offsets")
        assert len(pid) == 1, "the next transaction's offset is pending in PostgreSQL"
        # The earlier commit, as its completion left PostgreSQL: partition 0 at
        # 15 (this coordinator holds 30, the next transaction's, in memory).
        postgres.psql("UPDATE ketch_group_offsets SET committed_offset = 15 WHERE group_id = "
                      "convert_to('%s', 'UTF8') AND partition = 0" % GROUP)
        postgres.psql("SELECT pg_notify('ketch_commit', 'txn-end:%s:1')" % pid[0])  # late, for the earlier one

        # The committed offsets are PostgreSQL's, read back when the end is applied.
        clients.wait_for(lambda: committed(plain, [0, 1]) == {0: 15, 1: 20}, what="the late end applied")
        assert committed(stable, [0]) is None, "partition 0's offset is still pending (UNSTABLE_OFFSET_COMMIT)"
        assert committed(stable, [1]) == {1: 20}
        assert postgres.psql("SELECT partition, committed_offset FROM ketch_txn_offsets") == ["0|30"]

        send_offsets(producer, meta, {1: 40})  # the next transaction goes on: its guard holds
        producer.commit_transaction(30)
        clients.wait_for(lambda: committed(stable, [0, 1]) == {0: 30, 1: 40}, what="the next commit's offsets")
        assert postgres.psql("SELECT count(*) FROM ketch_txn_offsets") == ["0"]
    finally:
        plain.close()
        stable.close()
