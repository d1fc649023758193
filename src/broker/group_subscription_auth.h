// The authorization a consumer or share group's heartbeat asks for before
// the coordinator sees it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "broker/request_context.h"

namespace ketch::broker {

// A consumer or share group's heartbeat (KafkaApis.handleConsumerGroupHeartbeat,
// handleShareGroupHeartbeat): READ on the group, then DESCRIBE on every
// subscribed topic named. The first refusal's code, or NONE.
error_code authorize_group_subscription(const request_context& ctx, const std::string& group_id,
                                        const std::optional<std::vector<std::string>>& topics);

}  // namespace ketch::broker
