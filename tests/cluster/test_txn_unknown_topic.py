"""A transactional produce for a topic the partition's broker knows and the
transaction's coordinator does not know yet (it learns new topics from
PostgreSQL's NOTIFY, a moment after CreateTopics was answered elsewhere): the
coordinator answers the forwarded AddPartitionsToTxn v5
UNKNOWN_TOPIC_OR_PARTITION, and the produce is answered that retriable code,
nothing appended; once the coordinator knows the topic, the same produce
goes through.

Behaviour reference, Apache Kafka 4.3.1:
- core/src/main/scala/kafka/server/KafkaApis.scala
  (handleAddPartitionsToTxnRequest: a partition not in the metadata cache is
  UNKNOWN_TOPIC_OR_PARTITION, the transaction's others OPERATION_NOT_ATTEMPTED,
  before the coordinator is asked, verify_only or not);
- core/src/main/scala/kafka/server/ReplicaManager.scala
  (handleProduceAppend: only INVALID_TXN_STATE and the coordinator-unavailable
  codes are translated; any other verification error is the partition's answer);
- server/src/main/java/org/apache/kafka/server/transaction/AddPartitionsToTxnManager.java
  (the coordinator's per-partition error passed on, PRODUCER_FENCED -> INVALID_PRODUCER_EPOCH).
"""

import base64
import time
import uuid

from conftest import clients
from test_shared_produce import FLUSH, TIMING, wait_for_topic
from test_txn_v2 import COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, add_partition_v0, all_live, init_producer_id, \
    kafka_wire, produce_v3

UNKNOWN_TOPIC_OR_PARTITION = 3


def test_produce_for_a_topic_the_coordinator_does_not_know_yet_is_retriable(start_broker, postgres):
    b1 = start_broker(1, *FLUSH, *TIMING)
    b2 = start_broker(2, *FLUSH, *TIMING)
    # A topic in PostgreSQL that no NOTIFY announced; b1 reads it at its restart, b2 does not.
    topic = "txn-late"
    topic_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
    postgres.psql("INSERT INTO ketch_topics (topic_id, name, partitions, replication_factor, created_ms) "
                  "VALUES ('%s', '%s', 1, 1, %d)" % (topic_id, topic, int(time.time() * 1000)))
    b1.restart()
    all_live([b1, b2])
    wait_for_topic(b1, topic, 1)

    # A transactional id b2 coordinates.
    def coordinated_by_b2():
        for i in range(200):
            err, pid, epoch = init_producer_id(b2, "late-txn-%d" % i)
            if err == 0:
                return "late-txn-%d" % i, pid, epoch
            assert err in (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE), err
        return None

    txn_id, pid, epoch = clients.wait_for(coordinated_by_b2, what="an id b2 coordinates")
    batch = kafka_wire.record_batch([(b"k", b"v")], pid, epoch, 0, attributes=0x10)
    # b1 has the partition; b2, asked to verify it, does not know the topic: retriable, nothing appended.
    assert produce_v3(b1, topic, 0, batch, txn_id) == (UNKNOWN_TOPIC_OR_PARTITION, -1)
    assert add_partition_v0(b2, txn_id, pid, epoch, topic, 0) == UNKNOWN_TOPIC_OR_PARTITION

    # The announcement: b2 learns the topic, the add and the same produce go through.
    postgres.psql("NOTIFY ketch_commit, 'topics'")
    wait_for_topic(b2, topic, 1)
    assert add_partition_v0(b2, txn_id, pid, epoch, topic, 0) == 0
    assert produce_v3(b1, topic, 0, batch, txn_id) == (0, 0)
