// LeaveGroup v0-5. v1: throttle_time_ms. v3: a batch of members, each by
// member id and/or group_instance_id (KIP-345), answered per member. v4:
// flexible. v5: a reason per member (KIP-800).
// Behaviour: KafkaApis.handleLeaveGroupRequest, LeaveGroupRequest.normalizedData
// (v0-2: the one member id becomes a one-member batch) and the LeaveGroupResponse
// constructor (v0-2: the group error if any, else that member's), Apache Kafka
// 4.3.1; the group rules are group/membership.cc's.
#include "broker/group_lease.h"
#include "broker/handlers/handlers.h"
#include "group/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<leave_group_response> handle_leave_group(request_context& ctx, leave_group_request& req) {
    if (auto e = co_await classic_group_refusal(ctx, req.group_id); e != error_code::none) {
        leave_group_response refused;  // KafkaApis.handleLeaveGroupRequest: the top-level code only
        refused.error_code = code(e);
        co_return refused;
    }
    group::leave_args args;
    args.group_id = std::move(req.group_id);
    if (ctx.api_version < 3) {
        args.members.push_back({std::move(req.member_id), std::nullopt, std::nullopt});
    } else {
        for (auto& m : req.members)
            args.members.push_back({std::move(m.member_id), std::move(m.group_instance_id), std::move(m.reason)});
    }
    auto r = ctx.broker.groups.leave(args);

    leave_group_response resp;
    if (ctx.api_version < 3) {
        if (r.error != error_code::none || r.members.size() != 1)
            resp.error_code = code(r.error);
        else
            resp.error_code = code(r.members.front().error);
        co_return resp;
    }
    resp.error_code = code(r.error);
    for (auto& m : r.members) {
        auto& out = resp.members.emplace_back();
        out.member_id = std::move(m.member_id);
        out.group_instance_id = std::move(m.group_instance_id);
        out.error_code = code(m.error);
    }
    co_return resp;
}

}  // namespace ketch::broker
