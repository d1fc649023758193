// The ip connection_creation_rate quota as Kafka's ConnectionQuotas enforces
// it (core: ConnectionQuotas.recordIpConnectionMaybeThrottle,
// connectionRateForIp; server-common: QuotaUtils.boundedThrottleTime): the
// IP's own entity, else the default ip entity; a connection over the rate is
// un-recorded and held for the throttle time, at most one window.
#include <gtest/gtest.h>

#include "meta/quota_store.h"
#include "security/ip_connection_rate.h"
#include "security/quota_config.h"

using namespace ketch;
using namespace ketch::security;

namespace {

struct ip_rate_fixture {
    meta::memory_quota_store store;
    quota_config cfg{store};
    ip_connection_rate rates{cfg, {2, 1000}};  // quota.window.num 2, 1 s windows
    void put(std::optional<std::string> ip, double v) {
        auto r = cfg.alter({quota_alteration{{{k_ip, std::move(ip)}}, {{k_connection_creation_rate, v}}}}, false);
        ASSERT_TRUE(r.ok());
        ASSERT_EQ(r->at(0).code, error_code::none) << r->at(0).message.value_or("");
    }
    // How many of n connections from `ip` at time t are accepted.
    int accepted(const std::string& ip, int n, int64_t t) {
        int ok = 0;
        for (int i = 0; i < n; ++i) ok += rates.record_connection(ip, t) == 0 ? 1 : 0;
        return ok;
    }
};

}  // namespace

TEST(ip_connection_rate, no_quota_accepts_everything) {
    ip_rate_fixture f;
    EXPECT_EQ(f.accepted("10.0.0.1", 1000, 1'000'000), 1000);
    EXPECT_FALSE(f.rates.quota_for("10.0.0.1"));
}

TEST(ip_connection_rate, over_the_rate_is_held_for_the_throttle_time_and_not_counted) {
    ip_rate_fixture f;
    f.put(std::nullopt, 10);  // default ip entity: 10 connections/s
    const int64_t t = 1'000'000;
    // Rate.windowSize counts at least (samples - 1) = 1 full window: 10 at once fit.
    EXPECT_EQ(f.accepted("10.0.0.1", 10, t), 10);
    // The 11th: 11 / 1 s over 10 -> (11 - 10) / 10 * 1000 ms = 100 ms, un-recorded.
    EXPECT_EQ(f.rates.record_connection("10.0.0.1", t), 100);
    EXPECT_EQ(f.rates.record_connection("10.0.0.1", t), 100);  // still 11 / 1 s: the refused ones did not count
    // Another IP has its own rate.
    EXPECT_EQ(f.accepted("10.0.0.2", 10, t), 10);
    // 1.5 s later the window spans 1.5 s: 15 in total fit, so 5 more.
    EXPECT_EQ(f.accepted("10.0.0.1", 6, t + 1500), 5);
}

TEST(ip_connection_rate, the_ips_own_entity_wins_over_the_default_and_throttle_is_bounded_by_a_window) {
    ip_rate_fixture f;
    f.put(std::nullopt, 100);
    f.put("10.0.0.9", 1);
    EXPECT_EQ(f.rates.quota_for("10.0.0.9"), 1.0);
    EXPECT_EQ(f.rates.quota_for("10.0.0.1"), 100.0);
    const int64_t t = 2'000'000;
    EXPECT_EQ(f.accepted("10.0.0.9", 1, t), 1);
    // 2 / 1 s over 1 -> (2 - 1) / 1 * 1000 = 1000 ms: at the one-window bound.
    EXPECT_EQ(f.rates.record_connection("10.0.0.9", t), 1000);
    EXPECT_EQ(f.accepted("10.0.0.1", 100, t), 100);
}
