// owner_of (broker/live_brokers.h): cluster mode's partition leaders and group
// coordinators by rendezvous hashing. What clients rely on: every key has one
// owner among the live brokers, keys spread over them, the answer depends only
// on the live set (not its order), and when a broker goes only its keys move.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "broker/live_brokers.h"

namespace ketch::broker {
namespace {

std::vector<listed_broker> nodes(std::initializer_list<int32_t> ids) {
    std::vector<listed_broker> out;
    for (int32_t id : ids) out.push_back({id, "127.0.0.1", 9000 + id, std::nullopt});
    return out;
}

std::string key(int i) { return "AAAAAAAAAAAAAAAAAAAAAA:" + std::to_string(i); }

TEST(owner_of, spreads_keys_and_ignores_the_order_of_the_live_set) {
    auto abc = nodes({1, 2, 3}), cba = nodes({3, 2, 1});
    std::map<int32_t, int> owned;
    for (int i = 0; i < 600; ++i) {
        int32_t o = owner_of(abc, key(i)).node_id;
        EXPECT_EQ(o, owner_of(cba, key(i)).node_id) << key(i);
        ++owned[o];
    }
    ASSERT_EQ(owned.size(), 3u);
    for (auto& [node, n] : owned) EXPECT_GT(n, 100) << "node " << node << " owns too few of 600 keys";
}

TEST(owner_of, a_broker_leaving_moves_only_its_keys) {
    auto three = nodes({1, 2, 3}), two = nodes({1, 3});
    int moved = 0;
    for (int i = 0; i < 600; ++i) {
        int32_t before = owner_of(three, key(i)).node_id, after = owner_of(two, key(i)).node_id;
        if (before != 2) {
            EXPECT_EQ(before, after) << key(i);
        }
        moved += before == 2;
    }
    EXPECT_GT(moved, 0);
}

TEST(owner_of, one_live_broker_owns_everything) {
    auto one = nodes({7});
    for (int i = 0; i < 10; ++i) EXPECT_EQ(owner_of(one, key(i)).node_id, 7);
}

}  // namespace
}  // namespace ketch::broker
