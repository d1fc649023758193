// Decoding pushed OTLP metrics (telemetry/otlp_metrics.h): good messages,
// every truncation of one, garbage, and compressed payloads through the
// client metrics manager.
#include "telemetry/otlp_metrics.h"

#include <gtest/gtest.h>

#include <random>

#include "unit/telemetry/otlp_writer.h"

namespace ketch::telemetry {
namespace {

using test::pb;

bytes sample() {
    return test::metrics_data(
        {test::gauge_metric("org.apache.kafka.producer.record.send.rate",
                            test::number_point(12.5, 1700000000000000000ull, {{"client_id", "p1"}})),
         test::delta_sum_metric("org.apache.kafka.producer.record.send.total",
                                test::number_point(40, 1700000000000000000ull))},
        {{"client_rack", "r1"}});
}

TEST(OtlpMetrics, DecodesGaugesSumsAndResource) {
    auto d = decode_metrics_data(sample());
    ASSERT_TRUE(d.ok()) << d.error();
    ASSERT_EQ(d->resource.size(), 1u);
    EXPECT_EQ(d->resource[0], (std::pair<std::string, std::string>{"client_rack", "r1"}));
    ASSERT_EQ(d->points.size(), 2u);
    auto& g = d->points[0];
    EXPECT_EQ(g.name, "org.apache.kafka.producer.record.send.rate");
    EXPECT_EQ(g.kind, metric_kind::gauge);
    EXPECT_EQ(g.unit, "1");
    EXPECT_DOUBLE_EQ(g.value, 12.5);
    EXPECT_EQ(g.time_unix_nano, 1700000000000000000ull);
    ASSERT_EQ(g.attrs.size(), 1u);
    EXPECT_EQ(g.attrs[0].second, "p1");
    auto& s = d->points[1];
    EXPECT_EQ(s.kind, metric_kind::sum);
    EXPECT_TRUE(s.delta);
    EXPECT_DOUBLE_EQ(s.value, 40);
}

TEST(OtlpMetrics, IntValuesHistogramsAndUnknownFields) {
    pb int_point = pb().fixed64(3, 5).fixed64(6, uint64_t(-7)).varint(99, 1);  // as_int, an unknown field
    pb hist_point = pb().fixed64(3, 5).fixed64(4, 3).dbl(5, 1.5);
    pb hist = pb().str(1, "h").msg(9, pb().msg(1, hist_point).varint(2, 2));
    auto d = decode_metrics_data(test::metrics_data({test::gauge_metric("i", int_point), hist}));
    ASSERT_TRUE(d.ok()) << d.error();
    ASSERT_EQ(d->points.size(), 3u);
    EXPECT_DOUBLE_EQ(d->points[0].value, -7);
    EXPECT_EQ(d->points[1].name, "h.count");
    EXPECT_DOUBLE_EQ(d->points[1].value, 3);
    EXPECT_FALSE(d->points[1].delta);
    EXPECT_EQ(d->points[2].name, "h.sum");
    EXPECT_DOUBLE_EQ(d->points[2].value, 1.5);
}

TEST(OtlpMetrics, EmptyMessageIsNoMetrics) {
    auto d = decode_metrics_data(byte_view{});
    ASSERT_TRUE(d.ok());
    EXPECT_TRUE(d->points.empty());
}

TEST(OtlpMetrics, EveryTruncationIsAnErrorOrAPrefix) {
    bytes full = sample();
    size_t errors = 0;
    for (size_t n = 0; n < full.size(); ++n) {
        auto d = decode_metrics_data(byte_view(full.data(), n));
        if (!d.ok())
            ++errors;
        else
            EXPECT_LT(d->points.size(), 2u) << n;  // never more than the whole message
    }
    EXPECT_GT(errors, full.size() / 2);
}

TEST(OtlpMetrics, GarbageNeverCrashes) {
    std::mt19937 rng(714);
    bytes base = sample();
    for (int i = 0; i < 20000; ++i) {
        bytes b = base;
        for (int k = 0; k < 1 + i % 4; ++k) b[rng() % b.size()] = uint8_t(rng());
        if (i % 3 == 0) b.resize(rng() % b.size());
        (void)decode_metrics_data(b);
    }
    bytes noise(4096);
    for (auto& x : noise) x = uint8_t(rng());
    (void)decode_metrics_data(noise);
}

TEST(OtlpMetrics, HugeLengthsAndWrongWireTypesAreErrors) {
    bytes huge = {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f};  // field 1, length 2^32-1
    EXPECT_FALSE(decode_metrics_data(huge).ok());
    bytes wrong = {0x08, 0x01};  // field 1 as a varint
    EXPECT_FALSE(decode_metrics_data(wrong).ok());
    bytes long_varint(12, 0xff);
    EXPECT_FALSE(decode_metrics_data(long_varint).ok());
}

TEST(OtlpMetrics, PointsAndAttributesAreBounded) {
    std::vector<pb> metrics;
    pb many_attrs = test::number_point(1, 1);
    for (int i = 0; i < 100; ++i) many_attrs.msg(7, test::key_value("k" + std::to_string(i), std::string(2000, 'v')));
    for (int i = 0; i < 50; ++i) metrics.push_back(test::gauge_metric("m" + std::to_string(i), many_attrs));
    decode_limits lim;
    lim.max_points = 10;
    auto d = decode_metrics_data(test::metrics_data(metrics), lim);
    ASSERT_TRUE(d.ok()) << d.error();
    EXPECT_EQ(d->points.size(), 10u);
    EXPECT_EQ(d->dropped_points, 40u);
    EXPECT_EQ(d->points[0].attrs.size(), lim.max_attributes);
    EXPECT_EQ(d->points[0].attrs[0].second.size(), lim.max_string);
}

}  // namespace
}  // namespace ketch::telemetry
