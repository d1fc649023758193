// Online migration between the classic and the consumer protocol, and
// classic members of a consumer group (mixed groups). Behaviour from Kafka
// 4.3.1's GroupMetadataManager.java (validateOnlineUpgrade,
// convertToConsumerGroup, classicGroup{Join,Sync,Heartbeat,Leave}ToConsumerGroup,
// validateOnlineDowngradeWithFencedMember, convertToClassicGroup),
// modern/consumer/ConsumerGroup.java (fromClassicGroup) and
// classic/ClassicGroup.java (fromConsumerGroup).
#include "consumer_fixture.h"
#include "group/consumer_protocol.h"

namespace ketch::group::testing {
namespace {

class migration_test : public consumer_test {
protected:
    // A classic group of two members that share t1's four partitions.
    void stable_classic_pair(const std::string& group) {
        auto ja = group_test::join(join_req(group));
        a_ = ja.get().member_id;
        auto j1 = group_test::join(join_req(group, a_));
        auto jb0 = group_test::join(join_req(group));
        b_ = jb0.get().member_id;
        auto j2 = group_test::join(join_req(group, b_));
        for (int i = 0; i < 10 && !j1.done(); ++i) time.advance(cfg.initial_rebalance_delay_ms);
        ASSERT_TRUE(j1.done() && j2.done());
        gen_ = j1.get().generation_id;
        const std::string leader = j1.get().leader;
        auto sa = sync(group, a_, gen_,
                       {{a_, encode_assignment({{"t1", {0, 1}}}, 1)}, {b_, encode_assignment({{"t1", {2, 3}}}, 1)}});
        auto sb = sync(group, b_, gen_,
                       leader == b_ ? std::vector<sync_assignment>{{a_, encode_assignment({{"t1", {0, 1}}}, 1)},
                                                                   {b_, encode_assignment({{"t1", {2, 3}}}, 1)}}
                                    : std::vector<sync_assignment>{});
        ASSERT_TRUE(sa.done() && sb.done());
        ASSERT_EQ(coord->state_of(group), group_state::stable);
    }

    join_result join_from(join_args& a) {
        auto c = group_test::join(a);
        EXPECT_TRUE(c.done());
        return c.get();
    }

    std::string a_, b_;
    int32_t gen_ = 0;
};

TEST(consumer_protocol, assignments_round_trip_and_subscriptions_parse) {
    auto b = encode_assignment({{"t1", {3, 1}}, {"a", {0}}}, 7);  // version capped at 3
    EXPECT_EQ(protocol_version(b), 3);
    auto back = parse_assignment(b);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, (named_partitions{{"a", {0}}, {"t1", {1, 3}}}));
    EXPECT_FALSE(parse_assignment(bytes{}));  // Kafka: SchemaException
    auto s = parse_subscription(subscription({"x", "y"}, 1));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->topics, (std::vector<std::string>{"x", "y"}));
    EXPECT_TRUE(s->owned.empty());
}

