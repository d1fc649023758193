#include "broker/runtime_configs.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include <spdlog/spdlog.h>

#include "broker/request_context.h"
#include "broker/topics.h"
#include "meta/broker_configs.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

namespace {

// ConfigResource names a broker by its id; "" is the cluster-wide default.
// Kafka's messages differ between describe (ConfigHelper) and alter
// (ControllerConfigurationValidator), as recorded.
config_error check_broker_name(broker_context& b, const std::string& name, bool allow_default, bool alter) {
    if (name.empty()) {
        if (allow_default) return {};
        return {error_code::invalid_request, "Broker id must not be empty"};
    }
    int32_t id = 0;
    auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (ec != std::errc() || p != name.data() + name.size())
        return {error_code::invalid_request,
                std::string(alter ? "Node" : "Broker") + " id must be an integer, but it is: " + name};
    if (id != b.config.node_id)
        return {error_code::invalid_request, "Unexpected broker id, expected " + std::to_string(b.config.node_id) +
                                                 (alter ? "" : " or empty string") + ", but received " + name};
    return {};
}

// log4j levels <-> spdlog levels; the root logger is the one logger ketch has.
constexpr std::pair<std::string_view, spdlog::level::level_enum> k_log_levels[] = {
    {"TRACE", spdlog::level::trace}, {"DEBUG", spdlog::level::debug}, {"INFO", spdlog::level::info},
    {"WARN", spdlog::level::warn},   {"ERROR", spdlog::level::err},   {"FATAL", spdlog::level::critical},
};

std::string current_root_level() {
    auto level = spdlog::get_level();
    for (auto& [name, l] : k_log_levels)
        if (l == level) return std::string(name);
    return level == spdlog::level::off ? "OFF" : "INFO";
}

std::vector<meta::config_entry> describe_loggers() {
    meta::config_entry e;
    e.name = "root";
    e.value = current_root_level();
    e.source = meta::config_source(6);  // DYNAMIC_BROKER_LOGGER_CONFIG
    e.type = meta::config_type(0);      // UNKNOWN
    e.documentation = "";
    return {e};
}

config_error alter_loggers(std::span<const meta::config_op> ops, bool validate_only) {
    std::optional<spdlog::level::level_enum> level;
    for (auto& op : ops) {
        if (op.key != "root")
            return {error_code::invalid_config, "Logger " + op.key + " does not exist: ketch has only the root logger"};
        if (op.op == meta::config_op_type::remove) {
            level = spdlog::level::info;
            continue;
        }
        if (op.op != meta::config_op_type::set)
            return {error_code::invalid_config, "APPEND and SUBTRACT are not supported for broker loggers"};
        level.reset();
        for (auto& [name, l] : k_log_levels)
            if (name == op.value) level = l;
        if (!level)
            return {error_code::invalid_config, "Cannot set the log level of root to " + op.value +
                                                    " as it is not a supported log level. Valid log levels are "
                                                    "DEBUG, ERROR, FATAL, INFO, TRACE, WARN"};
    }
    if (level && !validate_only) spdlog::set_level(*level);
    return {};
}

std::string list_append(std::string current, const std::string& value, bool subtract) {
    auto split = [](const std::string& s) {
        std::vector<std::string> out;
        size_t start = 0;
        while (start <= s.size() && !s.empty()) {
            size_t c = s.find(',', start);
            out.push_back(s.substr(start, c == std::string::npos ? std::string::npos : c - start));
            if (c == std::string::npos) break;
            start = c + 1;
        }
        return out;
    };
    auto parts = split(current);
    for (auto& v : split(value)) {
        auto it = std::find(parts.begin(), parts.end(), v);
        if (!subtract && it == parts.end()) parts.push_back(v);
        if (subtract && it != parts.end()) parts.erase(it);
    }
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? "," : "") + parts[i];
    return out;
}

}  // namespace

config_error unsupported_resource(int8_t type) {
    return {error_code::invalid_request, "Unknown resource type " + std::to_string(type)};
}

config_error unsupported_describe_resource() {
    return {error_code::invalid_request,
            "This most likely occurs because of a request being malformed by the client library or the message was "
            "sent to an incompatible broker. See the broker logs for more details."};
}

