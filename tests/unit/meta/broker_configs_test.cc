// The BROKER resource of DescribeConfigs: the table recorded from Kafka
// 4.3.1 and the synonym/source rules of ConfigHelper.createBrokerConfigEntry
// and DynamicBrokerConfig.brokerConfigSynonyms.
#include "meta/broker_configs.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace ketch::meta {
namespace {

const config_entry& find(const std::vector<config_entry>& v, std::string_view name) {
    auto it = std::find_if(v.begin(), v.end(), [&](auto& e) { return e.name == name; });
    EXPECT_NE(it, v.end()) << name;
    return *it;
}

TEST(broker_configs, table_is_sorted_and_has_kafkas_keys) {
    auto all = all_broker_configs();
    EXPECT_GT(all.size(), 300u);
    EXPECT_TRUE(std::is_sorted(all.begin(), all.end(), [](auto& a, auto& b) { return a.name < b.name; }));
    auto* retention = find_broker_config("log.retention.hours");
    ASSERT_NE(retention, nullptr);
    EXPECT_EQ(retention->kafka_default, "168");
    EXPECT_FALSE(find_broker_config("log.retention.ms")->kafka_default.has_value());
    EXPECT_TRUE(find_broker_config("log.dirs")->read_only);
    EXPECT_FALSE(find_broker_config("log.retention.ms")->read_only);
    EXPECT_TRUE(find_broker_config("sasl.jaas.config")->sensitive);
    EXPECT_EQ(find_broker_config("no.such.key"), nullptr);
}

TEST(broker_configs, static_properties_and_kafka_defaults) {
    broker_defaults d;
    auto v = describe_broker_configs(d, {{"node.id", "1"}, {"auto.create.topics.enable", "true"}}, false);
    EXPECT_EQ(v.size(), all_broker_configs().size());
    auto& node = find(v, "node.id");
    EXPECT_EQ(node.value, "1");
    EXPECT_EQ(node.source, config_source::static_broker_config);
    auto& ac = find(v, "auto.create.topics.enable");
    ASSERT_EQ(ac.synonyms.size(), 2u);  // static, then Kafka's default
    EXPECT_EQ(ac.synonyms[1].source, config_source::default_config);
    auto& hours = find(v, "log.retention.hours");
    EXPECT_EQ(hours.value, "168");
    EXPECT_EQ(hours.source, config_source::default_config);
    auto& ms = find(v, "log.retention.ms");
    EXPECT_TRUE(ms.null_value);  // unset and no default
    // ConfigHelper drops synonyms up to the key's own name: none are left (recorded).
    EXPECT_TRUE(ms.synonyms.empty());
    auto& jaas = find(v, "sasl.jaas.config");
    EXPECT_TRUE(jaas.null_value);
    EXPECT_TRUE(jaas.sensitive);
}

TEST(broker_configs, dynamic_layers_come_first_and_cluster_default_lists_only_its_keys) {
    broker_defaults d;
    d.set_dynamic_layer(true, {{"log.retention.ms", "1000"}});
    d.set_dynamic_layer(false, {{"log.retention.ms", "2000"}});
    auto v = describe_broker_configs(d, {}, false);
    auto& ms = find(v, "log.retention.ms");
    EXPECT_EQ(ms.value, "2000");
    EXPECT_EQ(ms.source, config_source::dynamic_broker_config);
    ASSERT_EQ(ms.synonyms.size(), 3u);
    EXPECT_EQ(ms.synonyms[1].source, config_source::dynamic_default_broker_config);
    // log.retention.hours drops the ms entries in front of its own name.
    auto& hours = find(v, "log.retention.hours");
    ASSERT_EQ(hours.synonyms.size(), 1u);
    EXPECT_EQ(hours.synonyms[0].source, config_source::default_config);

    auto cluster = describe_broker_configs(d, {}, true);
    ASSERT_EQ(cluster.size(), 1u);
    EXPECT_EQ(cluster[0].name, "log.retention.ms");
    EXPECT_EQ(cluster[0].value, "1000");
    EXPECT_EQ(cluster[0].source, config_source::dynamic_default_broker_config);
}

TEST(broker_configs, values_are_checked_by_type_and_topic_validator) {
    EXPECT_TRUE(check_broker_config_value(*find_broker_config("log.retention.ms"), "abc").has_value());
    EXPECT_FALSE(check_broker_config_value(*find_broker_config("log.retention.ms"), "1000").has_value());
    EXPECT_TRUE(check_broker_config_value(*find_broker_config("log.cleanup.policy"), "shred").has_value());
    EXPECT_FALSE(check_broker_config_value(*find_broker_config("log.cleanup.policy"), "compact,delete").has_value());
}

}  // namespace
}  // namespace ketch::meta
