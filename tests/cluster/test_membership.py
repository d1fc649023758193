"""Cluster membership (docs/cluster.md): brokers started with --cluster register
in PostgreSQL and heartbeat; Metadata and DescribeCluster, asked of any of
them by a real client (confluent-kafka, librdkafka), list every live broker,
with one cluster id. A SIGKILLed broker drops out once its heartbeat is older
than the session timeout and is back after a restart; a broker stopped with
SIGTERM deregisters and drops out at once.

Kafka's counterparts: broker.heartbeat.interval.ms / broker.session.timeout.ms
(BrokerHeartbeatManager: a broker whose last contact is older than the session
timeout is fenced and left out of metadata)."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "behavior"))
import kafka_wire  # noqa: E402

HEARTBEAT_MS = 250
SESSION_TIMEOUT_MS = 3000  # with room for a loaded machine's stalls
TIMING = ["--cluster-heartbeat-ms", str(HEARTBEAT_MS), "--cluster-session-timeout-ms", str(SESSION_TIMEOUT_MS)]


@pytest.fixture(autouse=True)
def no_brokers_left(postgres):
    """The engines live for the module; a broker an earlier test killed stays registered
    until its session times out (a minute in one test), and would be listed here: each test
    starts with no registration (the table exists once a broker has migrated the schema)."""
    postgres.psql("DO $$ BEGIN IF to_regclass('ketch_brokers') IS NOT NULL THEN DELETE FROM ketch_brokers; "
                  "END IF; END $$")


def admin(broker):
    return AdminClient({"bootstrap.servers": broker.bootstrap, "socket.timeout.ms": 5000})


def described(broker):
    """DescribeCluster's (cluster id, {node id: (host, port, rack)})."""
    client = admin(broker)  # kept until the answer is in: a destroyed handle fails its futures
    r = client.describe_cluster(request_timeout=10).result()
    return r.cluster_id, {n.id: (n.host, n.port, n.rack) for n in r.nodes}


def metadata_brokers(broker):
    """The brokers `broker`'s own Metadata lists (on the wire: librdkafka may send a Metadata
    request to any broker it has heard of, whose view may not have caught up yet)."""
    host, port = broker.bootstrap.rsplit(":", 1)
    return kafka_wire.metadata_brokers(host, int(port))


def wait_for_nodes(broker, want, timeout_s=15):
    """Asks DescribeCluster of broker until it lists exactly `want`; the seconds it took."""
    start = time.monotonic()
    while True:
        _, nodes = described(broker)
        if set(nodes) == set(want):
            return time.monotonic() - start
        if time.monotonic() - start > timeout_s:
            pytest.fail("broker %s lists %s, expected %s" % (broker.bootstrap, sorted(nodes), sorted(want)))
        time.sleep(HEARTBEAT_MS / 4000)


def test_live_brokers_join_drop_out_and_come_back(start_broker, postgres):
    b1 = start_broker(1, *TIMING, "--rack", "rack-a")
    b2 = start_broker(2, *TIMING)
    b3 = start_broker(3, *TIMING)
    brokers = {1: b1, 2: b2, 3: b3}
    wait_for_nodes(b1, [1, 2, 3])  # b1's snapshot is refreshed after each heartbeat

    ids = set()
    for node, b in brokers.items():
        wait_for_nodes(b, [1, 2, 3])  # each broker's view catches up at its next heartbeat
        cluster_id, nodes = described(b)
        ids.add(cluster_id)
        assert nodes == {n: ("127.0.0.1", x.port, "rack-a" if n == 1 else None) for n, x in brokers.items()}
        assert metadata_brokers(b) == {n: ("127.0.0.1", x.port) for n, x in brokers.items()}
    assert len(ids) == 1, "every broker reports the one cluster id stored in PostgreSQL"
    assert postgres.psql("SELECT cluster_id FROM ketch_cluster") == [ids.pop()]
    assert postgres.psql("SELECT version FROM ketch_schema") == ["20"]  # cluster/schema.cc's migrations

    b2.kill()
    killed = time.monotonic()
    _, nodes = described(b1)
    if time.monotonic() - killed < SESSION_TIMEOUT_MS / 2000:  # else too slow to tell on this machine
        assert 2 in nodes, "a killed broker stays listed until its session times out"
    wait_for_nodes(b1, [1, 3])
    assert time.monotonic() - killed >= SESSION_TIMEOUT_MS / 1000 - HEARTBEAT_MS / 1000, \
        "dropped out no earlier than its last heartbeat plus the session timeout"
    wait_for_nodes(b3, [1, 3])

    b2.start(port=b2.port)  # the same node id and port again
    wait_for_nodes(b1, [1, 2, 3])
    wait_for_nodes(b2, [1, 2, 3])
    assert described(b2)[1][2] == ("127.0.0.1", b2.port, None)

    assert b3.stop(signal.SIGTERM) == 0
    # Deregistered on shutdown: gone without waiting for the session timeout.
    assert postgres.psql("SELECT node_id FROM ketch_brokers ORDER BY node_id") == ["1", "2"]
    wait_for_nodes(b1, [1, 2])


def leaders(broker, topic):
    md = admin(broker).list_topics(topic, timeout=10).topics[topic]
    assert md.error is None and len(md.partitions) > 0, md.error
    return {p.id: p.leader for p in md.partitions.values()}


