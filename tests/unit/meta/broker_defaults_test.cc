// Broker-level defaults of topic configs and the typed log view.
// Sources (Apache Kafka 4.3.1): server-common/src/main/java/org/apache/kafka/server/config/
// ServerTopicConfigSynonyms.java (synonym chains, hours/minutes conversion),
// core/src/main/scala/kafka/server/KafkaConfig.scala (logRetentionTimeMillis, extractLogConfigMap),
// storage/src/main/java/org/apache/kafka/storage/internals/log/LogConfig.java (typed fields,
// maxSegmentMs, localRetentionMs/Bytes, segmentSize with internal.segment.bytes).
#include "meta/broker_defaults.h"

#include <gtest/gtest.h>

#include "meta/log_settings.h"

namespace ketch::meta {
namespace {

TEST(broker_defaults, unset_broker_reports_kafkas_defaults) {
    broker_defaults d;
    for (const auto& c : all_topic_configs()) EXPECT_EQ(d.value_of(c.name), c.default_value) << c.name;
}

TEST(broker_defaults, broker_property_changes_the_topic_default) {
    broker_defaults d;
    ASSERT_EQ(d.set("log.segment.bytes", "2097152"), std::nullopt);
    ASSERT_EQ(d.set("message.max.bytes", "4194304"), std::nullopt);
    EXPECT_EQ(d.value_of("segment.bytes"), "2097152");
    EXPECT_EQ(d.value_of("max.message.bytes"), "4194304");
    EXPECT_EQ(d.value_of("retention.ms"), "604800000");  // untouched
}

TEST(broker_defaults, retention_chain_precedence_and_units) {
    broker_defaults d;
    ASSERT_EQ(d.set("log.retention.hours", "24"), std::nullopt);
    EXPECT_EQ(d.value_of("retention.ms"), "86400000");
    ASSERT_EQ(d.set("log.retention.minutes", "5"), std::nullopt);  // minutes beat hours
    EXPECT_EQ(d.value_of("retention.ms"), "300000");
    ASSERT_EQ(d.set("log.retention.ms", "1234"), std::nullopt);  // ms beat both
    EXPECT_EQ(d.value_of("retention.ms"), "1234");
    broker_defaults neg;
    ASSERT_EQ(neg.set("log.retention.hours", "-5"), std::nullopt);  // any negative retention means -1
    EXPECT_EQ(neg.value_of("retention.ms"), "-1");
    broker_defaults roll;
    ASSERT_EQ(roll.set("log.roll.hours", "1"), std::nullopt);
    EXPECT_EQ(roll.value_of("segment.ms"), "3600000");
    broker_defaults flush;
    ASSERT_EQ(flush.set("log.flush.scheduler.interval.ms", "1000"), std::nullopt);
    EXPECT_EQ(flush.value_of("flush.ms"), "1000");
}

TEST(broker_defaults, bad_broker_values_and_names_are_refused) {
    broker_defaults d;
    EXPECT_EQ(d.set("log.segment.bytes", "12"),
              "Invalid value 12 for configuration log.segment.bytes: Value must be at least 1048576");
    EXPECT_EQ(d.set("log.retention.hours", "x"),
              "Invalid value x for configuration log.retention.hours: Not a number of type INT");
    EXPECT_TRUE(d.set("retention.ms", "1"));  // a topic key, not a broker property
    EXPECT_TRUE(d.properties().empty());
}

TEST(log_settings, defaults_are_typed_kafka_defaults) {
    topic t;
    auto s = effective_log_settings(t, broker_defaults{});
    EXPECT_EQ(s.segment_bytes, 1073741824);
    EXPECT_EQ(s.retention_ms, 604800000);
    EXPECT_EQ(s.retention_bytes, -1);
    EXPECT_EQ(s.max_message_bytes, 1048588);
    EXPECT_TRUE(s.cleanup_delete);
    EXPECT_FALSE(s.cleanup_compact);
    EXPECT_EQ(s.compression, compression_type::producer);
    EXPECT_EQ(s.message_timestamp_type, timestamp_type::create_time);
    EXPECT_EQ(s.message_timestamp_after_max_ms, 3600000);
    EXPECT_EQ(s.message_timestamp_before_max_ms, INT64_MAX);
    EXPECT_EQ(s.local_retention_ms, s.retention_ms);  // -2 resolves to retention.ms
    EXPECT_EQ(s.local_retention_bytes, s.retention_bytes);
    EXPECT_EQ(s.min_cleanable_dirty_ratio, 0.5);
    EXPECT_EQ(s.initial_file_size(), 0);
}

TEST(log_settings, overrides_beat_broker_defaults_which_beat_kafka_defaults) {
    broker_defaults d;
    ASSERT_EQ(d.set("log.retention.hours", "1"), std::nullopt);
    ASSERT_EQ(d.set("log.segment.bytes", "2097152"), std::nullopt);
    topic t;
    t.configs = {{"segment.bytes", "1048576"},      {"cleanup.policy", "compact, delete"},
                 {"compression.type", "zstd"},      {"message.timestamp.type", "LogAppendTime"},
                 {"max.compaction.lag.ms", "1000"}, {"local.retention.ms", "10"}};
    auto s = effective_log_settings(t, d);
    EXPECT_EQ(s.retention_ms, 3600000);   // broker
    EXPECT_EQ(s.segment_bytes, 1048576);  // topic
    EXPECT_TRUE(s.cleanup_compact);
    EXPECT_TRUE(s.cleanup_delete);
    EXPECT_EQ(s.compression, compression_type::zstd);
    EXPECT_EQ(s.message_timestamp_type, timestamp_type::log_append_time);
    EXPECT_EQ(s.local_retention_ms, 10);
    EXPECT_EQ(s.max_segment_ms(), 1000);  // compacted: min(max.compaction.lag.ms, segment.ms)
    t.configs["internal.segment.bytes"] = "4096";
    EXPECT_EQ(effective_log_settings(t, d).segment_bytes, 4096);
    t.configs["cleanup.policy"] = "";
    auto keep = effective_log_settings(t, d);
    EXPECT_FALSE(keep.cleanup_compact || keep.cleanup_delete);
    EXPECT_EQ(keep.max_segment_ms(), keep.segment_ms);
}

}  // namespace
}  // namespace ketch::meta
