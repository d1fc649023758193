// ListGroups v0-5. v1: throttle_time_ms. v3: flexible. v4: states_filter and
// group_state (KIP-518). v5: types_filter and group_type (KIP-848).
// Behaviour: KafkaApis.handleListGroupsRequest (Apache Kafka 4.3.1); the
// filtering is group/admin.cc's; share groups come from the share
// coordinator. ketch has no authorizer yet: every group is
// listed, as with Kafka's DESCRIBE on the cluster.
#include "broker/handlers/handlers.h"
#include "broker/tenant_topics.h"
#include "group/coordinator.h"
#include "share/coordinator.h"

namespace ketch::broker {

using namespace kafka;

namespace {
bool iequal(std::string_view a, std::string_view b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}
bool matches(const std::vector<std::string>& filter, std::string_view v) {
    if (filter.empty()) return true;
    for (auto& f : filter)
        if (iequal(f, v)) return true;
    return false;
}

// ShareGroup.asListedGroup: protocol type and group type "share", state
// Empty or Stable; the filters are case-insensitive as for the other kinds.
void add_share_groups(request_context& ctx, const list_groups_request& req, std::vector<group::listed_group>& out) {
    if (!ctx.broker.shares) return;
    for (auto& [id, state] : ctx.broker.shares->list())
        if (matches(req.states_filter, state) && matches(req.types_filter, "share"))
            out.push_back(group::listed_group{id, "share", state, "share"});
}
}  // namespace

awaitable<list_groups_response> handle_list_groups(request_context& ctx, list_groups_request& req) {
    // A tenant's listing visits its own groups only (the edge maps and filters the answer).
    auto groups = ctx.broker.groups.list_groups({req.states_filter, req.types_filter, listed_group_prefix(ctx)});
    add_share_groups(ctx, req, groups);
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

}  // namespace ketch::broker
