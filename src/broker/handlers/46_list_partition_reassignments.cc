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

}  // namespace ketch::broker
