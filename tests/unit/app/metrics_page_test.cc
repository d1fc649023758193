// The metrics page's text: families with HELP/TYPE, reasons as labels, and
// per-API duration histograms with cumulative buckets, throttled responses
// by quota type.
#include "app/metrics_page.h"

#include <gtest/gtest.h>

#include "meta/quota_store.h"
#include "security/quota_config.h"

namespace ketch::app {
namespace {

using namespace std::chrono_literals;

bool has_line(const std::string& text, const std::string& line) {
    return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

TEST(metrics_page, counters_carry_their_reason_labels) {
    net::connection_stats c;
    c.refused_per_ip = 3;
    c.closed_idle = 2;
    c.throttled_ip_rate = 4;
    net::request_metrics r;
    auto text = render_metrics(c, r, nullptr);
    EXPECT_TRUE(has_line(text, "ketch_connections_throttled_total{reason=\"ip_connection_creation_rate\"} 4"));
    EXPECT_TRUE(has_line(text, "# TYPE ketch_connections_refused_total counter"));
    EXPECT_TRUE(has_line(text, "ketch_connections_refused_total{reason=\"max_connections_per_ip\"} 3"));
    EXPECT_TRUE(has_line(text, "ketch_connections_closed_total{reason=\"idle\"} 2"));
    EXPECT_TRUE(has_line(text, "ketch_connections_active 0"));
    EXPECT_EQ(text.find("ketch_request_duration_seconds_bucket"), std::string::npos) << "no API asked yet";
}

TEST(metrics_page, request_durations_fall_in_cumulative_buckets_per_api) {
    net::connection_stats c;
    net::request_metrics r;
    r.record(0, 50us);   // Produce: <= 0.1 ms
    r.record(0, 100us);  // <= 0.1 ms (bounds are inclusive)
    r.record(0, 3ms);    // <= 5 ms
    r.record(0, 60s);    // +Inf
    r.record(18, 1ms);   // ApiVersions
    r.record(-1, 1ms);   // not an API: ignored
    r.record(500, 1ms);
    auto text = render_metrics(c, r, nullptr);
    EXPECT_TRUE(has_line(text, "ketch_request_duration_seconds_bucket{api=\"Produce\",le=\"0.0001\"} 2"));
    EXPECT_TRUE(has_line(text, "ketch_request_duration_seconds_bucket{api=\"Produce\",le=\"0.0025\"} 2"));
    EXPECT_TRUE(has_line(text, "ketch_request_duration_seconds_bucket{api=\"Produce\",le=\"0.005\"} 3"));
    EXPECT_TRUE(has_line(text, "ketch_request_duration_seconds_bucket{api=\"Produce\",le=\"5\"} 3"));
    EXPECT_TRUE(has_line(text, "ketch_request_duration_seconds_bucket{api=\"Produce\",le=\"+Inf\"} 4"));
    EXPECT_TRUE(has_line(text, "ketch_request_duration_seconds_count{api=\"Produce\"} 4"));
    EXPECT_TRUE(has_line(text, "ketch_request_duration_seconds_sum{api=\"Produce\"} 60.00315"));
    EXPECT_TRUE(has_line(text, "ketch_request_duration_seconds_count{api=\"ApiVersions\"} 1"));
    EXPECT_EQ(text.find("api=\"Fetch\""), std::string::npos);
}

TEST(metrics_page, throttled_responses_are_counted_by_kafkas_quota_config_name) {
    net::connection_stats c;
    net::request_metrics r;
    const std::string family = "ketch_quota_throttled_requests_total";
    for (const char* q : {"producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate"})
        EXPECT_TRUE(has_line(render_metrics(c, r, nullptr), family + "{quota=\"" + q + "\"} 0")) << q;

    meta::memory_quota_store store;
    security::quota_config cfg(store);
    ASSERT_TRUE(cfg.load().ok());
    auto set = cfg.alter({{{{"client-id", std::nullopt}}, {{"producer_byte_rate", 100.0}}}}, false);
    ASSERT_TRUE(set.ok());
    ASSERT_EQ(set->at(0).code, error_code::none);
    security::quota_manager quotas(cfg);
    // As broker/quota_accounting does: a recording that throttles counts once.
    for (int i = 0; i < 3; ++i)
        if (quotas.record(security::quota_type::produce, "ANONYMOUS", "c", 1e6, 1'000'000 + i) > 0)
            quotas.count_throttled(security::quota_type::produce);
    quotas.count_throttled(security::quota_type::controller_mutation);
    auto text = render_metrics(c, r, &quotas);
    EXPECT_TRUE(has_line(text, "# TYPE " + family + " counter"));
    EXPECT_TRUE(has_line(text, family + "{quota=\"producer_byte_rate\"} 3"));
    EXPECT_TRUE(has_line(text, family + "{quota=\"consumer_byte_rate\"} 0"));
    EXPECT_TRUE(has_line(text, family + "{quota=\"request_percentage\"} 0"));
    EXPECT_TRUE(has_line(text, family + "{quota=\"controller_mutation_rate\"} 1"));
}

}  // namespace
}  // namespace ketch::app
