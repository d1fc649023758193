// base/read_through_limit.h: once per name per interval, a bound per second,
// on a fake clock (nothing here waits).
#include "base/read_through_limit.h"

#include <gtest/gtest.h>

#include <string>

namespace ketch {
namespace {

using namespace std::chrono_literals;

struct fake_clock {
    read_through_limit::clock::time_point now{1000s};
    read_through_limit limit(read_through_limit::clock::duration per_name, int per_second) {
        return read_through_limit(per_name, per_second, [this] { return now; });
    }
};

TEST(read_through_limit, a_name_is_read_once_per_interval) {
    fake_clock c;
    auto l = c.limit(1s, 100);
    EXPECT_TRUE(l.allow("alice"));
    EXPECT_FALSE(l.allow("alice"));
    EXPECT_TRUE(l.allow("bob"));  // another name is not held back
    c.now += 999ms;
    EXPECT_FALSE(l.allow("alice"));
    c.now += 1ms;
    EXPECT_TRUE(l.allow("alice"));
    EXPECT_FALSE(l.allow("alice"));
}

TEST(read_through_limit, at_most_per_second_names_in_a_second) {
    fake_clock c;
    auto l = c.limit(1s, 3);
    EXPECT_TRUE(l.allow("a"));
    EXPECT_TRUE(l.allow("b"));
    EXPECT_TRUE(l.allow("c"));
    EXPECT_FALSE(l.allow("d"));
    c.now += 1s;
    EXPECT_TRUE(l.allow("d"));  // refused before, so not counted as read: allowed in the next second
}

TEST(read_through_limit, without_an_interval_per_name_only_the_second_bounds) {
    fake_clock c;
    auto l = c.limit(0s, 2);
    EXPECT_TRUE(l.allow("t"));
    EXPECT_TRUE(l.allow("t"));
    EXPECT_FALSE(l.allow("t"));
    c.now += 1s;
    EXPECT_TRUE(l.allow("t"));
}

TEST(read_through_limit, names_forgotten_to_bound_the_memory_are_only_those_past_their_interval) {
    fake_clock c;
    auto l = c.limit(1s, 3);
    for (int k = 0; k < 1000; ++k) {  // two new names a second (below the bound), for 500 seconds
        if (k > 0 && k % 2 == 0) c.now += 1s;
        EXPECT_TRUE(l.allow("n" + std::to_string(k)));
    }
    c.now += 999ms;
    EXPECT_FALSE(l.allow("n999"));  // still within its interval: remembered, not pruned
    EXPECT_TRUE(l.allow("n997"));   // its interval passed
}

}  // namespace
}  // namespace ketch
