#include "base/ids.h"

#include <gtest/gtest.h>

#include <type_traits>

namespace ketch {
namespace {

// The point of the types: no implicit way in from a number, none between kinds.
static_assert(!std::is_convertible_v<int64_t, producer_id>);
static_assert(!std::is_convertible_v<int16_t, producer_epoch>);
static_assert(!std::is_convertible_v<partition_index, node_id>);
static_assert(!std::is_constructible_v<node_id, partition_index>);
static_assert(!std::is_convertible_v<producer_id, int64_t>);
static_assert(sizeof(producer_id) == sizeof(int64_t) && std::is_trivially_copyable_v<producer_id>);

TEST(strong_id, compares_like_its_number) {
    EXPECT_EQ(producer_id{7}, producer_id{7});
    EXPECT_NE(producer_id{7}, producer_id{8});
    EXPECT_LT(partition_index{-1}, partition_index{0});
    EXPECT_EQ(producer_epoch{int16_t(32767)}.value, 32767);
}

}  // namespace
}  // namespace ketch
