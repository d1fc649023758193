// SyncGroup and Heartbeat, and the timeouts that drive rebalances.
// Reference: group-coordinator/.../GroupMetadataManager.java
// (classicGroupSyncToClassicGroup, validateSyncGroup, setAndPropagateAssignment,
// expirePendingSync, classicGroupHeartbeatToClassicGroup,
// validateClassicGroupHeartbeat, expireClassicGroupMemberHeartbeat,
// completeClassicGroupJoin), classic/ClassicGroupMember.java (hasSatisfiedHeartbeat).
#include "group_fixture.h"

namespace ketch::group::testing {
namespace {

// Two v3 members in CompletingRebalance; a is whichever is leader.
struct two_members {
    std::string leader, follower;
    int32_t generation = 0;
};

class sync_test : public group_test {
protected:
    two_members form_two(const std::string& group) {
        auto a = join(join_req(group, "", 3));
        auto b = join(join_req(group, "", 3));
        time.advance(cfg.initial_rebalance_delay_ms * 2);
        EXPECT_TRUE(a.done() && b.done());
        two_members t;
        t.leader = a.get().leader;
        t.follower = a.get().member_id == t.leader ? b.get().member_id : a.get().member_id;
        t.generation = a.get().generation_id;
        return t;
    }
};

TEST_F(sync_test, follower_waits_for_the_leader_and_each_member_gets_its_own_assignment) {
    auto t = form_two("g");
    auto f = sync("g", t.follower, t.generation);
    EXPECT_FALSE(f.done());
    EXPECT_EQ(coord->state_of("g"), group_state::completing_rebalance);
    auto l = sync("g", t.leader, t.generation, {{t.leader, {1}}, {t.follower, {2, 2}}});
    ASSERT_TRUE(l.done() && f.done());
    EXPECT_EQ(l.get().error, error_code::none);
    EXPECT_EQ(l.get().assignment, bytes{1});
    EXPECT_EQ(f.get().assignment, (bytes{2, 2}));
    EXPECT_EQ(f.get().protocol_name, "range");
    EXPECT_EQ(f.get().protocol_type, "consumer");
    EXPECT_EQ(coord->state_of("g"), group_state::stable);
    // Stable: a late sync returns the member's current assignment at once.
    auto again = sync("g", t.follower, t.generation);
    ASSERT_TRUE(again.done());
    EXPECT_EQ(again.get().assignment, (bytes{2, 2}));
    EXPECT_EQ(f.count(), 1);
}

TEST_F(sync_test, member_left_out_of_the_leaders_assignment_gets_an_empty_one) {
    auto t = form_two("g");
    auto f = sync("g", t.follower, t.generation);
    sync("g", t.leader, t.generation, {{t.leader, {1}}, {"stranger", {9}}});
    ASSERT_TRUE(f.done());
    EXPECT_EQ(f.get().error, error_code::none);
    EXPECT_TRUE(f.get().assignment.empty());
}

TEST_F(sync_test, sync_errors_follow_kafkas_checks) {
    auto t = form_two("g");
    EXPECT_EQ(sync("nope", t.leader, t.generation).get().error, error_code::unknown_member_id);
    EXPECT_EQ(sync("g", "stranger", t.generation).get().error, error_code::unknown_member_id);
    EXPECT_EQ(sync("g", t.leader, t.generation + 1).get().error, error_code::illegal_generation);
    sync_args wrong_name;
    wrong_name.group_id = "g";
    wrong_name.member_id = t.leader;
    wrong_name.generation_id = t.generation;
    wrong_name.protocol_name = "roundrobin";
    captured<sync_result> c;
    coord->sync(wrong_name, c.callback());
    EXPECT_EQ(c.get().error, error_code::inconsistent_group_protocol);
    EXPECT_EQ(sync("", t.leader, t.generation).get().error, error_code::invalid_group_id);
    // PreparingRebalance: REBALANCE_IN_PROGRESS.
    join(join_req("g", t.leader, 3, {{"range", {7}}}));  // new metadata -> rebalance
    ASSERT_EQ(coord->state_of("g"), group_state::preparing_rebalance);
    EXPECT_EQ(sync("g", t.follower, t.generation).get().error, error_code::rebalance_in_progress);
}

TEST_F(sync_test, a_rebalance_while_syncing_answers_parked_syncs_rebalance_in_progress) {
    auto t = form_two("g");
    auto f = sync("g", t.follower, t.generation);
    ASSERT_FALSE(f.done());
    join(join_req("g", "", 3));  // a third member arrives before the leader syncs
    ASSERT_TRUE(f.done());
    EXPECT_EQ(f.get().error, error_code::rebalance_in_progress);
    EXPECT_EQ(coord->state_of("g"), group_state::preparing_rebalance);
}

TEST_F(sync_test, members_that_never_sync_are_removed_after_the_rebalance_timeout) {
    auto t = form_two("g");
    auto l = sync("g", t.leader, t.generation, {{t.leader, {1}}});
    ASSERT_TRUE(l.done());
    // Both keep heartbeating (their sessions stay alive); the follower never syncs.
    for (int i = 0; i < 5; ++i) {
        time.advance(k_rebalance / 5 - 1);
        EXPECT_EQ(heartbeat("g", t.leader, t.generation), error_code::none);
        EXPECT_EQ(heartbeat("g", t.follower, t.generation), error_code::none);
    }
    time.advance(5);
    // expirePendingSync removed it and started a rebalance.
    EXPECT_EQ(coord->state_of("g"), group_state::preparing_rebalance);
    EXPECT_EQ(heartbeat("g", t.follower, t.generation), error_code::unknown_member_id);
    EXPECT_EQ(heartbeat("g", t.leader, t.generation), error_code::rebalance_in_progress);
}

TEST_F(sync_test, heartbeat_answers_in_each_state) {
    EXPECT_EQ(heartbeat("nope", "m", 1), error_code::unknown_member_id);
    EXPECT_EQ(heartbeat("", "m", 1), error_code::invalid_group_id);
    auto t = form_two("g");
    // CompletingRebalance: accepted.
    EXPECT_EQ(heartbeat("g", t.follower, t.generation), error_code::none);
    EXPECT_EQ(heartbeat("g", t.follower, t.generation - 1), error_code::illegal_generation);
    EXPECT_EQ(heartbeat("g", "stranger", t.generation), error_code::unknown_member_id);
    sync("g", t.leader, t.generation, {});
    // Stable.
    EXPECT_EQ(heartbeat("g", t.leader, t.generation), error_code::none);
    // PreparingRebalance.
    join(join_req("g", t.leader, 3, {{"range", {7}}}));
    EXPECT_EQ(heartbeat("g", t.follower, t.generation), error_code::rebalance_in_progress);
    // Static identity checks come first.
    EXPECT_EQ(heartbeat("g", t.follower, t.generation, "not-there"), error_code::unknown_member_id);
}

TEST_F(sync_test, session_timeout_removes_a_silent_member_and_rebalances) {
    auto t = form_two("g");
    auto l = sync("g", t.leader, t.generation, {{t.leader, {1}}, {t.follower, {2}}});
    auto f = sync("g", t.follower, t.generation);
    ASSERT_EQ(coord->state_of("g"), group_state::stable);
    // The leader heartbeats; the follower goes silent.
    for (int i = 0; i < 3; ++i) {
        time.advance(k_session / 2);
        heartbeat("g", t.leader, t.generation);
    }
    EXPECT_EQ(heartbeat("g", t.follower, t.generation), error_code::unknown_member_id);
    EXPECT_EQ(heartbeat("g", t.leader, t.generation), error_code::rebalance_in_progress);
    // The leader rejoins alone: next generation with one member.
    auto j = join(join_req("g", t.leader, 3));
    ASSERT_TRUE(j.done());
    EXPECT_EQ(j.get().generation_id, t.generation + 1);
    EXPECT_EQ(j.get().members.size(), 1u);
}

TEST_F(sync_test, rebalance_timeout_drops_members_that_do_not_rejoin) {
    auto t = form_two("g");
    sync("g", t.leader, t.generation, {});
    sync("g", t.follower, t.generation);
    auto l = join(join_req("g", t.leader, 3, {{"range", {7}}}));  // leader starts a rebalance
    ASSERT_FALSE(l.done());
    // The follower heartbeats (REBALANCE_IN_PROGRESS) but never rejoins.
    for (int i = 0; i < 5; ++i) {
        time.advance(k_session / 2);
        EXPECT_EQ(heartbeat("g", t.follower, t.generation), error_code::rebalance_in_progress);
    }
    EXPECT_FALSE(l.done());
    time.advance(k_rebalance - 5 * (k_session / 2));
    ASSERT_TRUE(l.done());
    EXPECT_EQ(l.get().generation_id, t.generation + 1);
    ASSERT_EQ(l.get().members.size(), 1u);
    EXPECT_EQ(l.get().members[0].member_id, t.leader);
    EXPECT_EQ(heartbeat("g", t.follower, t.generation + 1), error_code::unknown_member_id);
}

TEST_F(sync_test, new_leader_is_elected_when_the_old_one_does_not_rejoin) {
    auto t = form_two("g");
    sync("g", t.leader, t.generation, {});
    sync("g", t.follower, t.generation);
    auto f = join(join_req("g", t.follower, 3, {{"range", {7}}}));
    time.advance(k_rebalance);
    ASSERT_TRUE(f.done());
    EXPECT_EQ(f.get().leader, t.follower);
    EXPECT_EQ(f.get().members.size(), 1u);
}

TEST_F(sync_test, commit_keeps_the_session_alive_in_stable) {
    auto t = form_two("g");
    sync("g", t.leader, t.generation, {});
    sync("g", t.follower, t.generation);
    for (int i = 0; i < 4; ++i) {
        time.advance(k_session / 2);
        heartbeat("g", t.leader, t.generation);
        EXPECT_EQ(only_error(commit("g", t.follower, t.generation, {{"t1", {{0, 5}}}})), error_code::none);
    }
    EXPECT_EQ(coord->state_of("g"), group_state::stable);
}

}  // namespace
}  // namespace ketch::group::testing
