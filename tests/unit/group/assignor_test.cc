// The server-side assignors' contract (group/assignor.h), after Kafka 4.3.1's
// UniformAssignor (UniformHomogeneousAssignmentBuilder,
// UniformHeterogeneousAssignmentBuilder) and RangeAssignor.
#include <gtest/gtest.h>

#include "group/assignor.h"

namespace ketch::group {
namespace {

uuid topic_uuid(uint8_t n) {
    uuid u;
    u.b[15] = n;
    return u;
}

assignor_input input(std::vector<std::pair<std::string, std::set<uuid>>> members, std::map<uuid, int32_t> parts) {
    assignor_input in;
    for (auto& [id, ts] : members) in.members.push_back({id, ts, {}});
    in.partitions = std::move(parts);
    return in;
}

// Every partition once, each to a member subscribing to its topic.
void expect_complete(const assignor_input& in, const assignment_map& out) {
    std::map<std::pair<uuid, int32_t>, int> seen;
    for (const auto& m : in.members) {
        auto it = out.find(m.member_id);
        if (it == out.end()) continue;
        for (const auto& [t, ps] : it->second) {
            EXPECT_TRUE(m.topics.count(t)) << m.member_id;
            for (int32_t p : ps) ++seen[{t, p}];
        }
    }
    for (const auto& [t, n] : in.partitions)
        for (int32_t p = 0; p < n; ++p) EXPECT_EQ((seen[{t, p}]), 1) << int(t.b[15]) << "-" << p;
}

size_t size(const topic_partitions& a) {
    size_t n = 0;
    for (const auto& [t, ps] : a) n += ps.size();
    return n;
}

TEST(uniform_assignor, homogeneous_members_differ_by_at_most_one_partition) {
    auto in = input({{"a", {topic_uuid(1), topic_uuid(2)}},
                     {"b", {topic_uuid(1), topic_uuid(2)}},
                     {"c", {topic_uuid(1), topic_uuid(2)}}},
                    {{topic_uuid(1), 5}, {topic_uuid(2), 3}});
    auto out = assign_uniform(in);
    expect_complete(in, out);
    for (const auto& [id, a] : out) EXPECT_TRUE(size(a) == 2 || size(a) == 3) << id;
}

TEST(uniform_assignor, a_joining_member_takes_partitions_without_moving_the_others) {
    auto in = input({{"a", {topic_uuid(1)}}, {"b", {topic_uuid(1)}}}, {{topic_uuid(1), 6}});
    auto first = assign_uniform(in);
    in.members.push_back({"c", {topic_uuid(1)}, {}});
    for (auto& m : in.members) m.current = first[m.member_id];
    auto second = assign_uniform(in);
    expect_complete(in, second);
    for (const auto& id : {"a", "b"}) {
        EXPECT_EQ(size(second[id]), 2u);
        for (int32_t p : second[id][topic_uuid(1)])
            EXPECT_TRUE(first[id][topic_uuid(1)].count(p)) << id << p;  // sticky
    }
}

TEST(uniform_assignor, heterogeneous_subscriptions_get_only_their_topics) {
    auto in = input({{"a", {topic_uuid(1)}}, {"b", {topic_uuid(1), topic_uuid(2)}}, {"c", {topic_uuid(2)}}},
                    {{topic_uuid(1), 4}, {topic_uuid(2), 4}});
    auto out = assign_uniform(in);
    expect_complete(in, out);
    for (const auto& [id, a] : out) EXPECT_TRUE(size(a) >= 2 && size(a) <= 3) << id;
}

TEST(range_assignor, members_get_contiguous_ranges_per_topic) {
    auto in = input({{"b", {topic_uuid(1)}}, {"a", {topic_uuid(1)}}}, {{topic_uuid(1), 5}});
    std::sort(in.members.begin(), in.members.end(), [](auto& x, auto& y) { return x.member_id < y.member_id; });
    auto out = assign_range(in);
    expect_complete(in, out);
    EXPECT_EQ(out["a"][topic_uuid(1)], (std::set<int32_t>{0, 1, 2}));
    EXPECT_EQ(out["b"][topic_uuid(1)], (std::set<int32_t>{3, 4}));
}

TEST(assignors, names) {
    EXPECT_TRUE(is_known_assignor("uniform"));
    EXPECT_TRUE(is_known_assignor("range"));
    EXPECT_FALSE(is_known_assignor("sticky"));
    EXPECT_EQ(known_assignors(), "uniform, range");
}

}  // namespace
}  // namespace ketch::group