// A ConsumerGroupHeartbeat joining a Stable classic group converts it: the
// classic members keep their assignment at the classic generation, the group
// epoch is bumped once for the new member.
TEST_F(migration_test, a_consumer_member_upgrades_a_classic_group_with_members) {
    stable_classic_pair("g");
    auto r = join("g", "m");
    ASSERT_EQ(r.error, error_code::none);
    EXPECT_EQ(r.member_epoch, gen_ + 1);
    // The classic members still own every partition: nothing is free yet.
    EXPECT_EQ(count(*r.assignment), 0u);
    auto d = describe("g");
    ASSERT_EQ(d.error, error_code::none);
    EXPECT_EQ(d.group_epoch, gen_ + 1);
    ASSERT_EQ(d.members.size(), 3u);
    for (const auto& m : d.members) {
        if (m.member_id == "m") {
            EXPECT_FALSE(m.uses_classic_protocol);
            continue;
        }
        EXPECT_TRUE(m.uses_classic_protocol);
        EXPECT_EQ(m.member_epoch, gen_);
        ASSERT_EQ(m.assignment.size(), 1u);
        EXPECT_EQ(m.assignment[0].partitions.size(), 2u);
    }
    EXPECT_EQ(coord->state_of("g"), std::nullopt);  // no classic group any more

    // A classic member is told to rejoin; its JoinGroup is answered at once
    // and it gives up what the new member gets (an eager member owns nothing
    // when it rejoins).
    EXPECT_EQ(heartbeat("g", a_, gen_), error_code::rebalance_in_progress);
    EXPECT_EQ(heartbeat("g", a_, gen_ + 5), error_code::illegal_generation);
    auto ja = join_from(*std::make_unique<join_args>(join_req("g", a_)));
    EXPECT_EQ(ja.error, error_code::none);
    EXPECT_EQ(ja.generation_id, gen_ + 1);
    EXPECT_EQ(ja.protocol_type, "consumer");
    EXPECT_EQ(ja.protocol_name, "range");
    auto sa = sync("g", a_, ja.generation_id);
    ASSERT_EQ(sa.get().error, error_code::none);
    auto assigned = parse_assignment(sa.get().assignment);
    ASSERT_TRUE(assigned);
    EXPECT_LT((*assigned)["t1"].size(), 3u);
    EXPECT_EQ(heartbeat("g", a_, ja.generation_id), error_code::none);
    // Syncing with the old generation is refused.
    EXPECT_EQ(sync("g", a_, gen_).get().error, error_code::illegal_generation);
}

// GroupMetadataManager.validateOnlineUpgrade / convertToConsumerGroup refusals,
// ConsumerGroup.fromClassicGroup (empty assignment accepted, user data refused).
TEST_F(migration_test, upgrades_that_kafka_refuses) {
    stable_single_member("bad", {1, 2, 3});  // not a ConsumerProtocolAssignment
    auto r = join("bad", "m");
    EXPECT_EQ(r.error, error_code::group_id_not_found);
    EXPECT_EQ(
        *r.error_message,
        "Cannot upgrade classic group bad to consumer group because the embedded consumer protocol is malformed.");
    auto with_user_data = encode_assignment({{"t1", {0}}}, 0);
    with_user_data.resize(with_user_data.size() - 4);
    with_user_data.insert(with_user_data.end(), {0, 0, 0, 1, 7});
    stable_single_member("custom", with_user_data);
    r = join("custom", "m");
    EXPECT_EQ(r.error, error_code::group_id_not_found);
    EXPECT_NE(r.error_message->find("an unsupported custom assignor is in use"), std::string::npos);
    EXPECT_EQ(coord->state_of("custom"), group_state::stable);  // still classic
}

TEST_F(migration_test, commits_carry_over_the_upgrade) {
    stable_classic_pair("g");
    ASSERT_EQ(only_error(commit("g", a_, gen_, {{"t1", {{0, 42}}}})), error_code::none);
    ASSERT_EQ(join("g", "m").error, error_code::none);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 42);
    // A classic member commits with its member epoch as generation, with any
    // version; another generation is ILLEGAL_GENERATION (ConsumerGroup.validateOffsetCommit).
    EXPECT_EQ(only_error(commit("g", a_, gen_, {{"t1", {{0, 43}}}}, 7)), error_code::none);
    EXPECT_EQ(only_error(commit("g", a_, gen_ + 3, {{"t1", {{0, 44}}}})), error_code::illegal_generation);
}

