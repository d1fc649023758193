#include "broker/alter_configs.h"

#include "broker/resource_configs.h"
#include "broker/topics.h"

namespace ketch::broker {

config_error topic_alter_outcome(broker_context& b, const std::string& topic,
                                 const result<meta::topic, meta::error>& res, bool validate_only) {
    if (!res.ok()) {
        if (res.error().code == meta::errc::unknown_topic_or_partition)
            return {error_code::unknown_topic_or_partition, "The topic '" + topic + "' does not exist."};
        return {to_kafka(res.error().code), res.error().message};
    }
    if (!validate_only) apply_topic_settings(b, res.value());
    return {};
}

config_error alter_non_topic_resource(broker_context& b, int8_t type, const std::string& name,
                                      std::span<const meta::config_op> ops, bool incremental, bool validate_only) {
    if (type == k_resource_broker || type == k_resource_broker_logger)
        return alter_broker_resource(b, type == k_resource_broker_logger, name, ops, incremental, validate_only);
    if (type == k_resource_group) return alter_group_resource(b, name, ops, incremental, validate_only);
    if (type == k_resource_client_metrics)
        return alter_client_metrics_resource(b, name, ops, incremental, validate_only);
    return unsupported_resource(type);
}

}  // namespace ketch::broker
