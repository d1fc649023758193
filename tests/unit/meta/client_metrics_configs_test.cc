// Client metrics subscriptions (CLIENT_METRICS config resources): validation
// in Kafka's order with its error kinds, canonical values in DescribeConfigs,
// and durability. Behaviour reference, Apache Kafka 4.3.1: server
// ClientMetricsConfigs (validateConfigs, parseMatchingPatterns), clients
// ConfigDef.ValidList.anyNonDuplicateValues; the messages are the recorded
// ones of conformance/scenarios/clientmetricsconfigs.json.
#include "meta/client_metrics_configs.h"

#include <gtest/gtest.h>

#include "meta/resource_config_registry.h"
#include "meta/sqlite_store.h"
#include "temp_dir.h"

namespace ketch::meta {
namespace {

std::string failure_of(const config_map& c, errc want) {
    auto e = validate_client_metrics_configs(c);
    if (!e) return "(accepted)";
    EXPECT_EQ(int(e->code), int(want)) << e->message;
    return e->message;
}

TEST(client_metrics_configs, validation_order_and_error_kinds_follow_kafka) {
    EXPECT_FALSE(validate_client_metrics_configs(
        {{"metrics", "a,a,*"}, {"interval.ms", " 1000 "}, {"match", " client_id = abc.* ,client_source_port=1"}}));
    EXPECT_FALSE(validate_client_metrics_configs({{"metrics", ""}, {"match", ""}}));
    EXPECT_EQ(failure_of({{"bogus", "1"}, {"interval.ms", "x"}}, errc::invalid_request),
              "Unknown client metrics configuration: bogus");
    EXPECT_EQ(failure_of({{"interval.ms", "x"}}, errc::invalid_config),
              "Invalid value x for configuration interval.ms: Not a number of type INT");
    EXPECT_EQ(failure_of({{"interval.ms", "5"}, {"match", "x"}}, errc::invalid_request),
              "Invalid value 5 for interval.ms, interval must be between 100 and 3600000 (1 hour)");
    EXPECT_EQ(failure_of({{"metrics", "a,,b"}}, errc::invalid_config),
              "Configuration 'metrics' values must not be empty.");
    for (const char* bad : {"client_id", "client_id=", "client_id=a=b", "foo=bar", "client_id=["})
        EXPECT_EQ(failure_of({{"match", bad}}, errc::invalid_config),
                  std::string("Illegal client matching pattern: ") + bad);
}

TEST(client_metrics_configs, describe_shows_canonical_values_and_only_set_keys_as_synonyms) {
    auto es = describe_client_metrics_configs({{"metrics", " a , b ,a"}});
    ASSERT_EQ(es.size(), 3u);
    for (const auto& e : es) {
        if (e.name == "metrics") {
            EXPECT_EQ(e.value, "a,b");
            EXPECT_EQ(e.source, config_source::client_metrics_config);
            ASSERT_EQ(e.synonyms.size(), 1u);
        } else {
            EXPECT_EQ(e.source, config_source::default_config);
            EXPECT_TRUE(e.synonyms.empty());
            EXPECT_EQ(e.value, e.name == "interval.ms" ? "300000" : "");
        }
    }
}

TEST(resource_config_registry, client_metrics_and_group_configs_are_kept_apart_across_a_reopen) {
    testing::temp_dir dir;
    auto set = [](config_map next) { return [next](const config_map&) -> result<config_map, error> { return next; }; };
    {
        auto s = open_sqlite_store(dir.path());
        ASSERT_TRUE(s);
        auto cm = resource_config_registry::open(**s, config_resource::client_metrics);
        ASSERT_TRUE(cm);
        ASSERT_TRUE((*cm)->update("x", set({{"interval.ms", "1000"}}), false));
    }
    auto s = open_sqlite_store(dir.path());
    ASSERT_TRUE(s);
    auto cm = resource_config_registry::open(**s, config_resource::client_metrics);
    auto groups = resource_config_registry::open(**s, config_resource::group);
    ASSERT_TRUE(cm && groups);
    EXPECT_EQ((*cm)->configs("x"), (config_map{{"interval.ms", "1000"}}));
    EXPECT_TRUE((*groups)->all().empty());
}

}  // namespace
}  // namespace ketch::meta