// classicGroupJoinToConsumerGroup: a classic member joins a consumer group
// with members; MEMBER_ID_REQUIRED carries a Kafka Uuid.
TEST_F(migration_test, a_classic_member_joins_a_consumer_group) {
    auto r = join("g", "m");
    ASSERT_EQ(r.error, error_code::none);
    auto first = group_test::join(join_req("g"));
    ASSERT_EQ(first.get().error, error_code::member_id_required);
    const std::string c = first.get().member_id;
    EXPECT_EQ(c.size(), 22u);  // base64 of 16 bytes
    auto j = join_from(*std::make_unique<join_args>(join_req("g", c)));
    ASSERT_EQ(j.error, error_code::none);
    EXPECT_EQ(j.generation_id, r.member_epoch + 1);
    EXPECT_TRUE(j.members.empty());
    EXPECT_EQ(j.leader, "");
    // The consumer member must give up half; until it does, the classic
    // member gets what is free (nothing).
    auto s = sync("g", c, j.generation_id);
    ASSERT_EQ(s.get().error, error_code::none);
    EXPECT_TRUE(parse_assignment(s.get().assignment)->empty());
    // Its partitions are still owned by the consumer member: no need to rejoin yet.
    EXPECT_EQ(heartbeat("g", c, j.generation_id), error_code::none);
    // The consumer member revokes; then the classic member rejoins and gets its half.
    auto m1 = beat("g", "m", r.member_epoch, topic_partitions{});
    ASSERT_EQ(m1.error, error_code::none);
    EXPECT_EQ(heartbeat("g", c, j.generation_id), error_code::rebalance_in_progress);  // now free: rejoin
    auto j2 = join_from(*std::make_unique<join_args>(join_req("g", c)));
    auto s2 = sync("g", c, j2.generation_id);
    ASSERT_EQ(s2.get().error, error_code::none);
    EXPECT_EQ((*parse_assignment(s2.get().assignment))["t1"].size(), 2u);
    EXPECT_EQ(heartbeat("g", c, j2.generation_id), error_code::none);
    // Classic requests of a consumer-protocol member are refused.
    EXPECT_EQ(heartbeat("g", "m", m1.member_epoch), error_code::unknown_member_id);
    EXPECT_EQ(sync("g", "m", m1.member_epoch).get().error, error_code::unknown_member_id);
}

// The last consumer-protocol member leaves: the group becomes a classic group
// at the group epoch and rebalances; the classic member's rejoin completes it.
TEST_F(migration_test, the_last_consumer_member_leaving_downgrades_the_group) {
    stable_classic_pair("g");
    auto r = join("g", "m");
    ASSERT_EQ(r.error, error_code::none);
    const int32_t epoch = describe("g").group_epoch;
    ASSERT_EQ(leave("g", "m").error, error_code::none);
    EXPECT_EQ(coord->state_of("g"), group_state::preparing_rebalance);
    EXPECT_EQ(coord->generation_of("g"), epoch);  // ClassicGroup.fromConsumerGroup: the group epoch
    EXPECT_EQ(describe("g").error, error_code::group_id_not_found);
    auto classic = coord->describe_groups({"g"}, 5).at(0);
    EXPECT_EQ(classic.protocol_type, "consumer");
    EXPECT_EQ(classic.members.size(), 2u);
    EXPECT_EQ(heartbeat("g", a_, *coord->generation_of("g")), error_code::rebalance_in_progress);
    auto ja = group_test::join(join_req("g", a_));
    auto jb = group_test::join(join_req("g", b_));
    ASSERT_TRUE(ja.done() && jb.done());
    EXPECT_EQ(ja.get().generation_id, *coord->generation_of("g"));
    EXPECT_EQ(coord->state_of("g"), group_state::completing_rebalance);
}

TEST_F(migration_test, no_downgrade_when_disabled_or_when_consumer_members_remain) {
    cfg.consumer_migration_policy = migration_policy::upgrade;
    open();
    coord->set_topic_view(&topics);
    stable_classic_pair("g");
    ASSERT_EQ(join("g", "m").error, error_code::none);
    ASSERT_EQ(leave("g", "m").error, error_code::none);
    EXPECT_EQ(describe("g").error, error_code::none);
    EXPECT_EQ(describe("g").members.size(), 2u);
}

// classicGroupLeaveToConsumerGroup: a classic member leaves with LeaveGroup,
// the group epoch is bumped; the group stays a consumer group.
TEST_F(migration_test, a_classic_member_leaves_a_consumer_group) {
    stable_classic_pair("g");
    ASSERT_EQ(join("g", "m").error, error_code::none);
    const int32_t before = describe("g").group_epoch;
    auto res = coord->leave(leave_args{"g", {{a_, std::nullopt, std::nullopt}, {"m", std::nullopt, std::nullopt}}});
    ASSERT_EQ(res.members.size(), 2u);
    EXPECT_EQ(res.members[0].error, error_code::none);
    // Kafka 4.3.1 removes a consumer-protocol member named in a LeaveGroup too.
    EXPECT_EQ(res.members[1].error, error_code::none);
    auto d = describe("g");
    EXPECT_EQ(d.group_epoch, before + 1);  // one bump for the request
    EXPECT_EQ(d.members.size(), 1u);
    EXPECT_EQ(coord->leave(leave_args{"g", {{"nobody", std::nullopt, std::nullopt}}}).members[0].error,
              error_code::unknown_member_id);
}

