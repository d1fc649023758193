// owner_of (broker/live_brokers.h): cluster mode's group coordinators by
// rendezvous hashing, and partition_leader(s): its partition leaders, the same
// hashing with bounded loads. What clients rely on: every key has one owner
// among the live brokers, keys spread over them, the answer depends only on
// the live set (not its order), and when a broker goes only its keys move
// (for partitions: its own and a few others, and no broker leads more than
// its share of a topic).
#include <algorithm>
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

std::string numbered_topic_id(int i) { return "topic" + std::to_string(i * 7919) + "AAAAAAAAAAA"; }

TEST(partition_leaders, no_broker_leads_more_than_its_share_of_a_topic) {
    for (auto live : {nodes({1}), nodes({1, 2}), nodes({1, 2, 3}), nodes({4, 9, 2, 6})}) {
        auto reversed = live;
        std::reverse(reversed.begin(), reversed.end());
        const int32_t n = int32_t(live.size());
        for (int32_t partitions = 1; partitions <= 13; ++partitions)
            for (int i = 0; i < 200; ++i) {
                auto leaders = partition_leaders(live, numbered_topic_id(i), partitions);
                ASSERT_EQ(leaders.size(), size_t(partitions));
                EXPECT_EQ(leaders, partition_leaders(reversed, numbered_topic_id(i), partitions))
                    << numbered_topic_id(i);
                std::map<int32_t, int32_t> led;
                for (int32_t p = 0; p < partitions; ++p) {
                    ++led[leaders[size_t(p)]];
                    EXPECT_EQ(partition_leader(live, numbered_topic_id(i), p, partitions), leaders[size_t(p)]);
                }
                for (auto& [node, count] : led)
                    EXPECT_LE(count, (partitions + n - 1) / n)
                        << "node " << node << ", " << partitions << " partitions";
            }
    }
}

TEST(partition_leaders, one_partition_is_led_as_owner_of_names_it) {
    auto three = nodes({1, 2, 3});
    for (int i = 0; i < 100; ++i)
        EXPECT_EQ(partition_leaders(three, numbered_topic_id(i), 1).at(0),
                  owner_of(three, numbered_topic_id(i) + ":0").node_id);
}

// A broker leaving moves its own partitions and few others: a leader that
// moves costs a client a Metadata round (docs/design/cluster.md).
TEST(partition_leaders, a_broker_leaving_moves_its_partitions_and_few_others) {
    auto three = nodes({1, 2, 3}), two = nodes({1, 3});
    for (int32_t partitions : {6, 12, 30}) {
        int others = 0, others_moved = 0;
        for (int i = 0; i < 300; ++i) {
            auto before = partition_leaders(three, numbered_topic_id(i), partitions);
            auto after = partition_leaders(two, numbered_topic_id(i), partitions);
            for (int32_t p = 0; p < partitions; ++p) {
                EXPECT_NE(after[size_t(p)], 2);
                if (before[size_t(p)] == 2) continue;
                ++others;
                others_moved += before[size_t(p)] != after[size_t(p)];
            }
        }
        // Round robin over the live brokers would move about half of them.
        EXPECT_LT(others_moved * 8, others) << partitions << " partitions: " << others_moved << " of " << others;
    }
}

}  // namespace
}  // namespace ketch::broker
