// The broker configs Apache Kafka 4.3.1 reports in DescribeConfigs for a
// BROKER resource: every key with its type, Kafka's default, whether it is
// read-only (not dynamically changeable) and sensitive. The table is
// generated at build time from the recorded answer of the reference broker
// (scripts/gen-broker-config-table.py); the describe logic follows
// ConfigHelper.createBrokerConfigEntry / configSynonyms and
// DynamicBrokerConfig.brokerConfigSynonyms.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "meta/broker_defaults.h"
#include "meta/describe_configs.h"
#include "meta/topic_config.h"

namespace ketch::meta {

struct broker_config_def {
    std::string_view name;
    config_type type;
    std::optional<std::string_view> kafka_default;  // nullopt: no default (value null)
    bool read_only;                                 // not in Kafka's dynamic broker configs
    bool sensitive;                                 // PASSWORD (and other sensitive) keys: value never shown
};

// Sorted by name.
std::span<const broker_config_def> all_broker_configs();
const broker_config_def* find_broker_config(std::string_view name);

// The broker property names whose values stand for `name` (the log.retention
// and log.roll chains: ms, minutes, hours), in Kafka's precedence order;
// just `name` for every other key.
std::vector<std::string_view> broker_synonym_names(std::string_view name);

// DescribeConfigs of this broker: every key, value = the current value
// (dynamic broker > dynamic cluster default > static property > Kafka's
// default), source = the first synonym's, synonyms in Kafka's order.
// `static_properties` are the broker's own settings (node.id, listeners,
// log.dirs, ...) besides defaults.properties(). With `cluster_default`, only
// the keys of the dynamic cluster-default layer (the resource named "").
std::vector<config_entry> describe_broker_configs(const broker_defaults& defaults,
                                                  const broker_defaults::layer& static_properties,
                                                  bool cluster_default);

// Checks one dynamic change of a broker config as Kafka's controller would;
// nullopt if fine, else the INVALID_CONFIG message (a value that does not
// parse as the key's type, or fails the topic config's validator).
std::optional<std::string> check_broker_config_value(const broker_config_def& def, std::string_view value);

}  // namespace ketch::meta