TEST_F(migration_test, a_classic_members_session_expires_in_a_consumer_group) {
    stable_classic_pair("g");
    ASSERT_EQ(join("g", "m").error, error_code::none);
    time.advance(k_session + 1);  // a and b sent nothing; m's session (45 s) lasts
    auto d = describe("g");
    ASSERT_EQ(d.members.size(), 1u);
    EXPECT_EQ(d.members[0].member_id, "m");
}

// A classic static member replacing the last consumer-protocol member (here
// the only member) downgrades the group at its JoinGroup (Kafka 4.3.1
// GroupMetadataManager.classicGroupJoinToConsumerGroup,
// validateOnlineDowngradeWithReplacedMember; ClassicGroup.fromConsumerGroup):
// with the target at the group epoch the classic group is Stable at that
// epoch and the new member syncs the replaced member's partitions.
TEST_F(migration_test, a_classic_static_member_replacing_the_last_consumer_member_downgrades_the_group) {
    auto a = join_args_for("g", "m", {"t1"});
    a.instance_id = "i";
    auto r = coord->consumer_heartbeat(a);
    ASSERT_EQ(r.error, error_code::none);
    auto j = join_from(*std::make_unique<join_args>(join_req("g", "", 9, {{"range", subscription({"t1"})}}, "i")));
    ASSERT_EQ(j.error, error_code::none);
    EXPECT_NE(j.member_id, "m");
    EXPECT_EQ(j.generation_id, r.member_epoch);
    EXPECT_EQ(j.protocol_name, "range");
    EXPECT_EQ(describe("g").error, error_code::group_id_not_found);
    EXPECT_EQ(coord->state_of("g"), group_state::stable);
    EXPECT_EQ(coord->generation_of("g"), r.member_epoch);
    auto s = sync("g", j.member_id, j.generation_id, {}, "i");
    ASSERT_EQ(s.get().error, error_code::none);
    EXPECT_EQ((*parse_assignment(s.get().assignment))["t1"], (std::set<int32_t>{0, 1, 2, 3}));
    EXPECT_EQ(heartbeat("g", j.member_id, j.generation_id, "i"), error_code::none);
    EXPECT_EQ(beat("g", "m", r.member_epoch).error, error_code::group_id_not_found);
}

// The same with a changed subscription: the target lags the bumped epoch, so
// the classic group rebalances and the member is answered at epoch 0.
TEST_F(migration_test, a_replacing_static_member_with_a_new_subscription_downgrades_into_a_rebalance) {
    auto a = join_args_for("g", "m", {"t1"});
    a.instance_id = "i";
    auto r = coord->consumer_heartbeat(a);
    ASSERT_EQ(r.error, error_code::none);
    auto j = join_from(*std::make_unique<join_args>(join_req("g", "", 9, {{"range", subscription({"t2"})}}, "i")));
    ASSERT_EQ(j.error, error_code::none);
    EXPECT_EQ(j.generation_id, 0);
    EXPECT_EQ(coord->state_of("g"), group_state::preparing_rebalance);
    EXPECT_EQ(coord->generation_of("g"), r.member_epoch);
}

TEST_F(migration_test, mixed_groups_survive_a_restart) {
    stable_classic_pair("g");
    ASSERT_EQ(join("g", "m").error, error_code::none);
    open();
    coord->set_topic_view(&topics);
    auto d = describe("g");
    ASSERT_EQ(d.members.size(), 3u);
    size_t classic = 0;
    for (const auto& m : d.members) classic += m.uses_classic_protocol ? 1 : 0;
    EXPECT_EQ(classic, 2u);
    EXPECT_EQ(heartbeat("g", a_, gen_), error_code::rebalance_in_progress);
}

}  // namespace
}  // namespace ketch::group::testing
