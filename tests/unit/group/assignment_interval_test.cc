// group.consumer.assignment.interval.ms (KIP-1263) at Kafka 4.3.1's default of
// 1000 ms: a consumer group's new target assignment is computed at a member's
// heartbeat (or a classic member's JoinGroup) only once the interval has
// passed since the last one; meanwhile members reconcile towards the last
// computed target. Behaviour reference, Apache Kafka 4.3.1 group-coordinator:
// GroupMetadataManager.canComputeNextTargetAssignment,
// maybeUpdateTargetAssignment (UpdateTargetAssignmentResult
// .fromLastTargetAssignment), classicGroupHeartbeatToConsumerGroup and
// throwIfRebalanceInProgress (compare the member epoch with the assignment
// epoch), consumerGroupFenceMembers (the target is left as it is).
// Time moves only by manual_time.advance.
#include "consumer_fixture.h"
#include "group/consumer_protocol.h"
#include "group/consumer_util.h"

namespace ketch::group::testing {
namespace {

class assignment_interval_test : public consumer_test {
protected:
    void SetUp() override {
        consumer_test::SetUp();
        cfg.consumer_assignment_interval_ms = 1000;  // Kafka 4.3.1's default
        open();
        coord->set_topic_view(&topics);
    }
};

TEST(assignment_interval, the_next_target_waits_for_the_interval_unless_the_last_time_is_unknown) {
    EXPECT_EQ(group_config{}.consumer_assignment_interval_ms, 1000);
    EXPECT_TRUE(can_compute_next_target(0, 1000, 5));     // a new or converted group
    EXPECT_TRUE(can_compute_next_target(5000, 0, 5000));  // interval 0: every time
    EXPECT_FALSE(can_compute_next_target(5000, 1000, 5999));
    EXPECT_TRUE(can_compute_next_target(5000, 1000, 6000));
}

TEST_F(assignment_interval_test, a_joining_member_reconciles_towards_the_last_target_until_the_interval_passed) {
    auto a = join("g", "a");
    ASSERT_EQ(a.member_epoch, 2);  // a new group's first target: at once
    time.advance(999);
    auto b = join("g", "b");
    ASSERT_EQ(b.error, error_code::none);
    // The group epoch is bumped, the target is not: b is at epoch 2 with nothing.
    EXPECT_EQ(b.member_epoch, 2);
    ASSERT_TRUE(b.assignment);
    EXPECT_EQ(count(*b.assignment), 0u);
    auto d = describe("g");
    EXPECT_EQ(d.group_state, "Assigning");
    EXPECT_EQ(d.group_epoch, 3);
    EXPECT_EQ(d.assignment_epoch, 2);
    // a keeps everything while the interval runs.
    auto a1 = beat("g", "a", 2);
    EXPECT_EQ(a1.member_epoch, 2);
    EXPECT_FALSE(a1.assignment);
    // 1000 ms after the last target: a's heartbeat computes the next one and
    // a is told to give up half.
    time.advance(1);
    auto a2 = beat("g", "a", 2);
    EXPECT_EQ(a2.member_epoch, 2);
    ASSERT_TRUE(a2.assignment);
    EXPECT_EQ(count(*a2.assignment), 2u);
    d = describe("g");
    EXPECT_EQ(d.group_state, "Reconciling");
    EXPECT_EQ(d.assignment_epoch, 3);
    // Once a revoked, b gets the other half at epoch 3.
    EXPECT_EQ(beat("g", "a", 2, *a2.assignment).member_epoch, 3);
    auto b2 = beat("g", "b", 2, topic_partitions{});
    EXPECT_EQ(b2.member_epoch, 3);
    EXPECT_EQ(count(*b2.assignment), 2u);
    EXPECT_EQ(describe("g").group_state, "Stable");
}

TEST_F(assignment_interval_test, bumps_within_the_interval_are_assigned_together) {
    join("g", "a");
    join("g", "b");
    join("g", "c");
    EXPECT_EQ(describe("g").group_epoch, 4);
    EXPECT_EQ(describe("g").assignment_epoch, 2);
    time.advance(1000);
    beat("g", "c", 2, topic_partitions{});  // any member's heartbeat computes it
    auto d = describe("g");
    EXPECT_EQ(d.assignment_epoch, 4);
    size_t targets = 0;
    for (const auto& m : d.members)
        for (const auto& t : m.target_assignment) targets += t.partitions.size();
    EXPECT_EQ(targets, 4u);
    // The interval runs again from this computation.
    leave("g", "c");
    time.advance(999);
    beat("g", "b", 2, topic_partitions{});
    EXPECT_EQ(describe("g").assignment_epoch, 4);
}

// Kafka 4.3.1 leaves the target epoch behind when members leave, also when
// the group becomes empty (checked against it: conformance scenario groups,
// cg-describe-empty); KAFKA-20442 makes it catch up only from Kafka 4.4.
TEST_F(assignment_interval_test, leaving_members_leave_the_target_epoch_behind) {
    join("g", "a");
    time.advance(1000);
    auto b = join("g", "b");
    ASSERT_EQ(b.member_epoch, 3);
    leave("g", "b");
    leave("g", "a");
    auto d = describe("g");
    EXPECT_EQ(d.group_state, "Empty");
    EXPECT_EQ(d.group_epoch, 5);
    EXPECT_EQ(d.assignment_epoch, 3);
}

// A classic member joining a mixed group within the interval: its generation
// is the last target's epoch, it gets nothing, and its Heartbeat answers NONE
// (its epoch is not behind the target's) until the target is computed.
TEST_F(assignment_interval_test, a_classic_member_joining_within_the_interval_waits_for_the_next_target) {
    auto r = join("g", "m");
    auto first = group_test::join(join_req("g"));
    const std::string c = first.get().member_id;
    auto j = group_test::join(join_req("g", c));
    ASSERT_TRUE(j.done());
    ASSERT_EQ(j.get().error, error_code::none);
    EXPECT_EQ(j.get().generation_id, r.member_epoch);
    auto s = sync("g", c, j.get().generation_id);
    ASSERT_EQ(s.get().error, error_code::none);
    EXPECT_TRUE(parse_assignment(s.get().assignment)->empty());
    EXPECT_EQ(heartbeat("g", c, j.get().generation_id), error_code::none);
    EXPECT_EQ(describe("g").group_state, "Assigning");
    // The consumer member's heartbeat after the interval computes the target;
    // the classic member, behind it now, is told to rejoin.
    time.advance(1000);
    auto m = beat("g", "m", r.member_epoch);
    ASSERT_TRUE(m.assignment);
    EXPECT_EQ(count(*m.assignment), 2u);
    EXPECT_EQ(heartbeat("g", c, j.get().generation_id), error_code::rebalance_in_progress);
}

// The target's time is kept with the group: after a restart a bump within
// the interval still waits.
TEST_F(assignment_interval_test, the_last_target_time_survives_a_reload) {
    join("g", "a");
    open();
    coord->set_topic_view(&topics);
    time.advance(500);
    join("g", "b");
    EXPECT_EQ(describe("g").assignment_epoch, 2);
    time.advance(500);
    beat("g", "b", 2, topic_partitions{});
    EXPECT_EQ(describe("g").assignment_epoch, 3);
}

}  // namespace
}  // namespace ketch::group::testing
