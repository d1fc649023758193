// FindCoordinator v0-6. v1: key_type (0 group, 1 transaction). v3: flexible.
// v4: batched coordinator_keys. v6: key_type 2 (share).
// Groups and transactions get their coordinators in later issues; until
// then every key is answered COORDINATOR_NOT_AVAILABLE, which clients retry.
#include "broker/handlers/handlers.h"

namespace ketch::broker {

using namespace kafka;

awaitable<find_coordinator_response> handle_find_coordinator(request_context& ctx, find_coordinator_request& req) {
    find_coordinator_response resp;
    const auto unavailable = code(error_code::coordinator_not_available);
    if (ctx.api_version < 4) {
        resp.error_code = unavailable;
        resp.error_message = "The coordinator is not available.";
        resp.node_id = -1;
        co_return resp;
    }
    for (auto& key : req.coordinator_keys) {
        auto& c = resp.coordinators.emplace_back();
        c.key = key;
        c.node_id = -1;
        c.error_code = unavailable;
        c.error_message = "The coordinator is not available.";
    }
    co_return resp;
}

}  // namespace ketch::broker
