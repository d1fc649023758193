// Heartbeat v0-4. v1: throttle_time_ms. v3: group_instance_id (KIP-345).
// v4: flexible.
// Behaviour: KafkaApis.handleHeartbeatRequest (Apache Kafka 4.3.1); the group
// rules are group/membership.cc's.
#include "broker/group_lease.h"
#include "broker/handlers/handlers.h"
#include "group/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<heartbeat_response> handle_heartbeat(request_context& ctx, heartbeat_request& req) {
    heartbeat_response resp;
    if (auto e = co_await classic_group_refusal(ctx, req.group_id); e != error_code::none) {
        resp.error_code = code(e);
        co_return resp;
    }
    resp.error_code = code(ctx.broker.groups.heartbeat(
        {std::move(req.group_id), req.generation_id, std::move(req.member_id), std::move(req.group_instance_id)}));
    co_return resp;
}

}  // namespace ketch::broker
