// The membership of a group as it is kept in the offset store's group row
// (meta::stored_group::state), so that a restarted broker has its groups
// back with their members, generation/epochs and assignments, as Kafka has
// after replaying GroupMetadataValue (classic) and the ConsumerGroup*
// records (KIP-848) of __consumer_offsets.
//
// Format: a JSON object, {"type":"classic",...} or {"type":"consumer",...};
// bytes (member metadata, assignments) as lower-case hex, topic ids as
// Kafka's base64. Written by the coordinator only; an unreadable blob loads
// as no membership.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "group/classic_group.h"
#include "group/consumer_group.h"
#include "group/streams_group.h"

namespace ketch::group {

// A classic group's members as of its last completed SyncGroup
// (GroupMetadataValue): the selected protocol, the leader and, per member,
// its one metadata for that protocol and its assignment.
struct classic_record {
    std::string protocol_name;
    std::string leader;
    int64_t state_timestamp_ms = -1;      // when the group entered its state (currentStateTimestamp); -1: unknown
    std::vector<classic_member> members;  // callbacks unset; protocols holds the selected one
};

std::string encode_classic(const classic_group& g);
std::string encode_consumer(const consumer_group& g);
// {"type":"streams",...} (streams_record.cc)
std::string encode_streams(const streams_group& g);
std::optional<streams_group> decode_streams(const std::string& id, const std::string& blob);

// The type of a blob: "classic", "consumer", or "" when unreadable/empty.
std::string record_type(const std::string& blob);
std::optional<classic_record> decode_classic(const std::string& blob);
// A consumer group with its epochs, members, target and subscription metadata.
std::optional<consumer_group> decode_consumer(const std::string& id, const std::string& blob);

}  // namespace ketch::group
