// Topic config definitions and validation. Sources (Apache Kafka 4.3.1):
// storage/src/main/java/org/apache/kafka/storage/internals/log/LogConfig.java (keys, types,
// defaults, validators, validate/validateValues), clients/src/main/java/org/apache/kafka/common/
// config/ConfigDef.java (parseType, parseValue, Range, ValidString, ValidList, convertToString),
// clients/.../common/config/ConfigException.java (message shape),
// clients/.../common/record/internal/CompressionType.java (level validators),
// storage/.../log/ThrottledReplicaListValidator.java. Expected values were checked against
// the 4.3.1 jars (LogConfig.validate and ConfigHelper.createTopicConfigEntry).
#include "meta/topic_config.h"

#include <gtest/gtest.h>

#include <set>

#include "meta/config_validate.h"
#include "meta/config_value.h"

namespace ketch::meta {
namespace {

// The 33 keys Kafka 4.3.1 DescribeConfigs reports for a topic (LogConfig.nonInternalConfigNames).
const std::set<std::string> k_kafka_topic_keys{"cleanup.policy",
                                               "compression.gzip.level",
                                               "compression.lz4.level",
                                               "compression.type",
                                               "compression.zstd.level",
                                               "delete.retention.ms",
                                               "file.delete.delay.ms",
                                               "flush.messages",
                                               "flush.ms",
                                               "follower.replication.throttled.replicas",
                                               "index.interval.bytes",
                                               "leader.replication.throttled.replicas",
                                               "local.retention.bytes",
                                               "local.retention.ms",
                                               "max.compaction.lag.ms",
                                               "max.message.bytes",
                                               "message.timestamp.after.max.ms",
                                               "message.timestamp.before.max.ms",
                                               "message.timestamp.type",
                                               "min.cleanable.dirty.ratio",
                                               "min.compaction.lag.ms",
                                               "min.insync.replicas",
                                               "preallocate",
                                               "remote.log.copy.disable",
                                               "remote.log.delete.on.disable",
                                               "remote.storage.enable",
                                               "retention.bytes",
                                               "retention.ms",
                                               "segment.bytes",
                                               "segment.index.bytes",
                                               "segment.jitter.ms",
                                               "segment.ms",
                                               "unclean.leader.election.enable"};

TEST(topic_config, table_holds_exactly_kafkas_keys_plus_one_internal) {
    std::set<std::string> public_keys, internal_keys;
    for (const auto& c : all_topic_configs()) (c.internal ? internal_keys : public_keys).insert(std::string(c.name));
    EXPECT_EQ(public_keys, k_kafka_topic_keys);
    EXPECT_EQ(internal_keys, std::set<std::string>{"internal.segment.bytes"});
    EXPECT_EQ(all_topic_configs().front().name, "segment.bytes");  // LogConfig definition order
}

TEST(topic_config, keys_removed_in_kafka_4_are_unknown) {
    for (const char* k : {"message.format.version", "message.downconversion.enable",
                          "message.timestamp.difference.max.ms", "foo.bar"}) {
        EXPECT_EQ(find_topic_config(k), nullptr) << k;
        EXPECT_EQ(validate_topic_config(k, "1"), std::string("Unknown topic config name: ") + k);
    }
}

TEST(topic_config, types_and_defaults_match_kafka) {
    struct expect {
        const char* key;
        config_type type;
        const char* dflt;
    };
    for (auto e : std::initializer_list<expect>{
             {"cleanup.policy", config_type::list, "delete"},
             {"compression.type", config_type::string, "producer"},
             {"compression.gzip.level", config_type::int32, "-1"},
             {"compression.lz4.level", config_type::int32, "9"},
             {"compression.zstd.level", config_type::int32, "3"},
             {"flush.ms", config_type::int64, "9223372036854775807"},
             {"max.message.bytes", config_type::int32, "1048588"},
             {"message.timestamp.after.max.ms", config_type::int64, "3600000"},
             {"min.cleanable.dirty.ratio", config_type::float64, "0.5"},
             {"retention.ms", config_type::int64, "604800000"},
             {"segment.bytes", config_type::int32, "1073741824"},
             {"local.retention.ms", config_type::int64, "-2"},
             {"leader.replication.throttled.replicas", config_type::list, ""},
             {"unclean.leader.election.enable", config_type::boolean, "false"},
         }) {
        const topic_config* c = find_topic_config(e.key);
        ASSERT_NE(c, nullptr) << e.key;
        EXPECT_EQ(c->type, e.type) << e.key;
        EXPECT_EQ(c->default_value, e.dflt) << e.key;
    }
    EXPECT_EQ(kafka_type_name(config_type::int64), "LONG");
    EXPECT_EQ(find_topic_config("retention.ms")->validator_text(), "[-1,...]");
    EXPECT_EQ(find_topic_config("compression.type")->validator_text(),
              "[uncompressed, zstd, lz4, snappy, gzip, producer]");
}

TEST(topic_config, every_validator_accepts_its_default) {
    for (const auto& c : all_topic_configs()) {
        if (c.internal) continue;  // Kafka's default for internal.segment.bytes is null
        EXPECT_EQ(validate_topic_config(c.name, c.default_value), std::nullopt) << c.name;
        // and the default is already in the form DescribeConfigs prints
        EXPECT_EQ(canonical_config_value(c, c.default_value), c.default_value) << c.name;
    }
}

// One bad value per key, with Kafka 4.3.1's exact message.
TEST(topic_config, every_key_refuses_a_bad_value_with_kafkas_message) {
    const std::map<std::string, std::pair<std::string, std::string>> bad{
        {"segment.bytes",
         {"1048575", "Invalid value 1048575 for configuration segment.bytes: Value must be at least 1048576"}},
        {"segment.ms", {"0", "Invalid value 0 for configuration segment.ms: Value must be at least 1"}},
        {"segment.jitter.ms", {"-1", "Invalid value -1 for configuration segment.jitter.ms: Value must be at least 0"}},
        {"segment.index.bytes",
         {"3", "Invalid value 3 for configuration segment.index.bytes: Value must be at least 4"}},
        {"flush.messages", {"0", "Invalid value 0 for configuration flush.messages: Value must be at least 1"}},
        {"flush.ms", {"-1", "Invalid value -1 for configuration flush.ms: Value must be at least 0"}},
        {"retention.bytes", {"x", "Invalid value x for configuration retention.bytes: Not a number of type LONG"}},
        {"retention.ms", {"-2", "Invalid value -2 for configuration retention.ms: Value must be at least -1"}},
        {"max.message.bytes", {"-1", "Invalid value -1 for configuration max.message.bytes: Value must be at least 0"}},
        {"index.interval.bytes",
         {"-1", "Invalid value -1 for configuration index.interval.bytes: Value must be at least 0"}},
        {"delete.retention.ms",
         {"-1", "Invalid value -1 for configuration delete.retention.ms: Value must be at least 0"}},
        {"min.compaction.lag.ms",
         {"-1", "Invalid value -1 for configuration min.compaction.lag.ms: Value must be at least 0"}},
        {"max.compaction.lag.ms",
         {"0", "Invalid value 0 for configuration max.compaction.lag.ms: Value must be at least 1"}},
        {"file.delete.delay.ms",
         {"-1", "Invalid value -1 for configuration file.delete.delay.ms: Value must be at least 0"}},
        {"min.cleanable.dirty.ratio",
         {"1.5", "Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"}},
        {"cleanup.policy",
         {"foo", "Invalid value foo for configuration cleanup.policy: String must be one of: compact, delete"}},
        {"unclean.leader.election.enable",
         {"1",
          "Invalid value 1 for configuration unclean.leader.election.enable: Expected value to be either true or "
          "false"}},
        {"min.insync.replicas",
         {"0", "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"}},
        {"compression.type",
         {"brotli",
          "Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, "
          "snappy, gzip, producer"}},
        {"compression.gzip.level",
         {"0",
          "Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1"}},
        {"compression.lz4.level",
         {"18", "Invalid value 18 for configuration compression.lz4.level: Value must be no more than 17"}},
        {"compression.zstd.level",
         {"-131073", "Invalid value -131073 for configuration compression.zstd.level: Value must be at least -131072"}},
        {"preallocate",
         {"yes", "Invalid value yes for configuration preallocate: Expected value to be either true or false"}},
        {"message.timestamp.type",
         {"createtime",
          "Invalid value createtime for configuration message.timestamp.type: String must be one of: CreateTime, "
          "LogAppendTime"}},
        {"message.timestamp.before.max.ms",
         {"-1", "Invalid value -1 for configuration message.timestamp.before.max.ms: Value must be at least 0"}},
        {"message.timestamp.after.max.ms",
         {"-1", "Invalid value -1 for configuration message.timestamp.after.max.ms: Value must be at least 0"}},
        {"leader.replication.throttled.replicas",
         {"0:1, *",
          "Invalid value [0:1, *] for configuration leader.replication.throttled.replicas: "
          "leader.replication.throttled.replicas must be the literal '*' or a list of replicas in the following "
          "format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."}},
        {"follower.replication.throttled.replicas",
         {"x:1",
          "Invalid value [x:1] for configuration follower.replication.throttled.replicas: "
          "follower.replication.throttled.replicas must be the literal '*' or a list of replicas in the following "
          "format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."}},
        {"remote.storage.enable",
         {"maybe",
          "Invalid value maybe for configuration remote.storage.enable: Expected value to be either true or false"}},
        {"local.retention.ms",
         {"-3", "Invalid value -3 for configuration local.retention.ms: Value must be at least -2"}},
        {"local.retention.bytes",
         {"-3", "Invalid value -3 for configuration local.retention.bytes: Value must be at least -2"}},
        {"remote.log.copy.disable",
         {"on",
          "Invalid value on for configuration remote.log.copy.disable: Expected value to be either true or false"}},
        {"remote.log.delete.on.disable",
         {"",
          "Invalid value  for configuration remote.log.delete.on.disable: Expected value to be either true or false"}},
        {"internal.segment.bytes",
         {"abc", "Invalid value abc for configuration internal.segment.bytes: Not a number of type INT"}},
    };
    for (const auto& c : all_topic_configs()) {
        auto it = bad.find(std::string(c.name));
        ASSERT_NE(it, bad.end()) << "no bad value for " << c.name;
        EXPECT_EQ(validate_topic_config(c.name, it->second.first), it->second.second);
    }
}

TEST(topic_config, numbers_parse_like_java) {
    EXPECT_EQ(validate_topic_config("retention.ms", "abc"),
              "Invalid value abc for configuration retention.ms: Not a number of type LONG");
    EXPECT_EQ(validate_topic_config("retention.ms", "9223372036854775808"),
              "Invalid value 9223372036854775808 for configuration retention.ms: Not a number of type LONG");
    EXPECT_EQ(validate_topic_config("segment.bytes", "2147483648"),
              "Invalid value 2147483648 for configuration segment.bytes: Not a number of type INT");
    for (const char* bad : {"", "1e3", "0x10", "1.5", "1 000", "+", "--1"})
        EXPECT_TRUE(validate_topic_config("retention.ms", bad)) << bad;
    // The parse error shows the raw value; a range error shows the parsed number.
    EXPECT_EQ(validate_topic_config("retention.ms", " -0002 "),
              "Invalid value -2 for configuration retention.ms: Value must be at least -1");
    auto def = *find_topic_config("retention.ms");
    EXPECT_EQ(canonical_config_value(def, " 1000 "), "1000");
    EXPECT_EQ(canonical_config_value(def, "+007"), "7");
    EXPECT_EQ(canonical_config_value(def, "-0"), "0");
    EXPECT_EQ(canonical_config_value(def, "-9223372036854775808"), "-9223372036854775808");
    EXPECT_EQ(validate_topic_config("retention.ms", "-9223372036854775808"),
              "Invalid value -9223372036854775808 for configuration retention.ms: Value must be at least -1");
}

TEST(topic_config, java_parsing_corner_cases) {
    // Character.digit accepts every Unicode decimal digit (here ARABIC-INDIC and FULLWIDTH).
    auto rm = *find_topic_config("retention.ms");
    EXPECT_EQ(canonical_config_value(rm, "\u0663\u0663"), "33");
    EXPECT_EQ(canonical_config_value(rm, "\uff11\uff12"), "12");
    EXPECT_TRUE(validate_topic_config("retention.ms", "\U0001d7cf"));  // MATHEMATICAL BOLD ONE: not BMP
    // String.equalsIgnoreCase folds U+017F (long s) to 's'.
    EXPECT_EQ(canonical_config_value(*find_topic_config("preallocate"), "fal\u017fe"), "false");
    // Double.parseDouble does not take Unicode digits.
    EXPECT_TRUE(validate_topic_config("min.cleanable.dirty.ratio", "\u0660.5"));
}

TEST(topic_config, doubles_parse_and_print_like_java) {
    auto def = *find_topic_config("min.cleanable.dirty.ratio");
    EXPECT_EQ(canonical_config_value(def, "0.5d"), "0.5");
    EXPECT_EQ(canonical_config_value(def, "1e-4"), "1.0E-4");
    EXPECT_EQ(canonical_config_value(def, ".25"), "0.25");
    EXPECT_EQ(canonical_config_value(def, "0x1p-2"), "0.25");
    EXPECT_EQ(canonical_config_value(def, "1."), "1.0");
    EXPECT_EQ(canonical_config_value(def, "1e-3"), "0.001");
    EXPECT_EQ(canonical_config_value(def, "-0.0"), "-0.0");
    EXPECT_EQ(canonical_config_value(def, "NaN"), "NaN");  // Range lets NaN through
    EXPECT_EQ(validate_topic_config("min.cleanable.dirty.ratio", "."),
              "Invalid value . for configuration min.cleanable.dirty.ratio: Not a number of type DOUBLE");
    EXPECT_EQ(validate_topic_config("min.cleanable.dirty.ratio", "1e10"),
              "Invalid value 1.0E10 for configuration min.cleanable.dirty.ratio: Value must be no more than 1");
    EXPECT_EQ(validate_topic_config("min.cleanable.dirty.ratio", "-1e-5"),
              "Invalid value -1.0E-5 for configuration min.cleanable.dirty.ratio: Value must be at least 0");
    EXPECT_EQ(validate_topic_config("min.cleanable.dirty.ratio", "Infinity"),
              "Invalid value Infinity for configuration min.cleanable.dirty.ratio: Value must be no more than 1");
    EXPECT_EQ(java_double_to_string(1234.5), "1234.5");
    EXPECT_EQ(java_double_to_string(1e7), "1.0E7");
    EXPECT_EQ(java_double_to_string(9999999.0), "9999999.0");
    EXPECT_EQ(java_double_to_string(100.0), "100.0");
}

TEST(topic_config, booleans_and_strings_ignore_surrounding_space) {
    auto pre = *find_topic_config("preallocate");
    EXPECT_EQ(canonical_config_value(pre, " TRUE "), "true");
    EXPECT_EQ(canonical_config_value(pre, "False"), "false");
    auto ct = *find_topic_config("compression.type");
    EXPECT_EQ(canonical_config_value(ct, " zstd "), "zstd");
    EXPECT_TRUE(validate_topic_config("compression.type", "ZSTD"));  // ValidString is case-sensitive
    EXPECT_TRUE(validate_topic_config("compression.type", ""));
}

TEST(topic_config, cleanup_policy_lists) {
    auto cp = *find_topic_config("cleanup.policy");
    EXPECT_EQ(canonical_config_value(cp, " compact , delete "), "compact,delete");
    EXPECT_EQ(canonical_config_value(cp, "delete,compact"), "delete,compact");
    EXPECT_EQ(canonical_config_value(cp, "compact,compact"), "compact");  // ValidList drops repeats
    EXPECT_EQ(canonical_config_value(cp, ""), "");                        // empty list is allowed in 4.x
    EXPECT_EQ(validate_topic_config("cleanup.policy", ""), std::nullopt);
    EXPECT_EQ(validate_topic_config("cleanup.policy", "compact,,delete"),
              "Configuration 'cleanup.policy' values must not be empty.");
    EXPECT_EQ(validate_topic_config("cleanup.policy", "compact,"),
              "Configuration 'cleanup.policy' values must not be empty.");
    EXPECT_EQ(validate_topic_config("cleanup.policy", "Compact"),
              "Invalid value Compact for configuration cleanup.policy: String must be one of: compact, delete");
}

TEST(topic_config, throttled_replica_lists) {
    for (const char* ok : {"", "*", "0:1,1:2", " 0:1 , 2:3 ", "*,", "0:1,,1:2"})
        EXPECT_EQ(validate_topic_config("leader.replication.throttled.replicas", ok), std::nullopt) << ok;
    EXPECT_TRUE(validate_topic_config("leader.replication.throttled.replicas", "abc"));
    EXPECT_TRUE(validate_topic_config("leader.replication.throttled.replicas", "1:"));
    EXPECT_EQ(canonical_config_value(*find_topic_config("leader.replication.throttled.replicas"), " 0:1 , 2:3 "),
              "0:1,2:3");
}

TEST(topic_config, value_longer_than_32767_is_refused) {
    // ConfigurationControlManager.validateAlterConfig (DISALLOWED_CONFIG_VALUE_SIZE_ERROR)
    std::string huge(32768, '1');
    const std::string msg =
        "The configuration value cannot be added because it exceeds the maximum value size of 32767 bytes.";
    EXPECT_EQ(validate_topic_config("retention.ms", huge), msg);
    EXPECT_EQ(validate_topic_configs({{"retention.ms", huge}}, broker_defaults{}), msg);
}

TEST(topic_config, whole_set_reports_unknown_keys_first_then_definition_order) {
    broker_defaults d;
    EXPECT_EQ(validate_topic_configs({{"retention.ms", "x"}, {"zzz", "1"}}, d), "Unknown topic config name: zzz");
    // segment.bytes is defined before retention.ms, so its error is the one reported.
    EXPECT_EQ(validate_topic_configs({{"retention.ms", "y"}, {"segment.bytes", "x"}}, d),
              "Invalid value x for configuration segment.bytes: Not a number of type INT");
    EXPECT_EQ(validate_topic_configs({{"retention.ms", "1000"}, {"cleanup.policy", "compact"}}, d), std::nullopt);
}

TEST(topic_config, compaction_lags_are_checked_together_with_broker_defaults) {
    broker_defaults d;
    EXPECT_EQ(validate_topic_configs({{"min.compaction.lag.ms", "10"}, {"max.compaction.lag.ms", "5"}}, d),
              "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)");
    EXPECT_EQ(validate_topic_configs({{"min.compaction.lag.ms", "10"}}, d), std::nullopt);
    ASSERT_EQ(d.set("log.cleaner.max.compaction.lag.ms", "5"), std::nullopt);
    EXPECT_EQ(validate_topic_configs({{"min.compaction.lag.ms", "10"}}, d),
              "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)");
}

TEST(topic_config, remote_storage_cannot_be_enabled) {
    EXPECT_EQ(validate_topic_config("remote.storage.enable", "true"), std::nullopt);  // the value itself parses
    EXPECT_EQ(validate_topic_configs({{"remote.storage.enable", "true"}}, broker_defaults{}),
              "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log "
              "storage.");
    EXPECT_EQ(validate_topic_configs({{"remote.storage.enable", "false"}}, broker_defaults{}), std::nullopt);
}

}  // namespace
}  // namespace ketch::meta
