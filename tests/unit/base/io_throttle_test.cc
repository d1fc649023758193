// base/io_throttle.h: the bound of log.cleaner.io.max.bytes.per.second, on a
// fake clock whose sleep moves it (nothing here waits).
#include "base/io_throttle.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace ketch {
namespace {

using namespace std::chrono_literals;
using tclock = io_throttle::clock;

struct fake_time {
    tclock::time_point now{};
    std::vector<tclock::duration> sleeps;

    io_throttle throttle(double rate) {
        return io_throttle(
            rate, [this] { return now; },
            [this](tclock::duration d) {
                sleeps.push_back(d);
                now += d;
            });
    }
};

TEST(io_throttle, bytes_since_the_start_never_pass_rate_times_elapsed_after_a_charge) {
    fake_time t;
    auto th = t.throttle(1000);  // 1000 bytes per second
    for (int i = 0; i < 50; ++i) {
        th.charge(300);  // an IO of 300 bytes, done at once
        t.now += 10ms;   // and 10 ms of other work
        const double elapsed_s = std::chrono::duration<double>(t.now.time_since_epoch()).count();
        EXPECT_LE(double(th.bytes()), 1000 * elapsed_s + 1e-6) << "after charge " << i;
    }
    EXPECT_EQ(th.bytes(), 50u * 300u);
    // 15,000 bytes at 1,000/s take 15 s: 0.5 s of it the other work, the rest slept.
    EXPECT_NEAR(std::chrono::duration<double>(th.slept()).count(), 15.0 - 0.49, 0.011);
}

TEST(io_throttle, io_slower_than_the_rate_is_not_delayed) {
    fake_time t;
    auto th = t.throttle(1000);
    for (int i = 0; i < 10; ++i) {
        t.now += 1s;
        th.charge(500);  // 500 bytes a second, under 1000
    }
    EXPECT_TRUE(t.sleeps.empty());
    EXPECT_EQ(th.slept(), tclock::duration(0));
}

TEST(io_throttle, a_burst_sleeps_once_for_all_of_it) {
    fake_time t;
    auto th = t.throttle(1 << 20);  // 1 MiB/s
    th.charge(4 << 20);             // a 4 MiB object read at once
    ASSERT_EQ(t.sleeps.size(), 1u);
    EXPECT_EQ(t.sleeps[0], 4s);
    th.charge(1 << 19);  // the next half MiB: half a second more
    ASSERT_EQ(t.sleeps.size(), 2u);
    EXPECT_EQ(t.sleeps[1], 500ms);
}

TEST(io_throttle, no_bound_only_counts) {
    for (double rate : {0.0, -5.0, std::numeric_limits<double>::infinity()}) {
        fake_time t;
        auto th = t.throttle(rate);
        EXPECT_FALSE(th.bounded());
        th.charge(1 << 30);
        EXPECT_EQ(th.bytes(), uint64_t(1) << 30);
        EXPECT_TRUE(t.sleeps.empty()) << rate;
    }
}

}  // namespace
}  // namespace ketch
