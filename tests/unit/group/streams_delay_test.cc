// When a streams group's target assignment is computed, and the group's own
// streams.* configs, pinned against Kafka 4.3.1's GroupMetadataManager
// (streamsGroupHeartbeat, maybeUpdateStreamsTargetAssignment,
// computeDelayedTargetAssignment, streamsGroupAssignmentConfigs) and
// StreamsGroup (a new group at group and assignment epoch 1;
// conformance/recordings/streams-groups.json: members answered epoch 1 and
// ASSIGNMENT_DELAYED until the initial delay ends).
#include "streams_fixture.h"

namespace ketch::group::testing {
namespace {

const std::string k_initial_delay = "Assignment delayed due to the configured initial rebalance delay.";
const std::string k_interval_delay = "Assignment delayed due to the configured assignment interval.";

class streams_delay_test : public streams_test {
protected:
    void SetUp() override {
        kafka_timing = true;
        streams_test::SetUp();
        create_internal();
    }
};

bool delayed(const streams_heartbeat_result& r, const std::string& why) {
    if (!r.status) return false;
    for (const auto& s : *r.status)
        if (s.code == streams_status_code::assignment_delayed && s.detail == why) return true;
    return false;
}

TEST_F(streams_delay_test, InitialDelayHoldsTheFirstAssignmentForEveryMember) {
    auto r1 = coord->streams_heartbeat(join_streams("m1", "p1"));
    ASSERT_EQ(r1.error, error_code::none);
    EXPECT_EQ(r1.member_epoch, 1);
    EXPECT_TRUE(delayed(r1, k_initial_delay));
    ASSERT_TRUE(r1.assignment);
    EXPECT_TRUE(r1.assignment->empty());
    auto r2 = coord->streams_heartbeat(join_streams("m2", "p2"));
    EXPECT_EQ(r2.member_epoch, 1);
    EXPECT_TRUE(delayed(r2, k_initial_delay));
    auto d = coord->streams_describe({"app"})[0];
    EXPECT_EQ(d.group_epoch, 3);
    EXPECT_EQ(d.assignment_epoch, 1);
    EXPECT_EQ(d.group_state, "Assigning");

    // Still within the delay: nothing moves.
    time.advance(cfg.streams_initial_rebalance_delay_ms - 1);
    EXPECT_TRUE(delayed(coord->streams_heartbeat(sbeat("m1", 1, tasks_tuple{})), k_initial_delay));
    // The delay ends: one target for both, computed without a heartbeat.
    time.advance(1);
    d = coord->streams_describe({"app"})[0];
    EXPECT_EQ(d.assignment_epoch, 3);
    EXPECT_EQ(d.group_state, "Reconciling");
    auto h1 = coord->streams_heartbeat(sbeat("m1", 1, tasks_tuple{}));
    auto h2 = coord->streams_heartbeat(sbeat("m2", 1, tasks_tuple{}));
    EXPECT_EQ(h1.member_epoch, 3);
    EXPECT_EQ(h2.member_epoch, 3);
    EXPECT_FALSE(h1.status && !h1.status->empty());
    ASSERT_TRUE(h1.assignment && h2.assignment);
    EXPECT_EQ(task_count(h1.assignment->active) + task_count(h2.assignment->active), 8);
    EXPECT_EQ(task_count(h1.assignment->active), 4);
}

TEST_F(streams_delay_test, AssignmentIntervalHoldsALaterTarget) {
    coord->streams_heartbeat(join_streams("m1", "p1"));
    time.advance(cfg.streams_initial_rebalance_delay_ms);
    auto h1 = coord->streams_heartbeat(sbeat("m1", 1, tasks_tuple{}));
    ASSERT_EQ(h1.member_epoch, 2);
    ASSERT_EQ(task_count(h1.assignment.value_or(tasks_tuple{}).active), 8);

    // The target is not a second old: m2's join waits for the next one.
    auto r2 = coord->streams_heartbeat(join_streams("m2", "p2"));
    EXPECT_EQ(r2.member_epoch, 2);
    EXPECT_TRUE(delayed(r2, k_interval_delay));
    EXPECT_EQ(coord->streams_describe({"app"})[0].assignment_epoch, 2);
    time.advance(cfg.streams_assignment_interval_ms);
    auto h2 = coord->streams_heartbeat(sbeat("m2", 2, tasks_tuple{}));
    EXPECT_FALSE(delayed(h2, k_interval_delay));
    EXPECT_EQ(h2.member_epoch, 3);
    EXPECT_EQ(coord->streams_describe({"app"})[0].assignment_epoch, 3);
}

TEST_F(streams_delay_test, AGroupThatEmptiesWaitsAgainWhenJoined) {
    coord->streams_heartbeat(join_streams("m1", "p1"));
    time.advance(cfg.streams_initial_rebalance_delay_ms);
    ASSERT_EQ(coord->streams_heartbeat(sbeat("m1", 1, tasks_tuple{})).member_epoch, 2);
    ASSERT_EQ(coord->streams_heartbeat(sbeat("m1", -1, std::nullopt)).error, error_code::none);
    auto r = coord->streams_heartbeat(join_streams("m2", "p2"));
    EXPECT_TRUE(delayed(r, k_initial_delay));
    EXPECT_EQ(r.member_epoch, 2);  // the assignment epoch
    ASSERT_TRUE(r.assignment);
    EXPECT_TRUE(r.assignment->empty());
}

// streams.* group configs (GroupConfig) act over the broker's group.streams.*.
TEST_F(streams_delay_test, GroupConfigsAct) {
    group_overrides o;
    o.streams_initial_rebalance_delay_ms = 0;
    o.streams_heartbeat_interval_ms = 7000;
    o.streams_num_standby_replicas = 1;
    o.streams_session_timeout_ms = 10000;
    coord->set_group_overrides("app", o);
    auto r1 = coord->streams_heartbeat(join_streams("m1", "p1"));
    EXPECT_FALSE(delayed(r1, k_initial_delay));
    EXPECT_EQ(r1.heartbeat_interval_ms, 7000);
    EXPECT_EQ(r1.member_epoch, 2);
    time.advance(cfg.streams_assignment_interval_ms);
    auto r2 = coord->streams_heartbeat(join_streams("m2", "p2"));
    ASSERT_EQ(r2.member_epoch, 3);
    // Every task of the stateful subtopology (1) has a standby in the other process.
    auto d = coord->streams_describe({"app"})[0];
    int standbys = 0;
    for (const auto& m : d.members) standbys += task_count(m.target_assignment.standby);
    EXPECT_EQ(standbys, 4);

    // Another num.standby.replicas bumps the group epoch at the next heartbeat.
    o.streams_num_standby_replicas = 0;
    coord->set_group_overrides("app", o);
    time.advance(cfg.streams_assignment_interval_ms);
    coord->streams_heartbeat(sbeat("m1", 2, std::nullopt));
    d = coord->streams_describe({"app"})[0];
    EXPECT_EQ(d.group_epoch, 4);
    standbys = 0;
    for (const auto& m : d.members) standbys += task_count(m.target_assignment.standby);
    EXPECT_EQ(standbys, 0);

    // streams.session.timeout.ms: 10 s without a heartbeat removes a member.
    time.advance(10001);
    EXPECT_EQ(coord->streams_describe({"app"})[0].members.size(), 0u);
}

}  // namespace
}  // namespace ketch::group::testing
