// The server-side assignors of KIP-848 consumer groups: "uniform" (Kafka's
// default, UniformAssignor with its homogeneous and heterogeneous builders)
// and "range" (RangeAssignor), Kafka 4.3.1's group.consumer.assignors.
//
// Contract (as Kafka's ConsumerGroupPartitionAssignor): every partition of a
// topic some member subscribes to goes to exactly one member that subscribes
// to it; no member gets a partition of a topic it does not subscribe to.
// uniform: the partition counts of members subscribing to the same topics
// differ by at most one, and a partition stays with its current owner when
// that keeps the balance (sticky). range: per topic, the members subscribing
// to it (sorted by member id) get contiguous ranges, the first ones one
// partition more when the count does not divide.
//
// ketch difference: the exact partitions a member gets may differ from
// Kafka's (Kafka's builders iterate hash maps and break ties otherwise);
// range is not sticky across epochs as Kafka's is when the member set of a
// topic does not change.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "group/consumer_api.h"

namespace ketch::group {

struct assignor_member {
    std::string member_id;
    std::set<uuid> topics;     // subscribed topics that exist
    topic_partitions current;  // the member's current target assignment
};

struct assignor_input {
    std::vector<assignor_member> members;  // sorted by member id
    std::map<uuid, int32_t> partitions;    // partition count of each subscribed topic
};

using assignment_map = std::map<std::string, topic_partitions>;

inline constexpr std::string_view default_assignor = "uniform";
bool is_known_assignor(std::string_view name);
// "uniform, range": the names as Kafka's UNSUPPORTED_ASSIGNOR message lists them.
std::string known_assignors();

assignment_map assign_uniform(const assignor_input& in);
assignment_map assign_range(const assignor_input& in);
// By name; an unknown name assigns with the default.
assignment_map assign(std::string_view name, const assignor_input& in);

}  // namespace ketch::group
