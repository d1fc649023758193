// A consumer group's own settings (its GROUP config resource, KIP-848):
// consumer.heartbeat.interval.ms, consumer.session.timeout.ms and
// consumer.assignment.interval.ms override the broker's
// group.consumer.* settings for that group only, from the next heartbeat on;
// removing an override brings the broker's back. Behaviour reference, Apache
// Kafka 4.3.1 group-coordinator: GroupMetadataManager
// .consumerGroupHeartbeatIntervalMs / consumerGroupSessionTimeoutMs /
// consumerGroupAssignmentIntervalMs (GroupConfigManager.groupConfig, else the
// GroupCoordinatorConfig value); conformance/scenarios/groupconfigs.json
// records the heartbeat interval answered by Kafka after a change.
#include "consumer_fixture.h"

namespace ketch::group::testing {
namespace {

TEST_F(consumer_test, the_heartbeat_interval_answered_is_the_groups_own_once_set) {
    group_overrides o;
    o.heartbeat_interval_ms = 7000;
    coord->set_group_overrides("g", o);  // before the group exists: it waits for it
    auto a = join("g", "a");
    EXPECT_EQ(a.heartbeat_interval_ms, 7000);
    EXPECT_EQ(join("other", "b").heartbeat_interval_ms, cfg.consumer_heartbeat_interval_ms);
    o.heartbeat_interval_ms = 9000;
    coord->set_group_overrides("g", o);
    EXPECT_EQ(beat("g", "a", a.member_epoch).heartbeat_interval_ms, 9000);
    coord->set_group_overrides("g", {});
    EXPECT_EQ(beat("g", "a", a.member_epoch).heartbeat_interval_ms, cfg.consumer_heartbeat_interval_ms);
}

TEST_F(consumer_test, a_member_is_removed_after_the_groups_own_session_timeout) {
    group_overrides o;
    o.session_timeout_ms = cfg.consumer_session_timeout_ms + 5000;
    coord->set_group_overrides("g", o);
    join("g", "a");
    join("other", "b");
    time.advance(cfg.consumer_session_timeout_ms);
    EXPECT_TRUE(describe("other").members.empty());  // the broker's timeout
    EXPECT_EQ(describe("g").members.size(), 1u);     // the group's longer one
    time.advance(5000);
    EXPECT_TRUE(describe("g").members.empty());
}

TEST_F(consumer_test, the_groups_own_assignment_interval_delays_its_next_target) {
    // The fixture's broker setting is 0 (a target at every bump).
    group_overrides o;
    o.assignment_interval_ms = 1000;
    coord->set_group_overrides("g", o);
    join("g", "a");
    auto b = join("g", "b");
    EXPECT_EQ(describe("g").assignment_epoch, 2);  // b's bump waits for the interval
    EXPECT_EQ(count(*b.assignment), 0u);
    join("other", "c");
    join("other", "d");
    EXPECT_EQ(describe("other").assignment_epoch, describe("other").group_epoch);
    time.advance(1000);
    beat("g", "b", b.member_epoch, topic_partitions{});
    EXPECT_EQ(describe("g").assignment_epoch, 3);
}

}  // namespace
}  // namespace ketch::group::testing
