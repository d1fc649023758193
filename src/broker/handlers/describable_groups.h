// The first step of the group Describe APIs (KafkaApis.handleDescribeGroupsRequest,
// handleConsumerGroupDescribe, handleStreamsGroupDescribe): the groups the
// caller may not DESCRIBE are answered GROUP_AUTHORIZATION_FAILED, first; the
// others go on to the coordinator.
#pragma once

#include <string>
#include <vector>

#include "broker/request_context.h"

namespace ketch::broker {

// Appends a GROUP_AUTHORIZATION_FAILED row to `rows` for each refused id;
// returns the ids that may be described, in request order.
template <class Rows>
std::vector<std::string> describable_groups(request_context& ctx, const std::vector<std::string>& ids, Rows& rows) {
    std::vector<std::string> allowed;
    for (auto& id : ids) {
        if (ctx.authorize(security::acl_operation::describe, security::resource_type::group, id)) {
            allowed.push_back(id);
            continue;
        }
        auto& out = rows.emplace_back();
        out.group_id = id;
        out.error_code = code(error_code::group_authorization_failed);
    }
    return allowed;
}

}  // namespace ketch::broker
