"""A group taken over while a transaction holds offsets of it pending
(docs/design/cluster.md, "consumer groups" and "TxnOffsetCommit atomic with
the commit"). The broker that takes a group's lease reads, in the same
PostgreSQL transaction, the group's offsets still pending in open
transactions (ketch_txn_offsets), as a Kafka coordinator loading a
__consumer_offsets partition replays the pending transactional offset
records (group-coordinator/src/main/java/org/apache/kafka/coordinator/group/
OffsetMetadataManager.java: replay() keeps offsets with a producer id in
pendingTransactionalOffsets until replayEndTransactionMarker). So:

- OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT for such a
  partition on the new coordinator (OffsetMetadataManager.fetchOffsets:
  "openTransactionsByPartition ... Errors.UNSTABLE_OFFSET_COMMIT");
- the commit of that transaction after the move is what the new coordinator
  serves, and an abort after the move drops the pending offset.

The group's coordinator (broker A) and the transaction's (broker B) are
chosen apart, so the transaction's coordinator survives A's kill."""

import sys
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition

sys.path.insert(0, str(Path(__file__).resolve().parent))

from group_wire import (UNSTABLE_OFFSET_COMMIT, commit, fetch, fetch_stable, lease, name_coordinated_by,  # noqa: E402
                        two_brokers, wait_for)

TOPIC = "takeover-txn"


def test_pending_transactional_offsets_move_with_the_group(start_broker, postgres):
    brokers = two_brokers(start_broker, TOPIC)
    a, b = 1, 2
    group = name_coordinated_by(brokers.values(), a, "takeover-group", 0)
    txn_id = name_coordinated_by(brokers.values(), b, "takeover-txn", 1)
    assert commit(brokers[a], group, TOPIC, 5) == 0

    member = Consumer({"bootstrap.servers": brokers[b].bootstrap, "group.id": group})  # never joins
    try:
        check_moves(brokers, postgres, a, b, group, txn_id, member.consumer_group_metadata())
    finally:
        member.close()


def check_moves(brokers, postgres, a, b, group, txn_id, meta):
    first_epoch = lease(postgres, group)[1]
    producer = Producer({"bootstrap.servers": "%s,%s" % (brokers[a].bootstrap, brokers[b].bootstrap),
                         "transactional.id": txn_id})
    producer.init_transactions(60)
    producer.begin_transaction()
    producer.send_offsets_to_transaction([TopicPartition(TOPIC, 0, 10)], meta, 60)
    assert postgres.psql("SELECT committed_offset FROM ketch_txn_offsets") == ["10"]
    assert fetch_stable(brokers[a], group, TOPIC) == (-1, UNSTABLE_OFFSET_COMMIT, 0)

    # A dies with the transaction open: B takes the group and, with it, the
    # pending offset.
    brokers[a].kill()
    wait_for(lambda: lease(postgres, group)[0] == b, "broker %d did not take the group" % b)
    assert lease(postgres, group)[1] > first_epoch
    assert fetch(brokers[b], group, TOPIC) == (5, 0)
    assert fetch_stable(brokers[b], group, TOPIC) == (-1, UNSTABLE_OFFSET_COMMIT, 0)

    # The commit, completed by B's transaction coordinator, is what B's group
    # coordinator serves.
    producer.commit_transaction(60)
    wait_for(lambda: fetch_stable(brokers[b], group, TOPIC) == (10, 0, 0), "the commit applied on broker %d" % b)
    assert fetch(brokers[b], group, TOPIC) == (10, 0)

    # The next transaction's offset is pending on B; A comes back and takes
    # the group again (its owner): the pending offset comes with it, and the
    # abort drops it there.
    producer.begin_transaction()
    producer.send_offsets_to_transaction([TopicPartition(TOPIC, 0, 20)], meta, 60)
    assert fetch_stable(brokers[b], group, TOPIC) == (-1, UNSTABLE_OFFSET_COMMIT, 0)
    brokers[a].start()
    wait_for(lambda: (lease(postgres, group) or (0,))[0] == a, "broker %d did not take the group back" % a)
    # Until A's view of the live brokers and the lease agree it may answer
    # NOT_COORDINATOR (the top-level error); once it serves the group:
    wait_for(lambda: fetch_stable(brokers[a], group, TOPIC) == (-1, UNSTABLE_OFFSET_COMMIT, 0),
             "broker %d answers the pending offset unstable" % a, timeout_s=30)
    assert fetch(brokers[a], group, TOPIC) == (10, 0)
    producer.abort_transaction(60)
    wait_for(lambda: fetch_stable(brokers[a], group, TOPIC) == (10, 0, 0), "the abort applied on broker %d" % a)
    assert postgres.psql("SELECT count(*) FROM ketch_txn_offsets") == ["0"]
