#include "broker/resource_configs.h"

#include "broker/topics.h"
#include "meta/client_metrics_configs.h"
#include "meta/group_configs.h"
#include "meta/resource_config_registry.h"

namespace ketch::broker {

namespace {

// ConfigurationControlManager: the ops applied to the current set (legacy
// AlterConfigs: to an empty one). Neither kind has a key the controller knows
// as a LIST, so APPEND and SUBTRACT always fail.
result<meta::config_map, meta::error> apply_ops(const meta::config_map& current, std::span<const meta::config_op> ops,
                                                bool incremental) {
    meta::config_map next = incremental ? current : meta::config_map{};
    for (const auto& op : ops) {
        switch (op.op) {
            case meta::config_op_type::set: next[op.key] = op.value; break;
            case meta::config_op_type::remove: next.erase(op.key); break;
            case meta::config_op_type::append:
            case meta::config_op_type::subtract:
                return failure{meta::error{meta::errc::invalid_config,
                                           std::string("Can't ") +
                                               (op.op == meta::config_op_type::append ? "APPEND" : "SUBTRACT") +
                                               " to key " + op.key + " because its type is not LIST."}};
        }
    }
    return next;
}

// Applies `ops` to the registry's resource, validated by `validate`.
template <class Validate>
config_error alter(meta::resource_config_registry& registry, const std::string& name,
                   std::span<const meta::config_op> ops, bool incremental, bool validate_only, Validate validate) {
    auto change = [&](const meta::config_map& current) -> result<meta::config_map, meta::error> {
        auto next = apply_ops(current, ops, incremental);
        if (!next.ok()) return next;
        if (auto bad = validate(next.value())) return failure{std::move(*bad)};
        return next;
    };
    auto r = registry.update(name, change, validate_only);
    if (!r.ok()) return {to_kafka(r.error().code), r.error().message};
    return {};
}

}  // namespace

result<std::vector<meta::config_entry>, config_error> describe_group_resource(broker_context& b,
                                                                              const std::string& name) {
    if (!b.group_configs) return failure{unsupported_describe_resource()};
    if (name.empty()) return failure{config_error{error_code::invalid_request, "Group name must not be empty"}};
    return meta::describe_group_configs(b.group_configs->configs(name), b.config.static_properties);
}

result<std::vector<meta::config_entry>, config_error> describe_client_metrics_resource(broker_context& b,
                                                                                       const std::string& name) {
    if (!b.client_metrics_configs) return failure{unsupported_describe_resource()};
    if (name.empty())
        return failure{config_error{error_code::invalid_request, "Client metrics subscription name must not be empty"}};
    return meta::describe_client_metrics_configs(b.client_metrics_configs->configs(name));
}

config_error alter_group_resource(broker_context& b, const std::string& name, std::span<const meta::config_op> ops,
                                  bool incremental, bool validate_only) {
    if (!b.group_configs) return unsupported_resource(k_resource_group);
    if (name.empty()) return {error_code::invalid_request, "Default group resources are not allowed."};
    return alter(*b.group_configs, name, ops, incremental, validate_only,
                 [&](const meta::config_map& next) -> std::optional<meta::error> {
                     if (auto bad = meta::validate_group_configs(next, b.config.static_properties))
                         return meta::error{meta::errc::invalid_config, *bad};
                     return std::nullopt;
                 });
}

config_error alter_client_metrics_resource(broker_context& b, const std::string& name,
                                           std::span<const meta::config_op> ops, bool incremental, bool validate_only) {
    if (!b.client_metrics_configs) return unsupported_resource(k_resource_client_metrics);
    if (name.empty()) return {error_code::invalid_request, "Subscription name can't be empty"};
    return alter(*b.client_metrics_configs, name, ops, incremental, validate_only,
                 [](const meta::config_map& next) { return meta::validate_client_metrics_configs(next); });
}

group::group_overrides group_overrides_of(const meta::config_map& overrides) {
    group::group_overrides o;
    o.session_timeout_ms = meta::group_config_int(overrides, "consumer.session.timeout.ms");
    o.heartbeat_interval_ms = meta::group_config_int(overrides, "consumer.heartbeat.interval.ms");
    o.assignment_interval_ms = meta::group_config_int(overrides, "consumer.assignment.interval.ms");
    o.streams_session_timeout_ms = meta::group_config_int(overrides, "streams.session.timeout.ms");
    o.streams_heartbeat_interval_ms = meta::group_config_int(overrides, "streams.heartbeat.interval.ms");
    o.streams_num_standby_replicas = meta::group_config_int(overrides, "streams.num.standby.replicas");
    o.streams_initial_rebalance_delay_ms = meta::group_config_int(overrides, "streams.initial.rebalance.delay.ms");
    o.streams_assignment_interval_ms = meta::group_config_int(overrides, "streams.assignment.interval.ms");
    return o;
}

}  // namespace ketch::broker
