// A group's type is fixed while it has members: classic and consumer groups,
// their offsets, listing and describing (Apache Kafka 4.3.1
// GroupMetadataManager.getOrMaybeCreateConsumerGroup / classicGroupJoin,
// ConsumerGroup.validateOffsetCommit / validateOffsetFetch, listGroups,
// describeGroups).
#include "consumer_fixture.h"

namespace ketch::group::testing {
namespace {

TEST_F(consumer_test, an_empty_classic_group_becomes_a_consumer_group_keeping_its_offsets) {
    auto c = commit("g", "", -1, {{"t1", {{0, 42}}}});
    EXPECT_EQ(only_error(c), error_code::none);
    ASSERT_EQ(join("g", "m").error, error_code::none);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 42);
    auto listed = coord->list_groups({});
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].group_type, "consumer");
    EXPECT_EQ(listed[0].protocol_type, "consumer");
    EXPECT_EQ(listed[0].group_state, "Stable");
}

// GroupMetadataManager.validateOnlineUpgrade: with upgrades disabled
// (group.consumer.migration.policy) a classic group with members stays classic.
TEST_F(consumer_test, a_classic_group_with_members_is_not_a_consumer_group_without_upgrades) {
    cfg.consumer_migration_policy = migration_policy::downgrade;
    open();
    coord->set_topic_view(&topics);
    stable_single_member("g");
    auto r = join("g", "m");
    EXPECT_EQ(r.error, error_code::group_id_not_found);
    EXPECT_EQ(*r.error_message, "Cannot upgrade classic group g to consumer group because online upgrade is disabled.");
    auto d = describe("g");
    EXPECT_EQ(d.error, error_code::group_id_not_found);
}

// classicGroupJoinToConsumerGroup: throwIfClassicProtocolIsNotSupported.
TEST_F(consumer_test, a_classic_member_of_another_protocol_type_cannot_join_a_consumer_group) {
    join("g", "m");
    auto req = join_req("g");
    req.protocol_type = "connect";
    auto j = group_test::join(req);
    EXPECT_EQ(j.get().error, error_code::inconsistent_group_protocol);
    leave("g", "m");
    // Empty: a classic member takes it over.
    auto j2 = group_test::join(join_req("g"));
    EXPECT_EQ(j2.get().error, error_code::member_id_required);
}

TEST_F(consumer_test, commits_and_fetches_check_the_member_epoch) {
    auto r = join("g", "m");
    auto ok = commit("g", "m", r.member_epoch, {{"t1", {{0, 7}}}});
    EXPECT_EQ(only_error(ok), error_code::none);
    EXPECT_EQ(only_error(commit("g", "m", r.member_epoch + 1, {{"t1", {{0, 8}}}})), error_code::stale_member_epoch);
    EXPECT_EQ(only_error(commit("g", "x", r.member_epoch, {{"t1", {{0, 8}}}})), error_code::unknown_member_id);
    EXPECT_EQ(only_error(commit("g", "m", r.member_epoch, {{"t1", {{0, 8}}}}, 8)), error_code::unsupported_version);
    // Without members an admin commit (-1) is accepted; with members it is not.
    EXPECT_EQ(only_error(commit("g", "", -1, {{"t1", {{0, 9}}}})), error_code::unknown_member_id);
    fetch_args f;
    f.group_id = "g";
    f.member_id = "m";
    f.member_epoch = 0;
    EXPECT_EQ(coord->fetch_offsets(f).error, error_code::stale_member_epoch);
    f.member_epoch = r.member_epoch;
    EXPECT_EQ(coord->fetch_offsets(f).error, error_code::none);
    f.member_id = "x";
    EXPECT_EQ(coord->fetch_offsets(f).error, error_code::unknown_member_id);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 7);  // the admin's fetch
}

TEST_F(consumer_test, list_and_describe_tell_the_types_apart) {
    stable_single_member("classic");
    join("modern", "m");
    auto consumer_only = coord->list_groups({.types_filter = {"Consumer"}});
    ASSERT_EQ(consumer_only.size(), 1u);
    EXPECT_EQ(consumer_only[0].group_id, "modern");
    auto reconciling = coord->list_groups({.states_filter = {"stable"}});
    EXPECT_EQ(reconciling.size(), 2u);
    auto d = coord->describe_groups({"modern"}, 6);
    EXPECT_EQ(d[0].error, error_code::group_id_not_found);
    EXPECT_EQ(*d[0].error_message, "Group modern is not a classic group.");
    auto cd = describe("classic");
    EXPECT_EQ(cd.error, error_code::group_id_not_found);
    EXPECT_EQ(*cd.error_message, "Group classic is not a consumer group.");
}

TEST_F(consumer_test, only_an_empty_consumer_group_is_deleted) {
    join("g", "m");
    EXPECT_EQ(coord->delete_groups({"g"})[0].error, error_code::non_empty_group);
    leave("g", "m");
    EXPECT_EQ(coord->delete_groups({"g"})[0].error, error_code::none);
    EXPECT_EQ(describe("g").error, error_code::group_id_not_found);
}

}  // namespace
}  // namespace ketch::group::testing
