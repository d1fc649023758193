// The KIP-848 consumer protocol's requests and answers as domain structs
// (ConsumerGroupHeartbeat, ConsumerGroupDescribe), and the view of the
// cluster's topics the coordinator assigns from. Field names follow Kafka's
// schemas in snake_case.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/error_code.h"
#include "base/uuid.h"
#include "group/modern.h"

namespace ketch::group {

// Partitions by topic id: an assignment, or what a member owns.
using topic_partitions = std::map<uuid, std::set<int32_t>>;

// One topic as the assignors see it.
struct topic_meta {
    std::string name;
    uuid id;
    int32_t partitions = 0;
    friend bool operator==(const topic_meta&, const topic_meta&) = default;
};

// The cluster's topics, read at every heartbeat (Kafka reads its metadata
// image). Implementations must be thread-safe; the coordinator calls it with
// its lock held, so it must not call back into the coordinator.
class topic_view {
public:
    virtual ~topic_view() = default;
    virtual std::vector<topic_meta> topics() const = 0;
};

// ConsumerGroupHeartbeat. Optional fields are null when the member did not
// change them since its last heartbeat (the request's "null if unchanged").
struct consumer_heartbeat_args {
    std::string group_id;
    std::string member_id;  // v0: may be "" when joining (the coordinator makes one)
    int32_t member_epoch = 0;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    int32_t rebalance_timeout_ms = -1;
    std::optional<std::vector<std::string>> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;  // v1+
    std::optional<std::string> server_assignor;
    std::optional<topic_partitions> owned;  // topic_partitions of the request
    int16_t api_version = 0;
    std::string client_id;
    std::string client_host;  // as Kafka shows it: "/127.0.0.1"
};

struct consumer_heartbeat_result {
    error_code error = error_code::none;
    std::optional<std::string> error_message;
    std::optional<std::string> member_id;
    int32_t member_epoch = 0;
    int32_t heartbeat_interval_ms = 0;
    std::optional<topic_partitions> assignment;  // null: unchanged
};

// ConsumerGroupDescribe.
struct described_topic_partitions {
    uuid topic_id;
    std::string topic_name;
    std::vector<int32_t> partitions;
};

struct described_consumer_member : described_modern_member {
    std::vector<std::string> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;
    std::vector<described_topic_partitions> assignment;
    std::vector<described_topic_partitions> target_assignment;
    bool uses_classic_protocol = false;  // MemberType (v1): classic or consumer
};

struct described_consumer_group : described_modern_group {
    std::string assignor_name;
    std::vector<described_consumer_member> members;
};

}  // namespace ketch::group
