#include "meta/config_validate.h"

#include "base/utf8.h"
#include "meta/config_value.h"

namespace ketch::meta {

namespace {

std::string too_long_message() {
    return "The configuration value cannot be added because it exceeds the maximum value size of " +
           std::to_string(max_config_value_length) + " bytes.";
}

std::string unknown_key_message(std::string_view key) { return "Unknown topic config name: " + std::string(key); }

// The effective value of `key`: the override if present, else the broker default.
config_value effective(std::string_view key, const config_map& configs, const broker_defaults& defaults) {
    const topic_config& def = *find_topic_config(key);
    auto it = configs.find(std::string(key));
    if (it != configs.end())
        if (auto v = parse_config_value(def, it->second)) return *v;
    auto v = parse_config_value(def, defaults.value_of(key));
    if (v) return *v;
    return *parse_config_value(def, def.default_value);
}

bool is_true(std::string_view key, const config_map& m) {
    auto it = m.find(std::string(key));
    if (it == m.end()) return false;
    auto v = parse_config_value(*find_topic_config(key), it->second);
    return v && std::get<bool>(*v);
}

}  // namespace

std::optional<std::string> validate_topic_config(std::string_view key, std::string_view value) {
    if (utf16_length(value) > max_config_value_length) return too_long_message();
    const topic_config* def = find_topic_config(key);
    if (!def) return unknown_key_message(key);
    auto v = parse_config_value(*def, value);
    if (!v) return v.error();
    return std::nullopt;
}

std::optional<std::string> validate_topic_configs(const config_map& configs, const broker_defaults& defaults,
                                                  const config_map& existing) {
    for (const auto& [key, value] : configs)
        if (utf16_length(value) > max_config_value_length) return too_long_message();
    for (const auto& [key, value] : configs)
        if (!find_topic_config(key)) return unknown_key_message(key);
    for (const auto& def : all_topic_configs()) {
        auto it = configs.find(std::string(def.name));
        if (it == configs.end()) continue;
        auto v = parse_config_value(def, it->second);
        if (!v) return v.error();
    }
    // LogConfig.validateValues
    int64_t min_lag = std::get<int64_t>(effective("min.compaction.lag.ms", configs, defaults));
    int64_t max_lag = std::get<int64_t>(effective("max.compaction.lag.ms", configs, defaults));
    if (min_lag > max_lag)
        return "conflict topic config setting min.compaction.lag.ms (" + std::to_string(min_lag) +
               ") > max.compaction.lag.ms (" + std::to_string(max_lag) + ")";
    // LogConfig.validateTopicLogConfigValues with the tiered storage system disabled.
    if (is_true("remote.storage.enable", configs))
        return "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log "
               "storage.";
    if (is_true("remote.storage.enable", existing) && !is_true("remote.log.delete.on.disable", configs))
        return "It is invalid to disable remote storage without deleting remote data. If you want to keep the "
               "remote data and turn to read only, please set "
               "`remote.storage.enable=true,remote.log.copy.disable=true`. If you want to disable remote storage "
               "and delete all remote data, please set "
               "`remote.storage.enable=false,remote.log.delete.on.disable=true`.";
    return std::nullopt;
}

}  // namespace ketch::meta
