// What AlterShareGroupOffsets and DeleteShareGroupOffsets answer before they
// look at the topics (KafkaApis.handleAlter/DeleteShareGroupOffsetsRequest).
#pragma once

#include <string>

#include "broker/request_context.h"

namespace ketch::broker {

// UNSUPPORTED_VERSION without share groups, GROUP_AUTHORIZATION_FAILED
// without `op` on the group, NONE to go on.
inline error_code share_offsets_refusal(const request_context& ctx, security::acl_operation op,
                                        const std::string& group_id) {
    if (!ctx.broker.shares) return error_code::unsupported_version;
    if (!ctx.authorize(op, security::resource_type::group, group_id)) return error_code::group_authorization_failed;
    return error_code::none;
}

}  // namespace ketch::broker
