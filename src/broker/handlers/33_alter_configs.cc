// AlterConfigs v0-2 (legacy: a resource's overrides become exactly the given
// set). v2: flexible.
// Behaviour: ControllerApis.alterConfigs, ConfigurationControlManager.legacyAlterConfigs,
// ControllerConfigurationValidator. A topic's new configs act at once on its
// open partitions.
#include "broker/alter_configs.h"
#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "broker/topic_read_through.h"
#include "meta/topic_name.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using resource_t = alter_configs_request::alter_configs_resource;

// Legacy AlterConfigs has no DELETE: a null value is refused.
config_error null_values(const resource_t& r) {
    std::string null_keys;
    for (auto& c : r.configs)
        if (!c.value) null_keys += (null_keys.empty() ? "" : ",") + c.name;
    if (!null_keys.empty()) return {error_code::invalid_request, "Null value not supported for : " + null_keys};
    return {};
}

config_error alter_topic_configs(broker_context& b, const resource_t& r, bool validate_only) {
    if (auto bad = check_topic_name(b, r.resource_name)) return {error_code::invalid_topic_exception, *bad};
    if (auto e = null_values(r); e.code != error_code::none) return e;
    meta::config_map configs;
    for (auto& c : r.configs) configs[c.name] = *c.value;
    return topic_alter_outcome(b, r.resource_name, b.topics.replace_configs(r.resource_name, configs, validate_only),
                               validate_only);
}

std::vector<meta::config_op> to_set_ops(const resource_t& r) {
    std::vector<meta::config_op> ops;
    for (auto& c : r.configs) ops.push_back({c.name, meta::config_op_type::set, c.value.value_or("")});
    return ops;
}

// A BROKER resource takes a null value as an empty one; the others refuse it.
config_error alter_other(broker_context& b, const resource_t& r, bool validate_only) {
    if (r.resource_type == k_resource_group || r.resource_type == k_resource_client_metrics)
        if (auto e = null_values(r); e.code != error_code::none) return e;
    return alter_non_topic_resource(b, r.resource_type, r.resource_name, to_set_ops(r), false, validate_only);
}

}  // namespace

awaitable<alter_configs_response> handle_alter_configs(request_context& ctx, alter_configs_request& req) {
    auto& b = ctx.broker;
    co_await read_through_topics(ctx, req.resources, [](auto& r) {
        return r.resource_type == k_resource_topic ? std::string_view(r.resource_name) : std::string_view();
    });
    co_return co_await store_answer<alter_configs_response>(b, [&] {
        return alter_each_resource<alter_configs_response>(
            ctx, req, [](const resource_t& r) { return duplicate_config_keys(r.configs); },
            [&](const resource_t& r) {
                return r.resource_type == k_resource_topic ? alter_topic_configs(b, r, req.validate_only)
                                                           : alter_other(b, r, req.validate_only);
            });
    });
}

// AlterConfigsRequest.getErrorResponse: each resource with the error and the
// exception's message.
std::optional<alter_configs_response> alter_configs_error(const alter_configs_request& req, int16_t,
                                                          const error_answer& e) {
    return per_resource_error<alter_configs_response>(req, e);
}

}  // namespace ketch::broker
