#include "broker/group_configs.h"

#include "broker/topics.h"
#include "meta/group_config_registry.h"
#include "meta/group_configs.h"

namespace ketch::broker {

result<std::vector<meta::config_entry>, config_error> describe_group_resource(broker_context& b,
                                                                             const std::string& name) {
    if (!b.group_configs) return failure{unsupported_describe_resource()};
    if (name.empty()) return failure{config_error{error_code::invalid_request, "Group name must not be empty"}};
    return meta::describe_group_configs(b.group_configs->overrides(name), b.config.static_properties);
}

config_error alter_group_resource(broker_context& b, const std::string& name, std::span<const meta::config_op> ops,
                                  bool incremental, bool validate_only) {
    if (!b.group_configs) return unsupported_resource(k_resource_group);
    if (name.empty()) return {error_code::invalid_request, "Default group resources are not allowed."};
    auto change = [&](const meta::config_map& current) -> result<meta::config_map, meta::error> {
        meta::config_map next = incremental ? current : meta::config_map{};
        for (const auto& op : ops) {
            switch (op.op) {
                case meta::config_op_type::set: next[op.key] = op.value; break;
                case meta::config_op_type::remove: next.erase(op.key); break;
                case meta::config_op_type::append:
                case meta::config_op_type::subtract:
                    // No group config is a LIST (ConfigurationControlManager: not splittable).
                    return failure{meta::error{meta::errc::invalid_config,
                                               std::string("Can't ") +
                                                   (op.op == meta::config_op_type::append ? "APPEND" : "SUBTRACT") +
                                                   " to key " + op.key + " because its type is not LIST."}};
            }
        }
        if (auto bad = meta::validate_group_configs(next, b.config.static_properties))
            return failure{meta::error{meta::errc::invalid_config, *bad}};
        return next;
    };
    auto r = b.group_configs->update(name, change, validate_only);
    if (!r.ok()) return {to_kafka(r.error().code), r.error().message};
    return {};
}

group::consumer_group_overrides consumer_overrides_of(const meta::config_map& overrides) {
    group::consumer_group_overrides o;
    o.session_timeout_ms = meta::group_config_int(overrides, "consumer.session.timeout.ms");
    o.heartbeat_interval_ms = meta::group_config_int(overrides, "consumer.heartbeat.interval.ms");
    o.assignment_interval_ms = meta::group_config_int(overrides, "consumer.assignment.interval.ms");
    return o;
}

}  // namespace ketch::broker
