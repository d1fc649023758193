// The shape the group Describe APIs share (KafkaApis.handleDescribeGroupsRequest,
// handleConsumerGroupDescribe, handleShareGroupDescribe,
// handleStreamsGroupDescribe): the groups the caller may not DESCRIBE are
// answered GROUP_AUTHORIZATION_FAILED, first; the others go on to the
// coordinator, and each answer is a row, with the group's authorized
// operations when the request asks for them.
#pragma once

#include <string>
#include <vector>

#include "base/error_code.h"
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

// Utils.to32BitField over the AclOperation codes a group has: READ(3),
// DELETE(6), DESCRIBE(8), DESCRIBE_CONFIGS(10), ALTER_CONFIGS(11) (3400, as
// Kafka 4.3.1 answers).
inline constexpr int32_t k_group_operations = (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11);

// A row in `rows` for each group the coordinator described, filled by
// fill(row, group); with `with_operations`, a group that was found also
// carries the operations the caller may do on it.
template <class Rows, class Groups, class Fill>
void described_group_rows(request_context& ctx, Rows& rows, Groups&& groups, bool with_operations, Fill&& fill) {
    for (auto& g : groups) {
        auto& out = rows.emplace_back();
        const bool found = g.error == error_code::none;
        fill(out, g);
        if (with_operations && found)
            out.authorized_operations =
                authorized_operations(ctx, security::resource_type::group, out.group_id, k_group_operations);
    }
}

}  // namespace ketch::broker
