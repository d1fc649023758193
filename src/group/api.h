// The coordinator's requests and answers as plain domain structs: what a
// broker handler fills from a decoded request and copies into a response.
// Field names follow Kafka's schemas in snake_case.
//
// Strings Kafka makes nullable in a response are std::optional here; a member
// id "" is Kafka's UNKNOWN_MEMBER_ID and generation -1 its UNKNOWN_GENERATION_ID.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/error_code.h"

namespace ketch::group {

// One (name, metadata) of a JoinGroup request, in the member's preference order.
struct protocol {
    std::string name;
    bytes metadata;
    friend bool operator==(const protocol&, const protocol&) = default;
};

// The member a classic-protocol request speaks for (SyncGroup, Heartbeat,
// OffsetCommit, TxnOffsetCommit): its group, the generation it was given, its
// member id and its static instance id (KIP-345, v3+ of SyncGroup and
// Heartbeat, v7+ of OffsetCommit).
struct member_ref {
    std::string group_id;
    int32_t generation_id = -1;
    std::string member_id;
    std::optional<std::string> group_instance_id;
};

// ---- JoinGroup ----
struct join_args {
    std::string group_id;
    std::string member_id;                         // "" for a new member
    std::optional<std::string> group_instance_id;  // v5+: static membership
    std::string protocol_type;
    std::vector<protocol> protocols;
    int32_t session_timeout_ms = 0;
    int32_t rebalance_timeout_ms = 0;  // v0 has none: the handler passes session_timeout_ms
    int16_t api_version = 0;           // v4+: MEMBER_ID_REQUIRED; v9+: skip_assignment
    std::string client_id;
    std::string client_host;            // as Kafka shows it: "/127.0.0.1"
    std::optional<std::string> reason;  // v8+; logged by Kafka, ignored here
};

struct join_member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    bytes metadata;
};

struct join_result {
    error_code error = error_code::none;
    int32_t generation_id = -1;
    std::optional<std::string> protocol_type;
    // Kafka normalises null and "" by version (null from v7), so "" stands for both.
    std::string protocol_name;
    std::string leader;
    bool skip_assignment = false;
    std::string member_id;
    std::vector<join_member> members;  // only the leader gets them
};

// ---- SyncGroup ----
struct sync_assignment {
    std::string member_id;
    bytes assignment;
};

struct sync_args : member_ref {
    std::optional<std::string> protocol_type;  // v5+
    std::optional<std::string> protocol_name;  // v5+
    std::vector<sync_assignment> assignments;  // the leader's
};

struct sync_result {
    error_code error = error_code::none;
    std::optional<std::string> protocol_type;
    std::optional<std::string> protocol_name;
    bytes assignment;
};

// ---- Heartbeat ----
struct heartbeat_args : member_ref {};

// ---- LeaveGroup ----
struct leave_member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::optional<std::string> reason;
};

struct leave_args {
    std::string group_id;
    // v0-2 carry one member id: the handler passes it as one entry (Kafka's
    // LeaveGroupRequest.normalizedData does the same).
    std::vector<leave_member> members;
};

struct leave_member_result {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    error_code error = error_code::none;
};

struct leave_result {
    error_code error = error_code::none;  // group level
    std::vector<leave_member_result> members;
};

// ---- OffsetCommit ----
struct commit_partition {
    int32_t partition = 0;
    int64_t offset = 0;
    int32_t leader_epoch = -1;  // v6+
    std::optional<std::string> metadata;
};

struct commit_topic {
    std::string name;  // v10 carries topic ids: the handler resolves them
    std::vector<commit_partition> partitions;
};

// The member's generation_id is the request's generation_id_or_member_epoch.
struct commit_args : member_ref {
    int64_t retention_time_ms = -1;  // v2-4; -1: the broker's retention
    int16_t api_version = 0;         // v9+: GROUP_ID_NOT_FOUND for an unknown group
    std::vector<commit_topic> topics;
};

struct partition_error {
    int32_t partition = 0;
    error_code error = error_code::none;
};

struct topic_errors {
    std::string name;
    std::vector<partition_error> partitions;
};

struct commit_result {
    std::vector<topic_errors> topics;  // every requested partition, in request order
};

// ---- OffsetFetch ----
struct fetch_topic {
    std::string name;
    std::vector<int32_t> partitions;
};

struct fetch_args {
    std::string group_id;
    std::optional<std::vector<fetch_topic>> topics;  // nullopt: every committed offset
    bool require_stable = false;                     // v7+; nothing is pending without transactions
    std::optional<std::string> member_id;            // v9+ (KIP-848 groups only)
    int32_t member_epoch = -1;
};

struct fetch_partition {
    int32_t partition = 0;
    int64_t offset = -1;
    int32_t leader_epoch = -1;
    std::string metadata;
    error_code error = error_code::none;
};

struct fetch_topic_result {
    std::string name;
    std::vector<fetch_partition> partitions;
};

struct fetch_result {
    error_code error = error_code::none;  // group level
    std::vector<fetch_topic_result> topics;
};

// ---- OffsetDelete ----
struct offset_delete_args {
    std::string group_id;
    std::vector<fetch_topic> topics;  // (name, partitions)
};

struct offset_delete_result {
    error_code error = error_code::none;  // group level; topics empty when set
    std::vector<topic_errors> topics;
};

// ---- DeleteGroups ----
struct delete_group_result {
    std::string group_id;
    error_code error = error_code::none;
};

// ---- ListGroups ----
struct list_groups_args {
    std::vector<std::string> states_filter;  // v4+; empty: any state
    std::vector<std::string> types_filter;   // v5+; empty: any type
    std::string id_prefix;                   // only the ids starting with it (a tenant's "T~"); empty: all
};

struct listed_group {
    std::string group_id;
    std::string protocol_type;
    std::string group_state;
    std::string group_type;
};

// ---- DescribeGroups ----
struct described_member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    bytes member_metadata;  // empty unless the group is Stable
    bytes member_assignment;
};

struct described_group {
    error_code error = error_code::none;
    std::optional<std::string> error_message;  // v6+
    std::string group_id;
    std::string group_state;
    std::string protocol_type;
    std::string protocol_data;  // the selected protocol when Stable, else ""
    std::vector<described_member> members;
};

}  // namespace ketch::group
