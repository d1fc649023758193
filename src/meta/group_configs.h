// The per-group configs of Apache Kafka 4.3.1 (a GROUP config resource:
// DescribeConfigs, AlterConfigs, IncrementalAlterConfigs): the 17 keys of
// group-coordinator's GroupConfig (consumer.*, share.*, streams.*), each
// defaulting to a broker property (consumer.session.timeout.ms <-
// group.consumer.session.timeout.ms, ...; the three share keys without a
// broker property default to GroupConfig's own value). Facts from
// GroupConfig (definitions, validateValues and its order),
// ConfigHelper.createGroupConfigEntry and the recorded answers of the
// reference broker (conformance/scenarios/groupconfigs.json).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "meta/broker_defaults.h"
#include "meta/describe_configs.h"
#include "meta/topic.h"
#include "meta/topic_config.h"

namespace ketch::meta {

struct group_config_def {
    topic_config def;              // name, type, GroupConfig's default, validator, doc
    std::string_view broker_name;  // the broker property it defaults to (itself when none)
};

// GroupConfig's definition order (the order of the first invalid value Kafka reports).
std::span<const group_config_def> all_group_configs();
const group_config_def* find_group_config(std::string_view name);

// The broker's settings a group config falls back to and is bounded by
// (group.consumer.min.session.timeout.ms, ...): static broker properties,
// else Kafka's defaults.
using broker_properties = broker_defaults::layer;

// A group's complete override set after a change, as Kafka's controller
// validates it (GroupConfig.validate): nullopt if accepted, else the
// INVALID_CONFIG message. First failure wins: an unknown key ("Unknown group
// config name: x"), then the first value that does not parse in definition
// order, then the broker's bounds in GroupConfig.validateValues' order, then
// session timeout > heartbeat interval (consumer, share, streams).
std::optional<std::string> validate_group_configs(const config_map& overrides, const broker_properties& broker);

// DescribeConfigs of a group: every key (any order), value = the override
// (canonical form) or the broker's value; synonyms: the override
// (DYNAMIC_GROUP_CONFIG), the static broker property (STATIC_BROKER_CONFIG),
// Kafka's default (DEFAULT_CONFIG).
std::vector<config_entry> describe_group_configs(const config_map& overrides, const broker_properties& broker);

// The effective integer value of an INT group config of `overrides`, if the
// group overrides it (and it parses).
std::optional<int32_t> group_config_int(const config_map& overrides, std::string_view name);

}  // namespace ketch::meta
