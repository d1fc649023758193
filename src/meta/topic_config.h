// The topic-level configs of Apache Kafka 4.3.1: the 33 keys DescribeConfigs
// reports for every topic, plus the internal key internal.segment.bytes that
// Kafka accepts and reports only when set. Source of the facts:
// storage/.../log/LogConfig.java (definitions, in definition order),
// clients/.../config/TopicConfig.java (names), server-common/.../config/
// ServerTopicConfigSynonyms.java (broker synonyms) and ServerLogConfigs.java
// (broker defaults). Removed in 4.0 and now unknown keys:
// message.format.version, message.downconversion.enable,
// message.timestamp.difference.max.ms.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ketch::meta {

// ConfigDef.Type; the values are DescribeConfigsResponse.ConfigType ids.
enum class config_type : int8_t {
    boolean = 1,
    string = 2,
    int32 = 3,    // INT
    int16 = 4,    // SHORT
    int64 = 5,    // LONG
    float64 = 6,  // DOUBLE
    list = 7,
    class_name = 8,
    password = 9,
};

// "BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD".
std::string_view kafka_type_name(config_type t);

enum class validator_kind {
    none,
    range,               // ConfigDef.Range: [min,...], [min,...,max]
    valid_string,        // ConfigDef.ValidString.in: one of valid_values (case-sensitive)
    valid_list,          // ConfigDef.ValidList.in: each element one of valid_values; empty list allowed
    gzip_level,          // CompressionType.GZIP.levelValidator: 1..9 or -1
    throttled_replicas,  // ThrottledReplicaListValidator: '*' or partition:broker,...
    // GroupConfig's share.auto.offset.reset (ShareGroupAutoOffsetResetStrategy):
    // earliest, latest or by_duration:<non-negative ISO-8601 duration>
    share_offset_reset,
    // ConfigDef.ValidList.anyNonDuplicateValues: any non-empty elements
    // (repeats dropped), e.g. a client metrics subscription's metrics and match
    any_list,
};

// A broker property that supplies a topic default, in Kafka's precedence
// order; the broker value is multiplied by `multiplier` (hours -> ms etc.).
struct broker_synonym {
    std::string_view name;
    int64_t multiplier = 1;
};

struct topic_config {
    std::string_view name;
    config_type type;
    // The value DescribeConfigs reports for a topic without an override on a
    // broker with Kafka's default settings (string form, ConfigDef.convertToString).
    std::string_view default_value;
    validator_kind validator = validator_kind::none;
    std::optional<int64_t> min;  // for validator_kind::range
    std::optional<int64_t> max;
    std::span<const std::string_view> valid_values;  // valid_string / valid_list
    std::span<const broker_synonym> synonyms;        // empty: no broker-level default
    bool internal = false;                           // defineInternal: accepted, reported only when set
    std::string_view doc;                            // short description, ketch's own words

    // Kafka's rendering of the validator (the "Valid Values" column), e.g.
    // "[1,...]", "[compact, delete]", "" when there is none.
    std::string validator_text() const;
};

// Every topic config, in LogConfig's definition order (which is also the order
// in which Kafka reports the first invalid value of a request).
std::span<const topic_config> all_topic_configs();

// nullptr when `name` is not a topic config.
const topic_config* find_topic_config(std::string_view name);

}  // namespace ketch::meta
