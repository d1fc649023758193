"""ListOffsets answers the committed state, not the last notification heard
(found by test_chaos.py: a group's committed offset past the high watermark
ListOffsets gave after every produce was acknowledged). OffsetForLeaderEpoch
on a broker that never opened the partition (the chaos test's other find) is
test_offset_for_leader_epoch.py's.

Any broker serves any partition; one learns of another's commits through
PostgreSQL's NOTIFY, and a notification sent while its LISTEN connection is
down (PostgreSQL restarted) is lost. Kafka answers ListOffsets LATEST with
the high watermark, which covers every record acknowledged with acks=all
(core/src/main/scala/kafka/cluster/Partition.scala, fetchOffsetForTimestamp:
LATEST_TIMESTAMP is the last fetchable offset, the high watermark for
read_uncommitted). Here broker O has the partition open; it is paused
(SIGSTOP) while PostgreSQL restarts and the other broker commits more
records, so O never hears of them; resumed, O must still answer the new end.
The requests are raw ListOffsets v1 so that the test picks the broker."""

import os
import signal
import socket
import struct
import sys
from pathlib import Path

from conftest import clients
from test_shared_produce import FLUSH, TIMING, create_topic, produce, wait_for_topic

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))

from kafka_wire import read_frame, request_header  # noqa: E402

TOPIC = "fresh-offsets"
KAFKA_STORAGE_ERROR = 56


def list_latest(broker, topic=TOPIC):
    """ListOffsets v1, LATEST of topic/0 at `broker`: (error code, offset)."""
    name = topic.encode()
    body = struct.pack(">ii", -1, 1) + struct.pack(">h", len(name)) + name + struct.pack(">iiq", 1, 0, -1)
    with socket.create_connection((broker.host, broker.port), timeout=20) as sock:
        payload = request_header(2, 1, 7, False, "fresh-offsets-test") + body
        sock.sendall(struct.pack(">i", len(payload)) + payload)
        r = read_frame(sock)[4:]
    name_len, = struct.unpack_from(">h", r, 4)
    _n, partition, error, _ts, offset = struct.unpack_from(">iihqq", r, 6 + name_len)
    assert partition == 0
    return error, offset


def test_list_offsets_counts_commits_whose_notification_was_missed(start_broker, postgres):
    brokers = {n: start_broker(n, *FLUSH, *TIMING) for n in (1, 2)}
    create_topic(brokers[1], TOPIC, 1)
    leader = wait_for_topic(brokers[2], TOPIC, 1)[0]
    writer, other = brokers[leader], brokers[3 - leader]
    assert len(produce(writer, TOPIC, [(b"k%d" % i, b"a%d" % i) for i in range(10)], 1)) == 10
    assert list_latest(other) == (0, 10)  # opened there: it follows the writer's commits from now on

    clients.sigstop(other.proc)
    try:
        postgres.stop()  # the LISTEN connections end; what is notified before `other` listens again is lost
        postgres.start()
        assert len(produce(writer, TOPIC, [(b"k%d" % i, b"b%d" % i) for i in range(10)], 1)) == 10
    finally:
        os.kill(other.proc.pid, signal.SIGCONT)
    def answered():  # a retriable error while `other` reconnects is fine; a stale end is not
        r = list_latest(other)
        return r if r[0] != KAFKA_STORAGE_ERROR else None

    assert clients.wait_for(answered, timeout=30, what="ListOffsets answered") == (0, 20)
