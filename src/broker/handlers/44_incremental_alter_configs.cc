// IncrementalAlterConfigs v0-1. v1: flexible.
// Behaviour: ConfigAdminManager.preprocess (duplicate keys, null values, bad
// operations, before anything is applied), ControllerApis.incrementalAlterConfigs,
// ConfigurationControlManager.incrementalAlterConfigs (SET, DELETE, APPEND,
// SUBTRACT; see meta/config_ops.h) and ControllerConfigurationValidator.
// A topic's new configs act at once on its open partitions.
#include "broker/alter_configs.h"
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_read_through.h"
#include "meta/topic_name.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using incremental_resource_t = incremental_alter_configs_request::alter_configs_resource;

// The checks every resource passes before it is applied (KafkaApis /
// ConfigAdminManager.preprocess); code none when the resource may go on.
config_error preprocess(const incremental_resource_t& r) {
    if (auto dup = duplicate_config_keys(r.configs); dup.code != error_code::none) return dup;
    for (auto& c : r.configs) {
        // Kafka fails to map an unknown operation id: UNKNOWN_SERVER_ERROR, no message (recorded).
        if (c.config_operation < 0 || c.config_operation > 3) return {error_code::unknown_server_error, {}, true};
        if (!c.value && c.config_operation != 1)
            return {error_code::invalid_request, "Null value not supported for : " + c.name};
    }
    return {};
}

std::vector<meta::config_op> to_ops(const incremental_resource_t& r) {
    std::vector<meta::config_op> ops;
    for (auto& c : r.configs) ops.push_back({c.name, meta::config_op_type(c.config_operation), c.value.value_or("")});
    return ops;
}

config_error alter_topic(broker_context& b, const incremental_resource_t& r, bool validate_only) {
    if (auto bad = check_topic_name(b, r.resource_name)) return {error_code::invalid_topic_exception, *bad};
    return topic_alter_outcome(b, r.resource_name, b.topics.alter_configs(r.resource_name, to_ops(r), validate_only),
                               validate_only);
}

}  // namespace

awaitable<incremental_alter_configs_response> handle_incremental_alter_configs(request_context& ctx,
                                                                               incremental_alter_configs_request& req) {
    auto& b = ctx.broker;
    co_await read_through_topics(ctx, req.resources, [](auto& r) {
        return r.resource_type == k_resource_topic ? std::string_view(r.resource_name) : std::string_view();
    });
    co_return co_await store_answer<incremental_alter_configs_response>(b, [&] {
        return alter_each_resource<incremental_alter_configs_response>(
            ctx, req, preprocess, [&](const incremental_resource_t& r) {
                return r.resource_type == k_resource_topic
                           ? alter_topic(b, r, req.validate_only)
                           : alter_non_topic_resource(b, r.resource_type, r.resource_name, to_ops(r), true,
                                                      req.validate_only);
            });
    });
}

// IncrementalAlterConfigsRequest.getErrorResponse: each resource with the
// error and the exception's message.
std::optional<incremental_alter_configs_response> incremental_alter_configs_error(
    const incremental_alter_configs_request& req, int16_t, const error_answer& e) {
    return per_resource_error<incremental_alter_configs_response>(req, e);
}

}  // namespace ketch::broker
