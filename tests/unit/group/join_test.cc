// JoinGroup: member ids (KIP-394), the initial rebalance delay, leader
// election, protocol selection and the request checks.
// Reference: group-coordinator/.../GroupMetadataManager.java (classicGroupJoin*,
// prepareRebalance, tryCompleteInitialRebalanceElseSchedule,
// completeClassicGroupJoin, acceptJoiningMember), classic/ClassicGroup.java
// (selectProtocol, supportsProtocols), GroupCoordinatorService.java (joinGroup).
#include "group_fixture.h"

namespace ketch::group::testing {
namespace {

TEST_F(group_test, v4_first_join_gets_member_id_required_then_joins_with_it) {
    auto first = join(join_req("g", "", 4));
    ASSERT_TRUE(first.done());
    EXPECT_EQ(first.get().error, error_code::member_id_required);
    const auto id = first.get().member_id;
    EXPECT_EQ(id.rfind("client-", 0), 0u) << id;  // "<client.id>-<uuid>"
    EXPECT_EQ(id.size(), std::string("client-").size() + 36);
    // The group exists (Empty) while the member is pending.
    EXPECT_EQ(coord->state_of("g"), group_state::empty);

    auto second = join(join_req("g", id, 4));
    EXPECT_FALSE(second.done());  // parked during the initial rebalance delay
    EXPECT_EQ(coord->state_of("g"), group_state::preparing_rebalance);
    time.advance(cfg.initial_rebalance_delay_ms);
    ASSERT_TRUE(second.done());
    EXPECT_EQ(second.count(), 1);
    const auto& r = second.get();
    EXPECT_EQ(r.error, error_code::none);
    EXPECT_EQ(r.member_id, id);
    EXPECT_EQ(r.leader, id);
    EXPECT_EQ(r.generation_id, 1);
    EXPECT_EQ(r.protocol_name, "range");
    EXPECT_EQ(r.protocol_type, "consumer");
    ASSERT_EQ(r.members.size(), 1u);
    EXPECT_EQ(r.members[0].metadata, subscription({"t1"}));
    EXPECT_EQ(coord->state_of("g"), group_state::completing_rebalance);
}

TEST_F(group_test, before_v4_a_new_member_is_added_at_once) {
    auto j = join(join_req("g", "", 3));
    EXPECT_FALSE(j.done());
    time.advance(cfg.initial_rebalance_delay_ms);
    ASSERT_TRUE(j.done());
    EXPECT_EQ(j.get().error, error_code::none);
    EXPECT_FALSE(j.get().member_id.empty());
    EXPECT_EQ(j.get().leader, j.get().member_id);
}

TEST_F(group_test, pending_member_that_never_rejoins_is_dropped_after_its_session_timeout) {
    auto first = join(join_req("g", "", 9));
    const auto id = first.get().member_id;
    time.advance(k_session);
    auto late = join(join_req("g", id, 9));
    ASSERT_TRUE(late.done());
    EXPECT_EQ(late.get().error, error_code::unknown_member_id);
}

TEST_F(group_test, known_member_id_for_an_unknown_group_is_unknown_member) {
    auto j = join(join_req("nope", "someone", 9));
    ASSERT_TRUE(j.done());
    EXPECT_EQ(j.get().error, error_code::unknown_member_id);
    EXPECT_EQ(j.get().member_id, "someone");
    EXPECT_FALSE(coord->state_of("nope"));
}

TEST_F(group_test, initial_delay_waits_and_is_extended_by_new_joiners_up_to_the_rebalance_timeout) {
    cfg.initial_rebalance_delay_ms = 3000;  // Kafka's default
    open();
    auto a = join(join_req("g", "", 3));
    time.advance(2999);
    EXPECT_FALSE(a.done());
    auto b = join(join_req("g", "", 3));  // joins during the delay: extends it
    time.advance(1);                      // first delay ends, a new member was added
    EXPECT_FALSE(a.done());
    EXPECT_FALSE(b.done());
    time.advance(2999);
    EXPECT_FALSE(a.done());
    time.advance(1);  // the extension (another 3000 ms) ends with nobody new
    ASSERT_TRUE(a.done());
    ASSERT_TRUE(b.done());
    EXPECT_EQ(a.get().generation_id, 1);
    EXPECT_EQ(b.get().generation_id, 1);
    EXPECT_EQ(a.get().leader, b.get().leader);
    // Only the leader gets the member list.
    const auto& leader = a.get().member_id == a.get().leader ? a.get() : b.get();
    const auto& follower = a.get().member_id == a.get().leader ? b.get() : a.get();
    EXPECT_EQ(leader.members.size(), 2u);
    EXPECT_TRUE(follower.members.empty());
}

TEST_F(group_test, initial_delay_cannot_outlast_the_rebalance_timeout) {
    cfg.initial_rebalance_delay_ms = 3000;
    open();
    auto args = join_req("g", "", 3);
    args.rebalance_timeout_ms = 4000;  // remaining after the first delay: 1000
    auto a = join(args);
    time.advance(2000);
    join(args);  // extends, but only by min(3000, 1000)
    time.advance(1000);
    EXPECT_FALSE(a.done());
    time.advance(1000);
    EXPECT_TRUE(a.done());
}

TEST_F(group_test, protocol_is_the_most_preferred_one_all_members_support) {
    std::vector<protocol> a_prefs{{"cooperative-sticky", {1}}, {"range", {2}}, {"roundrobin", {3}}};
    std::vector<protocol> b_prefs{{"roundrobin", {4}}, {"range", {5}}};
    std::vector<protocol> c_prefs{{"range", {6}}, {"roundrobin", {7}}};
    auto a = join(join_req("g", "", 3, a_prefs));
    auto b = join(join_req("g", "", 3, b_prefs));
    auto c = join(join_req("g", "", 3, c_prefs));
    time.advance(cfg.initial_rebalance_delay_ms * 2);
    ASSERT_TRUE(a.done() && b.done() && c.done());
    // Candidates: range, roundrobin (cooperative-sticky lacks b and c).
    // Votes: a range, b roundrobin, c range -> range.
    EXPECT_EQ(a.get().protocol_name, "range");
    EXPECT_EQ(b.get().protocol_name, "range");
    // The leader sees each member's metadata for the selected protocol.
    const auto& leader = a.get().member_id == a.get().leader   ? a.get()
                         : b.get().member_id == b.get().leader ? b.get()
                                                               : c.get();
    ASSERT_EQ(leader.members.size(), 3u);
    for (const auto& m : leader.members) {
        if (m.member_id == a.get().member_id) {
            EXPECT_EQ(m.metadata, bytes{2});
        } else if (m.member_id == b.get().member_id) {
            EXPECT_EQ(m.metadata, bytes{5});
        } else {
            EXPECT_EQ(m.metadata, bytes{6});
        }
    }
}

TEST_F(group_test, inconsistent_protocol_type_or_no_common_protocol_is_refused) {
    auto a = join(join_req("g", "", 3, {{"range", {}}}));
    time.advance(cfg.initial_rebalance_delay_ms);
    ASSERT_TRUE(a.done());
    auto other_type = join_req("g", "", 3, {{"range", {}}});
    other_type.protocol_type = "connect";
    auto b = join(other_type);
    ASSERT_TRUE(b.done());
    EXPECT_EQ(b.get().error, error_code::inconsistent_group_protocol);
    EXPECT_EQ(b.get().member_id, "");
    auto c = join(join_req("g", "", 3, {{"roundrobin", {}}}));
    ASSERT_TRUE(c.done());
    EXPECT_EQ(c.get().error, error_code::inconsistent_group_protocol);
    // An empty group takes any type but not an empty one or no protocols.
    auto empty_type = join_req("h", "", 3);
    empty_type.protocol_type = "";
    EXPECT_EQ(join(empty_type).get().error, error_code::inconsistent_group_protocol);
    EXPECT_EQ(join(join_req("h", "", 3, {})).get().error, error_code::inconsistent_group_protocol);
}

TEST_F(group_test, session_timeout_outside_the_bounds_is_refused) {
    auto low = join_req("g", "", 9);
    low.session_timeout_ms = cfg.min_session_timeout_ms - 1;
    EXPECT_EQ(join(low).get().error, error_code::invalid_session_timeout);
    auto high = join_req("g", "", 9);
    high.session_timeout_ms = cfg.max_session_timeout_ms + 1;
    EXPECT_EQ(join(high).get().error, error_code::invalid_session_timeout);
    auto edge = join_req("g", "", 9);
    edge.session_timeout_ms = cfg.min_session_timeout_ms;
    EXPECT_EQ(join(edge).get().error, error_code::member_id_required);
}

TEST_F(group_test, group_max_size_refuses_members_beyond_it) {
    cfg.max_size = 2;
    open();
    auto a = join(join_req("g", "", 3));
    auto b = join(join_req("g", "", 3));
    auto c = join(join_req("g", "", 3));  // third awaiting member in PreparingRebalance
    ASSERT_TRUE(c.done());
    EXPECT_EQ(c.get().error, error_code::group_max_size_reached);
    EXPECT_EQ(c.get().member_id, "");
    time.advance(cfg.initial_rebalance_delay_ms * 2);
    ASSERT_TRUE(a.done() && b.done());
    EXPECT_EQ(a.get().error, error_code::none);
    // CompletingRebalance: a new member is refused by the group size.
    auto d = join(join_req("g", "", 3));
    EXPECT_EQ(d.get().error, error_code::group_max_size_reached);
}

TEST_F(group_test, empty_or_huge_group_id_is_invalid_and_huge_member_id_is_an_invalid_request) {
    EXPECT_EQ(join(join_req("", "", 9)).get().error, error_code::invalid_group_id);
    std::string huge(max_id_bytes + 1, 'g');
    EXPECT_EQ(join(join_req(huge, "", 9)).get().error, error_code::invalid_group_id);
    EXPECT_FALSE(coord->state_of(huge));  // not stored
    EXPECT_EQ(join(join_req("g", std::string(max_id_bytes + 1, 'm'), 9)).get().error, error_code::invalid_request);
    EXPECT_EQ(join(join_req("g", "", 9, {{std::string(max_id_bytes + 1, 'p'), {}}})).get().error,
              error_code::invalid_request);
    EXPECT_EQ(join(join_req("g", "", 9, {{"range", {}}}, std::string(max_id_bytes + 1, 'i'))).get().error,
              error_code::invalid_request);
    // At the bound it is accepted.
    EXPECT_EQ(join(join_req(std::string(max_id_bytes, 'g'), "", 9)).get().error, error_code::member_id_required);
}

TEST_F(group_test, generated_member_id_stays_within_the_bound_for_a_huge_client_id) {
    auto a = join_req("g", "", 9);
    a.client_id = std::string(40000, 'c');
    auto r = join(a);
    ASSERT_EQ(r.get().error, error_code::member_id_required);
    EXPECT_LE(r.get().member_id.size(), max_id_bytes);
    auto again = join(join_req("g", r.get().member_id, 9));
    time.advance(cfg.initial_rebalance_delay_ms);
    EXPECT_EQ(again.get().error, error_code::none);
}

TEST_F(group_test, rejoin_with_same_metadata_while_completing_returns_current_generation) {
    std::string id;
    auto j = join_with_id("g", &id);
    time.advance(cfg.initial_rebalance_delay_ms);
    ASSERT_TRUE(j.done());
    auto again = join(join_req("g", id, 9));
    ASSERT_TRUE(again.done());  // answered at once, no new rebalance
    EXPECT_EQ(again.get().generation_id, j.get().generation_id);
    EXPECT_EQ(again.get().members.size(), 1u);  // it is the leader
    EXPECT_EQ(coord->state_of("g"), group_state::completing_rebalance);
}

TEST_F(group_test, follower_rejoin_in_stable_with_same_metadata_does_not_rebalance_but_leader_rejoin_does) {
    auto a = join(join_req("g", "", 3));
    auto b = join(join_req("g", "", 3));
    time.advance(cfg.initial_rebalance_delay_ms * 2);  // b extended the delay once
    const auto leader = a.get().leader;
    const auto follower = a.get().member_id == leader ? b.get().member_id : a.get().member_id;
    const int32_t gen = a.get().generation_id;
    sync("g", leader, gen, {});
    ASSERT_EQ(coord->state_of("g"), group_state::stable);

    auto f = join(join_req("g", follower, 3));
    ASSERT_TRUE(f.done());
    EXPECT_EQ(f.get().generation_id, gen);
    EXPECT_EQ(coord->state_of("g"), group_state::stable);

    auto l = join(join_req("g", leader, 3));
    EXPECT_FALSE(l.done());
    EXPECT_EQ(coord->state_of("g"), group_state::preparing_rebalance);
}

TEST_F(group_test, joins_after_shutdown_get_coordinator_not_available_and_parked_ones_not_coordinator) {
    auto parked = join(join_req("g", "", 3));
    ASSERT_FALSE(parked.done());
    coord->shutdown();
    ASSERT_TRUE(parked.done());
    EXPECT_EQ(parked.get().error, error_code::not_coordinator);
    EXPECT_EQ(join(join_req("g", "", 3)).get().error, error_code::coordinator_not_available);
    time.advance(k_rebalance);  // timers are gone: nothing answers twice
    EXPECT_EQ(parked.count(), 1);
}

}  // namespace
}  // namespace ketch::group::testing
