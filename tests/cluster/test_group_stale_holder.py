"""A group coordinator paused past its lease (docs/design/cluster.md,
"consumer groups"): its broker is SIGSTOPped until the other broker, which
owns the group once the paused one drops out of the live set, takes the
group's lease and commits a new offset; then it is SIGCONTed. Its memory
still holds the group as of the pause, so it must not answer from it:
OffsetFetch confirms the lease in PostgreSQL first and answers
NOT_COORDINATOR when it moved (Kafka's answer from a coordinator that lost
the group: GroupCoordinatorService answers NOT_COORDINATOR for a group whose
__consumer_offsets partition it no longer leads, see group-coordinator/src/
main/java/org/apache/kafka/coordinator/group/GroupCoordinatorService.java
and CoordinatorRuntime's NotCoordinatorException); OffsetCommit is fenced
by the lease in its own transaction. A broker back in the live set may take
the group back (a new epoch, read from PostgreSQL) and then serves what the
other one committed: never the offset it held before the pause."""

import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import clients  # noqa: E402
from group_wire import NOT_COORDINATOR, commit, fetch, lease, name_coordinated_by, stored_offset  # noqa: E402
from group_wire import two_brokers, wait_for  # noqa: E402

TOPIC = "stale-holder"


def test_a_coordinator_paused_past_its_lease_answers_nothing_from_memory(start_broker, postgres):
    brokers = two_brokers(start_broker, TOPIC)
    a, b = 1, 2
    group = name_coordinated_by(brokers.values(), a, "stale-group", 0)
    assert commit(brokers[a], group, TOPIC, 10) == 0
    assert fetch(brokers[a], group, TOPIC) == (10, 0)
    _, epoch = lease(postgres, group)

    clients.sigstop(brokers[a].proc)  # returns once every thread is stopped
    try:
        wait_for(lambda: lease(postgres, group)[0] == b, "broker %d did not take the group" % b)
        assert commit(brokers[b], group, TOPIC, 20) == 0
    finally:
        brokers[a].proc.send_signal(signal.SIGCONT)
    assert stored_offset(postgres, group) == 20

    # The first answers of the resumed broker: never the 10 it held.
    offset, error = fetch(brokers[a], group, TOPIC)
    assert (offset, error) in {(-1, NOT_COORDINATOR), (20, 0)}, (offset, error)
    error = commit(brokers[a], group, TOPIC, 30)
    assert error in {0, NOT_COORDINATOR}
    if error == 0:  # written under a lease taken again after the pause, never under the old one
        node, now = lease(postgres, group)
        assert node == a and now > epoch + 1
        assert stored_offset(postgres, group) == 30
    else:
        assert stored_offset(postgres, group) == 20
    # Both brokers settle on one coordinator, which serves PostgreSQL's offset.
    want = stored_offset(postgres, group)
    wait_for(lambda: any(fetch(x, group, TOPIC) == (want, 0) for x in brokers.values()),
             "one broker serves the group again")
