// DeleteGroups v0-2. v1: same as v0. v2: flexible.
// Behaviour: KafkaApis.handleDeleteGroupsRequest (Apache Kafka 4.3.1): the
// names are de-duplicated (first occurrence kept) before the coordinator
// (group/admin.cc) answers each one.
#include <set>

#include "broker/handlers/handlers.h"
#include "group/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<delete_groups_response> handle_delete_groups(request_context& ctx, delete_groups_request& req) {
    std::vector<std::string> ids;
    std::set<std::string> seen;
    for (auto& id : req.groups_names)
        if (seen.insert(id).second) ids.push_back(std::move(id));
    delete_groups_response resp;
    for (auto& r : ctx.broker.groups.delete_groups(ids)) {
        auto& out = resp.results.emplace_back();
        out.group_id = std::move(r.group_id);
        out.error_code = code(r.error);
    }
    co_return resp;
}

}  // namespace ketch::broker
