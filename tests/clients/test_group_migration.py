"""Rolling upgrade of a consumer group from the classic to the consumer protocol
(issue 4): members of a classic group are restarted one by one with
group.protocol=consumer while the group consumes with synchronous commits. No record
is lost or committed as processed twice across the switch (the committed offsets
carry over), and the group ends as a consumer group.

Behaviour reference, Apache Kafka 4.3.1 (group-coordinator/src/main/java/org/apache/kafka/coordinator/group/):
- a ConsumerGroupHeartbeat joining a classic group with members converts it online
  (group.consumer.migration.policy=bidirectional, the default): GroupMetadataManager.java
  (getOrMaybeCreateConsumerGroup, validateOnlineUpgrade, convertToConsumerGroup),
  modern/consumer/ConsumerGroup.java (fromClassicGroup)
- the remaining classic members rejoin it through JoinGroup/SyncGroup/Heartbeat:
  GroupMetadataManager.java (classicGroupJoinToConsumerGroup, classicGroupSyncToConsumerGroup,
  classicGroupHeartbeatToConsumerGroup, classicGroupLeaveToConsumerGroup)
- their commits are checked against their member epoch: ConsumerGroup.java (validateOffsetCommit)
"""

import pytest

from conftest import create_topics
from test_groups import (GROUP_FLAGS, PARTITIONS, check_exactly_once_committed, committed, describe,
                         end_offsets, members, produce_phase, wait_for)  # noqa: F401 (members is a fixture)

pytestmark = pytest.mark.ketch_args(*GROUP_FLAGS)


def test_rolling_upgrade_from_classic_to_consumer_protocol_keeps_commits(drivers, helper, unique_topic, members):
    """Two Java consumers (group.protocol=classic) share six partitions; each is then
    stopped and replaced by one with group.protocol=consumer, with records flowing.
    Every record is committed as processed by exactly one member and the group ends as
    a Stable consumer group of the two new members. (The Java client is the one whose
    protocol is a per-consumer setting in both protocols; DRIVERS.md.)"""
    java = drivers.get("java")
    if java is None:
        pytest.skip("the Java driver is not built (scripts/install-test-deps.sh)")
    topic = unique_topic()
    group = topic + "-g"
    create_topics(helper, helper, {topic: PARTITIONS})
    phase = 600
    produce_phase(helper, topic, PARTITIONS, 0, phase)
    common = {"topic": topic, "group": group, "commit": "sync", "from": "earliest", "max_poll_records": 20,
              "process_ms": 50}

    def progress(at_least, running):
        def check():
            done = sum(o for o in committed(helper, group, topic).values() if o > 0)
            assert done >= at_least, "%d of %d committed" % (done, at_least)
        wait_for(check, running)

    def group_is(kind, names, running):
        def check():
            g = describe(helper, group)
            assert g["type"] == kind and sorted(m["client_id"] for m in g["members"]) == names, g
        wait_for(check, running)

    a = members(java, "mig-a", protocol="classic", **common)
    b = members(java, "mig-b", protocol="classic", **common)
    progress(120, [a, b])
    group_is("classic", ["mig-a", "mig-b"], [a, b])

    a_out = a.result()  # leaves the classic group
    a2 = members(java, "mig-a2", protocol="consumer", **common)
    group_is("consumer", ["mig-a2", "mig-b"], [a2, b])  # upgraded online; b is a classic member of it
    produce_phase(helper, topic, PARTITIONS, phase, phase)
    progress(phase + 60, [a2, b])

    b_out = b.result()
    b2 = members(java, "mig-b2", protocol="consumer", **common)
    ends = end_offsets(helper, topic, PARTITIONS)
    assert sum(ends.values()) == 2 * phase

    def all_committed():
        assert committed(helper, group, topic) == ends
    wait_for(all_committed, [a2, b2])

    def stable_consumer_group():
        g = describe(helper, group)
        assert (g["type"], g["state"]) == ("consumer", "Stable"), g
        assert sorted(m["client_id"] for m in g["members"]) == ["mig-a2", "mig-b2"], g
        owned = sorted(tuple(tp) for m in g["members"] for tp in m["assignment"])
        assert owned == [(topic, p) for p in range(PARTITIONS)], g
    wait_for(stable_consumer_group, [a2, b2])
    outs = [a_out, b_out] + [m.result() for m in (a2, b2)]
    check_exactly_once_committed(outs, topic, ends)
