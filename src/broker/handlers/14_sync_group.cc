// SyncGroup v0-5. v1: throttle_time_ms. v3: group_instance_id (KIP-345).
// v4: flexible. v5: protocol_type and protocol_name in request and response
// (KIP-559); from v5 a request without both is refused.
// Behaviour: KafkaApis.handleSyncGroupRequest and
// SyncGroupRequest.areMandatoryProtocolTypeAndNamePresent (Apache Kafka
// 4.3.1); the group rules are group/membership.cc's. A follower's answer waits
// for the leader's assignment.
#include "broker/async.h"
#include "broker/group_lease.h"
#include "broker/handlers/handlers.h"
#include "group/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<sync_group_response> handle_sync_group(request_context& ctx, sync_group_request& req) {
    sync_group_response resp;
    if (ctx.api_version >= 5 && (!req.protocol_type || !req.protocol_name)) {
        resp.error_code = code(error_code::inconsistent_group_protocol);
        co_return resp;
    }
    if (auto e = co_await classic_group_refusal(ctx, req.group_id); e != error_code::none) {
        resp.error_code = code(e);
        co_return resp;
    }
    group::sync_args args{
        {std::move(req.group_id), req.generation_id, std::move(req.member_id), std::move(req.group_instance_id)},
        std::move(req.protocol_type),
        std::move(req.protocol_name)};
    for (auto& a : req.assignments) args.assignments.push_back({std::move(a.member_id), std::move(a.assignment)});

    auto& groups = ctx.broker.groups;
    // References only in the lambda (see 11_join_group.cc).
    auto r = co_await on_callback<group::sync_result>([&groups, &args](std::function<void(group::sync_result)> done) {
        groups.sync(std::move(args), std::move(done));
    });
    resp.error_code = code(r.error);
    resp.protocol_type = std::move(r.protocol_type);
    resp.protocol_name = std::move(r.protocol_name);
    resp.assignment = std::move(r.assignment);
    co_return resp;
}

}  // namespace ketch::broker
