// The embedded consumer protocol (clients' ConsumerProtocolSubscription and
// ConsumerProtocolAssignment, versions 0-3) as far as the coordinator needs
// it: the topics of a classic member's subscription (OffsetDelete, expiry),
// and, for online migration between the classic and the consumer protocol
// (GroupMetadataManager, Kafka 4.3.1), a member's whole subscription and the
// assignment bytes a classic member gets from SyncGroup.
//
// Like Kafka's ConsumerProtocol, a version above 3 is read as version 3 (its
// later fields are ignored) and a negative version is malformed. The bytes
// are decoded and encoded by the generated types of Kafka's schemas
// (protocol/messages/consumer_protocol_*.h, tools/kgen): the one part of the
// generated codec the group layer links (docs/design/group_coordinator.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/bytes.h"

namespace ketch::group {

inline constexpr const char* consumer_protocol_type = "consumer";

// Partitions by topic name, as the embedded protocol carries them.
using named_partitions = std::map<std::string, std::set<int32_t>>;

struct consumer_subscription {
    int16_t version = 0;
    std::vector<std::string> topics;
    named_partitions owned;              // v1+
    int32_t generation_id = -1;          // v2+
    std::optional<std::string> rack_id;  // v3+
};

// Topic partitions in the payload's own order, repeats kept (what the parsers
// below fold into named_partitions).
using partition_list = std::vector<std::pair<std::string, std::vector<int32_t>>>;

// A payload's fields exactly as its bytes hold them, for showing it
// faithfully (tools/conform); parse_subscription and parse_assignment are
// built on these. Fields are read by the payload's own version, capped at 3.
struct subscription_fields {
    int16_t version = 0;
    std::vector<std::string> topics;
    bool null_user_data = true;
    partition_list owned;                // v1+
    int32_t generation_id = -1;          // v2+
    std::optional<std::string> rack_id;  // v3+
    bool trailing_bytes = false;         // bytes left after the last field
};
struct assignment_fields {
    int16_t version = 0;
    partition_list partitions;
    bool null_user_data = true;
    bool user_data = false;  // non-empty user data
    bool trailing_bytes = false;
};
// nullopt if malformed (Kafka: SchemaException).
std::optional<subscription_fields> read_subscription(byte_view metadata);
std::optional<assignment_fields> read_assignment(byte_view bytes);

// The subscribed topics; nullopt if the bytes are not a valid subscription.
std::optional<std::set<std::string>> subscription_topics(byte_view metadata);
// The whole subscription; nullopt if malformed (Kafka: SchemaException).
std::optional<consumer_subscription> parse_subscription(byte_view metadata);
// The version a subscription or assignment starts with; nullopt if malformed.
std::optional<int16_t> protocol_version(byte_view bytes);

// A ConsumerProtocolAssignment's partitions; nullopt if malformed.
// `user_data` (if given) tells whether it carries non-empty user data.
std::optional<named_partitions> parse_assignment(byte_view bytes, bool* user_data = nullptr);
// ConsumerProtocol.serializeAssignment: `version` (capped at 3), topics in
// name order, partitions ascending, null user data.
bytes encode_assignment(const named_partitions& partitions, int16_t version);

}  // namespace ketch::group
