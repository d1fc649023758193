"""Raw group requests for cluster tests that must see which broker answered
what (no client retries in between): FindCoordinator, OffsetCommit v2,
OffsetFetch v1 and v7 (require_stable), and a classic group's JoinGroup v3,
SyncGroup v1, Heartbeat v1 and DescribeGroups v1."""

import socket
import struct
import sys
from pathlib import Path

from confluent_kafka.admin import AdminClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))

from kafka_wire import Reader, compact_string, read_frame, request_header, uvarint  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import clients  # noqa: E402
from test_shared_produce import FLUSH, create_topic, wait_for_topic  # noqa: E402

NOT_COORDINATOR = 16
COORDINATOR_NOT_AVAILABLE = 15
UNSTABLE_OFFSET_COMMIT = 88
# Leases that move quickly: a heartbeat every 250 ms, a broker not heard from for 2 s is not live.
TIMING = ["--cluster-heartbeat-ms", "250", "--cluster-session-timeout-ms", "2000"]


def _string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def call(broker, api_key, version, body, flexible=False):
    """The response past its correlation id (and, when flexible, its header's tagged fields)."""
    with socket.create_connection((broker.host, broker.port), timeout=30) as sock:
        payload = request_header(api_key, version, 7, flexible, "group-wire") + body
        sock.sendall(struct.pack(">i", len(payload)) + payload)
        return read_frame(sock)[5 if flexible else 4:]


def coordinator(broker, key, key_type):
    """FindCoordinator v1 (key type 0: group, 1: transactional id): (error code, node id)."""
    r = call(broker, 10, 1, _string(key) + struct.pack(">b", key_type))
    _throttle, error = struct.unpack_from(">ih", r, 0)
    pos = 6
    msg_len, = struct.unpack_from(">h", r, pos)
    pos += 2 + max(msg_len, 0)
    node, = struct.unpack_from(">i", r, pos)
    return error, node


def name_coordinated_by(brokers, node, prefix, key_type):
    """The first of prefix-0, prefix-1, ... whose coordinator every broker names as `node`."""
    for i in range(200):
        name = "%s-%d" % (prefix, i)
        if all(coordinator(b, name, key_type) == (0, node) for b in brokers):
            return name
    raise AssertionError("no %s coordinated by %d" % (prefix, node))


def commit(broker, group, topic, offset, partition=0):
    """OffsetCommit v2 of topic/partition for a simple group (generation -1); the partition's error code."""
    body = (_string(group) + struct.pack(">i", -1) + _string("") + struct.pack(">q", -1) +
            struct.pack(">i", 1) + _string(topic) + struct.pack(">i", 1) +
            struct.pack(">iqh", partition, offset, -1))
    r = call(broker, 8, 2, body)
    name_len, = struct.unpack_from(">h", r, 4)
    _n, _partition, error = struct.unpack_from(">iih", r, 6 + name_len)
    return error


def fetch(broker, group, topic, partition=0):
    """OffsetFetch v1: (offset, error code) of topic/partition (v1 puts a group error on every partition)."""
    body = _string(group) + struct.pack(">i", 1) + _string(topic) + struct.pack(">ii", 1, partition)
    r = call(broker, 9, 1, body)
    name_len, = struct.unpack_from(">h", r, 4)
    pos = 6 + name_len
    _n, _partition, offset = struct.unpack_from(">iiq", r, pos)
    pos += 16
    meta_len, = struct.unpack_from(">h", r, pos)
    pos += 2 + max(meta_len, 0)
    error, = struct.unpack_from(">h", r, pos)
    return offset, error


def fetch_stable(broker, group, topic, partition=0):
    """OffsetFetch v7 with require_stable: (offset, partition error, top-level error)."""
    body = (compact_string(group) + uvarint(2) + compact_string(topic) + uvarint(2) + struct.pack(">i", partition) +
            b"\x00" + b"\x01" + b"\x00")
    rd = Reader(call(broker, 9, 7, body, flexible=True))
    rd.take(">i")  # throttle
    offset, perror = -1, None
    for _ in range(rd.uvarint() - 1):
        n = rd.uvarint()  # the name's length + 1 (not in one `+=`: uvarint() moves pos)
        rd.pos += n - 1
        for _ in range(rd.uvarint() - 1):
            rd.take(">i")
            offset = rd.take(">q")
            rd.take(">i")
            n = rd.uvarint()
            rd.pos += max(n - 1, 0)
            perror = rd.take(">h")
            rd.pos += 1  # tagged fields
        rd.pos += 1
    return offset, perror, rd.take(">h")


def _bytes(b):
    return struct.pack(">i", len(b)) + b


def join(broker, group, member_id="", session_ms=60000, protocol_type="wire-test"):
    """JoinGroup v3 (no member id required first, KIP-394 is v4) with one protocol "p":
    (error code, generation, member id, leader)."""
    body = (_string(group) + struct.pack(">ii", session_ms, session_ms) + _string(member_id) +
            _string(protocol_type) + struct.pack(">i", 1) + _string("p") + _bytes(b""))
    rd = Reader(call(broker, 11, 3, body))
    rd.take(">i")  # throttle
    error, generation = rd.take(">h"), rd.take(">i")
    rd.string()  # protocol name
    leader = rd.string()
    return error, generation, rd.string(), leader


def sync(broker, group, generation, member_id, assignments=()):
    """SyncGroup v1 with [(member id, assignment bytes)]: the error code."""
    body = _string(group) + struct.pack(">i", generation) + _string(member_id) + struct.pack(">i", len(assignments))
    for member, assignment in assignments:
        body += _string(member) + _bytes(assignment)
    return struct.unpack_from(">h", call(broker, 14, 1, body), 4)[0]


def heartbeat(broker, group, generation, member_id):
    """Heartbeat v1: the error code."""
    body = _string(group) + struct.pack(">i", generation) + _string(member_id)
    return struct.unpack_from(">h", call(broker, 12, 1, body), 4)[0]


def describe(broker, group):
    """DescribeGroups v1 of one group: (error code, state)."""
    rd = Reader(call(broker, 15, 1, struct.pack(">i", 1) + _string(group)))
    rd.take(">i")  # throttle
    assert rd.take(">i") == 1
    error = rd.take(">h")
    rd.string()  # group id
    return error, rd.string()


def lease(postgres, group):
    """(node id, epoch) of the group's lease, or None."""
    rows = postgres.psql("SELECT node_id, epoch FROM ketch_group_leases WHERE group_id = convert_to('%s', 'UTF8')"
                         % group)
    return tuple(int(x) for x in rows[0].split("|")) if rows else None


def stored_offset(postgres, group):
    rows = postgres.psql("SELECT committed_offset FROM ketch_group_offsets WHERE group_id = convert_to('%s', 'UTF8')"
                         % group)
    return int(rows[0]) if rows else None


def live_brokers(broker):
    return len(AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(timeout=10).brokers)


def wait_for(check, what, timeout_s=60):
    return clients.wait_for(check, timeout=timeout_s, what=what)


def two_brokers(start_broker, topic, *args):
    """Brokers 1 and 2 with TIMING (and `args`), `topic` (one partition) known to both, and each
    listing both (so they agree on every group's owner): {node id: broker}."""
    brokers = {n: start_broker(n, *FLUSH, *TIMING, *args) for n in (1, 2)}
    create_topic(brokers[1], topic, 1)
    wait_for_topic(brokers[2], topic, 1)
    for n in brokers:
        wait_for(lambda: live_brokers(brokers[n]) == 2, "broker %d does not list both" % n)
    return brokers
