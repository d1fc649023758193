// ElectLeaders v0-2. v1: election_type, top-level error_code. v2: flexible.
// Behaviour: ControllerApis.electLeaders, ReplicationControlManager.electLeaders:
// on one broker every partition is already led by its preferred (only)
// replica, so a named partition answers ELECTION_NOT_NEEDED, preferred or
// unclean; null partitions (all) list every topic with no partition results
// (the ones already led by the preferred replica are left out).
#include "broker/handlers/handlers.h"
#include "broker/topic_read_through.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

awaitable<elect_leaders_response> handle_elect_leaders(request_context& ctx, elect_leaders_request& req) {
    auto& b = ctx.broker;
    elect_leaders_response resp;
    // ControllerApis.handleElectLeaders: ALTER on the cluster, else every
    // named partition and the top level CLUSTER_AUTHORIZATION_FAILED.
    if (!ctx.authorize_cluster(security::acl_operation::alter)) {
        const auto e = error_code::cluster_authorization_failed;
        resp.error_code = code(e);
        for (auto& tp : req.topic_partitions.value_or(decltype(req.topic_partitions)::value_type{})) {
            auto& tr = resp.replica_election_results.emplace_back();
            tr.topic = tp.topic;
            for (auto p : tp.partitions) {
                auto& out = tr.partition_result.emplace_back();
                out.partition_id = p;
                out.error_code = code(e);
                out.error_message = std::string(error_message(e));
            }
        }
        co_return resp;
    }
    if (req.topic_partitions)
        co_await read_through_topics(ctx, *req.topic_partitions, [](auto& t) { return std::string_view(t.topic); });
    if (!req.topic_partitions) {
        for (auto& t : b.topics.list()) resp.replica_election_results.emplace_back().topic = t.name;
        co_return resp;
    }
    for (auto& tp : *req.topic_partitions) {
        auto& tr = resp.replica_election_results.emplace_back();
        tr.topic = tp.topic;
        auto t = b.topics.by_name(tp.topic);
        for (auto p : tp.partitions) {
            auto& out = tr.partition_result.emplace_back();
            out.partition_id = p;
            if (!t) {
                out.error_code = code(error_code::unknown_topic_or_partition);
                out.error_message = "No such topic as " + tp.topic;
            } else if (p < 0 || p >= t->partition_count) {
                out.error_code = code(error_code::unknown_topic_or_partition);
                out.error_message = "No such partition as " + tp.topic + "-" + std::to_string(p);
            } else {
                out.error_code = code(error_code::election_not_needed);
                out.error_message = "Leader election not needed for topic partition.";
            }
        }
    }
    co_return resp;
}

// ElectLeadersRequest.getErrorResponse: the top-level error (v1+) and every
// named partition with it and the exception's message.
std::optional<elect_leaders_response> elect_leaders_error(const elect_leaders_request& req, int16_t,
                                                          const error_answer& e) {
    elect_leaders_response resp;
    resp.error_code = e.code;
    if (req.topic_partitions)
        for (auto& t : *req.topic_partitions) {
            auto& rt = resp.replica_election_results.emplace_back();
            rt.topic = t.topic;
            for (int32_t p : t.partitions) {
                auto& rp = error_row(rt.partition_result, e);
                rp.partition_id = p;
                set_message(rp.error_message, e.message);
            }
        }
    return resp;
}

}  // namespace ketch::broker
