// Validation of topic config overrides with the results Kafka 4.3.1's
// controller gives (INVALID_CONFIG and its message): LogConfig.validate via
// ControllerConfigurationValidator, ConfigurationControlManager.validateAlterConfig.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "meta/broker_defaults.h"
#include "meta/topic.h"

namespace ketch::meta {

// Longest config value Kafka stores (Short.MAX_VALUE UTF-16 units).
inline constexpr size_t max_config_value_length = 32767;

// One key and value on its own: nullopt if Kafka would accept it, else the
// message: "Unknown topic config name: foo", "Invalid value abc for
// configuration retention.ms: Not a number of type LONG", ...
std::optional<std::string> validate_topic_config(std::string_view key, std::string_view value);

// A topic's complete override set (what it will hold after the change), as
// the controller validates it, first failure wins, in Kafka's order:
// a value longer than 32767; an unknown key; the first bad value in
// LogConfig's definition order; min.compaction.lag.ms > max.compaction.lag.ms
// (combined with the broker defaults); remote.storage.enable=true (ketch has no
// tiered storage, like a Kafka broker with remote.log.storage.system.enable=false);
// turning remote storage off without remote.log.delete.on.disable.
// `existing` is the set before the change.
std::optional<std::string> validate_topic_configs(const config_map& configs, const broker_defaults& defaults,
                                                  const config_map& existing = {});

}  // namespace ketch::meta
