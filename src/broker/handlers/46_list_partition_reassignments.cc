// ListPartitionReassignments v0 (flexible).
// Behaviour: ControllerApis.listPartitionReassignments,
// ReplicationControlManager.listPartitionReassignments: only ongoing
// reassignments are listed, and on one broker a reassignment completes the
// moment it is accepted, so the list is always empty.
#include "broker/handlers/handlers.h"

namespace ketch::broker {

using namespace kafka;

awaitable<list_partition_reassignments_response> handle_list_partition_reassignments(
    request_context& ctx, list_partition_reassignments_request&) {
    list_partition_reassignments_response resp;
    resp.error_message = std::nullopt;
    // ControllerApis: DESCRIBE on the cluster.
    if (!ctx.authorize_cluster(security::acl_operation::describe)) {
        resp.error_code = code(error_code::cluster_authorization_failed);
        resp.error_message = std::string(error_message(error_code::cluster_authorization_failed));
    }
    co_return resp;
}

// ListPartitionReassignmentsRequest.getErrorResponse: the top-level error and
// the exception's message, and the named partitions without reassignments.
std::optional<list_partition_reassignments_response> list_partition_reassignments_error(
    const list_partition_reassignments_request& req, int16_t, const error_answer& e) {
    list_partition_reassignments_response resp;
    resp.error_code = e.code;
    set_message(resp.error_message, e.message);
    if (req.topics)
        for (auto& t : *req.topics) {
            auto& rt = resp.topics.emplace_back();
            rt.name = t.name;
            for (int32_t p : t.partition_indexes) rt.partitions.emplace_back().partition_index = p;
        }
    return resp;
}

}  // namespace ketch::broker
