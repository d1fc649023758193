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
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import clients  # noqa: E402
from group_wire import NOT_COORDINATOR, commit, fetch, lease, stored_offset, two_brokers, wait_for  # noqa: E402

TOPIC, GROUP = "leased", "lease-group"


def test_a_broker_whose_group_lease_moved_is_refused_and_nothing_committed_is_lost(start_broker, postgres):
    brokers = two_brokers(start_broker, TOPIC)  # both see both: they agree on the group's owner

    # Exactly one broker owns the group: it takes the lease and commits; the
    # other answers NOT_COORDINATOR and writes nothing.
    answers = {n: commit(b, GROUP, TOPIC, 10) for n, b in brokers.items()}
    assert sorted(answers.values()) == [0, NOT_COORDINATOR], answers
    a = next(n for n, e in answers.items() if e == 0)
    b = 3 - a
    node, epoch = lease(postgres, GROUP)
    assert node == a and epoch >= 1
    assert stored_offset(postgres, GROUP) == 10

    # The lease moves to the other broker behind the owner's back (as when
    # the owner's view of the live brokers lags), and that broker commits 20.
    postgres.psql("UPDATE ketch_group_leases SET node_id = %d, epoch = epoch + 1, incarnation = "
                  "(SELECT incarnation FROM ketch_brokers WHERE node_id = %d) "
                  "WHERE group_id = convert_to('%s', 'UTF8')" % (b, b, GROUP))
    postgres.psql("UPDATE ketch_group_offsets SET committed_offset = 20 WHERE group_id = convert_to('%s', 'UTF8')"
                  % GROUP)
    # The old owner's commit is refused in its PostgreSQL transaction.
    assert commit(brokers[a], GROUP, TOPIC, 15) == NOT_COORDINATOR
    assert stored_offset(postgres, GROUP) == 20
    assert "took its lease" in brokers[a].log_text()
    # Still the group's owner by the live brokers, it takes the lease back
    # (a new epoch) and reads the group again: the other's commit is what it
    # serves, and its own next commit is written.
    assert fetch(brokers[a], GROUP, TOPIC) == (20, 0)
    assert lease(postgres, GROUP) == (a, epoch + 2)
    assert commit(brokers[a], GROUP, TOPIC, 30) == 0
    assert stored_offset(postgres, GROUP) == 30

    # The owner stops heartbeating (SIGSTOP): after the session timeout the
    # other broker takes the group over (a new epoch, read from PostgreSQL)
    # and serves it; the owner, killed, never writes again.
    clients.sigstop(brokers[a].proc)
    try:
        wait_for(lambda: lease(postgres, GROUP)[0] == b, "the lease did not move to broker %d" % b)
        assert lease(postgres, GROUP)[1] == epoch + 3
        assert fetch(brokers[b], GROUP, TOPIC) == (30, 0)
        assert commit(brokers[b], GROUP, TOPIC, 40) == 0
    finally:
        brokers[a].kill()
        brokers[a].proc.send_signal(signal.SIGCONT)
    assert stored_offset(postgres, GROUP) == 40
    assert fetch(brokers[b], GROUP, TOPIC) == (40, 0)
