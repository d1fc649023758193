// ListGroups v0-5. v1: throttle_time_ms. v3: flexible. v4: states_filter and
// group_state (KIP-518). v5: types_filter and group_type (KIP-848).
// Behaviour: KafkaApis.handleListGroupsRequest (Apache Kafka 4.3.1); the
// filtering is group/admin.cc's. ketch has no authorizer yet: every group is
// listed, as with Kafka's DESCRIBE on the cluster.
#include "broker/handlers/handlers.h"
#include "group/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<list_groups_response> handle_list_groups(request_context& ctx, list_groups_request& req) {
    auto groups = ctx.broker.groups.list_groups({std::move(req.states_filter), std::move(req.types_filter)});
    list_groups_response resp;
    // KafkaApis.handleListGroupsRequest: DESCRIBE on the cluster lists every
    // group; otherwise only the groups the caller may DESCRIBE.
    const bool all = ctx.authorize_cluster(security::acl_operation::describe);
    for (auto& g : groups) {
        if (!all && !ctx.authorize(security::acl_operation::describe, security::resource_type::group, g.group_id))
            continue;
        auto& out = resp.groups.emplace_back();
        out.group_id = std::move(g.group_id);
        out.protocol_type = std::move(g.protocol_type);
        out.group_state = std::move(g.group_state);
        out.group_type = std::move(g.group_type);
    }
    co_return resp;
}

// ListGroupsRequest.getErrorResponse: the top-level error.
std::optional<list_groups_response> list_groups_error(const list_groups_request&, int16_t, const error_answer& e) {
    return top_level_error<list_groups_response>(e);
}

}  // namespace ketch::broker
