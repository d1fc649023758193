// What `ketch group describe` shows of one group, whichever protocol it
// speaks: DescribeGroups for classic groups, ConsumerGroupDescribe for
// consumer groups (KIP-848), which DescribeGroups answers GROUP_ID_NOT_FOUND
// ("Group G is not a classic group") — Kafka's Admin.describeConsumerGroups
// asks both the same way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/client.h"
#include "cli/group_offsets.h"

namespace ketch::cli {

struct group_view {
    struct member {
        std::string member_id, client_id, client_host;
        std::optional<std::string> instance_id;
        std::optional<int32_t> member_epoch;      // consumer groups
        std::vector<topic_partition> assignment;  // consumer groups (classic: in the opaque protocol data)
    };
    std::string state;
    std::string protocol_type;     // "consumer" for both; "" for an empty classic group
    std::string protocol;          // classic: the chosen protocol (assignor); consumer: the broker's assignor
    std::string type;              // "classic" or "consumer"
    std::optional<int32_t> epoch;  // consumer groups: the group epoch
    std::vector<member> members;
};

// Throws kafka_error (GROUP_ID_NOT_FOUND for no such group).
group_view describe_group(client& c, const std::string& id);

}  // namespace ketch::cli
