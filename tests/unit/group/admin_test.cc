// DeleteGroups, ListGroups and DescribeGroups.
// Reference: group-coordinator/.../GroupCoordinatorShard.java (deleteGroups),
// classic/ClassicGroup.java (validateDeleteGroup, isInStates, asListedGroup),
// GroupMetadataManager.java (listGroups, describeGroups), Group.java (GroupType.parse),
// ClassicGroupMember.java (describe, describeNoMetadata).
#include "group_fixture.h"

namespace ketch::group::testing {
namespace {

TEST_F(group_test, delete_groups_answers_each_group_and_removes_offsets) {
    const auto id = stable_single_member("busy");
    commit("idle", "", -1, {{"t1", {{0, 5}}}});
    auto r = coord->delete_groups({"busy", "idle", "nope", std::string(max_id_bytes + 1, 'x')});
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].group_id, "busy");
    EXPECT_EQ(r[0].error, error_code::non_empty_group);
    EXPECT_EQ(r[1].error, error_code::none);
    EXPECT_EQ(r[2].error, error_code::group_id_not_found);
    EXPECT_EQ(r[3].error, error_code::invalid_group_id);
    EXPECT_FALSE(coord->state_of("idle"));
    EXPECT_EQ(fetch_one("idle", "t1", 0).offset, -1);
    auto stored = store.load_offsets();
    ASSERT_TRUE(stored);
    EXPECT_TRUE(stored->empty());
    EXPECT_EQ(coord->state_of("busy"), group_state::stable);
    // Deleting again: gone.
    EXPECT_EQ(coord->delete_groups({"idle"})[0].error, error_code::group_id_not_found);
}

TEST_F(group_test, failed_delete_keeps_the_group_and_its_offsets) {
    commit("g", "", -1, {{"t1", {{0, 5}}}});
    store.set_failing(true);
    EXPECT_EQ(coord->delete_groups({"g"})[0].error, error_code::not_coordinator);
    store.set_failing(false);
    EXPECT_EQ(coord->state_of("g"), group_state::empty);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 5);
}

TEST_F(group_test, list_groups_filters_by_state_and_type_case_insensitively) {
    stable_single_member("stable-g");
    commit("empty-g", "", -1, {{"t1", {{0, 5}}}});
    join(join_req("preparing-g", "", 3));
    auto names = [](const std::vector<listed_group>& gs) {
        std::vector<std::string> out;
        for (const auto& g : gs) out.push_back(g.group_id);
        return out;
    };
    auto all = coord->list_groups({});
    EXPECT_EQ(names(all), (std::vector<std::string>{"empty-g", "preparing-g", "stable-g"}));
    for (const auto& g : all) EXPECT_EQ(g.group_type, "classic");
    EXPECT_EQ(names(coord->list_groups({{" STABLE "}, {}})), (std::vector<std::string>{"stable-g"}));
    EXPECT_EQ(names(coord->list_groups({{"Empty", "PreparingRebalance"}, {}})),
              (std::vector<std::string>{"empty-g", "preparing-g"}));
    EXPECT_TRUE(coord->list_groups({{"bogus"}, {}}).empty());
    EXPECT_EQ(coord->list_groups({{}, {"CLASSIC"}}).size(), 3u);
    EXPECT_TRUE(coord->list_groups({{}, {"consumer"}}).empty());
    EXPECT_TRUE(coord->list_groups({{}, {"bogus"}}).empty());
    EXPECT_EQ(coord->list_groups({{"stable"}, {"classic", "share"}}).size(), 1u);
    auto stable = coord->list_groups({{"stable"}, {}});
    EXPECT_EQ(stable.at(0).protocol_type, "consumer");
    EXPECT_EQ(stable.at(0).group_state, "Stable");
}

TEST_F(group_test, describe_shows_metadata_only_when_stable_and_unknown_groups_by_version) {
    std::string id;
    auto j = join_with_id("g", &id);
    time.advance(cfg.initial_rebalance_delay_ms);
    auto d = coord->describe_groups({"g"}, 5);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].group_state, "CompletingRebalance");
    EXPECT_EQ(d[0].protocol_type, "consumer");
    EXPECT_EQ(d[0].protocol_data, "");
    ASSERT_EQ(d[0].members.size(), 1u);
    EXPECT_TRUE(d[0].members[0].member_metadata.empty());

    sync("g", id, j.get().generation_id, {{id, {4, 2}}});
    d = coord->describe_groups({"g", "nope"}, 5);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].error, error_code::none);
    EXPECT_EQ(d[0].group_state, "Stable");
    EXPECT_EQ(d[0].protocol_data, "range");
    const auto& m = d[0].members.at(0);
    EXPECT_EQ(m.member_id, id);
    EXPECT_EQ(m.client_id, "client");
    EXPECT_EQ(m.client_host, "/127.0.0.1");
    EXPECT_EQ(m.member_metadata, subscription({"t1"}));
    EXPECT_EQ(m.member_assignment, (bytes{4, 2}));
    EXPECT_FALSE(m.group_instance_id);
    // Unknown group: Dead without error before v6, GROUP_ID_NOT_FOUND from v6 (KIP-1043).
    EXPECT_EQ(d[1].group_id, "nope");
    EXPECT_EQ(d[1].group_state, "Dead");
    EXPECT_EQ(d[1].error, error_code::none);
    auto v6 = coord->describe_groups({"nope"}, 6);
    EXPECT_EQ(v6[0].error, error_code::group_id_not_found);
    EXPECT_EQ(v6[0].error_message, "Group nope not found.");
    EXPECT_EQ(v6[0].group_state, "Dead");
}

}  // namespace
}  // namespace ketch::group::testing
