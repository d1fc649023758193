// membership::live_window (docs/design/cluster.md "consumer groups", rule 4):
// while a broker's heartbeats keep coming, what it found its own in the
// current run is vouched for; a heartbeat later than the window starts a new
// run, and nothing found before it is vouched for any more.
#include <gtest/gtest.h>

#include "cluster/membership.h"

using namespace ketch::cluster;
using namespace std::chrono_literals;
using window = membership::live_window;

namespace {
const window::time_point t0 = window::time_point{} + 1h;
constexpr auto timeout = 9000ms;
}  // namespace

TEST(live_window, closes_a_third_of_the_session_timeout_before_another_broker_can_find_it_gone) {
    auto w = window{}.renewed(t0, timeout);
    EXPECT_EQ(w.since, t0);
    EXPECT_EQ(w.until, t0 + 6s);
    EXPECT_TRUE(w.vouches(t0, t0 + 5999ms));
    EXPECT_FALSE(w.vouches(t0, t0 + 6s));
}

TEST(live_window, heartbeats_inside_the_window_keep_the_run_and_extend_it) {
    auto w = window{}.renewed(t0, timeout);
    for (auto at = t0 + 2s; at <= t0 + 20s; at += 2s) w = w.renewed(at, timeout);
    EXPECT_EQ(w.since, t0);
    EXPECT_EQ(w.until, t0 + 26s);
    EXPECT_TRUE(w.vouches(t0 + 1s, t0 + 25s));  // a lease taken early in the run
}

TEST(live_window, a_heartbeat_after_the_window_starts_a_new_run_and_forgets_earlier_confirmations) {
    auto w = window{}.renewed(t0, timeout);
    const auto resumed = t0 + 30s;  // paused past the window: another broker may have taken the group
    w = w.renewed(resumed, timeout);
    EXPECT_EQ(w.since, resumed);
    EXPECT_FALSE(w.vouches(t0 + 1s, resumed + 1s));      // found before the pause: confirm again
    EXPECT_TRUE(w.vouches(resumed + 1s, resumed + 2s));  // confirmed after it
}

TEST(live_window, a_heartbeat_at_the_edge_of_the_window_counts_as_a_gap) {
    auto w = window{}.renewed(t0, timeout).renewed(t0 + 6s, timeout);
    EXPECT_EQ(w.since, t0 + 6s);
}
