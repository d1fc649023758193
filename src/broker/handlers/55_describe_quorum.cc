// DescribeQuorum v0-2 (flexible). v1: last fetch / last caught-up timestamps.
// v2: error messages, replica directory ids and the voters' listeners (nodes).
// Behaviour: a Kafka 4.3.1 broker forwards DescribeQuorum to the active
// controller (KafkaApis: forwardToControllerOrFail); the controller answers
// (ControllerApis.handleDescribeQuorum: DESCRIBE on the cluster, else the
// top-level CLUSTER_AUTHORIZATION_FAILED) from its raft client
// (KafkaRaftClient.handleDescribeQuorumRequest, RaftUtil.singletonDescribeQuorumResponse).
// ketch is a one-node quorum: this node leads __cluster_metadata-0 and is its
// only voter, with no observers. The leader reports its own fetch and
// caught-up times as now (RaftUtil.toReplicaState), its log end offset as the
// high watermark; ketch has no metadata log, so both are the offset of its one
// feature record (k_quorum_offset, the features epoch of ApiVersions).

#include "base/clock.h"
#include "broker/handlers/handlers.h"

namespace ketch::broker {

using namespace kafka;

namespace {

constexpr std::string_view k_metadata_topic = "__cluster_metadata";
constexpr int32_t k_leader_epoch = 1;
constexpr int64_t k_quorum_offset = 1;

// RaftUtil.hasValidTopicPartition: exactly one topic, __cluster_metadata,
// with exactly one partition, 0.
bool names_metadata_partition(const describe_quorum_request& req) {
    return req.topics.size() == 1 && req.topics[0].topic_name == k_metadata_topic &&
           req.topics[0].partitions.size() == 1 && req.topics[0].partitions[0].partition_index == 0;
}

std::vector<describe_quorum_response::listener> node_listeners(const broker_config& c) {
    std::vector<describe_quorum_response::listener> out;
    if (c.advertised.empty()) {
        out.push_back({c.listener_name, c.advertised_host, uint16_t(c.advertised_port), {}});
        return out;
    }
    for (auto& [name, ep] : c.advertised) out.push_back({name, ep.host, uint16_t(ep.port), {}});
    return out;
}

}  // namespace

awaitable<describe_quorum_response> handle_describe_quorum(request_context& ctx, describe_quorum_request& req) {
    auto& c = ctx.broker.config;
    if (!ctx.authorize_cluster(security::acl_operation::describe)) {
        error_answer denied;
        denied.code = code(error_code::cluster_authorization_failed);
        denied.code_message = std::string(error_message(error_code::cluster_authorization_failed));
        co_return *describe_quorum_error(req, 0, denied);
    }
    describe_quorum_response resp;
    if (!names_metadata_partition(req)) {
        // DescribeQuorumRequest.getPartitionLevelErrorResponse: every requested
        // partition with UNKNOWN_TOPIC_OR_PARTITION and its message.
        for (auto& t : req.topics) {
            auto& rt = resp.topics.emplace_back();
            rt.topic_name = t.topic_name;
            for (auto& p : t.partitions) {
                auto& rp = rt.partitions.emplace_back();
                rp.partition_index = p.partition_index;
                rp.error_code = code(error_code::unknown_topic_or_partition);
                rp.error_message = std::string(error_message(error_code::unknown_topic_or_partition));
            }
        }
        co_return resp;
    }
    auto now_ms = wall_ms();
    auto& rt = resp.topics.emplace_back();
    rt.topic_name = std::string(k_metadata_topic);
    auto& rp = rt.partitions.emplace_back();
    rp.partition_index = 0;
    rp.leader_id = c.node_id;
    rp.leader_epoch = k_leader_epoch;
    rp.high_watermark = k_quorum_offset;
    auto& voter = rp.current_voters.emplace_back();
    voter.replica_id = c.node_id;  // directory id: none (ReplicaKey.NO_DIRECTORY_ID)
    voter.log_end_offset = k_quorum_offset;
    voter.last_fetch_timestamp = now_ms;
    voter.last_caught_up_timestamp = now_ms;
    auto& n = resp.nodes.emplace_back();
    n.node_id = c.node_id;
    n.listeners = node_listeners(c);
    co_return resp;
}

// DescribeQuorumRequest.getErrorResponse (getTopLevelErrorResponse): the
// top-level error with the code's own message.
std::optional<describe_quorum_response> describe_quorum_error(const describe_quorum_request&, int16_t,
                                                              const error_answer& e) {
    describe_quorum_response resp;
    resp.error_code = e.code;
    resp.error_message = e.code_message;
    return resp;
}

}  // namespace ketch::broker
