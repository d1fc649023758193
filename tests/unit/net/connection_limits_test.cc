// Connection limits. Behaviour reference: Kafka's ConnectionQuotas
// (core/src/main/scala/kafka/network/SocketServer.scala): per-IP limit closes
// the new connection, max.connections and the creation rate hold accepts back.
#include <gtest/gtest.h>

#include "net/connection_limits.h"

using namespace ketch::net;
using namespace std::chrono_literals;
using admission = connection_limits::admission;

namespace {
bool admitted(admission a) { return a == admission::admitted; }
}  // namespace

TEST(connection_limits, per_ip_limit_refuses_and_counts_with_overrides) {
    connection_stats st;
    limit_options o;
    o.max_connections_per_ip = 2;
    o.per_ip_overrides = {{"10.0.0.9", 0}, {"10.0.0.5", 3}};
    connection_limits l(o, st);
    auto now = connection_limits::clock::now();
    EXPECT_TRUE(admitted(l.admit("10.0.0.1", now)));
    EXPECT_TRUE(admitted(l.admit("10.0.0.1", now)));
    EXPECT_FALSE(admitted(l.admit("10.0.0.1", now)));
    EXPECT_FALSE(admitted(l.admit("10.0.0.9", now)));
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(admitted(l.admit("10.0.0.5", now)));
    EXPECT_FALSE(admitted(l.admit("10.0.0.5", now)));
    EXPECT_EQ(st.refused_per_ip.load(), 3u);
    EXPECT_EQ(st.active.load(), 5);
    l.release("10.0.0.1");
    EXPECT_TRUE(admitted(l.admit("10.0.0.1", now)));
}

TEST(connection_limits, max_connections_holds_accepts_until_one_closes) {
    connection_stats st;
    limit_options o;
    o.max_connections = 2;
    connection_limits l(o, st);
    auto now = connection_limits::clock::now();
    EXPECT_EQ(l.accept_delay(now), connection_limits::clock::duration::zero());
    ASSERT_TRUE(admitted(l.admit("a", now)));
    ASSERT_TRUE(admitted(l.admit("b", now)));
    EXPECT_GT(l.accept_delay(now), connection_limits::clock::duration::zero());
    EXPECT_GT(l.accept_delay(now), connection_limits::clock::duration::zero());
    EXPECT_EQ(st.throttled_max_connections.load(), 1u);  // one wait episode
    l.release("a");
    EXPECT_EQ(l.accept_delay(now), connection_limits::clock::duration::zero());
    EXPECT_EQ(l.open(), 1);
}

TEST(connection_limits, creation_rate_delays_the_next_accept_within_the_second) {
    connection_stats st;
    limit_options o;
    o.max_connection_creation_rate = 3;
    connection_limits l(o, st);
    auto t0 = connection_limits::clock::now();
    for (int i = 0; i < 3; ++i) {
        ASSERT_EQ(l.accept_delay(t0), connection_limits::clock::duration::zero());
        ASSERT_TRUE(admitted(l.admit("a", t0)));
    }
    auto d = l.accept_delay(t0 + 100ms);
    EXPECT_EQ(d, 900ms);
    EXPECT_EQ(l.accept_delay(t0 + 1s), connection_limits::clock::duration::zero());
    EXPECT_EQ(st.throttled_creation_rate.load(), 1u);
}

// --max-connections-policy close (the seed's listener limits, not Kafka's
// default): nothing waits; the IP's limit is checked first, then the total.
TEST(connection_limits, close_policy_refuses_over_the_total_after_the_per_ip_check) {
    connection_stats st;
    limit_options o;
    o.max_connections = 2;
    o.max_connections_per_ip = 1;
    o.close_when_full = true;
    connection_limits l(o, st);
    auto now = connection_limits::clock::now();
    ASSERT_TRUE(admitted(l.admit("a", now)));
    ASSERT_TRUE(admitted(l.admit("b", now)));
    EXPECT_EQ(l.accept_delay(now), connection_limits::clock::duration::zero());  // no waiting
    EXPECT_EQ(l.admit("a", now), admission::per_ip_limit);  // both limits reached: the IP's is named
    EXPECT_EQ(l.admit("c", now), admission::max_connections);
    EXPECT_EQ(st.refused_per_ip.load(), 1u);
    EXPECT_EQ(st.refused_max_connections.load(), 1u);
    EXPECT_EQ(st.throttled_max_connections.load(), 0u);
    EXPECT_EQ(l.open(), 2);
    l.release("b");
    EXPECT_TRUE(admitted(l.admit("c", now)));
}