result<std::vector<meta::config_entry>, config_error> describe_broker_resource(broker_context& b, bool logger,
                                                                               const std::string& name) {
    if (auto e = check_broker_name(b, name, !logger, false); e.code != error_code::none) return failure{e};
    if (logger) return describe_loggers();
    return meta::describe_broker_configs(b.topics.defaults(), b.config.static_properties, name.empty());
}

namespace {

// `next` after `ops`: it starts as the stored layer for an incremental
// change, empty for AlterConfigs (which replaces the layer); then validated.
config_error apply_broker_ops(meta::config_map& next, std::span<const meta::config_op> ops) {
    for (auto& op : ops) {
        const meta::broker_config_def* def = meta::find_broker_config(op.key);
        switch (op.op) {
            case meta::config_op_type::set: next[op.key] = op.value; break;
            case meta::config_op_type::remove: next.erase(op.key); break;
            case meta::config_op_type::append:
            case meta::config_op_type::subtract: {
                if (!def || def->type != meta::config_type::list)
                    return {error_code::invalid_config,
                            std::string("Config value ") +
                                (op.op == meta::config_op_type::append ? "append" : "subtract") +
                                " is not allowed for config key: " + op.key};
                auto it = next.find(op.key);
                std::string base = it != next.end() ? it->second : std::string(def->kafka_default.value_or(""));
                next[op.key] = list_append(base, op.value, op.op == meta::config_op_type::subtract);
                break;
            }
        }
    }
    for (auto& [k, v] : next)
        if (auto* def = meta::find_broker_config(k))
            if (auto bad = meta::check_broker_config_value(*def, v)) return {error_code::invalid_request, *bad};
    return {};
}

}  // namespace

config_error alter_broker_resource(broker_context& b, bool logger, const std::string& name,
                                   std::span<const meta::config_op> ops, bool incremental, bool validate_only) {
    if (auto e = check_broker_name(b, name, !logger, true); e.code != error_code::none) return e;
    if (logger) return alter_loggers(ops, validate_only);
    const bool cluster_default = name.empty();
    std::string refused;
    for (auto& op : ops) {
        const meta::broker_config_def* def = meta::find_broker_config(op.key);
        // Kafka stores an unknown broker key without complaint; ketch does too
        // (it is never reported or used). Of the known keys, only the broker-wide
        // topic defaults act on this broker when changed.
        if (def && (def->read_only || !meta::broker_defaults::is_topic_default(op.key)))
            refused += (refused.empty() ? "" : ", ") + op.key;
    }
    if (!refused.empty())
        return {error_code::invalid_request, "Cannot update these configs dynamically: [" + refused + "]"};
    // Computed from the stored layer in the store's step (a cluster's
    // PostgreSQL, locked), not from this broker's copy: two changes through
    // two brokers both hold, as Kafka's controller serialises them.
    config_error why;
    auto next = b.topics.update_dynamic_broker_configs(
        cluster_default,
        [&](const meta::config_map& current) -> std::optional<meta::config_map> {
            meta::config_map n = incremental ? current : meta::config_map{};
            why = apply_broker_ops(n, ops);
            if (why.code != error_code::none) return std::nullopt;
            return n;
        },
        validate_only);
    if (!next.ok()) return {to_kafka(next.error().code), next.error().message};
    if (!*next) return why;
    if (!validate_only) {
        spdlog::info("dynamic broker configs ({}) now: {} key(s)", cluster_default ? "cluster default" : name,
                     (*next)->size());
        for (auto& t : b.topics.list()) apply_topic_settings(b, t);
    }
    return {};
}

config_error authorize_alter_resource(const request_context& ctx, int8_t type, const std::string& name) {
    if (type == k_resource_topic) {
        if (ctx.authorize(security::acl_operation::alter_configs, security::resource_type::topic, name)) return {};
        return {error_code::topic_authorization_failed,
                std::string(error_message(error_code::topic_authorization_failed)), false};
    }
    if (type == k_resource_group) {
        if (ctx.authorize(security::acl_operation::alter_configs, security::resource_type::group, name)) return {};
        return {error_code::group_authorization_failed,
                std::string(error_message(error_code::group_authorization_failed)), false};
    }
    if (type == k_resource_broker || type == k_resource_broker_logger || type == k_resource_client_metrics) {
        if (ctx.authorize_cluster(security::acl_operation::alter_configs)) return {};
        return {error_code::cluster_authorization_failed,
                std::string(error_message(error_code::cluster_authorization_failed)), false};
    }
    return {};
}

}  // namespace ketch::broker
