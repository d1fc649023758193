// What KIP-848 consumer groups and KIP-1071 streams groups have in common,
// whatever their type (Kafka's modern/ModernGroupMember.java and
// ModernGroup.java, 4.3.1): a member's ids, client, rebalance timeout and
// epochs, and the head of a member's and a group's describe answers. consumer_member
// (consumer_group.h) and streams_member (streams_group.h) add what their
// protocol subscribes to and is assigned.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/error_code.h"

namespace ketch::group {

struct modern_member {
    std::string member_id;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    std::string client_id;
    std::string client_host;
    int32_t rebalance_timeout_ms = -1;
    int32_t member_epoch = 0;
    int32_t previous_member_epoch = 0;

    friend bool operator==(const modern_member&, const modern_member&) = default;
};

// ConsumerGroupDescribe's and StreamsGroupDescribe's member, before its
// type's own fields.
struct described_modern_member {
    std::string member_id;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    int32_t member_epoch = 0;
    std::string client_id;
    std::string client_host;

    // These fields of `m`, known to its group as `id`.
    void describe(const std::string& id, const modern_member& m) {
        member_id = id;
        instance_id = m.instance_id;
        rack_id = m.rack_id;
        member_epoch = m.member_epoch;
        client_id = m.client_id;
        client_host = m.client_host;
    }
};

// ConsumerGroupDescribe's and StreamsGroupDescribe's group, before its
// type's own fields.
struct described_modern_group {
    error_code error = error_code::none;
    std::optional<std::string> error_message;
    std::string group_id;
    std::string group_state;
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
};

}  // namespace ketch::group
