// ListConfigResources v0-1 (KIP-1142). v0: client metrics subscriptions only
// (the answer carries no resource_type). v1: resource_types, empty for every
// type served: GROUP (groups with configs), CLIENT_METRICS, BROKER_LOGGER and
// BROKER (this node), TOPIC (every topic).
// Behaviour: KafkaApis.handleListConfigResources (CLUSTER DESCRIBE_CONFIGS,
// else CLUSTER_AUTHORIZATION_FAILED; a type outside the version's supported
// set is UNSUPPORTED_VERSION with no resources),
// ListConfigResourcesRequest.supportedResourceTypes.
#include <algorithm>

#include "broker/handlers/handlers.h"
#include "broker/runtime_configs.h"
#include "broker/tenant_topics.h"
#include "meta/resource_config_registry.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

awaitable<list_config_resources_response> handle_list_config_resources(request_context& ctx,
                                                                       list_config_resources_request& req) {
    auto& b = ctx.broker;
    list_config_resources_response resp;
    if (!ctx.authorize_cluster(security::acl_operation::describe_configs)) {
        resp.error_code = code(error_code::cluster_authorization_failed);
        co_return resp;
    }
    const std::vector<int8_t> supported =
        ctx.api_version == 0 ? std::vector<int8_t>{k_resource_client_metrics}
                             : std::vector<int8_t>{k_resource_group, k_resource_client_metrics,
                                                   k_resource_broker_logger, k_resource_broker, k_resource_topic};
    const std::vector<int8_t>& types = req.resource_types.empty() ? supported : req.resource_types;
    auto asked = [&](int8_t t) { return std::find(types.begin(), types.end(), t) != types.end(); };
    for (int8_t t : types)
        if (std::find(supported.begin(), supported.end(), t) == supported.end()) {
            resp.error_code = code(error_code::unsupported_version);
            co_return resp;
        }
    auto add = [&](int8_t type, std::string name) {
        auto& r = resp.config_resources.emplace_back();
        r.resource_name = std::move(name);
        r.resource_type = type;
    };
    if (asked(k_resource_group) && b.group_configs)
        for (auto& [group, configs] : b.group_configs->all()) add(k_resource_group, group);
    if (asked(k_resource_client_metrics) && b.client_metrics_configs)
        for (auto& [name, configs] : b.client_metrics_configs->all()) add(k_resource_client_metrics, name);
    if (asked(k_resource_broker_logger)) add(k_resource_broker_logger, std::to_string(b.config.node_id));
    if (asked(k_resource_broker)) add(k_resource_broker, std::to_string(b.config.node_id));
    if (asked(k_resource_topic))
        for (auto& t : listed_topics(ctx)) add(k_resource_topic, t.name);
    co_return resp;
}

}  // namespace ketch::broker
