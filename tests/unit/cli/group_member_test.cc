// The classic consumer protocol's payloads and the range assignor (cli/group_member.h).
// Kafka: ConsumerProtocolSubscription/Assignment.json, RangeAssignor.java.
#include <gtest/gtest.h>

#include "cli/group_member.h"

using namespace ketch;
using namespace ketch::cli;

TEST(GroupMember, SubscriptionAndAssignmentRoundTrip) {
    std::vector<std::string> topics{"a", "b"};
    EXPECT_EQ(decode_subscription(encode_subscription(topics)), topics);
    std::vector<topic_partition> parts{{"a", 0}, {"a", 2}, {"b", 1}};
    EXPECT_EQ(decode_assignment(encode_assignment(parts)), parts);
    EXPECT_TRUE(decode_assignment({}).empty());
    // version 0 layout: int16 version, array of strings, nullable bytes user data
    auto b = encode_subscription({"t"});
    EXPECT_EQ(b, (bytes{0, 0, 0, 0, 0, 1, 0, 1, 't', 0xff, 0xff, 0xff, 0xff}));
}

TEST(GroupMember, RangeGivesTheFirstMembersOneMore) {
    std::map<std::string, std::vector<std::string>> subs{{"m1", {"t"}}, {"m2", {"t"}}, {"m3", {"t"}}};
    auto a = range_assign(subs, {{"t", 7}});
    EXPECT_EQ(a["m1"], (std::vector<topic_partition>{{"t", 0}, {"t", 1}, {"t", 2}}));
    EXPECT_EQ(a["m2"], (std::vector<topic_partition>{{"t", 3}, {"t", 4}}));
    EXPECT_EQ(a["m3"], (std::vector<topic_partition>{{"t", 5}, {"t", 6}}));
}

TEST(GroupMember, RangeOnlyAmongSubscribers) {
    std::map<std::string, std::vector<std::string>> subs{{"m1", {"a"}}, {"m2", {"a", "b"}}};
    auto a = range_assign(subs, {{"a", 2}, {"b", 2}});
    EXPECT_EQ(a["m1"], (std::vector<topic_partition>{{"a", 0}}));
    EXPECT_EQ(a["m2"], (std::vector<topic_partition>{{"a", 1}, {"b", 0}, {"b", 1}}));
    auto more_members = range_assign({{"m1", {"a"}}, {"m2", {"a"}}, {"m3", {"a"}}}, {{"a", 1}});
    EXPECT_TRUE(more_members["m3"].empty());
    EXPECT_EQ(more_members.size(), 3u);
}
