"""A group coordinator paused past its lease answers no membership request
from memory (docs/design/cluster.md "consumer groups", rule 4): broker A,
holding a classic group with one member, is SIGSTOPped until broker B takes
the group's lease (and serves the member from what A wrote); SIGCONTed, A's
first Heartbeat, JoinGroup or DescribeGroups of the group is answered
NOT_COORDINATOR (16), not from the group as A held it before the pause.
Kafka's coordinator answers NOT_COORDINATOR for a group it no longer
coordinates (group-coordinator/src/main/java/org/apache/kafka/coordinator/
group/GroupCoordinatorService.java, CoordinatorRuntime's
NotCoordinatorException), and Kafka's clients then look for the
coordinator again (clients/src/main/java/org/apache/kafka/clients/consumer/
internals/AbstractCoordinator.java, HeartbeatResponseHandler:
NOT_COORDINATOR -> markCoordinatorUnknown).

Each request is probed after a pause of its own: the first answer refused
marks the lease lost, and a broker back in the live set that owns the group
takes it again at the next request (a new epoch, read from PostgreSQL).

A real consumer (confluent-kafka) of a group A coordinates keeps consuming
through such a pause, and after it, without being restarted."""

import signal
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from confluent_kafka import Consumer, Producer

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import clients  # noqa: E402
from group_wire import NOT_COORDINATOR, describe, heartbeat, join, lease, name_coordinated_by  # noqa: E402
from group_wire import sync, two_brokers, wait_for  # noqa: E402

TOPIC, CONSUMED = "stale-members", "stale-consumed"
NO_DELAY = ["--group-initial-rebalance-delay-ms", "0"]


@contextmanager
def paused_until_taken(postgres, brokers, group, a, b):
    """Broker a SIGSTOPped until broker b holds the group's lease; the body runs while a is stopped."""
    clients.sigstop(brokers[a].proc)
    try:
        wait_for(lambda: lease(postgres, group)[0] == b, "broker %d did not take the group" % b)
        yield
    finally:
        brokers[a].proc.send_signal(signal.SIGCONT)


def test_a_coordinator_paused_past_its_lease_refuses_membership_requests(start_broker, postgres):
    brokers = two_brokers(start_broker, TOPIC, *NO_DELAY)
    a, b = 1, 2
    group = name_coordinated_by(brokers.values(), a, "stale-members", 0)
    error, generation, member, leader = join(brokers[a], group)
    assert (error, leader) == (0, member), (error, leader, member)
    assert sync(brokers[a], group, generation, member, [(member, b"assigned")]) == 0
    assert heartbeat(brokers[a], group, generation, member) == 0
    assert lease(postgres, group)[0] == a

    probes = {
        "Heartbeat": lambda: heartbeat(brokers[a], group, generation, member),
        "JoinGroup": lambda: join(brokers[a], group, member)[0],
        "DescribeGroups": lambda: describe(brokers[a], group)[0],
    }
    for name, probe in probes.items():
        # A serves the group (taken again after the last probe's pause).
        wait_for(lambda: describe(brokers[a], group) == (0, "Stable") and lease(postgres, group)[0] == a,
                 "broker %d does not serve the group before the %s probe" % (a, name))
        _, epoch = lease(postgres, group)
        with paused_until_taken(postgres, brokers, group, a, b):
            # The taker restored the member from what A wrote.
            assert heartbeat(brokers[b], group, generation, member) == 0
        assert probe() == NOT_COORDINATOR, name
        # Refusing took nothing back: the lease is still the one B took.
        assert lease(postgres, group) == (b, epoch + 1), name
    assert "groups held are confirmed in PostgreSQL" in brokers[a].log_text()


def poll_values(consumer, want, timeout_s=90):
    """Polls until every value of `want` arrived; the values read (repeats kept out)."""
    got = set()
    deadline = time.monotonic() + timeout_s
    while not want <= got:
        assert time.monotonic() < deadline, "missing %d of %d values" % (len(want - got), len(want))
        m = consumer.poll(0.5)
        if m is not None and not m.error():
            got.add(m.value())
    return got


def produce_values(broker, values):
    p = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "acks": "all"})
    for v in values:
        p.produce(CONSUMED, value=v)
    assert p.flush(60) == 0


def test_a_consumer_keeps_consuming_through_its_coordinators_pause(start_broker, postgres):
    brokers = two_brokers(start_broker, CONSUMED, *NO_DELAY)
    a, b = 1, 2
    group = name_coordinated_by(brokers.values(), a, "stale-consumer", 0)
    # The member's session must outlast the client's way to B. B restores the
    # member with a full session from its takeover (about 2 s after the pause:
    # TIMING); the client finds B only when a request to A times out
    # (socket.timeout.ms 5 s, after a heartbeat interval of up to 3 s) and it
    # asks FindCoordinator again. A 6 s session left no margin: on a loaded
    # machine B expired the member first and the commit was refused
    # UNKNOWN_MEMBER_ID (what Kafka answers too; the client would rejoin).
    consumer = Consumer({"bootstrap.servers": "%s,%s" % (brokers[a].bootstrap, brokers[b].bootstrap),
                         "group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False,
                         "session.timeout.ms": 15000, "socket.timeout.ms": 5000})
    consumer.subscribe([CONSUMED])
    try:
        batches = [{b"before-%d" % i for i in range(20)}, {b"during-%d" % i for i in range(20)},
                   {b"after-%d" % i for i in range(20)}]
        produce_values(brokers[b], sorted(batches[0]))
        poll_values(consumer, batches[0])
        consumer.commit(asynchronous=False)
        assert lease(postgres, group)[0] == a
        with paused_until_taken(postgres, brokers, group, a, b):
            produce_values(brokers[b], sorted(batches[1]))
            poll_values(consumer, batches[1])  # through B: A is stopped
            consumer.commit(asynchronous=False)
        produce_values(brokers[b], sorted(batches[2]))
        poll_values(consumer, batches[2])
        consumer.commit(asynchronous=False)
    finally:
        consumer.close()
    rows = postgres.psql("SELECT committed_offset FROM ketch_group_offsets WHERE group_id = convert_to('%s', 'UTF8')"
                         % group)
    assert rows == ["60"]
