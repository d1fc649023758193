#include "inspect/traffic_ring.h"

#include <gtest/gtest.h>

namespace ketch::inspect {
namespace {

exchange with_bytes(size_t request, size_t response, int16_t api = 0) {
    exchange e;
    e.api_key = api;
    e.request = shared_bytes(bytes(request, 1));
    e.response = shared_bytes(bytes(response, 2));
    return e;
}

TEST(traffic_ring, inactive_until_watched_and_again_after_the_watch_expires) {
    traffic_ring r;
    EXPECT_FALSE(r.active());
    r.watch(1000);
    EXPECT_TRUE(r.active());
    r.record(with_bytes(1, 1), 1000 + traffic_ring::k_watch_ms);  // still within the watch
    EXPECT_TRUE(r.active());
    r.record(with_bytes(1, 1), 1001 + traffic_ring::k_watch_ms);  // past it: recording stops
    EXPECT_FALSE(r.active());
    r.watch(5000000);
    EXPECT_TRUE(r.active());
}

TEST(traffic_ring, keeps_the_last_2000_exchanges_and_200_events) {
    traffic_ring r;
    r.watch(0);
    for (int i = 0; i < 2500; ++i) r.record(with_bytes(1, 1), 0);
    for (int i = 0; i < 300; ++i) r.record(connection_event{}, 0);
    auto all = r.exchanges_after(0, 10000);
    ASSERT_EQ(all.size(), traffic_ring::k_exchanges);
    EXPECT_EQ(all.front().seq, 501u);  // sequence numbers are 1-based and increasing
    EXPECT_EQ(all.back().seq, 2500u);
    EXPECT_EQ(r.events().size(), traffic_ring::k_events);
    EXPECT_EQ(r.kept_bytes(), 2 * traffic_ring::k_exchanges);
}

TEST(traffic_ring, exchanges_after_returns_the_newest_oldest_first) {
    traffic_ring r;
    r.watch(0);
    for (int i = 0; i < 10; ++i) r.record(with_bytes(1, 1), 0);
    auto got = r.exchanges_after(4, 3);
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0].seq, 8u);
    EXPECT_EQ(got[2].seq, 10u);
    EXPECT_TRUE(r.exchanges_after(10, 5).empty());
    ASSERT_TRUE(r.find(5).has_value());
    EXPECT_FALSE(r.find(11).has_value());
}

TEST(traffic_ring, over_the_byte_budget_the_oldest_bodies_are_dropped_first) {
    traffic_ring r(1000);
    r.watch(0);
    for (int i = 0; i < 5; ++i) r.record(with_bytes(200, 100), 0);  // 300 bytes each
    EXPECT_LE(r.kept_bytes(), 1000u);
    auto all = r.exchanges_after(0, 100);
    ASSERT_EQ(all.size(), 5u);  // the facts stay
    EXPECT_TRUE(all[0].request.empty());
    EXPECT_FALSE(all[0].withheld.empty());
    EXPECT_FALSE(all[4].request.empty());
    EXPECT_EQ(all[4].request.size(), 200u);
}

TEST(traffic_ring, the_apis_that_carry_secrets_are_redacted) {
    for (int16_t k : {36, 38, 39, 40, 41, 51}) EXPECT_TRUE(traffic_ring::redact_api(k)) << k;
    for (int16_t k : {0, 1, 17, 18, 50}) EXPECT_FALSE(traffic_ring::redact_api(k)) << k;
}

}  // namespace
}  // namespace ketch::inspect
