// What DescribeConfigs and CreateTopics report for a topic's configs. Sources (Apache Kafka 4.3.1):
// core/src/main/scala/kafka/server/ConfigHelper.scala (createTopicConfigEntry, configSynonyms and
// its dropWhile), server/src/main/java/org/apache/kafka/server/ConfigHelperUtils.java
// (createResponseConfig: internal keys only when set), metadata/src/main/java/org/apache/kafka/
// metadata/KafkaConfigSchema.java (resolveEffectiveTopicConfig, used for CreateTopics results),
// server-common/src/main/java/org/apache/kafka/server/config/ConfigSynonym.java (hours -> ms).
// The expectations were checked against the 4.3.1 classes themselves.
#include "meta/describe_configs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace ketch::meta {
namespace {

const config_entry& entry(const std::vector<config_entry>& v, std::string_view name) {
    for (const auto& e : v)
        if (e.name == name) return e;
    throw std::runtime_error("no entry " + std::string(name));
}

TEST(describe_configs, lists_33_keys_sorted_with_defaults) {
    auto v = describe_topic_configs({}, broker_defaults{});
    ASSERT_EQ(v.size(), 33u);
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end(), [](auto& a, auto& b) { return a.name < b.name; }));
    auto& rb = entry(v, "retention.bytes");
    EXPECT_EQ(rb.value, "-1");
    EXPECT_EQ(rb.source, config_source::default_config);
    ASSERT_EQ(rb.synonyms.size(), 1u);
    EXPECT_EQ(rb.synonyms[0].name, "log.retention.bytes");
    EXPECT_EQ(rb.synonyms[0].source, config_source::default_config);
    EXPECT_TRUE(entry(v, "retention.ms").synonyms.empty());  // chain starts with the unset log.retention.ms
    EXPECT_TRUE(entry(v, "remote.storage.enable").synonyms.empty());
    EXPECT_FALSE(entry(v, "retention.ms").read_only);
}

TEST(describe_configs, overrides_are_reported_in_kafkas_canonical_form) {
    broker_defaults d;
    ASSERT_EQ(d.set("log.retention.bytes", "100"), std::nullopt);
    ASSERT_EQ(d.set("log.retention.hours", "24"), std::nullopt);
    auto v = describe_topic_configs(
        {{"cleanup.policy", "compact , delete"}, {"retention.bytes", "7"}, {"internal.segment.bytes", "5000"}}, d);
    EXPECT_EQ(v.size(), 34u);  // a set internal key is reported
    auto& cp = entry(v, "cleanup.policy");
    EXPECT_EQ(cp.value, "compact,delete");
    EXPECT_EQ(cp.source, config_source::topic_config);
    auto& rb = entry(v, "retention.bytes");
    EXPECT_EQ(rb.value, "7");
    ASSERT_EQ(rb.synonyms.size(), 3u);
    EXPECT_EQ(rb.synonyms[0].source, config_source::topic_config);
    EXPECT_EQ(rb.synonyms[1].name, "log.retention.bytes");
    EXPECT_EQ(rb.synonyms[1].value, "100");
    EXPECT_EQ(rb.synonyms[1].source, config_source::static_broker_config);
    EXPECT_EQ(rb.synonyms[2].value, "-1");
    EXPECT_EQ(rb.synonyms[2].source, config_source::default_config);
    // Kafka's quirk: log.retention.hours is set, yet retention.ms says DEFAULT_CONFIG, no synonyms.
    auto& rm = entry(v, "retention.ms");
    EXPECT_EQ(rm.value, "86400000");
    EXPECT_EQ(rm.source, config_source::default_config);
    EXPECT_TRUE(rm.synonyms.empty());
}

TEST(create_topic_result_configs, echo_overrides_raw_and_prefer_static_broker_values) {
    broker_defaults d;
    ASSERT_EQ(d.set("log.retention.hours", "24"), std::nullopt);
    ASSERT_EQ(d.set("log.cleanup.policy", "compact, delete"), std::nullopt);
    auto v = create_topic_result_configs({{"retention.bytes", " 7 "}}, d);
    ASSERT_EQ(v.size(), 33u);
    auto& rb = entry(v, "retention.bytes");
    EXPECT_EQ(rb.value, " 7 ");  // as sent, unlike DescribeConfigs
    EXPECT_EQ(rb.source, config_source::topic_config);
    auto& rm = entry(v, "retention.ms");  // unlike DescribeConfigs: the broker value, converted
    EXPECT_EQ(rm.value, "86400000");
    EXPECT_EQ(rm.source, config_source::static_broker_config);
    EXPECT_EQ(entry(v, "cleanup.policy").value, "compact, delete");
    EXPECT_EQ(entry(v, "segment.ms").source, config_source::default_config);
    for (const auto& e : v) EXPECT_TRUE(e.synonyms.empty());
}

}  // namespace
}  // namespace ketch::meta
