// GetTelemetrySubscriptions / PushTelemetry as Kafka 4.3.1 answers them:
// server/src/main/java/org/apache/kafka/server/ClientMetricsManager.java
// (processGetTelemetrySubscriptionRequest, processPushTelemetryRequest,
// validateGetRequest, validatePushRequest, createClientInstance; checked
// against the 4.3.1 kafka-server jar with javap where the source differs) and
// server/src/main/java/org/apache/kafka/server/metrics/ClientMetricsInstance.java
// (maybeUpdateGetRequestTimestamp, maybeUpdatePushRequestTimestamp). Plus
// the store's bounds (telemetry/client_store.h).
#include "telemetry/client_metrics_manager.h"

#include <gtest/gtest.h>

#include "base/error_code.h"
#include "record/codec.h"
#include "unit/telemetry/otlp_writer.h"

namespace ketch::telemetry {
namespace {

constexpr int16_t k_throttled = int16_t(error_code::throttling_quota_exceeded);
constexpr int16_t k_unknown_sub = int16_t(error_code::unknown_subscription_id);
constexpr int16_t k_too_large = int16_t(error_code::telemetry_too_large);
constexpr int16_t k_invalid_request = int16_t(error_code::invalid_request);
constexpr int16_t k_invalid_record = int16_t(error_code::invalid_record);
constexpr int16_t k_bad_compression = int16_t(error_code::unsupported_compression_type);

client_meta producer() {
    client_meta m;
    m.client_id = "p1";
    m.software_name = "apache-kafka-java";
    m.software_version = "4.3.1";
    m.source_address = "127.0.0.1";
    return m;
}

bytes one_gauge(double v, uint64_t t_ns, const std::string& name = "org.apache.kafka.producer.record.send.rate") {
    return test::metrics_data({test::gauge_metric(name, test::number_point(v, t_ns))});
}

struct fixture : ::testing::Test {
    client_metrics_manager m;
    int64_t now = 1'000'000;
    subscriptions_answer sub() { return m.get_subscriptions(uuid{}, producer(), now); }
    push_request push_of(const subscriptions_answer& a, byte_view metrics, int8_t codec = 0) {
        return {a.instance, a.subscription_id, false, codec, metrics};
    }
};

TEST_F(fixture, ZeroIdGetsANewInstanceAndTheDefaultSubscription) {
    auto a = sub();
    EXPECT_EQ(a.error_code, 0);
    EXPECT_FALSE(a.instance.is_zero());
    EXPECT_EQ(a.push_interval_ms, 5000);
    EXPECT_EQ(a.requested_metrics,
              (std::vector<std::string>{"org.apache.kafka.consumer.", "org.apache.kafka.producer."}));
    EXPECT_EQ(a.accepted_compression, (std::vector<int8_t>{4, 3, 1, 2}));  // zstd, lz4, gzip, snappy
    EXPECT_TRUE(a.delta_temporality);
    EXPECT_EQ(a.telemetry_max_bytes, 1024 * 1024);
    EXPECT_NE(sub().instance, a.instance);
}

TEST_F(fixture, AGetBeforeTheIntervalIsThrottled) {
    auto a = sub();
    auto again = m.get_subscriptions(a.instance, producer(), now + 100);
    EXPECT_EQ(again.error_code, k_throttled);
    EXPECT_TRUE(again.instance.is_zero());  // getErrorResponse: only the code
    EXPECT_EQ(m.get_subscriptions(a.instance, producer(), now + 5000).error_code, 0);
}

TEST_F(fixture, AGetRightAfterAnUnknownSubscriptionOrCodecIsNotThrottled) {
    // 4.3.1's validateGetRequest skips the throttle after these two errors.
    auto a = sub();
    auto p = push_of(a, one_gauge(1, 1));
    p.subscription_id ^= 1;
    EXPECT_EQ(m.push(p, producer(), now + 10), k_unknown_sub);
    EXPECT_EQ(m.get_subscriptions(a.instance, producer(), now + 20).error_code, 0);
    auto b = sub();
    EXPECT_EQ(m.push(push_of(b, one_gauge(1, 1), 7), producer(), now + 10), k_bad_compression);
    EXPECT_EQ(m.get_subscriptions(b.instance, producer(), now + 20).error_code, 0);
    auto c = sub();
    EXPECT_EQ(m.push(push_of(c, bytes(1024 * 1024 + 1)), producer(), now + 10), k_too_large);
    EXPECT_EQ(m.get_subscriptions(c.instance, producer(), now + 20).error_code, k_throttled);
}

TEST_F(fixture, FirstPushAfterAGetIsAcceptedThenTheIntervalHolds) {
    auto a = sub();
    bytes data = one_gauge(1, 1);
    EXPECT_EQ(m.push(push_of(a, data), producer(), now + 10), 0);
    EXPECT_EQ(m.push(push_of(a, data), producer(), now + 20), k_throttled);
    EXPECT_EQ(m.push(push_of(a, data), producer(), now + 10 + 5000), 0);
}

TEST_F(fixture, TerminatingPushSkipsTheIntervalAndEndsTheInstance) {
    auto a = sub();
    bytes data = one_gauge(1, 1);
    EXPECT_EQ(m.push(push_of(a, data), producer(), now + 10), 0);
    auto last = push_of(a, data);
    last.terminating = true;
    EXPECT_EQ(m.push(last, producer(), now + 20), 0);  // too early, but terminating
    EXPECT_EQ(m.push(last, producer(), now + 10000), k_invalid_request);
    auto info = m.instance(a.instance, now + 10000);
    ASSERT_TRUE(info);
    EXPECT_TRUE(info->terminating);
    EXPECT_EQ(info->pushes, 2u);
}

TEST_F(fixture, UnknownSubscriptionIdTooLargeBadCodecAndReservedIds) {
    auto a = sub();
    auto p = push_of(a, one_gauge(1, 1));
    p.subscription_id ^= 1;
    EXPECT_EQ(m.push(p, producer(), now + 10), k_unknown_sub);
    auto b = sub();
    bytes big(1024 * 1024 + 1, 0);
    EXPECT_EQ(m.push(push_of(b, big), producer(), now + 10), k_too_large);
    auto c = sub();
    EXPECT_EQ(m.push(push_of(c, one_gauge(1, 1), 5), producer(), now + 10), k_bad_compression);
    push_request zero{uuid{}, 0, false, 0, {}};
    EXPECT_EQ(m.push(zero, producer(), now), k_invalid_request);
}

TEST_F(fixture, UndecodableMetricsAreInvalidRecord) {
    auto a = sub();
    bytes junk = {0x0a, 0x05, 0x01};
    EXPECT_EQ(m.push(push_of(a, junk), producer(), now + 10), k_invalid_record);
    EXPECT_EQ(m.instance(a.instance, now)->last_error, k_invalid_record);
    auto b = sub();
    bytes not_gzip = {1, 2, 3, 4};
    EXPECT_EQ(m.push(push_of(b, not_gzip, 1), producer(), now + 10), k_invalid_record);
}

TEST_F(fixture, CompressedPushesAreDecoded) {
    const record::compression codecs[] = {record::compression::gzip, record::compression::snappy,
                                          record::compression::lz4, record::compression::zstd};
    for (auto codec : codecs) {
        auto a = sub();
        auto z = record::compress(codec, one_gauge(3.5, 2'000'000'000));
        ASSERT_TRUE(z.ok());
        EXPECT_EQ(m.push(push_of(a, *z, int8_t(codec)), producer(), now + 10), 0) << int(codec);
        auto info = m.instance(a.instance, now + 10);
        ASSERT_EQ(info->series_by_key.size(), 1u);
        auto& s = info->series_by_key.begin()->second;
        EXPECT_EQ(s.name, "org.apache.kafka.producer.record.send.rate");
        ASSERT_EQ(s.points.size(), 1u);
        EXPECT_EQ(s.points[0].time_ms, 2000);
        EXPECT_DOUBLE_EQ(s.points[0].value, 3.5);
    }
}

TEST_F(fixture, ConfiguredSubscriptionsReplaceTheDefaultAndMatch) {
    m.update_subscription(
        "only-p1",
        {{"metrics", "org.apache.kafka.producer.record"}, {"interval.ms", "1000"}, {"match", "client_id=p.*"}});
    auto a = sub();
    EXPECT_EQ(a.push_interval_ms, 1000);
    EXPECT_EQ(a.requested_metrics, (std::vector<std::string>{"org.apache.kafka.producer.record"}));
    client_meta other = producer();
    other.client_id = "consumer-1";
    auto b = m.get_subscriptions(uuid{}, other, now);
    EXPECT_TRUE(b.requested_metrics.empty());  // no match: nothing asked, Kafka's 5 min default interval
    EXPECT_EQ(b.push_interval_ms, 300000);
    // A change re-evaluates a known instance at once (subscriptionUpdateVersion).
    m.update_subscription("all", {{"metrics", "*"}});
    auto c = m.get_subscriptions(a.instance, producer(), now + 1);
    EXPECT_EQ(c.error_code, 0);
    EXPECT_EQ(c.requested_metrics, std::vector<std::string>{"*"});
    EXPECT_NE(c.subscription_id, a.subscription_id);
    m.update_subscription("all", {});
    m.update_subscription("only-p1", {});
    EXPECT_EQ(sub().push_interval_ms, 5000);  // back to the default
}

TEST(Subscription, IdIsKafkasForOneMetric) {
    // Recorded from Kafka 4.3.1 (conformance/recordings/telemetry.json): the
    // instance id, its subscription (one prefix, 60 s) and the id Kafka gave.
    // ClientMetricsManager.computeSubscriptionId: CRC32C("[m]" + interval) ^ Uuid.hashCode.
    auto id = uuid::from_base64("h3W6F2CiRES_F5QMsJrZdA");
    ASSERT_TRUE(id);
    subscription s = parse_subscription("s", {{"metrics", "org.apache.kafka.producer."}, {"interval.ms", "60000"}});
    EXPECT_EQ(subscription_for({s}, *id, producer()).id, 733021899);
}

TEST(ClientStore, InstancesSeriesAndPointsAreBounded) {
    manager_options o;
    o.limits.max_instances = 3;
    o.limits.max_series = 2;
    o.limits.max_points = 4;
    client_metrics_manager m(o);
    int64_t now = 10'000'000;
    std::vector<uuid> ids;
    for (int i = 0; i < 5; ++i) ids.push_back(m.get_subscriptions(uuid{}, producer(), now + i).instance);
    EXPECT_EQ(m.instances(now + 5).size(), 3u);
    EXPECT_FALSE(m.instance(ids[0], now + 5));  // the least recently seen went first
    auto a = m.get_subscriptions(uuid{}, producer(), now + 6);
    int64_t t = now + 10;
    for (int i = 0; i < 10; ++i, t += 5000) {
        bytes data = test::metrics_data({test::gauge_metric("a", test::number_point(i, 1)),
                                         test::gauge_metric("b", test::number_point(i, 1)),
                                         test::gauge_metric("c", test::number_point(i, 1))});
        ASSERT_EQ(m.push({a.instance, a.subscription_id, false, 0, data}, producer(), t), 0);
    }
    auto info = m.instance(a.instance, t);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->series_by_key.size(), 2u);
    EXPECT_EQ(info->dropped_series, 10u);
    EXPECT_EQ(info->series_by_key.begin()->second.points.size(), 4u);
    EXPECT_DOUBLE_EQ(info->series_by_key.begin()->second.points.back().value, 9);
}

TEST(ClientStore, IdleInstancesExpire) {
    client_metrics_manager m;
    const int64_t t0 = 1'000'000;
    auto a = m.get_subscriptions(uuid{}, producer(), t0);
    ASSERT_EQ(a.error_code, 0);
    EXPECT_TRUE(m.instance(a.instance, t0 + 10 * 60 * 1000));
    EXPECT_FALSE(m.instance(a.instance, t0 + 10 * 60 * 1000 + 1));
}

}  // namespace
}  // namespace ketch::telemetry
