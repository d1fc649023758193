// DeleteGroups v0-2. v1: same as v0. v2: flexible.
// Behaviour: KafkaApis.handleDeleteGroupsRequest (Apache Kafka 4.3.1): the
// names are de-duplicated (first occurrence kept) before the coordinator
// (group/admin.cc; share groups: share/share_offsets.cc) answers each one.
#include <map>
#include <set>

#include "broker/blocking.h"
#include "broker/handlers/handlers.h"
#include "group/coordinator.h"
#include "share/coordinator.h"

namespace ketch::broker {

using namespace kafka;

awaitable<delete_groups_response> handle_delete_groups(request_context& ctx, delete_groups_request& req) {
    // KafkaApis.handleDeleteGroupsRequest: groups without DELETE are
    // answered GROUP_AUTHORIZATION_FAILED after the others.
    std::vector<std::string> ids, denied;
    std::set<std::string> seen;
    for (auto& id : req.groups_names) {
        if (!seen.insert(id).second) continue;
        if (ctx.authorize(security::acl_operation::remove, security::resource_type::group, id))
            ids.push_back(std::move(id));
        else
            denied.push_back(std::move(id));
    }
    // Share groups (Admin.deleteShareGroups sends DeleteGroups too) are the
    // share coordinator's; the rest the group coordinator's, in request order.
    std::map<std::string, error_code> results;
    std::vector<std::string> others;
    for (auto& id : ids) {
        auto e = ctx.broker.shares ? ctx.broker.shares->delete_group(id) : error_code::group_id_not_found;
        if (e == error_code::group_id_not_found)
            others.push_back(id);
        else
            results[id] = e;
    }
    // The deletes write the offset store (cluster mode: PostgreSQL, through the pool): off the reactor.
    auto& groups = ctx.broker.groups;
    auto deleted = co_await blocking_call<std::vector<group::delete_group_result>>(
        ctx.broker, [&groups, &others] { return groups.delete_groups(others); });
    for (auto& r : deleted) results[r.group_id] = r.error;
    delete_groups_response resp;
    for (auto& id : ids) {
        auto& out = resp.results.emplace_back();
        out.group_id = id;
        out.error_code = code(results[id]);
    }
    for (auto& id : denied) {
        auto& out = resp.results.emplace_back();
        out.group_id = std::move(id);
        out.error_code = code(error_code::group_authorization_failed);
    }
    co_return resp;
}

// DeleteGroupsRequest.getErrorResponse: each group with the error.
std::optional<delete_groups_response> delete_groups_error(const delete_groups_request& req, int16_t,
                                                          const error_answer& e) {
    delete_groups_response resp;
    for (auto& g : req.groups_names) error_row(resp.results, e).group_id = g;
    return resp;
}

}  // namespace ketch::broker
