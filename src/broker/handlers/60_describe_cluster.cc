// DescribeCluster v0-2. v1: endpoint_type (1 brokers, 2 controllers).
// v2: include_fenced_brokers / is_fenced. Behaviour: KafkaApis.handleDescribeCluster.
#include "broker/handlers/handlers.h"

namespace ketch::broker {

using namespace kafka;

awaitable<describe_cluster_response> handle_describe_cluster(request_context& ctx, describe_cluster_request& req) {
    auto& c = ctx.broker.config;
    describe_cluster_response resp;
    resp.endpoint_type = req.endpoint_type;
    if (req.endpoint_type != 1) {
        // A broker listener serves only the broker endpoints (Kafka: UNSUPPORTED_ENDPOINT_TYPE).
        resp.error_code = code(error_code::unsupported_endpoint_type);
        resp.error_message = "The broker does not support the requested endpoint type.";
        co_return resp;
    }
    resp.cluster_id = c.cluster_id;
    resp.controller_id = c.node_id;
    auto& br = resp.brokers.emplace_back();
    br.broker_id = c.node_id;
    br.host = c.advertised_host;
    br.port = c.advertised_port;
    co_return resp;
}

}  // namespace ketch::broker
