// What DescribeConfigs reports for a topic (kafka.server.ConfigHelper
// .createTopicConfigEntry + ConfigHelperUtils.createResponseConfig), as
// domain data for the handler to encode.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meta/broker_defaults.h"
#include "meta/topic.h"
#include "meta/topic_config.h"

namespace ketch::meta {

// DescribeConfigsResponse.ConfigSource ids.
enum class config_source : int8_t {
    unknown = 0,
    topic_config = 1,  // DYNAMIC_TOPIC_CONFIG
    dynamic_broker_config = 2,
    dynamic_default_broker_config = 3,
    static_broker_config = 4,
    default_config = 5,
    client_metrics_config = 7,  // CLIENT_METRICS_CONFIG: a subscription's own value
    dynamic_group_config = 8,   // GROUP_CONFIG: a group's own override
};

struct config_synonym {
    std::string name;
    std::string value;
    config_source source;
    bool null_value = false;  // the value is null on the wire (a broker config without value)
};

struct config_entry {
    std::string name;
    std::string value;        // never null for topic configs (none is sensitive)
    bool null_value = false;  // broker configs without a value (e.g. advertised.listeners unset)
    config_source source = config_source::default_config;
    config_type type = config_type::string;
    bool read_only = false;
    bool sensitive = false;
    std::vector<config_synonym> synonyms;  // the full list; send only if include_synonyms
    std::string_view documentation;        // ketch's own short text (Kafka sends its prose)
};

// Every non-internal topic config, plus internal ones the topic sets, sorted
// by name (Kafka's order is a hash order; clients do not depend on it).
// value: the override parsed and printed the Kafka way ("compact , delete" is
// reported as "compact,delete"), else the broker default. Synonyms follow
// Kafka, including its quirk that a chain whose first broker name is unset
// (retention.ms: log.retention.ms, .minutes, .hours) reports no broker
// synonyms and source DEFAULT_CONFIG even when e.g. log.retention.hours is set.
std::vector<config_entry> describe_topic_configs(const config_map& overrides, const broker_defaults& defaults);

// The configs a successful CreateTopics (v5+) returns for the new topic. Kafka
// computes them on the controller (KafkaConfigSchema.resolveEffectiveTopicConfigs),
// which differs from DescribeConfigs: an override is echoed as sent (not
// canonical), a set broker property wins with STATIC_BROKER_CONFIG (hours and
// minutes converted to ms), else Kafka's default; no synonyms. Sorted by name.
std::vector<config_entry> create_topic_result_configs(const config_map& overrides, const broker_defaults& defaults);

}  // namespace ketch::meta
