// LeaveGroup (single and batch) and static membership (KIP-345).
// Reference: group-coordinator/.../GroupMetadataManager.java
// (classicGroupLeaveToClassicGroup, removeCurrentMemberFromClassicGroup,
// classicGroupJoinNewStaticMember, updateStaticMemberThenRebalanceOrCompleteJoin,
// completeClassicGroupJoin), classic/ClassicGroup.java (replaceStaticMember,
// validateMember), GroupCoordinatorService.java (leaveGroup).
#include "group_fixture.h"

namespace ketch::group::testing {
namespace {

class leave_static_test : public group_test {
protected:
    leave_result leave(const std::string& group, std::vector<leave_member> members) {
        return coord->leave(leave_args{group, std::move(members)});
    }

    // Two static members (instance ids i1, i2) in a Stable group, each
    // assigned one byte: i1 -> {1}, i2 -> {2}. Returns the member ids.
    std::pair<std::string, std::string> stable_static_pair(const std::string& group, int16_t version = 9) {
        auto a = join(join_req(group, "", version, {{"range", subscription({"t1"})}}, "i1"));
        auto b = join(join_req(group, "", version, {{"range", subscription({"t1"})}}, "i2"));
        time.advance(cfg.initial_rebalance_delay_ms * 2);
        EXPECT_TRUE(a.done() && b.done());
        const auto i1 = a.get().member_id, i2 = b.get().member_id;
        EXPECT_EQ(i1.rfind("i1-", 0), 0u);  // static ids start with the instance id
        const auto leader = a.get().leader;
        const auto follower = leader == i1 ? i2 : i1;
        auto f = sync(group, follower, a.get().generation_id, {}, leader == i1 ? "i2" : "i1");
        sync(group, leader, a.get().generation_id, {{i1, {1}}, {i2, {2}}}, leader == i1 ? "i1" : "i2");
        EXPECT_EQ(coord->state_of(group), group_state::stable);
        return {i1, i2};
    }
};

TEST_F(leave_static_test, leave_of_one_member_rebalances_and_last_leave_empties_the_group) {
    auto a = join(join_req("g", "", 3));
    auto b = join(join_req("g", "", 3));
    time.advance(cfg.initial_rebalance_delay_ms * 2);
    const int32_t gen = a.get().generation_id;
    sync("g", a.get().leader, gen, {});
    const auto ida = a.get().member_id, idb = b.get().member_id;

    auto r = leave("g", {{ida, std::nullopt, "bye"}});
    EXPECT_EQ(r.error, error_code::none);
    ASSERT_EQ(r.members.size(), 1u);
    EXPECT_EQ(r.members[0].error, error_code::none);
    EXPECT_EQ(coord->state_of("g"), group_state::preparing_rebalance);
    EXPECT_EQ(heartbeat("g", idb, gen), error_code::rebalance_in_progress);

    auto rb = join(join_req("g", idb, 3));  // the only member rejoins: completes at once
    ASSERT_TRUE(rb.done());
    EXPECT_EQ(rb.get().generation_id, gen + 1);
    EXPECT_EQ(rb.get().leader, idb);

    leave("g", {{idb, std::nullopt, std::nullopt}});
    EXPECT_EQ(coord->state_of("g"), group_state::empty);
    EXPECT_EQ(coord->generation_of("g"), gen + 2);  // the empty generation
}

TEST_F(leave_static_test, batch_leave_answers_each_member) {
    auto [i1, i2] = stable_static_pair("g");
    auto r = leave("g", {{"ghost", std::nullopt, std::nullopt},
                         {i1, "i2", std::nullopt},  // i2 belongs to another member: fenced
                         {"", "i2", std::nullopt},  // removal by instance id alone (admin)
                         {"", "i9", std::nullopt},
                         {i1, "i1", std::nullopt}});
    ASSERT_EQ(r.members.size(), 5u);
    EXPECT_EQ(r.members[0].error, error_code::unknown_member_id);
    EXPECT_EQ(r.members[1].error, error_code::fenced_instance_id);
    EXPECT_EQ(r.members[2].error, error_code::none);
    EXPECT_EQ(r.members[2].group_instance_id, "i2");
    EXPECT_EQ(r.members[3].error, error_code::unknown_member_id);
    EXPECT_EQ(r.members[4].error, error_code::none);
    // Both left: the group rebalanced to Empty.
    EXPECT_EQ(coord->state_of("g"), group_state::empty);
}

TEST_F(leave_static_test, leave_from_unknown_group_is_unknown_member_per_member) {
    auto r = leave("nope", {{"a", std::nullopt, std::nullopt}, {"b", "i", std::nullopt}});
    EXPECT_EQ(r.error, error_code::none);
    ASSERT_EQ(r.members.size(), 2u);
    EXPECT_EQ(r.members[0].error, error_code::unknown_member_id);
    EXPECT_EQ(r.members[1].error, error_code::unknown_member_id);
    EXPECT_EQ(leave("", {{"a", std::nullopt, std::nullopt}}).error, error_code::invalid_group_id);
}

TEST_F(leave_static_test, leaving_member_with_a_parked_join_gets_unknown_member_id) {
    auto a = join(join_req("g", "", 3));
    auto b = join(join_req("g", "", 3));
    time.advance(cfg.initial_rebalance_delay_ms * 2);
    sync("g", a.get().leader, a.get().generation_id, {});
    auto rejoin = join(join_req("g", a.get().member_id, 3, {{"range", {9}}}));
    ASSERT_FALSE(rejoin.done());
    leave("g", {{a.get().member_id, std::nullopt, std::nullopt}});
    ASSERT_TRUE(rejoin.done());
    EXPECT_EQ(rejoin.get().error, error_code::unknown_member_id);
    EXPECT_EQ(rejoin.get().member_id, "");
}

TEST_F(leave_static_test, pending_member_can_leave) {
    auto first = join(join_req("g", "", 9));
    auto r = leave("g", {{first.get().member_id, std::nullopt, std::nullopt}});
    EXPECT_EQ(r.members.at(0).error, error_code::none);
    auto late = join(join_req("g", first.get().member_id, 9));
    EXPECT_EQ(late.get().error, error_code::unknown_member_id);
}

TEST_F(leave_static_test, static_member_rejoining_with_same_instance_id_keeps_its_assignment_without_rebalance) {
    auto [i1, i2] = stable_static_pair("g");
    const int32_t gen = *coord->generation_of("g");
    // i1 restarts: it joins with no member id and the same instance id.
    auto back = join(join_req("g", "", 9, {{"range", subscription({"t1"})}}, "i1"));
    ASSERT_TRUE(back.done());  // no rebalance: answered at once
    const auto new_id = back.get().member_id;
    EXPECT_NE(new_id, i1);
    EXPECT_EQ(back.get().error, error_code::none);
    EXPECT_EQ(back.get().generation_id, gen);
    EXPECT_EQ(coord->state_of("g"), group_state::stable);
    // The old id is fenced; the new one gets the old one's assignment.
    EXPECT_EQ(heartbeat("g", i1, gen, "i1"), error_code::fenced_instance_id);
    EXPECT_EQ(heartbeat("g", i1, gen), error_code::unknown_member_id);
    EXPECT_EQ(heartbeat("g", new_id, gen, "i1"), error_code::none);
    auto s = sync("g", new_id, gen, {}, "i1");
    ASSERT_TRUE(s.done());
    EXPECT_EQ(s.get().assignment, bytes{1});
    // The other member is untouched.
    EXPECT_EQ(heartbeat("g", i2, gen, "i2"), error_code::none);
}

TEST_F(leave_static_test, returning_static_leader_is_told_to_skip_assignment_from_v9) {
    stable_static_pair("g");
    auto a = join(join_req("g", "", 9, {{"range", subscription({"t1"})}}, "i1"));
    auto b = join(join_req("g", "", 9, {{"range", subscription({"t1"})}}, "i2"));
    ASSERT_TRUE(a.done() && b.done());
    // Exactly one of them is the leader and gets the members with skip_assignment.
    const auto& leader = a.get().skip_assignment ? a.get() : b.get();
    const auto& follower = a.get().skip_assignment ? b.get() : a.get();
    EXPECT_TRUE(leader.skip_assignment);
    EXPECT_EQ(leader.leader, leader.member_id);
    EXPECT_EQ(leader.members.size(), 2u);
    EXPECT_FALSE(follower.skip_assignment);
    EXPECT_TRUE(follower.members.empty());
    EXPECT_EQ(follower.leader, leader.member_id);
}

TEST_F(leave_static_test, before_v9_returning_static_leader_sees_the_old_leader_id) {
    auto [i1, i2] = stable_static_pair("g", 5);
    // i1 comes back: whether or not it led, the leader it is told is an old id.
    auto a = join(join_req("g", "", 5, {{"range", subscription({"t1"})}}, "i1"));
    ASSERT_TRUE(a.done());
    EXPECT_FALSE(a.get().skip_assignment);
    EXPECT_NE(a.get().leader, a.get().member_id);  // never itself: no reassignment by it
    EXPECT_TRUE(a.get().leader == i1 || a.get().leader == i2);
}

TEST_F(leave_static_test, duplicate_static_instance_fences_the_parked_request_of_the_old_one) {
    auto [i1, i2] = stable_static_pair("g");
    // The old i1 rejoins with new metadata: a rebalance, its join parked.
    auto old_join = join(join_req("g", i1, 9, {{"range", subscription({"t1", "t2"})}}, "i1"));
    ASSERT_FALSE(old_join.done());
    // A second process with the same instance id joins.
    auto dup = join(join_req("g", "", 9, {{"range", subscription({"t1", "t2"})}}, "i1"));
    ASSERT_TRUE(old_join.done());
    EXPECT_EQ(old_join.get().error, error_code::fenced_instance_id);
    EXPECT_EQ(old_join.count(), 1);
    // i2 rejoins too: the rebalance completes for the newcomer.
    join(join_req("g", i2, 9, {{"range", subscription({"t1"})}}, "i2"));
    ASSERT_TRUE(dup.done());
    EXPECT_EQ(dup.get().error, error_code::none);
    EXPECT_EQ(dup.get().member_id.rfind("i1-", 0), 0u);
    EXPECT_NE(dup.get().member_id, i1);
    EXPECT_EQ(heartbeat("g", i1, dup.get().generation_id, "i1"), error_code::fenced_instance_id);
}

TEST_F(leave_static_test, static_members_that_do_not_rejoin_stay_through_a_rebalance) {
    auto [i1, i2] = stable_static_pair("g");
    const int32_t gen = *coord->generation_of("g");
    auto j = join(join_req("g", i1, 9, {{"range", subscription({"t1", "t2"})}}, "i1"));
    // i2 keeps its session but does not rejoin; the join phase ends by timeout.
    for (int i = 0; i < 4; ++i) {
        time.advance(k_rebalance / 4);
        heartbeat("g", i2, gen, "i2");
    }
    ASSERT_TRUE(j.done());
    EXPECT_EQ(j.get().generation_id, gen + 1);
    auto d = coord->describe_groups({"g"}, 5);
    EXPECT_EQ(d.at(0).members.size(), 2u);  // i2 kept
    EXPECT_EQ(heartbeat("g", i2, gen + 1, "i2"), error_code::none);
}

TEST_F(leave_static_test, static_rejoin_that_changes_the_selected_protocol_rebalances) {
    auto [i1, i2] = stable_static_pair("g");
    leave("g", {{i2, "i2", std::nullopt}});
    auto j = join(join_req("g", i1, 9, {{"range", subscription({"t1"})}}, "i1"));
    ASSERT_TRUE(j.done());
    sync("g", i1, j.get().generation_id, {{i1, {1}}}, "i1");
    ASSERT_EQ(coord->state_of("g"), group_state::stable);
    // A protocol the group does not support is refused outright.
    auto refused = join(join_req("g", "", 9, {{"roundrobin", subscription({"t1"})}}, "i1"));
    EXPECT_EQ(refused.get().error, error_code::inconsistent_group_protocol);
    EXPECT_EQ(coord->state_of("g"), group_state::stable);
    // Preferring roundrobin now changes the selected protocol: a rebalance
    // (which completes at once: the group's only member is the one joining).
    auto back =
        join(join_req("g", "", 9, {{"roundrobin", subscription({"t1"})}, {"range", subscription({"t1"})}}, "i1"));
    EXPECT_EQ(coord->state_of("g"), group_state::completing_rebalance);
    ASSERT_TRUE(back.done());
    EXPECT_EQ(back.get().protocol_name, "roundrobin");
    EXPECT_EQ(back.get().generation_id, j.get().generation_id + 1);
}

}  // namespace
}  // namespace ketch::group::testing
