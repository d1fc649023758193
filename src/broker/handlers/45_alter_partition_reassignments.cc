// AlterPartitionReassignments v0-1. v0: flexible. v1:
// allow_replication_factor_change (KIP-860).
// Behaviour: ControllerApis.alterPartitionReassignments,
// ReplicationControlManager.alterPartitionReassignment /
// validateManualPartitionAssignment. One broker: the only valid target is
// [node id], which is where the partition already is, so it completes at
// once; cancelling finds nothing in progress. Cluster mode: any live
// broker's id is valid and it completes at once too (every broker serves
// every partition from the shared log; Metadata's leaders do not move).
#include <set>

#include "broker/handlers/error_rows.h"
#include "broker/handlers/handlers.h"
#include "broker/live_brokers.h"
#include "broker/topic_read_through.h"
#include "meta/topic_registry.h"

namespace ketch::broker {

using namespace kafka;

namespace {

using reassignment_response = alter_partition_reassignments_response::reassignable_partition_response;

void judge(reassignment_response& out, const std::optional<std::vector<int32_t>>& replicas,
           const std::set<int32_t>& registered, bool allow_rf_change, int16_t current_rf) {
    auto fail = [&](error_code e, std::optional<std::string> msg) {
        out.error_code = code(e);
        out.error_message = std::move(msg);
    };
    if (!replicas) return fail(error_code::no_reassignment_in_progress, std::nullopt);
    if (replicas->empty())
        return fail(error_code::invalid_replica_assignment,
                    "The manual partition assignment includes an empty replica list.");
    std::set<int32_t> seen;
    for (auto r : *replicas)
        if (!seen.insert(r).second)
            return fail(error_code::invalid_replica_assignment, "The manual partition assignment includes the broker " +
                                                                    std::to_string(r) + " more than once.");
    for (auto r : *replicas)
        if (!registered.contains(r))
            return fail(error_code::invalid_replica_assignment, "The manual partition assignment includes broker " +
                                                                    std::to_string(r) +
                                                                    ", but no such broker is registered.");
    if (!allow_rf_change && int16_t(replicas->size()) != current_rf)
        return fail(error_code::invalid_replication_factor,
                    "The replication factor is changed from " + std::to_string(current_rf) + " to " +
                        std::to_string(replicas->size()) + " but allowReplicationFactorChange is false.");
}

}  // namespace

awaitable<alter_partition_reassignments_response> handle_alter_partition_reassignments(
    request_context& ctx, alter_partition_reassignments_request& req) {
    auto& b = ctx.broker;
    // ControllerApis: ALTER on the cluster, else the top level and every
    // partition refused, as the error response has them.
    if (!ctx.authorize_cluster(security::acl_operation::alter)) {
        const std::string denied(error_message(error_code::cluster_authorization_failed));
        auto resp = *alter_partition_reassignments_error(
            req, ctx.api_version, {code(error_code::cluster_authorization_failed), denied, denied});
        resp.allow_replication_factor_change = req.allow_replication_factor_change;
        co_return resp;
    }
    co_await read_through_topics(ctx, req.topics, [](auto& t) { return std::string_view(t.name); });
    alter_partition_reassignments_response resp;
    resp.allow_replication_factor_change = req.allow_replication_factor_change;
    resp.error_message = std::nullopt;
    const auto registered = registered_brokers(ctx);
    for (auto& rt : req.topics) {
        auto& tr = resp.responses.emplace_back();
        tr.name = rt.name;
        auto t = b.topics.by_name(rt.name);
        for (auto& rp : rt.partitions) {
            auto& out = tr.partitions.emplace_back();
            out.partition_index = rp.partition_index;
            out.error_message = std::nullopt;
            if (!t) {
                out.error_code = code(error_code::unknown_topic_or_partition);
                out.error_message = "Unable to find a topic named " + rt.name + ".";
            } else if (rp.partition_index < 0 || rp.partition_index >= t->partition_count) {
                out.error_code = code(error_code::unknown_topic_or_partition);
                out.error_message =
                    "Unable to find partition " + rt.name + ":" + std::to_string(rp.partition_index) + ".";
            } else {
                // The single stored replica: what a one-broker cluster holds whatever the requested factor.
                judge(out, rp.replicas, registered, req.allow_replication_factor_change, 1);
            }
        }
    }
    co_return resp;
}

// AlterPartitionReassignmentsRequest.getErrorResponse: the top-level error and
// every partition with it, each with the exception's message.
std::optional<alter_partition_reassignments_response> alter_partition_reassignments_error(
    const alter_partition_reassignments_request& req, int16_t, const error_answer& e) {
    alter_partition_reassignments_response resp;
    resp.error_code = e.code;
    set_message(resp.error_message, e.message);
    partition_error_rows(resp.responses, req.topics, e, [&](auto& rp) { set_message(rp.error_message, e.message); });
    return resp;
}

}  // namespace ketch::broker
