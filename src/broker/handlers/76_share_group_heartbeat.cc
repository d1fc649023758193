// ShareGroupHeartbeat v1 (KIP-932): join (epoch 0, the member id generated
// by the client), heartbeat, leave (epoch -1). Behaviour:
// KafkaApis.handleShareGroupHeartbeat and GroupMetadataManager.
// shareGroupHeartbeat (Apache Kafka 4.3.1); the group rules are
// share/share_heartbeat.cc's. Nothing is written to disk: the call runs
// inline.
#include "broker/group_lease.h"
#include "broker/group_subscription_auth.h"
#include "broker/handlers/handlers.h"
#include "broker/handlers/heartbeat_assignment.h"
#include "group/coordinator.h"
#include "share/coordinator.h"

namespace ketch::broker {

using namespace kafka;

namespace {
// A group id names one group: is it a classic or a consumer group's?
bool other_kind_exists(request_context& ctx, const std::string& id) {
    if (ctx.broker.groups.state_of(id)) return true;
    auto d = ctx.broker.groups.consumer_describe({id});
    return !d.empty() && d.front().error == error_code::none;
}
}  // namespace

awaitable<share_group_heartbeat_response> handle_share_group_heartbeat(request_context& ctx,
                                                                       share_group_heartbeat_request& req) {
    auto refuse = [](error_code e, std::optional<std::string> msg = std::nullopt) {
        share_group_heartbeat_response denied;
        denied.error_code = code(e);
        denied.error_message = std::move(msg);
        return denied;
    };
    if (!ctx.broker.shares) co_return refuse(error_code::unsupported_version);
    // KafkaApis.handleShareGroupHeartbeat: READ on the group, then DESCRIBE
    // on every subscribed topic.
    if (auto e = authorize_group_subscription(ctx, req.group_id, req.subscribed_topic_names); e != error_code::none)
        co_return refuse(e);
    // Cluster mode: FindCoordinator's broker, holding the group's lease
    // (docs/design/cluster.md "share groups"); the others NOT_COORDINATOR.
    if (auto e = co_await confirm_group_lease(ctx, req.group_id); e != error_code::none) co_return refuse(e);
    if (ctx.broker.cluster && !ctx.broker.groups.coordinates(req.group_id))
        co_return refuse(error_code::not_coordinator);
    // GroupMetadataManager.shareGroup: another kind of group has the id.
    if (req.member_epoch == 0 && !req.group_id.empty() && !ctx.broker.shares->is_share_group(req.group_id) &&
        other_kind_exists(ctx, req.group_id))
        co_return refuse(error_code::group_id_not_found, "Group " + req.group_id + " is not a share group.");
    share::heartbeat_request args;
    args.group_id = req.group_id;
    args.member_id = req.member_id;
    args.member_epoch = req.member_epoch;
    args.rack_id = req.rack_id;
    args.subscribed_topic_names = req.subscribed_topic_names;
    args.client_id = ctx.client_id.value_or("");
    args.client_host = java_client_host(ctx.conn.peer);
    auto r = ctx.broker.shares->heartbeat(args);
    share_group_heartbeat_response resp;
    resp.error_code = code(r.error);
    if (r.error != error_code::none) {
        resp.error_message = r.error_message.empty() ? std::nullopt : std::optional(r.error_message);
        co_return resp;
    }
    resp.member_id = std::move(r.member_id);
    resp.member_epoch = r.member_epoch;
    resp.heartbeat_interval_ms = r.heartbeat_interval_ms;
    if (r.assigned) set_assignment(resp.assignment, *r.assigned);
    co_return resp;
}

}  // namespace ketch::broker
