// Per-group configs (GROUP config resources): GroupConfig's keys, validation
// with the broker's bounds in Kafka's order, what DescribeConfigs reports, and
// the registry's durability. Behaviour reference, Apache Kafka 4.3.1:
// group-coordinator GroupConfig (definitions, validate, validateValues),
// core ConfigHelper.describeConfigs (GROUP); the messages are the recorded
// ones of conformance/scenarios/groupconfigs.json.
#include "meta/group_configs.h"

#include <gtest/gtest.h>

#include "meta/iso_duration.h"
#include "meta/resource_config_registry.h"
#include "meta/sqlite_store.h"
#include "temp_dir.h"

namespace ketch::meta {
namespace {

const config_entry& config_named(const std::vector<config_entry>& es, std::string_view name) {
    for (const auto& e : es)
        if (e.name == name) return e;
    throw std::runtime_error("no entry " + std::string(name));
}

// java.time.Duration.parse / toMillis, as ShareGroupAutoOffsetResetStrategy
// (group-coordinator, Kafka 4.3.1) reads by_duration.
TEST(group_configs, iso_durations_in_milliseconds) {
    EXPECT_EQ(parse_iso_duration_ms("PT1H"), 3600000);
    EXPECT_EQ(parse_iso_duration_ms("P1DT2H3M4.5S"), 93784500);
    EXPECT_EQ(parse_iso_duration_ms("pt0.0019s"), 1);  // truncated
    EXPECT_EQ(parse_iso_duration_ms("-PT-1M"), 60000);
    EXPECT_EQ(parse_iso_duration_ms("-PT5M"), -300000);
    for (auto bad : {"", "P", "PT", "1H", "PT1", "P1H", "PT1D", "PT1.1234567891S", "PTT1H"})
        EXPECT_FALSE(parse_iso_duration_ms(bad)) << bad;
    EXPECT_EQ(share_reset_duration_ms("by_duration:PT30M"), 1800000);
    EXPECT_FALSE(share_reset_duration_ms("by_duration:-PT30M"));
    EXPECT_FALSE(share_reset_duration_ms("latest"));
}

TEST(group_configs, validation_names_parses_then_bounds_in_kafkas_order) {
    const broker_properties broker;
    EXPECT_EQ(all_group_configs().size(), 17u);
    EXPECT_FALSE(validate_group_configs({{"consumer.heartbeat.interval.ms", " 6000 "}}, broker));
    EXPECT_EQ(*validate_group_configs({{"no.such.key", "1"}}, broker), "Unknown group config name: no.such.key");
    // The first bad value in definition order: session timeout before heartbeat interval.
    EXPECT_EQ(*validate_group_configs({{"consumer.heartbeat.interval.ms", "x"}, {"consumer.session.timeout.ms", "y"}},
                                      broker),
              "Invalid value y for configuration consumer.session.timeout.ms: Not a number of type INT");
    EXPECT_EQ(
        *validate_group_configs({{"consumer.heartbeat.interval.ms", "1000"}}, broker),
        "consumer.heartbeat.interval.ms must be greater than or equal to group.consumer.min.heartbeat.interval.ms");
    EXPECT_EQ(*validate_group_configs({{"streams.num.standby.replicas", "3"}}, broker),
              "streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas");
    EXPECT_FALSE(validate_group_configs({{"share.auto.offset.reset", "by_duration:P1DT2H3M4.5S"}}, broker));
    EXPECT_TRUE(validate_group_configs({{"share.auto.offset.reset", "by_duration:-PT1H"}}, broker));
    EXPECT_TRUE(validate_group_configs({{"share.auto.offset.reset", "EARLIEST"}}, broker));
    // The bounds are the broker's: a wider range admits more, and the session
    // timeout must still exceed the heartbeat interval.
    const broker_properties wide{{"group.consumer.min.session.timeout.ms", "1000"}};
    EXPECT_EQ(*validate_group_configs({{"consumer.session.timeout.ms", "5000"}}, wide),
              "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
}

TEST(group_configs, describe_reports_override_then_static_broker_value_then_default) {
    const broker_properties broker{{"group.consumer.session.timeout.ms", "50000"}};
    auto es = describe_group_configs({{"consumer.heartbeat.interval.ms", " 6000 "}}, broker);
    ASSERT_EQ(es.size(), 17u);
    const auto& hb = config_named(es, "consumer.heartbeat.interval.ms");
    EXPECT_EQ(hb.value, "6000");
    EXPECT_EQ(hb.source, config_source::dynamic_group_config);
    ASSERT_EQ(hb.synonyms.size(), 2u);
    EXPECT_EQ(hb.synonyms[1].name, "group.consumer.heartbeat.interval.ms");
    EXPECT_EQ(hb.synonyms[1].value, "5000");
    const auto& st = config_named(es, "consumer.session.timeout.ms");
    EXPECT_EQ(st.value, "50000");
    EXPECT_EQ(st.source, config_source::static_broker_config);
    ASSERT_EQ(st.synonyms.size(), 2u);
    EXPECT_EQ(st.synonyms[1].source, config_source::default_config);
    const auto& reset = config_named(es, "share.auto.offset.reset");  // no broker property: itself
    ASSERT_EQ(reset.synonyms.size(), 1u);
    EXPECT_EQ(reset.synonyms[0].name, "share.auto.offset.reset");
    EXPECT_EQ(reset.value, "latest");
    EXPECT_EQ(group_config_int({{"consumer.heartbeat.interval.ms", " 6000 "}}, "consumer.heartbeat.interval.ms"), 6000);
}

TEST(resource_config_registry, group_configs_survive_a_reopen_and_reach_the_listener) {
    testing::temp_dir dir;
    auto set = [](config_map next) { return [next](const config_map&) -> result<config_map, error> { return next; }; };
    {
        auto s = open_sqlite_store(dir.path());
        ASSERT_TRUE(s);
        auto r = resource_config_registry::open(**s, config_resource::group);
        ASSERT_TRUE(r);
        ASSERT_TRUE((*r)->update("g", set({{"consumer.heartbeat.interval.ms", "6000"}}), false));
        ASSERT_TRUE((*r)->update("h", set({{"consumer.session.timeout.ms", "50000"}}), false));
        ASSERT_TRUE((*r)->update("h", set({}), false));                                           // all removed
        ASSERT_TRUE((*r)->update("g", set({{"consumer.heartbeat.interval.ms", "9000"}}), true));  // validate only
    }
    auto s = open_sqlite_store(dir.path());
    ASSERT_TRUE(s);
    auto r = resource_config_registry::open(**s, config_resource::group);
    ASSERT_TRUE(r);
    EXPECT_EQ((*r)->configs("g"), (config_map{{"consumer.heartbeat.interval.ms", "6000"}}));
    EXPECT_TRUE((*r)->configs("h").empty());
    std::map<std::string, config_map> seen;
    (*r)->set_listener([&](const std::string& g, const config_map& c) { seen[g] = c; });
    EXPECT_EQ(seen.size(), 1u);
    EXPECT_TRUE((*r)->update("h", set({{"consumer.session.timeout.ms", "50000"}}), false));
    EXPECT_EQ(seen.at("h"), (config_map{{"consumer.session.timeout.ms", "50000"}}));
}

// Two registries over one store stand for two brokers over one PostgreSQL:
// an update computes from the stored set (the other's change is kept), and
// reload() brings the other registry in line, telling its listener what
// changed and what went.
TEST(resource_config_registry, an_update_starts_from_the_stored_set_and_reload_follows_the_store) {
    testing::temp_dir dir;
    auto s = open_sqlite_store(dir.path());
    ASSERT_TRUE(s);
    auto a = resource_config_registry::open(**s, config_resource::group);
    auto b = resource_config_registry::open(**s, config_resource::group);
    ASSERT_TRUE(a && b);
    auto put = [](std::string k, std::string v) {
        return [k, v](const config_map& current) -> result<config_map, error> {
            auto next = current;
            next[k] = v;
            return next;
        };
    };
    ASSERT_TRUE((*a)->update("g", put("consumer.heartbeat.interval.ms", "6000"), false));
    ASSERT_TRUE((*b)->update("g", put("consumer.session.timeout.ms", "50000"), false));  // b's copy lacked a's key
    const config_map both{{"consumer.heartbeat.interval.ms", "6000"}, {"consumer.session.timeout.ms", "50000"}};
    EXPECT_EQ((*b)->configs("g"), both);
    std::map<std::string, config_map> heard;
    (*a)->set_listener([&](const std::string& g, const config_map& c) { heard[g] = c; });
    heard.clear();
    ASSERT_TRUE((*a)->reload());
    EXPECT_EQ((*a)->configs("g"), both);
    EXPECT_EQ(heard, (std::map<std::string, config_map>{{"g", both}}));
    heard.clear();
    ASSERT_TRUE((*b)->update(
        "g", [](const config_map&) -> result<config_map, error> { return config_map{}; }, false));
    ASSERT_TRUE((*a)->reload());
    EXPECT_TRUE((*a)->configs("g").empty());
    EXPECT_EQ(heard, (std::map<std::string, config_map>{{"g", {}}}));
    heard.clear();
    ASSERT_TRUE((*a)->reload());  // nothing changed: nothing heard
    EXPECT_TRUE(heard.empty());
}

}  // namespace
}  // namespace ketch::meta
