"""OffsetForLeaderEpoch in cluster mode answers where the partition ends in
PostgreSQL, not what the asked broker holds of it in memory. A consumer asks
the partition's new leader when the leader changed (a killed broker's
partitions move) and takes an end offset below its position as truncation:
it seeks back to that end (SubscriptionState.maybeCompleteValidation) and
reads again what it had processed — the Java consume-transform-produce of
test_txn_failover.py wrote the first half of those partitions twice. A broker
that never served the partition held nothing and answered end offset 0.

Kafka: clients/src/main/java/org/apache/kafka/clients/consumer/internals/
SubscriptionState.java (maybeCompleteValidation); the broker's side:
core/src/main/scala/kafka/cluster/Partition.scala (lastOffsetForLeaderEpoch:
the leader's log end offset for its current epoch)."""

import socket
import struct
import sys
from pathlib import Path

from test_shared_produce import FLUSH, TIMING, create_topic, wait_for_topic

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))

from kafka_wire import Reader, frame, produce, read_frame, record_batch, request_header  # noqa: E402

OFFSET_FOR_LEADER_EPOCH = 23
TOPIC = "ofle"


def connect(broker):
    host, port = broker.bootstrap.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=10)


def epoch_end(broker, partition, leader_epoch=0):
    """(error_code, leader_epoch, end_offset) of OffsetForLeaderEpoch v3 for one partition of TOPIC."""
    t = TOPIC.encode()
    body = struct.pack(">iih", -1, 1, len(t)) + t + struct.pack(">iiii", 1, partition, -1, leader_epoch)
    with connect(broker) as sock:
        sock.sendall(frame(request_header(OFFSET_FOR_LEADER_EPOCH, 3, 9, False) + body))
        r = Reader(read_frame(sock))
    r.take(">i")  # correlation id
    r.take(">i")  # throttle time
    assert r.take(">i") == 1
    n = r.take(">h")  # the topic's name
    r.pos += n
    assert r.take(">i") == 1
    error, got = r.take(">h"), r.take(">i")
    assert got == partition
    return error, r.take(">i"), r.take(">q")


def produce_to(broker, partition, n, correlation_id):
    with connect(broker) as sock:
        error, _ = produce(sock, TOPIC, partition, record_batch([(b"k%d" % i, b"v%d" % i) for i in range(n)]),
                           correlation_id)
    assert error == 0


def test_a_broker_answers_the_end_of_a_partition_it_never_served(start_broker):
    b1 = start_broker(1, *FLUSH, *TIMING)
    b2 = start_broker(2, *FLUSH, *TIMING)
    create_topic(b1, TOPIC, 2)
    wait_for_topic(b2, TOPIC, 2)
    produce_to(b1, 0, 10, 1)  # through broker 1 only: broker 2 never opened the partition
    assert epoch_end(b2, 0) == (0, 0, 10)
    assert epoch_end(b1, 0) == (0, 0, 10)
    # More through broker 1: broker 2 answers the new end at once, not its
    # view from before (which moves at the commit's NOTIFY).
    produce_to(b1, 0, 5, 2)
    assert epoch_end(b2, 0) == (0, 0, 15)
    # An epoch past the only one stays unknown; the partition never written ends at 0.
    assert epoch_end(b2, 0, leader_epoch=1) == (0, -1, -1)
    assert epoch_end(b2, 1) == (0, 0, 0)
