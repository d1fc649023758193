// request_percentage as Kafka's ClientRequestQuotaManager: handler time is
// recorded as a percentage of one thread (nanosToPercentage: 1 s of handler
// time is 100), measured over the quota windows like the byte rates, and
// the throttle is bounded by one window (QuotaUtils.boundedThrottleTime with
// maxThrottleTimeMs = quota.window.size.seconds). Fake clock: explicit ms.
#include <gtest/gtest.h>

#include "meta/quota_store.h"
#include "security/quota_config.h"
#include "security/quota_manager.h"

using namespace ketch;
using namespace ketch::security;

namespace {

struct request_fixture {
    meta::memory_quota_store store;
    quota_config cfg{store};
    quota_manager qm{cfg};  // 11 windows of 1 s
    request_fixture() {
        quota_alteration a{{{k_client_id, "slow"}}, {{k_request_percentage, 1.0}}};
        EXPECT_TRUE(cfg.alter({a}, false).ok());
    }
    // `ms` of handler time, as record_request_time converts it.
    int32_t handle(const std::string& client, double ms, int64_t now) {
        return qm.record(quota_type::request, "ANONYMOUS", client, ms * 1e6 * 100.0 / 1e9, now);
    }
};

constexpr int64_t start_ms = 7'000'000;

}  // namespace

TEST(request_quota, handler_time_over_the_percentage_is_throttled_at_most_one_window) {
    request_fixture f;
    // 1 % of a thread = 10 ms of handler time per second; a fresh rate is
    // measured over at least 10 s (all but one window), so 90 ms passes.
    EXPECT_EQ(f.handle("slow", 90, start_ms), 0);
    // 150 ms more: 2.4 % over 10 s, (2.4 - 1) / 1 x 10 s = 14 s, bounded to 1 s.
    EXPECT_EQ(f.handle("slow", 150, start_ms), 1000);
    EXPECT_NEAR(f.qm.rate(quota_type::request, "ANONYMOUS", "slow", start_ms), 2.4, 1e-9);
}

TEST(request_quota, a_small_excess_throttles_less_than_a_window) {
    request_fixture f;
    // 105 ms over 10 s: 1.05 %, (1.05 - 1) / 1 x 10 s = 500 ms.
    EXPECT_EQ(f.handle("slow", 105, start_ms), 500);
}

TEST(request_quota, other_client_ids_are_not_throttled) {
    request_fixture f;
    EXPECT_EQ(f.handle("slow", 500, start_ms), 1000);
    EXPECT_EQ(f.handle("fast", 5000, start_ms), 0);  // no request_percentage for "fast"
    EXPECT_DOUBLE_EQ(f.qm.rate(quota_type::request, "ANONYMOUS", "fast", start_ms), 0.0);
}

TEST(request_quota, the_rate_falls_back_as_windows_expire) {
    request_fixture f;
    EXPECT_EQ(f.handle("slow", 500, start_ms), 1000);
    // 12 s later every sample holding the 500 ms has expired.
    EXPECT_EQ(f.handle("slow", 1, start_ms + 12'000), 0);
}
