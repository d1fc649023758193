// The router and its per-group slots (docs/design/group_coordinator.md,
// "The router and the per-group machines", "Threads and locks"): a request
// for one group does not wait for another group's lock, and a slot lives
// exactly as long as its group (or offsets, overrides, timers).
#include <atomic>
#include <future>
#include <thread>

#include "consumer_fixture.h"

namespace ketch::group::testing {
namespace {

// A topic view whose first topics() call after arm() parks until go():
// ConsumerGroupHeartbeat reads the topics under its group's slot lock, so
// the heartbeat holds that lock while parked.
class parking_topics final : public topic_view {
public:
    std::vector<topic_meta> topics() const override {
        if (armed.exchange(false)) {
            entered.set_value();
            release.get_future().wait();
        }
        return {topic_meta{"t1", id, 4}};
    }
    void arm() { armed = true; }
    void go() { release.set_value(); }

    uuid id = uuid::random();
    mutable std::atomic<bool> armed{false};
    mutable std::promise<void> entered;
    mutable std::promise<void> release;
};

TEST_F(group_test, a_group_holding_its_lock_does_not_block_another_group) {
    parking_topics topics;
    coord->set_topic_view(&topics);
    topics.arm();
    auto parked_done = topics.entered.get_future();
    std::thread a([&] {
        auto r = coord->consumer_heartbeat(join_args_for("a", "m1", {"t1"}));
        EXPECT_EQ(r.error, error_code::none);
    });
    parked_done.wait();  // group a's heartbeat now holds a's slot lock

    // Group b's commit (a store write), fetch, describe and heartbeat go
    // through while a's lock is held. With one lock for every group they
    // would wait for a: the bound below turns that into a failure, not a hang.
    auto b = std::async(std::launch::async, [&] {
        EXPECT_EQ(only_error(commit("b", "", -1, {{"t1", {{0, 42}}}})), error_code::none);
        EXPECT_EQ(fetch_one("b", "t1", 0).offset, 42);
        EXPECT_EQ(coord->describe_groups({"b"}, 5).at(0).group_state, "Empty");
        EXPECT_EQ(heartbeat("b", "nobody", 1), error_code::unknown_member_id);
    });
    const bool b_done = b.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
    topics.go();
    a.join();
    b.wait();
    EXPECT_TRUE(b_done) << "group b waited for group a's lock";
    EXPECT_EQ(coord->consumer_describe({"a"}).at(0).members.size(), 1u);
}

TEST_F(group_test, slots_come_and_go_with_their_groups) {
    EXPECT_EQ(coord->slot_count(), 0u);
    // Reads of unknown groups leave nothing behind.
    for (int i = 0; i < 10; ++i) EXPECT_EQ(fetch_one("g" + std::to_string(i), "t1", 0).offset, -1);
    EXPECT_EQ(coord->describe_groups({"x", "y"}, 5).size(), 2u);
    EXPECT_EQ(heartbeat("z", "m", 1), error_code::unknown_member_id);
    EXPECT_EQ(coord->slot_count(), 0u);

    // A simple group with offsets has a slot until DeleteGroups removes it.
    EXPECT_EQ(only_error(commit("simple", "", -1, {{"t1", {{0, 7}}}})), error_code::none);
    EXPECT_EQ(coord->slot_count(), 1u);
    EXPECT_EQ(coord->delete_groups({"simple"}).at(0).error, error_code::none);
    EXPECT_EQ(coord->slot_count(), 0u);
    EXPECT_EQ(fetch_one("simple", "t1", 0).offset, -1);

    // Overrides wait in a slot for their group; cleared, the slot goes.
    coord->set_group_overrides("later", group_overrides{.session_timeout_ms = 60000});
    EXPECT_EQ(coord->slot_count(), 1u);
    coord->set_group_overrides("later", group_overrides{});
    EXPECT_EQ(coord->slot_count(), 0u);

    // A classic member's session timer keeps its group's slot; the group
    // survives a restart of the coordinator with its offsets.
    auto member = stable_single_member("classic");
    EXPECT_EQ(only_error(commit("classic", member, 1, {{"t1", {{0, 9}}}})), error_code::none);
    EXPECT_EQ(coord->slot_count(), 1u);
    open();
    EXPECT_EQ(coord->slot_count(), 1u);
    EXPECT_EQ(fetch_one("classic", "t1", 0).offset, 9);
}

}  // namespace
}  // namespace ketch::group::testing
