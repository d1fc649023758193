// DescribeGroups v0-6. v1: throttle_time_ms. v3: authorized_operations on
// request (KIP-430). v4: group_instance_id of members (KIP-345). v5: flexible.
// v6: an unknown group is GROUP_ID_NOT_FOUND with an error_message (KIP-1043).
// Behaviour: KafkaApis.handleDescribeGroupsRequest and
// AuthHelper.authorizedOperations (Apache Kafka 4.3.1); the group rules are
// group/admin.cc's. ketch has no authorizer yet, so a group that is found
// shows every operation a group supports (AclEntry.supportedOperations: READ,
// DESCRIBE, DELETE, DESCRIBE_CONFIGS, ALTER_CONFIGS), as Kafka does without
// an authorizer; a group answered with an error keeps INT32_MIN.
#include "broker/group_lease.h"
#include "broker/handlers/describable_groups.h"
#include "broker/handlers/handlers.h"
#include "group/coordinator.h"
#include "share/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<describe_groups_response> handle_describe_groups(request_context& ctx, describe_groups_request& req) {
    // KafkaApis.handleDescribeGroupsRequest: groups without DESCRIBE are
    // answered GROUP_AUTHORIZATION_FAILED, first; the others by the coordinator.
    describe_groups_response resp;
    auto allowed = co_await confirmed_groups(ctx, describable_groups(ctx, req.groups, resp.groups), resp.groups);
    auto groups = ctx.broker.groups.describe_groups(allowed, ctx.api_version);
    const bool with_ops = ctx.api_version >= 3 && req.include_authorized_operations;
    described_group_rows(ctx, resp.groups, groups, with_ops, [&](auto& out, auto& g) {
        // A share group is not a classic group either (GroupMetadataManager.classicGroup).
        if (g.error == error_code::group_id_not_found && ctx.broker.shares &&
            ctx.broker.shares->is_share_group(g.group_id))
            g.error_message = "Group " + g.group_id + " is not a classic group.";
        out.error_code = code(g.error);
        out.error_message = std::move(g.error_message);
        out.group_id = std::move(g.group_id);
        out.group_state = std::move(g.group_state);
        out.protocol_type = std::move(g.protocol_type);
        out.protocol_data = std::move(g.protocol_data);
        for (auto& m : g.members) {
            auto& om = out.members.emplace_back();
            om.member_id = std::move(m.member_id);
            om.group_instance_id = std::move(m.group_instance_id);
            om.client_id = std::move(m.client_id);
            om.client_host = std::move(m.client_host);
            om.member_metadata = std::move(m.member_metadata);
            om.member_assignment = std::move(m.member_assignment);
        }
    });
    co_return resp;
}

// DescribeGroupsRequest.getErrorResponse: each group with the error.
std::optional<describe_groups_response> describe_groups_error(const describe_groups_request& req, int16_t,
                                                              const error_answer& e) {
    describe_groups_response resp;
    for (auto& g : req.groups) error_row(resp.groups, e).group_id = g;
    return resp;
}

}  // namespace ketch::broker
