// Cluster mode: group_coordinator::reload_groups (group/reload.cc) replaces
// what the coordinator holds of some groups with the shared store's rows
// (another broker coordinated them meanwhile), answers their parked requests
// NOT_COORDINATOR (as Kafka's unload does: GroupCoordinatorShard onUnloaded
// answers pending joins and syncs), and writes nothing back.
#include <set>

#include "group/ownership.h"
#include "group_fixture.h"

namespace ketch::group::testing {
namespace {

TEST_F(group_test, reload_replaces_stale_offsets_with_the_stores_and_leaves_other_groups) {
    ASSERT_EQ(only_error(commit("g", "", -1, {commit_topic{"t1", {{0, 5}}}})), error_code::none);
    ASSERT_EQ(only_error(commit("other", "", -1, {commit_topic{"t1", {{0, 9}}}})), error_code::none);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 5);
    // Another broker committed 42 for g, and wrote a group h this one never saw.
    std::vector<meta::stored_offset> moved{{"g", "t1", 0, 42, 3, "m", 1000, std::nullopt},
                                           {"g", "t1", 1, 7, -1, "", 1000, std::nullopt}};
    std::vector<meta::stored_group> rows{{"g", "", 0, 500, ""}};
    auto before = store.load_offsets();
    ASSERT_TRUE(before);
    coord->reload_groups({"g"}, rows, moved);
    auto p0 = fetch_one("g", "t1", 0);
    EXPECT_EQ(p0.offset, 42);
    EXPECT_EQ(p0.leader_epoch, 3);
    EXPECT_EQ(p0.metadata, "m");
    EXPECT_EQ(fetch_one("g", "t1", 1).offset, 7);
    EXPECT_EQ(fetch_one("other", "t1", 0).offset, 9);  // not reloaded: as it was
    EXPECT_EQ(coord->state_of("g"), group_state::empty);
    auto after = store.load_offsets();
    ASSERT_TRUE(after);
    EXPECT_EQ(after->size(), before->size());  // nothing written back
}

TEST_F(group_test, reload_answers_a_parked_join_not_coordinator_and_drops_a_group_the_store_lacks) {
    std::string id;
    auto parked = join_with_id("p", &id);  // waits for the initial rebalance delay
    ASSERT_FALSE(parked.done());
    coord->reload_groups({"p"}, {}, {});
    ASSERT_TRUE(parked.done());
    EXPECT_EQ(parked.get().error, error_code::not_coordinator);
    EXPECT_EQ(parked.count(), 1);
    EXPECT_EQ(coord->state_of("p"), std::nullopt);
    time.advance(cfg.initial_rebalance_delay_ms);  // its timers went with it
    EXPECT_EQ(parked.count(), 1);
}

// Cluster mode's fence (group/ownership.h): a group this broker does not
// serve is answered NOT_COORDINATOR before its slot is touched, so the
// members look for the coordinator again (GroupCoordinatorService answers
// NOT_COORDINATOR for a group whose shard it does not own).
struct only_some final : group_ownership {
    std::set<std::string> served;
    bool serves(const std::string& id) override { return served.contains(id); }
};

TEST_F(group_test, a_group_this_broker_does_not_serve_is_answered_not_coordinator) {
    only_some ownership;
    ownership.served = {"mine"};
    coord->set_ownership(&ownership);
    EXPECT_EQ(only_error(commit("theirs", "", -1, {commit_topic{"t1", {{0, 5}}}})), error_code::not_coordinator);
    EXPECT_EQ(coord->fetch_offsets({.group_id = "theirs"}).error, error_code::not_coordinator);
    EXPECT_EQ(heartbeat("theirs", "m", 1), error_code::not_coordinator);
    auto joined = join(join_req("theirs"));
    ASSERT_TRUE(joined.done());
    EXPECT_EQ(joined.get().error, error_code::not_coordinator);
    EXPECT_EQ(coord->slot_count(), 0u);  // nothing of it was kept
    auto stored = store.load_offsets();
    ASSERT_TRUE(stored);
    EXPECT_TRUE(stored->empty());
    EXPECT_EQ(only_error(commit("mine", "", -1, {commit_topic{"t1", {{0, 5}}}})), error_code::none);
    coord->set_ownership(nullptr);
}

TEST_F(group_test, acquire_group_restores_what_the_taker_read_and_a_failed_take_changes_nothing) {
    ASSERT_EQ(only_error(commit("g", "", -1, {commit_topic{"t1", {{0, 5}}}})), error_code::none);
    bool took = coord->acquire_group("g", [](auto&, auto&) { return false; });
    EXPECT_FALSE(took);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 5);
    took = coord->acquire_group("g", [](std::vector<meta::stored_group>& rows, std::vector<meta::stored_offset>& offs) {
        rows.push_back({"g", "", 0, 500, ""});
        offs.push_back({"g", "t1", 0, 42, -1, "", 1000, std::nullopt});
        return true;
    });
    EXPECT_TRUE(took);
    EXPECT_EQ(fetch_one("g", "t1", 0).offset, 42);
}

}  // namespace
}  // namespace ketch::group::testing
