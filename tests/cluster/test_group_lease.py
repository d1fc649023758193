"""Fenced group ownership (docs/cluster.md "consumer groups",
docs/design/cluster.md): a broker serves a group only while it holds the
group's lease in PostgreSQL (ketch_group_leases), every write of the group
checks the lease in its own transaction, and a broker whose lease moved
answers NOT_COORDINATOR (Kafka's code when a coordinator lost a group:
GroupCoordinatorService answers NOT_COORDINATOR for a group whose
__consumer_offsets partition it does not lead, see
group-coordinator/src/main/java/org/apache/kafka/coordinator/group/
GroupCoordinatorService.java and CoordinatorRuntime's NotCoordinatorException).

The commits are raw OffsetCommit v2 requests (generation -1: a "simple"
group, as an admin client commits), so that the test sees the code each
broker answers and which broker answered it."""

import signal
import socket
import struct
import sys
from pathlib import Path

from confluent_kafka.admin import AdminClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))

from conftest import clients  # noqa: E402
from kafka_wire import read_frame, request_header  # noqa: E402
from test_shared_produce import FLUSH, create_topic, wait_for_topic  # noqa: E402

NOT_COORDINATOR = 16
HEARTBEAT_MS, SESSION_MS = 250, 2000
TIMING = ["--cluster-heartbeat-ms", str(HEARTBEAT_MS), "--cluster-session-timeout-ms", str(SESSION_MS)]
TOPIC, GROUP = "leased", "lease-group"


def _string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def _call(broker, api_key, version, body):
    with socket.create_connection((broker.host, broker.port), timeout=20) as sock:
        payload = request_header(api_key, version, 7, False, "lease-test") + body
        sock.sendall(struct.pack(">i", len(payload)) + payload)
        return read_frame(sock)[4:]  # past the correlation id


def commit(broker, offset):
    """OffsetCommit v2 of TOPIC/0 for GROUP; the partition's error code."""
    body = (_string(GROUP) + struct.pack(">i", -1) + _string("") + struct.pack(">q", -1) +
            struct.pack(">i", 1) + _string(TOPIC) + struct.pack(">i", 1) +
            struct.pack(">iqh", 0, offset, -1))
    r = _call(broker, 8, 2, body)
    n_topics, = struct.unpack_from(">i", r, 0)
    assert n_topics == 1
    name_len, = struct.unpack_from(">h", r, 4)
    pos = 6 + name_len
    n_parts, partition, error = struct.unpack_from(">iih", r, pos)
    assert (n_parts, partition) == (1, 0)
    return error


def fetch(broker):
    """OffsetFetch v1 of TOPIC/0 for GROUP: (offset, error code)."""
    body = _string(GROUP) + struct.pack(">i", 1) + _string(TOPIC) + struct.pack(">ii", 1, 0)
    r = _call(broker, 9, 1, body)
    name_len, = struct.unpack_from(">h", r, 4)
    pos = 6 + name_len
    _n, _partition, offset = struct.unpack_from(">iiq", r, pos)
    pos += 16
    meta_len, = struct.unpack_from(">h", r, pos)
    pos += 2 + max(meta_len, 0)
    error, = struct.unpack_from(">h", r, pos)
    return offset, error


def lease(postgres):
    rows = postgres.psql("SELECT node_id, epoch FROM ketch_group_leases WHERE group_id = convert_to('%s', 'UTF8')"
                         % GROUP)
    return tuple(int(x) for x in rows[0].split("|")) if rows else None


def stored_offset(postgres):
    rows = postgres.psql("SELECT committed_offset FROM ketch_group_offsets WHERE group_id = convert_to('%s', 'UTF8')"
                         % GROUP)
    return int(rows[0]) if rows else None


def wait_for(check, what, timeout_s=30):
    clients.wait_for(check, timeout=timeout_s, what=what)


def live_brokers(broker):
    return len(AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(timeout=10).brokers)


def test_a_broker_whose_group_lease_moved_is_refused_and_nothing_committed_is_lost(start_broker, postgres):
    brokers = {1: start_broker(1, *FLUSH, *TIMING), 2: start_broker(2, *FLUSH, *TIMING)}
    create_topic(brokers[1], TOPIC, 1)
    wait_for_topic(brokers[2], TOPIC, 1)
    for n in brokers:  # both see both: they agree on the group's owner
        wait_for(lambda: live_brokers(brokers[n]) == 2, "broker %d does not list both" % n)

    # Exactly one broker owns the group: it takes the lease and commits; the
    # other answers NOT_COORDINATOR and writes nothing.
    answers = {n: commit(b, 10) for n, b in brokers.items()}
    assert sorted(answers.values()) == [0, NOT_COORDINATOR], answers
    a = next(n for n, e in answers.items() if e == 0)
    b = 3 - a
    node, epoch = lease(postgres)
    assert node == a and epoch >= 1
    assert stored_offset(postgres) == 10

    # The lease moves to the other broker behind the owner's back (as when
    # the owner's view of the live brokers lags), and that broker commits 20.
    postgres.psql("UPDATE ketch_group_leases SET node_id = %d, epoch = epoch + 1, incarnation = "
                  "(SELECT incarnation FROM ketch_brokers WHERE node_id = %d) "
                  "WHERE group_id = convert_to('%s', 'UTF8')" % (b, b, GROUP))
    postgres.psql("UPDATE ketch_group_offsets SET committed_offset = 20 WHERE group_id = convert_to('%s', 'UTF8')"
                  % GROUP)
    # The old owner's commit is refused in its PostgreSQL transaction.
    assert commit(brokers[a], 15) == NOT_COORDINATOR
    assert stored_offset(postgres) == 20
    assert "took its lease" in brokers[a].log_text()
    # Still the group's owner by the live brokers, it takes the lease back
    # (a new epoch) and reads the group again: the other's commit is what it
    # serves, and its own next commit is written.
    assert fetch(brokers[a]) == (20, 0)
    assert lease(postgres) == (a, epoch + 2)
    assert commit(brokers[a], 30) == 0
    assert stored_offset(postgres) == 30

    # The owner stops heartbeating (SIGSTOP): after the session timeout the
    # other broker takes the group over (a new epoch, read from PostgreSQL)
    # and serves it; the owner, killed, never writes again.
    brokers[a].proc.send_signal(signal.SIGSTOP)
    try:
        wait_for(lambda: lease(postgres)[0] == b, "the lease did not move to broker %d" % b)
        assert lease(postgres)[1] == epoch + 3
        assert fetch(brokers[b]) == (30, 0)
        assert commit(brokers[b], 40) == 0
    finally:
        brokers[a].kill()
        brokers[a].proc.send_signal(signal.SIGCONT)
    assert stored_offset(postgres) == 40
    assert fetch(brokers[b]) == (40, 0)