def test_a_killed_brokers_partitions_move_before_its_session_times_out(start_broker):
    """Metadata names partition leaders among the live brokers whose PostgreSQL
    session is open (docs/design/cluster.md, "which broker a client talks to"):
    a SIGKILLed broker's session ends with its process, so its partitions (and
    a few others) move to the survivors at their next refresh, while the broker stays live (listed
    by DescribeCluster and Metadata) until its session times out — a minute
    here, so that the test sees the state in between on a loaded machine."""
    from conftest import clients

    timing = ["--cluster-heartbeat-ms", str(HEARTBEAT_MS), "--cluster-session-timeout-ms", "60000"]
    b1, b2, b3 = (start_broker(n, *timing) for n in (1, 2, 3))
    for b in (b1, b2, b3):
        wait_for_nodes(b, [1, 2, 3])
    creator = admin(b1)  # kept until the answer is in
    creator.create_topics([NewTopic("moves", 24, 1)])["moves"].result(timeout=30)
    before = clients.eventually(lambda: leaders(b1, "moves"))
    # Bounded loads (broker/live_brokers.h partition_leader): each leads its share.
    assert sorted(list(before.values()).count(n) for n in (1, 2, 3)) == [8, 8, 8], before

    b2.kill()
    for b in (b1, b3):
        def moved():
            now = leaders(b, "moves")
            assert 2 not in now.values(), now
            return now
        after = clients.eventually(moved, timeout=30)
        # Its 8 move, and a few of the 16 others (rendezvous hashing with bounded
        # loads: 0-3 in 3000 random topic ids, 0.7 on average).
        others_moved = [p for p, n in before.items() if n != 2 and after[p] != n]
        assert len(others_moved) <= 4, (before, after)
        assert sorted(list(after.values()).count(n) for n in (1, 3)) == [12, 12], after
        assert 2 in described(b)[1] and 2 in metadata_brokers(b), "still live until its session times out"


def test_refuses_to_start_without_its_engines(tmp_path, postgres, s3, aws_env):
    from conftest import clients  # the BrokerProcess of tests/clients/conftest.py

    def exit_of(*args):
        run = tmp_path / ("run-%d" % len(list(tmp_path.iterdir())))
        run.mkdir()
        argv = [str(clients._ketch_binary()), "--listen", "127.0.0.1:0", "--data-dir", str(run / "data"),
                "--schema-registry=false", "--console=false", *args]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        return r.returncode, r.stdout + r.stderr

    code, out = exit_of("--cluster", postgres.url())
    assert code == 2 and "--cluster and --object-store go together" in out
    code, out = exit_of("--cluster", "mysql://x@127.0.0.1/db", "--object-store", s3.url())
    assert code == 1 and "expected postgres://" in out
    code, out = exit_of("--cluster", postgres.url(), "--object-store", s3.url("no-such-bucket"))
    assert code == 1 and "HEAD bucket: HTTP 404" in out, out
    code, out = exit_of("--cluster", postgres.url(), "--object-store", "s3://bucket?endpoint=ftp://h:1")
    assert code == 1 and "endpoint must be http://HOST:PORT or https://HOST:PORT" in out, out
    code, out = exit_of("--cluster", "postgres://ketch@127.0.0.1:1/ketch", "--object-store", s3.url())
    assert code == 1 and "cannot connect to PostgreSQL" in out, out


def test_brokers_ride_out_a_postgres_restart(start_broker, postgres):
    """PostgreSQL stopped and started again: the brokers keep answering Metadata
    from their last view meanwhile, reconnect by themselves, and heartbeat and
    see membership changes again afterwards."""
    b1 = start_broker(11, *TIMING)
    b2 = start_broker(12, *TIMING)
    wait_for_nodes(b1, [11, 12])
    postgres.stop()
    assert set(metadata_brokers(b1)) == {11, 12}, "the last view is served while PostgreSQL is down"
    postgres.start()

    def fresh_heartbeats():
        rows = postgres.psql("SELECT node_id FROM ketch_brokers WHERE last_heartbeat > now() - interval '%d ms' "
                             "ORDER BY node_id" % (HEARTBEAT_MS * 3))
        return rows == ["11", "12"]

    deadline = time.monotonic() + 30
    while not fresh_heartbeats():
        assert time.monotonic() < deadline, "the brokers did not heartbeat again after PostgreSQL restarted"
        time.sleep(HEARTBEAT_MS / 1000)
    b2.kill()
    wait_for_nodes(b1, [11])


def test_a_manual_assignment_may_name_any_live_broker(start_broker):
    """A manual partition assignment (CreateTopics, CreatePartitions) is valid when it names
    registered brokers (ReplicationControlManager.validateManualPartitionAssignment, kafka
    metadata/src/main/java/org/apache/kafka/controller/ReplicationControlManager.java): in
    cluster mode every live broker, not only the one asked (kafka-python's admin tests assign
    [[0], [0]] through whichever broker they reach). An id no broker has is refused."""
    from confluent_kafka.admin import NewPartitions
    from confluent_kafka import KafkaException

    b1, b2 = (start_broker(n, *TIMING) for n in (1, 2))
    for b in (b1, b2):
        wait_for_nodes(b, [1, 2])
    client = admin(b1)  # kept until the answers are in
    client.create_topics([NewTopic("placed", num_partitions=2, replica_assignment=[[2], [1]])])["placed"].result(timeout=30)
    client.create_partitions([NewPartitions("placed", 3, [[2]])])["placed"].result(timeout=30)
    from conftest import clients

    def three_on_broker_2():
        parts = admin(b2).list_topics("placed", timeout=10).topics["placed"].partitions
        assert len(parts) == 3, parts
    clients.eventually(three_on_broker_2)
    for refused in (client.create_topics([NewTopic("misplaced", num_partitions=1, replica_assignment=[[9]])])["misplaced"],
                    client.create_partitions([NewPartitions("placed", 4, [[9]])])["placed"]):
        with pytest.raises(KafkaException) as e:
            refused.result(timeout=30)
        assert e.value.args[0].name() == "INVALID_REPLICA_ASSIGNMENT", e.value
        assert "includes broker 9, but no such broker is registered" in e.value.args[0].str()
