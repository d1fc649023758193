// DescribeCluster v0-2. v1: endpoint_type (1 brokers, 2 controllers).
// v2: include_fenced_brokers / is_fenced. Behaviour: KafkaApis.handleDescribeCluster.
#include "broker/handlers/handlers.h"
#include "broker/live_brokers.h"

namespace ketch::broker {

using namespace kafka;

awaitable<describe_cluster_response> handle_describe_cluster(request_context& ctx, describe_cluster_request& req) {
    auto& c = ctx.broker.config;
    describe_cluster_response resp;
    if (req.endpoint_type != 1) {
        // A broker listener serves only broker endpoints (recorded from Kafka
        // 4.3.1, answering with endpoint_type 1): asking it for controllers is
        // MISMATCHED_ENDPOINT_TYPE, any other type UNSUPPORTED_ENDPOINT_TYPE.
        if (req.endpoint_type == 2) {
            resp.error_code = code(error_code::mismatched_endpoint_type);
            resp.error_message =
                "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of "
                "type CONTROLLER";
        } else {
            resp.error_code = code(error_code::unsupported_endpoint_type);
            resp.error_message = "Unsupported endpoint type " + std::to_string(req.endpoint_type);
        }
        co_return resp;
    }
    if (req.include_cluster_authorized_operations)  // see 03_metadata.cc
        resp.cluster_authorized_operations =
            ctx.authorize_cluster(security::acl_operation::describe) ? cluster_authorized_operations(ctx, 8096) : 0;
    resp.cluster_id = c.cluster_id;
    resp.controller_id = c.node_id;
    if (!ctx.broker.cluster) {
        auto& br = resp.brokers.emplace_back();
        br.broker_id = c.node_id;
        auto ep = c.advertised_for(ctx.conn.listener_name);
        br.host = ep.host;
        br.port = ep.port;
        co_return resp;
    }
    for (auto& lb : live_brokers(ctx)) {  // cluster mode: every live broker
        auto& br = resp.brokers.emplace_back();
        br.broker_id = lb.node_id;
        br.host = lb.host;
        br.port = lb.port;
        br.rack = lb.rack;
    }
    co_return resp;
}

}  // namespace ketch::broker
