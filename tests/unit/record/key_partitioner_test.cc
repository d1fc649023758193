#include "record/key_partitioner.h"

#include <string_view>

#include <gtest/gtest.h>

namespace ketch::record {
namespace {

// Kafka's UtilsTest.testMurmur2 (clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java).
TEST(Partitioner, Murmur2MatchesKafka) {
    auto m = [](std::string_view s) { return murmur2(bytes(s.begin(), s.end())); };
    EXPECT_EQ(m("21"), -973932308);
    EXPECT_EQ(m("foobar"), -790332482);
    EXPECT_EQ(m("a-little-bit-long-string"), -985981536);
    EXPECT_EQ(m("a-little-bit-longer-string"), -1486304829);
    EXPECT_EQ(m("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58897971);
    EXPECT_EQ(m("abc"), 479470107);
}

TEST(Partitioner, PartitionIsPositiveModulo) {
    bytes k{'2', '1'};
    EXPECT_EQ(partition_for_key(k, 7), int32_t((uint32_t(-973932308) & 0x7fffffffu) % 7));
}

}  // namespace
}  // namespace ketch::record
